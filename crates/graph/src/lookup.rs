//! Point look-ups on the full analysis for one object: who refers to it (with the field that
//! holds each reference) and where it sits in the dominator tree. Each reads the referrer
//! index or the dominator tree's lists for that object only.

use heapql_heap::{Heap, ObjIdx};

use crate::analysis::{edge_label, FullAnalysis, PathStep};
use crate::object_graph::{node, obj};

/// The first `limit` referrers of `o` (ascending object index) with the field of each that
/// holds the reference, and how many referrers there are in all.
pub fn referrers(analysis: &FullAnalysis, heap: &Heap, o: ObjIdx, limit: usize) -> (Vec<(ObjIdx, String)>, u64) {
    let all = analysis.inbound(o);
    let shown = all.iter().take(limit).map(|&from| (from, edge_label(heap, from, o))).collect();
    (shown, all.len() as u64)
}

/// Why an object of the dominator tree has no immediate dominator: only the virtual root is
/// above it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopOfTree {
    /// A GC root of the analysis (a root record the analysis does not take as a reference from a
    /// thread).
    GcRoot,
    /// Reachable through more than one GC root: no object lies on every path to it.
    Shared,
    /// Unreachable: a pseudo-root of its own tree under the virtual root.
    Unreachable,
}

/// Where `o` sits in the dominator tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DominatorView {
    /// The immediate dominator; None for a GC root, an unreachable pseudo-root, or an object
    /// outside the tree (`in_tree` false).
    pub dominator: Option<ObjIdx>,
    pub in_tree: bool,
    /// Why an object of the tree has no dominator; None when it has one or is outside the tree.
    pub top: Option<TopOfTree>,
    /// The first `limit` objects `o` immediately dominates, biggest retained size first.
    pub children: Vec<ObjIdx>,
    /// How many objects `o` immediately dominates.
    pub child_count: u64,
}

pub fn dominator_view(analysis: &FullAnalysis, o: ObjIdx, limit: usize) -> DominatorView {
    let in_tree = analysis.in_tree(o);
    let dominated = if in_tree { analysis.dominated(o) } else { &[] };
    let dominator = if in_tree { analysis.immediate_dominator(o) } else { None };
    DominatorView {
        dominator,
        in_tree,
        top: (in_tree && dominator.is_none()).then(|| top_of_tree(analysis, o)),
        children: dominated.iter().take(limit).copied().collect(),
        child_count: dominated.len() as u64,
    }
}

/// Why `o`, a child of the virtual root, has no other dominator: the graph's root lists say
/// whether it is a GC root; otherwise an unreachable one is a pseudo-root and a reachable one is
/// held through several roots.
fn top_of_tree(analysis: &FullAnalysis, o: ObjIdx) -> TopOfTree {
    let graph = analysis.graph();
    if graph.gc_roots().binary_search(&node(o)).is_ok() {
        TopOfTree::GcRoot
    } else if graph.is_reachable(node(o)) {
        TopOfTree::Shared
    } else {
        TopOfTree::Unreachable
    }
}

/// A path from a GC root to an object, with the middle of a long one left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathWindow {
    /// The first `head` steps from the root and the last `tail` steps to the object.
    pub steps: Vec<PathStep>,
    /// Steps left out between `steps[gap_at - 1]` and `steps[gap_at]` (0: the whole path).
    pub skipped: u64,
    pub gap_at: usize,
}

/// A shortest path from a GC root to `o` (root first) whose steps beyond `head + tail` are left
/// out in the middle; only the steps shown are labelled. None when `o` hangs off no root.
pub fn path_to_root_window(analysis: &FullAnalysis, heap: &Heap, o: ObjIdx, head: usize, tail: usize) -> Option<PathWindow> {
    let nodes = analysis.path_nodes_to_root(o)?;
    let len = nodes.len() - 1; // steps: edges after the virtual root
    let (shown, skipped, gap_at): (Vec<usize>, u64, usize) = if len <= head + tail {
        ((0..len).collect(), 0, len)
    } else {
        ((0..head).chain(len - tail..len).collect(), (len - head - tail) as u64, head)
    };
    let steps = shown
        .into_iter()
        .map(|i| {
            let (from, to) = (nodes[i], nodes[i + 1]);
            let label = if from == 0 { analysis.root_label(heap, obj(to)) } else { edge_label(heap, obj(from), obj(to)) };
            PathStep { object: obj(to), label }
        })
        .collect();
    Some(PathWindow { steps, skipped, gap_at })
}

/// Android: the retained size of each of `objects` split by heap — per object, the shallow
/// sizes of the objects of its retained set (its subtree in the dominator tree, itself
/// included) summed per heap number (`Heap::heap_of`; an object in no heap, a class object the
/// index made up, counts in none). Empty vectors for a dump that records no heaps; zeros for an
/// object outside the tree.
///
/// Smaller retained sets are summed first, and a walk that meets an object whose sums are
/// known adds them instead of walking its subtree again, so nested objects (the big
/// dominators a level below another) cost one walk of the largest subtrees in all. Iterative,
/// and nothing allocated per object walked.
pub fn retained_by_heap(analysis: &FullAnalysis, heap: &Heap, objects: &[ObjIdx]) -> Vec<Vec<u64>> {
    let heaps = heap.heap_names().len();
    if heaps == 0 {
        return vec![Vec::new(); objects.len()];
    }
    let mut out = vec![vec![0u64; heaps]; objects.len()];
    // Each distinct object of the tree once, smaller retained sets first; `done` maps an
    // object summed already to its place in `out`.
    let mut order: Vec<usize> = (0..objects.len()).filter(|&i| analysis.in_tree(objects[i])).collect();
    order.sort_by_key(|&i| (analysis.retained_size(objects[i]), objects[i], i));
    let mut done: rustc_hash::FxHashMap<ObjIdx, usize> = rustc_hash::FxHashMap::default();
    let mut stack: Vec<ObjIdx> = Vec::new();
    for i in order {
        let o = objects[i];
        if let Some(&j) = done.get(&o) {
            out[i] = out[j].clone();
            continue;
        }
        let mut sums = vec![0u64; heaps];
        stack.push(o);
        while let Some(v) = stack.pop() {
            if v != o {
                if let Some(&j) = done.get(&v) {
                    for (s, x) in sums.iter_mut().zip(&out[j]) {
                        *s += x;
                    }
                    continue;
                }
            }
            if let Some(k) = heap.heap_of(v) {
                sums[k as usize] += heap.shallow_size(v);
            }
            stack.extend_from_slice(analysis.dominated(v));
        }
        out[i] = sums;
        done.insert(o, i);
    }
    out
}
