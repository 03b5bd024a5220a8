//! Retained sizes (dominator subtree sums) and the retained set of a set of nodes.

use crate::{Dominators, Graph, NONE};
use fixedbitset::FixedBitSet;
use crate::object_graph::obj;
use heapql_heap::{Appender, BigArray, ObjIdx, Placement};
use rustc_hash::FxHashMap;

/// Retained sizes in 4 bytes per node: a value ≥ `u32::MAX` (4 GiB and more: the virtual
/// root, the few objects holding most of a big heap) is marked `u32::MAX` and kept in a small
/// table sorted by node.
pub struct RetainedSizes {
    pub(crate) small: BigArray<u32>,
    pub(crate) big: Vec<(u32, u64)>,
}

impl RetainedSizes {
    #[inline]
    pub fn get(&self, v: u32) -> u64 {
        match self.small[v as usize] {
            u32::MAX => {
                let i = self.big.binary_search_by_key(&v, |&(n, _)| n).expect("marked sizes are in the table");
                self.big[i].1
            }
            s => s as u64,
        }
    }

    pub fn len(&self) -> usize {
        self.small.len()
    }

    pub fn is_empty(&self) -> bool {
        self.small.is_empty()
    }

    pub fn heap_bytes(&self) -> usize {
        self.small.heap_bytes() + self.big.capacity() * 12
    }
}

/// Retained size of every node: its shallow size plus that of everything it dominates. One
/// pass in reverse preorder (children before their immediate dominator). Unreachable nodes: 0.
pub fn retained_sizes(dom: &Dominators, shallow: impl Fn(u32) -> u64 + Sync) -> RetainedSizes {
    retained_sizes_in(dom, shallow, &Placement::Memory)
}

/// `retained_sizes` with the sizes placed by `place` (summed where they lie).
pub fn retained_sizes_in(dom: &Dominators, shallow: impl Fn(u32) -> u64 + Sync, place: &Placement) -> RetainedSizes {
    let threads = crate::par::cores(8);
    let own = own_sizes(dom.idom.len(), |v| dom.idom[v as usize] != NONE, shallow, threads, place);
    sum_retained(own, dom)
}

/// Every node's own (shallow) size: where the retained sums start.
pub struct OwnSizes {
    /// As in `RetainedSizes`: `u32::MAX` marks a size in `big`.
    small: BigArray<u32>,
    big: Vec<(u32, u64)>,
}

/// The own size of each of `n` nodes that `in_tree` holds (0 for the others), over
/// `threads` consecutive node ranges, written where `place` says. Node order is the dump's
/// order (`shallow` reads an object's class or length), so a dump larger than memory is
/// read front to back here instead of at random in the sums. Needs no dominators: with one
/// thread it can run beside the dominator phase, which uses one core.
pub fn own_sizes(n: usize, in_tree: impl Fn(u32) -> bool + Sync, shallow: impl Fn(u32) -> u64 + Sync, threads: usize, place: &Placement) -> OwnSizes {
    let mut small: BigArray<u32> = BigArray::zeroed(n, place);
    let threads = if n < 1 << 16 { 1 } else { threads.max(1) };
    let chunk = n.div_ceil(threads).max(1);
    // A size of 4 GiB or more (none on most dumps) is collected by its range.
    let own = |part: &mut [u32], first: usize| -> Vec<(u32, u64)> {
        let mut big = Vec::new();
        for (i, s) in part.iter_mut().enumerate() {
            let v = (first + i) as u32;
            if in_tree(v) {
                put(s, &mut big, v, shallow(v));
            }
        }
        big
    };
    let own = &own;
    // A panic (in `shallow`, reading the dump) is passed on with its own message.
    let bigs = crate::par::run_each(small.chunks_mut(chunk).enumerate().map(|(k, part)| move || own(part, k * chunk)));
    OwnSizes { small, big: bigs.into_iter().flatten().collect() }
}

/// Node `v`'s own size into its slot, or, from 4 GiB on, into `big` (the slot marked).
#[inline]
fn put(slot: &mut u32, big: &mut Vec<(u32, u64)>, v: u32, size: u64) {
    if size < u32::MAX as u64 {
        *slot = size as u32;
    } else {
        *slot = u32::MAX;
        big.push((v, size));
    }
}

/// `own_sizes` on this thread, with every object seen by `pass` in order (the virtual root,
/// node 0, aside), which gives its shallow size: another walk over every object rides on the
/// own sizes' reads of the dump and its index (`FullAnalysis::build_beside`). The walk's
/// error stops it.
pub fn own_sizes_seen<E>(n: usize, in_tree: impl Fn(u32) -> bool, mut pass: impl FnMut(ObjIdx) -> Result<u64, E>, place: &Placement) -> Result<OwnSizes, E> {
    // Written in node order and read only once complete: appended (`Appender`).
    let mut small: Appender<u32> = Appender::new(n, place);
    let mut big = Vec::new();
    if n > 0 {
        small.push(0);
    }
    for v in 1..n as u32 {
        let size = pass(obj(v))?;
        let mut slot = 0;
        if in_tree(v) {
            put(&mut slot, &mut big, v, size);
        }
        small.push(slot);
    }
    Ok(OwnSizes { small: small.finish(), big })
}

