//! What the executor needs from the full path (object graph, dominator tree, retained sizes).
//!
//! The executor does not depend on the graph crate's concrete types: the N-API door implements
//! this trait for the analyzed graph and passes it in `ExecContext::graph`. Without it, plans
//! that use these features fail with `ERR_NEEDS_ANALYSIS`.

use std::sync::atomic::AtomicBool;

use heapql_graph::PathSearch;
use heapql_heap::ObjIdx;

/// Object indices are the heap's dense indices (`heapql_heap::ObjIdx`).
pub trait GraphView: Sync {
    /// Retained size in bytes (the object's dominator subtree); None for an object outside
    /// the dominator tree (unreachable, the analysis built reachable-only), which has none:
    /// `@retainedHeapSize` is NULL there, so aggregates and ORDER BY never read it as 0.
    fn retained_size(&self, o: ObjIdx) -> Option<u64>;
    /// Immediate dominator; None when the object hangs off the virtual root (a GC root,
    /// or an unreachable object kept as a pseudo-root) or is outside the tree.
    fn immediate_dominator(&self, o: ObjIdx) -> Option<ObjIdx>;
    /// Children in the dominator tree, biggest retained size first; None for an object
    /// outside the tree (as `retained_size`).
    fn dominated(&self, o: ObjIdx) -> Option<Vec<ObjIdx>>;
    /// Distinct referrers.
    fn inbounds(&self, o: ObjIdx) -> Vec<ObjIdx>;
    /// Distinct referents (the class first, as MAT lists them).
    fn outbounds(&self, o: ObjIdx) -> Vec<ObjIdx>;
    /// Whether the object is reachable from a GC root.
    fn is_reachable(&self, o: ObjIdx) -> bool;
    /// Retained set of a set of objects (objects only reachable through the set, the set
    /// included), ascending. Checks `cancel` now and then; returns None when cancelled.
    fn retained_set(&self, objects: &[ObjIdx], cancel: &AtomicBool) -> Option<Vec<ObjIdx>>;
    /// A shortest reference path from `from` to `to` (both included); `NoPath` when `to` is
    /// not reachable from `from`, `GaveUp` when the search visited `max_visited` objects
    /// (`PATH_MAX_VISITED`) without finding it (so one row's memory and time stay bounded).
    /// Breadth-first over `outbounds`, of any length.
    fn path(&self, from: ObjIdx, to: ObjIdx, max_visited: usize) -> PathSearch {
        heapql_graph::search_path(from, to, usize::MAX, max_visited, |o| self.outbounds(o))
    }
}

/// The most objects one `path(a, b)` search visits (its memory: about 20 bytes each) before
/// it gives up, NULL with a note on the result.
pub const PATH_MAX_VISITED: usize = 4_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded_path(from: ObjIdx, to: ObjIdx, succ: impl Fn(ObjIdx) -> Vec<ObjIdx>) -> Option<Vec<ObjIdx>> {
        heapql_graph::search_path(from, to, usize::MAX, PATH_MAX_VISITED, succ).found()
    }

    #[test]
    fn shortest_path_in_a_small_graph() {
        // 0 -> 1 -> 2 -> 3, 0 -> 3 (shortcut), 4 isolated
        let succ = |o: ObjIdx| -> Vec<ObjIdx> {
            match o {
                0 => vec![1, 3],
                1 => vec![2],
                2 => vec![3],
                _ => vec![],
            }
        };
        assert_eq!(bounded_path(0, 3, succ), Some(vec![0, 3]));
        assert_eq!(bounded_path(1, 3, succ), Some(vec![1, 2, 3]));
        assert_eq!(bounded_path(0, 4, succ), None);
        assert_eq!(bounded_path(2, 2, succ), Some(vec![2]));
    }

    #[test]
    fn a_long_chain_is_followed_to_the_end_and_a_bigger_search_gives_up() {
        let chain = |o: ObjIdx| vec![o + 1];
        // Far longer than the old 32-step bound.
        assert_eq!(bounded_path(0, 5000, chain).map(|p| p.len()), Some(5001));
        let search = |to| heapql_graph::search_path(0, to, usize::MAX, PATH_MAX_VISITED, chain);
        assert_eq!(search(PATH_MAX_VISITED as u32 + 10), PathSearch::GaveUp);
        let ends = |o: ObjIdx| if o < 10 { vec![o + 1] } else { vec![] };
        assert_eq!(heapql_graph::search_path(0, 99, usize::MAX, PATH_MAX_VISITED, ends), PathSearch::NoPath);
    }
}
