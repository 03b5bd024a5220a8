//! The dominator tree as child lists (for top-level dominators, `dominators(x)` and the
//! leak-suspect accumulation-point walk).

use crate::{SparseCsr, NONE};
use heapql_heap::{BigArray, Placement};
use std::cmp::Reverse;

/// Lists longer than this are sorted in place with the sizes looked up per comparison;
/// shorter ones through a buffer of (size, node) pairs, each size read once.
const BUFFERED_SORT: usize = 1 << 16;

/// Children of every node in the dominator tree given by `idom` (the root's own entry, equal
/// to itself, and unreachable nodes are left out), each list sorted by `key` descending, then
/// by node ascending (MAT lists dominated objects biggest first). Sparse: most nodes dominate
/// nothing, so no offset is kept for them. The lists are placed by `place` (built once, then
/// only read).
///
/// Two passes over `idom` in node order: the list lengths into a node-indexed array (4 B per
/// node, in memory: incremented at random), then the fill, that array serving as the lists'
/// write cursors. Memory besides the result: that array.
pub fn dominator_children(idom: &[u32], key: impl Fn(u32) -> u64, place: &Placement) -> SparseCsr {
    dominator_children_with(idom, key, place, Vec::new())
}

/// `dominator_children` with the node-indexed array in `buffer`'s memory (a vector no longer
/// needed, of any contents: pages already in memory cost no page fault each).
pub fn dominator_children_with(idom: &[u32], key: impl Fn(u32) -> u64, place: &Placement, buffer: Vec<u32>) -> SparseCsr {
    let n = idom.len();
    let mut cursor = buffer;
    cursor.clear();
    cursor.resize(n, 0);
    let mut edges = 0u32;
    for (v, &d) in idom.iter().enumerate() {
        if d != NONE && d != v as u32 {
            cursor[d as usize] += 1;
            edges += 1;
        }
    }
    // The bitmap of non-empty lists with its ranks; the lengths become start positions.
    let mut words = vec![0u64; n.div_ceil(64)];
    let mut rank = vec![0u32; words.len()];
    let (mut lists, mut sum) = (0u32, 0u32);
    for (w, chunk) in cursor.chunks_mut(64).enumerate() {
        rank[w] = lists;
        let mut word = 0u64;
        for (bit, c) in chunk.iter_mut().enumerate() {
            let len = *c;
            if len > 0 {
                word |= 1 << bit;
                lists += 1;
            }
            *c = sum;
            sum += len;
        }
        words[w] = word;
    }
    let mut targets: BigArray<u32> = BigArray::zeroed(edges as usize, place);
    for (v, &d) in idom.iter().enumerate() {
        if d != NONE && d != v as u32 {
            let at = &mut cursor[d as usize];
            targets[*at as usize] = v as u32;
            *at += 1;
        }
    }
    // Each cursor now holds the end of its list: the starts of the non-empty lists follow.
    let mut starts: Vec<u32> = Vec::with_capacity(lists as usize + 1);
    starts.push(0);
    for (w, &word) in words.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            starts.push(cursor[w * 64 + bits.trailing_zeros() as usize]);
            bits &= bits - 1;
        }
    }
    drop(cursor);
    let mut buf: Vec<(Reverse<u64>, u32)> = Vec::new();
    for k in 0..lists as usize {
        let list = &mut targets[starts[k] as usize..starts[k + 1] as usize];
        if list.len() < 2 {
            continue;
        }
        if list.len() > BUFFERED_SORT {
            list.sort_unstable_by(|&a, &b| key(b).cmp(&key(a)).then(a.cmp(&b)));
            continue;
        }
        buf.clear();
        buf.extend(list.iter().map(|&v| (Reverse(key(v)), v)));
        buf.sort_unstable();
        for (t, &(_, v)) in list.iter_mut().zip(&buf) {
            *t = v;
        }
    }
    SparseCsr { words, rank, starts: BigArray::from_vec(starts, place), targets }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lists as the definition says: children in node order, sorted by key descending
    /// then node ascending.
    fn naive(idom: &[u32], key: &dyn Fn(u32) -> u64) -> Vec<Vec<u32>> {
        let mut lists = vec![Vec::new(); idom.len()];
        for (v, &d) in idom.iter().enumerate() {
            if d != NONE && d != v as u32 {
                lists[d as usize].push(v as u32);
            }
        }
        for l in &mut lists {
            l.sort_by(|&a, &b| key(b).cmp(&key(a)).then(a.cmp(&b)));
        }
        lists
    }

    #[test]
    fn children_sorted_by_key_in_both_placements() {
        // A tree over 300 nodes crossing several bitmap words, with unreachable nodes, equal
        // keys (ties by node), one list longer than the buffered sort takes.
        let n = 300 + BUFFERED_SORT as u32 + 5;
        let idom: Vec<u32> = (0..n)
            .map(|v| match v {
                0 => 0,
                _ if v % 17 == 5 => NONE,
                _ if v > 300 => 7,
                _ => (v * 7 + 3) % v.max(1) / 2,
            })
            .collect();
        let key = |v: u32| (v as u64 * 2654435761) % 13 + if v % 50 == 1 { 1 << 40 } else { 0 };
        let want = naive(&idom, &key);
        let dir = tempfile::tempdir().unwrap();
        for place in [Placement::Memory, Placement::Files(std::sync::Arc::from(dir.path()))] {
            let tree = dominator_children(&idom, key, &place);
            // A used buffer (shorter, then longer than the node count) changes nothing.
            let reused = dominator_children_with(&idom, key, &place, vec![7; n as usize / 2]);
            let longer = dominator_children_with(&idom, key, &place, vec![9; n as usize * 2]);
            for v in 0..n {
                assert_eq!(tree.successors(v), &want[v as usize][..], "node {v}");
                assert_eq!(reused.successors(v), &want[v as usize][..], "node {v}");
                assert_eq!(longer.successors(v), &want[v as usize][..], "node {v}");
            }
        }
        let empty = dominator_children(&[], key, &Placement::Memory);
        assert_eq!(empty.starts.len(), 1);
    }
}