/// The retained sizes summed from `own` (the nodes of `dom`'s tree, 0 for the others) in
/// one reverse preorder pass, in place: where `own` lies (its scratch file, whose pages the
/// own sizes just wrote, or memory). Copying them into anonymous memory for the random
/// writes and out to a new file after cost two arrays of fresh pages: on bench-4g, in
/// alternating runs, the retained phase's sums took 0.29-0.54 s in place against 0.49-0.79 s
/// copied, and its peak anonymous memory fell from 8.7 to 7.1 B/object.
pub fn sum_retained(own: OwnSizes, dom: &Dominators) -> RetainedSizes {
    match sum_retained_or_stop(own, dom, |_| Ok::<(), std::convert::Infallible>(())) {
        Ok(sizes) => sizes,
        Err(never) => match never {},
    }
}

/// `sum_retained`, calling `tick(k)` after every 65 536 of the tree's nodes summed (`k` of
/// them, of `dom.preorder`'s length), which stops it with its error.
pub fn sum_retained_or_stop<E>(own: OwnSizes, dom: &Dominators, mut tick: impl FnMut(usize) -> Result<(), E>) -> Result<RetainedSizes, E> {
    assert_eq!(own.small.len(), dom.idom.len(), "one own size per node");
    let mut small = own.small;
    // A node outside the tree keeps size 0: `own` must have been read for the tree's nodes.
    let outside = dom.idom.iter().zip(small.iter()).position(|(&d, &s)| d == NONE && s != 0);
    assert!(outside.is_none(), "node {outside:?} has an own size but no dominator");
    // Sizes only grow while summing, so a node once in the table stays there.
    let mut big: FxHashMap<u32, u64> = own.big.into_iter().collect();
    let set = |small: &mut [u32], big: &mut FxHashMap<u32, u64>, v: u32, s: u64| {
        if s < u32::MAX as u64 {
            small[v as usize] = s as u32;
        } else {
            small[v as usize] = u32::MAX;
            big.insert(v, s);
        }
    };
    // Reverse preorder: every child is finished (its subtree summed into it) before its
    // immediate dominator comes up, so one pass passes each node's total up (the root,
    // first in preorder, has no dominator to pass to).
    for (k, &v) in dom.preorder.iter().skip(1).rev().enumerate() {
        if k & 0xFFFF == 0xFFFF {
            tick(k + 1)?;
        }
        let get = |x: u32| match small[x as usize] {
            u32::MAX => big[&x],
            s => s as u64,
        };
        let d = dom.idom[v as usize];
        let sum = get(d) + get(v);
        set(&mut small, &mut big, d, sum);
    }
    let mut big: Vec<(u32, u64)> = big.into_iter().collect();
    big.sort_unstable();
    Ok(RetainedSizes { small, big })
}

/// Objects that would be freed if every node of `set` were freed (MAT semantics): walk from
/// `root` without entering `set`; the answer is `set` plus the nodes reachable from `set` that
/// this walk did not reach. Both walks take only the edges `u -> v` with `keep(u, v)` (the
/// edges the dominators were computed on). Returns the membership bitmap and its total
/// shallow size.
pub fn retained_set<G: Graph>(
    g: &G,
    root: u32,
    keep: impl Fn(u32, u32) -> bool,
    set: &[u32],
    shallow: impl Fn(u32) -> u64,
) -> (FixedBitSet, u64) {
    let n = g.node_count() as usize;
    let mut blocked = FixedBitSet::with_capacity(n);
    for &s in set {
        blocked.insert(s as usize);
    }
    let mut stack: Vec<u32> = Vec::new();
    if !blocked.contains(root as usize) {
        blocked.insert(root as usize);
        stack.push(root);
    }
    while let Some(u) = stack.pop() {
        for &v in g.successors(u) {
            if keep(u, v) && !blocked.put(v as usize) {
                stack.push(v);
            }
        }
    }
    // Everything reachable from the set but not from the root around it.
    let mut members = FixedBitSet::with_capacity(n);
    let mut total = 0u64;
    for &s in set {
        if !members.put(s as usize) {
            total += shallow(s);
            stack.push(s);
        }
    }
    while let Some(u) = stack.pop() {
        for &v in g.successors(u) {
            if keep(u, v) && !blocked.contains(v as usize) && !members.put(v as usize) {
                total += shallow(v);
                stack.push(v);
            }
        }
    }
    (members, total)
}

/// Sum of the retained sizes of the members of `set` that no other member dominates
/// (MAT's "minimum retained size": a lower bound of the retained set's size, exact for one
/// member). Amortised linear: each dominator-tree node's answer ("is a member at or above me")
/// is computed once and cached.
pub fn min_retained_size(idom: &[u32], retained: impl Fn(u32) -> u64, set: &[u32]) -> u64 {
    let n = idom.len();
    let mut member = FixedBitSet::with_capacity(n);
    for &s in set {
        member.insert(s as usize);
    }
    // known[v]: answer cached; covered[v]: v or one of its dominators is a member.
    let mut known = FixedBitSet::with_capacity(n);
    let mut covered = FixedBitSet::with_capacity(n);
    let mut path: Vec<u32> = Vec::new();
    let mut counted = FixedBitSet::with_capacity(n);
    let mut total = 0u64;
    for &s in set {
        if counted.put(s as usize) {
            continue;
        }
        let d = idom[s as usize];
        let above = d != NONE && d != s && {
            // Walk up from d to a member, a cached node or the root; every node on the way
            // shares the answer (the walk stops at the first member).
            path.clear();
            let mut x = d;
            let answer = loop {
                if known.contains(x as usize) {
                    break covered.contains(x as usize);
                }
                path.push(x);
                if member.contains(x as usize) {
                    break true;
                }
                let up = idom[x as usize];
                if up == x || up == NONE {
                    break false;
                }
                x = up;
            };
            for &p in &path {
                known.insert(p as usize);
                covered.set(p as usize, answer);
            }
            answer
        };
        if !above {
            total += retained(s);
        }
    }
    total
}
