//! What the executor needs from the full path (object graph, dominator tree, retained sizes).
//!
//! The executor does not depend on the graph crate's concrete types: the N-API door implements
//! this trait for the analyzed graph and passes it in `ExecContext::graph`. Without it, plans
//! that use these features fail with `ERR_NEEDS_ANALYSIS`.

use std::sync::atomic::AtomicBool;

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
    /// A shortest reference path from `from` to `to` (both included), None when `to` is not
    /// reachable from `from`. The default walks `outbounds` breadth-first up to `PATH_MAX_DEPTH`
    /// edges and `PATH_MAX_VISITED` objects, so one row cannot stall a query.
    fn path(&self, from: ObjIdx, to: ObjIdx) -> Option<Vec<ObjIdx>> {
        heapql_graph::bounded_path(from, to, PATH_MAX_DEPTH, PATH_MAX_VISITED, |o| self.outbounds(o))
    }
}

pub const PATH_MAX_DEPTH: usize = 32;
pub const PATH_MAX_VISITED: usize = 1_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded_path(from: ObjIdx, to: ObjIdx, succ: impl Fn(ObjIdx) -> Vec<ObjIdx>) -> Option<Vec<ObjIdx>> {
        heapql_graph::bounded_path(from, to, PATH_MAX_DEPTH, PATH_MAX_VISITED, succ)
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
    fn long_chain_is_bounded_by_depth() {
        let succ = |o: ObjIdx| vec![o + 1];
        assert!(bounded_path(0, PATH_MAX_DEPTH as u32, succ).is_some());
        assert!(bounded_path(0, PATH_MAX_DEPTH as u32 + 1, succ).is_none());
    }
}
