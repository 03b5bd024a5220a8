//! The dominator tree as child lists (for top-level dominators, `dominators(x)` and the
//! leak-suspect accumulation-point walk).

use crate::par::run_each;
use crate::SparseCsr;
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
/// write cursors. Memory besides the result: that array. The cores share the work by ranges
/// of dominators: each counts, fills and sorts the lists of its own range (reading all of
/// `idom` in order, writing only its part of the arrays).
pub fn dominator_children(idom: &[u32], key: impl Fn(u32) -> u64 + Sync, place: &Placement) -> SparseCsr {
    let n = idom.len();
    let mut cursor = vec![0u32; n];
    // Dominator ranges, whole bitmap words each.
    let threads = crate::par::cores(4);
    let threads = if n < 1 << 16 { 1 } else { threads };
    let step = n.div_ceil(threads).next_multiple_of(64).max(64);
    let bounds: Vec<usize> = (0..=threads).map(|k| (k * step).min(n)).collect();
    // `part.get_mut(d - lo)`: `d` in the range (`NONE`, no dominator, is never: it passes
    // every node number).
    let counts = in_parts(&bounds, &mut cursor, |lo, part| {
        let mut edges = 0u32;
        for (v, &d) in idom.iter().enumerate() {
            if let Some(c) = part.get_mut((d as usize).wrapping_sub(lo)) {
                if d != v as u32 {
                    *c += 1;
                    edges += 1;
                }
            }
        }
        edges
    });
    let edges: u32 = counts.iter().sum();
    // The bitmap of non-empty lists with its ranks; the lengths become start positions.
    let mut words = vec![0u64; n.div_ceil(64)];
    let mut rank = vec![0u32; words.len()];
    let (mut lists, mut sum) = (0u32, 0u32);
    // Per range: its first list and its first target.
    let (mut first_list, mut first_target) = (Vec::new(), Vec::new());
    for (w, chunk) in cursor.chunks_mut(64).enumerate() {
        if bounds.contains(&(w * 64)) {
            first_list.push(lists as usize);
            first_target.push(sum as usize);
        }
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
    while first_list.len() < bounds.len() {
        first_list.push(lists as usize);
        first_target.push(sum as usize);
    }
    let mut targets: BigArray<u32> = BigArray::zeroed(edges as usize, place);
    {
        let (mut cursors, mut outs) = (split(&mut cursor, &bounds), split(&mut targets, &first_target));
        run_each(cursors.iter_mut().zip(outs.iter_mut()).enumerate().map(|(k, (c, t))| {
            let (lo, base) = (bounds[k], first_target[k] as u32);
            move || {
                for (v, &d) in idom.iter().enumerate() {
                    if let Some(at) = c.get_mut((d as usize).wrapping_sub(lo)) {
                        if d != v as u32 {
                            t[(*at - base) as usize] = v as u32;
                            *at += 1;
                        }
                    }
                }
            }
        }));
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
    // Each range sorts its own lists.
    let (starts_ref, key) = (&starts, &key);
    let (first_list, first_target) = (&first_list, &first_target);
    run_each(split(&mut targets, first_target).into_iter().enumerate().map(|(k, part)| {
        move || {
            let base = first_target[k];
            let mut buf: Vec<(Reverse<u64>, u32)> = Vec::new();
            for l in first_list[k]..first_list[k + 1] {
                let list = &mut part[starts_ref[l] as usize - base..starts_ref[l + 1] as usize - base];
                sort_list(list, key, &mut buf);
            }
        }
    }));
    SparseCsr { words, rank, starts: BigArray::from_vec(starts, place), targets }
}

/// Sorts one list by `key` descending, then node ascending: the order of every child list
/// (MAT's, biggest first), and of the top-level dominators (`FullAnalysis::build`).
pub(crate) fn sort_list(list: &mut [u32], key: &impl Fn(u32) -> u64, buf: &mut Vec<(Reverse<u64>, u32)>) {
    if list.len() < 2 {
        return;
    }
    if list.len() > BUFFERED_SORT {
        list.sort_unstable_by(|&a, &b| key(b).cmp(&key(a)).then(a.cmp(&b)));
        return;
    }
    buf.clear();
    buf.extend(list.iter().map(|&v| (Reverse(key(v)), v)));
    buf.sort_unstable();
    for (t, &(_, v)) in list.iter_mut().zip(buf.iter()) {
        *t = v;
    }
}

/// `data` cut at the offsets `bounds` (ascending, the first 0 or more, the last at most the
/// length) into consecutive disjoint parts.
fn split<'a>(mut data: &'a mut [u32], bounds: &[usize]) -> Vec<&'a mut [u32]> {
    let mut parts = Vec::with_capacity(bounds.len());
    let mut at = bounds[0];
    data = &mut data[at..];
    for &b in &bounds[1..] {
        let (part, rest) = std::mem::take(&mut data).split_at_mut(b - at);
        parts.push(part);
        data = rest;
        at = b;
    }
    parts
}

/// Runs `f(first index, part)` on the parts of `data` cut at `bounds`, one thread each (the
/// first on the calling thread), and returns the answers in order.
fn in_parts<R: Send>(bounds: &[usize], data: &mut [u32], f: impl Fn(usize, &mut [u32]) -> R + Sync) -> Vec<R> {
    let f = &f;
    run_each(split(data, bounds).into_iter().zip(bounds.iter().copied()).map(|(part, lo)| move || f(lo, part)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NONE;

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
            for v in 0..n {
                assert_eq!(tree.successors(v), &want[v as usize][..], "node {v}");
            }
        }
        let empty = dominator_children(&[], key, &Placement::Memory);
        assert_eq!(empty.starts.len(), 1);
    }
}
