//! `GraphView` over the graph crate's `FullAnalysis`, so the door only has to pass
//! `AnalysisView::new(&heap, &analysis)` in `ExecContext::graph`.

use std::sync::atomic::AtomicBool;

use heapql_graph::analysis::FullAnalysis;
use heapql_heap::{Heap, ObjIdx};

use heapql_graph::PathSearch;

use crate::graph_view::GraphView;

pub struct AnalysisView<'a> {
    heap: &'a Heap,
    analysis: &'a FullAnalysis,
}

impl<'a> AnalysisView<'a> {
    pub fn new(heap: &'a Heap, analysis: &'a FullAnalysis) -> AnalysisView<'a> {
        AnalysisView { heap, analysis }
    }
}

impl GraphView for AnalysisView<'_> {
    fn retained_size(&self, o: ObjIdx) -> Option<u64> {
        self.analysis.retained(o)
    }
    fn immediate_dominator(&self, o: ObjIdx) -> Option<ObjIdx> {
        self.analysis.immediate_dominator(o)
    }
    fn dominated(&self, o: ObjIdx) -> Option<Vec<ObjIdx>> {
        self.analysis.in_tree(o).then(|| self.analysis.dominated(o).to_vec())
    }
    fn inbounds(&self, o: ObjIdx) -> Vec<ObjIdx> {
        self.analysis.inbound(o)
    }
    fn outbounds(&self, o: ObjIdx) -> Vec<ObjIdx> {
        self.analysis.outbound(o).collect()
    }
    fn is_reachable(&self, o: ObjIdx) -> bool {
        self.analysis.is_reachable(o)
    }
    fn retained_set(&self, objects: &[ObjIdx], _cancel: &AtomicBool) -> Option<Vec<ObjIdx>> {
        Some(self.analysis.retained_set(self.heap, objects).objects)
    }
    fn path(&self, from: ObjIdx, to: ObjIdx, max_visited: usize) -> PathSearch {
        self.analysis.path(from, to, usize::MAX, max_visited)
    }
}
