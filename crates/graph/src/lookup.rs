//! Point look-ups on the full analysis for one object: who refers to it (with the field that
//! holds each reference) and where it sits in the dominator tree. Each reads the referrer
//! index or the dominator tree's lists for that object only.

use heapql_heap::{Heap, ObjIdx};

use crate::analysis::{edge_label, FullAnalysis};

/// The first `limit` referrers of `o` (ascending object index) with the field of each that
/// holds the reference, and how many referrers there are in all.
pub fn referrers(analysis: &FullAnalysis, heap: &Heap, o: ObjIdx, limit: usize) -> (Vec<(ObjIdx, String)>, u64) {
    let all = analysis.inbound(o);
    let shown = all.iter().take(limit).map(|&from| (from, edge_label(heap, from, o))).collect();
    (shown, all.len() as u64)
}

/// Where `o` sits in the dominator tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DominatorView {
    /// The immediate dominator; None for a GC root, an unreachable pseudo-root, or an object
    /// outside the tree (`in_tree` false).
    pub dominator: Option<ObjIdx>,
    pub in_tree: bool,
    /// The first `limit` objects `o` immediately dominates, biggest retained size first.
    pub children: Vec<ObjIdx>,
    /// How many objects `o` immediately dominates.
    pub child_count: u64,
}

pub fn dominator_view(analysis: &FullAnalysis, o: ObjIdx, limit: usize) -> DominatorView {
    let in_tree = analysis.in_tree(o);
    let dominated = if in_tree { analysis.dominated(o) } else { &[] };
    DominatorView {
        dominator: if in_tree { analysis.immediate_dominator(o) } else { None },
        in_tree,
        children: dominated.iter().take(limit).copied().collect(),
        child_count: dominated.len() as u64,
    }
}
