//! The dominator tree as child lists (for top-level dominators, `dominators(x)` and the
//! leak-suspect accumulation-point walk).

use crate::{SparseCsr, NONE};
use heapql_heap::Placement;

/// Children of every node in the dominator tree given by `idom` (the root's own entry, equal
/// to itself, and unreachable nodes are left out), each list sorted by `key` descending, then
/// by node ascending (MAT lists dominated objects biggest first). Sparse: most nodes dominate
/// nothing, so no offset is kept for them. The lists are placed by `place` (built once, then
/// only read).
pub fn dominator_children(idom: &[u32], key: impl Fn(u32) -> u64, place: &Placement) -> SparseCsr {
    let n = idom.len() as u32;
    let mut tree = SparseCsr::from_edges_in(n, place, |emit| {
        for (v, &d) in idom.iter().enumerate() {
            if d != NONE && d != v as u32 {
                emit(d, v as u32);
            }
        }
    });
    tree.for_each_list_mut(|list| {
        list.sort_unstable_by(|&a, &b| key(b).cmp(&key(a)).then(a.cmp(&b)));
    });
    tree
}
