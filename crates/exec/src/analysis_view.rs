//! `GraphView` over the graph crate's `FullAnalysis`, so the door only has to pass
//! `AnalysisView::new(&heap, &analysis)` in `ExecContext::graph`.

use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use heapql_graph::analysis::FullAnalysis;
use heapql_heap::{Heap, ObjIdx};

use crate::graph_view::{GraphView, PATH_MAX_VISITED};

pub struct AnalysisView<'a> {
    heap: &'a Heap,
    analysis: &'a FullAnalysis,
    /// Referrers of every object (CSR: offsets, then referrers ascending), built on the first
    /// `@inbounds`: FullAnalysis::inbound scans every edge per call, too slow per row.
    inbound: OnceLock<(Vec<u64>, Vec<ObjIdx>)>,
}

impl<'a> AnalysisView<'a> {
    pub fn new(heap: &'a Heap, analysis: &'a FullAnalysis) -> AnalysisView<'a> {
        AnalysisView { heap, analysis, inbound: OnceLock::new() }
    }

    fn inbound_index(&self) -> &(Vec<u64>, Vec<ObjIdx>) {
        self.inbound.get_or_init(|| {
            let n = self.heap.object_count() as usize;
            let mut offsets = vec![0u64; n + 1];
            for o in 0..n as u32 {
                for t in self.analysis.outbound(o) {
                    offsets[t as usize + 1] += 1;
                }
            }
            for i in 0..n {
                offsets[i + 1] += offsets[i];
            }
            let mut fill: Vec<u64> = offsets[..n].to_vec();
            let mut refs = vec![0 as ObjIdx; offsets[n] as usize];
            for o in 0..n as u32 {
                for t in self.analysis.outbound(o) {
                    refs[fill[t as usize] as usize] = o;
                    fill[t as usize] += 1;
                }
            }
            (offsets, refs)
        })
    }
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
        let (offsets, refs) = self.inbound_index();
        let mut v = refs[offsets[o as usize] as usize..offsets[o as usize + 1] as usize].to_vec();
        v.dedup();
        v
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
    fn path(&self, from: ObjIdx, to: ObjIdx) -> Option<Vec<ObjIdx>> {
        self.analysis.path(from, to, PATH_MAX_VISITED)
    }
}
