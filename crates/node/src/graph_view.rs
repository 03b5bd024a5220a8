//! Plugs the full analysis into the executor: the executor's `GraphView` over `FullAnalysis`.
//! Pure forwarding; the semantics live in the graph crate.

use std::sync::atomic::AtomicBool;

use heapql_exec::GraphView;
use heapql_graph::FullAnalysis;
use heapql_heap::{Heap, ObjIdx};

pub struct AnalysisView<'a> {
    pub analysis: &'a FullAnalysis,
    pub heap: &'a Heap,
}

impl GraphView for AnalysisView<'_> {
    fn retained_size(&self, o: ObjIdx) -> u64 {
        self.analysis.retained_size(o)
    }
    fn immediate_dominator(&self, o: ObjIdx) -> Option<ObjIdx> {
        self.analysis.immediate_dominator(o)
    }
    fn dominated(&self, o: ObjIdx) -> Vec<ObjIdx> {
        self.analysis.dominated(o).to_vec()
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
}
