//! Retained sizes (dominator subtree sums) and the retained set of a set of nodes.

use crate::{Dominators, Graph, NONE};
use fixedbitset::FixedBitSet;

/// Retained size of every node: its shallow size plus that of everything it dominates. One
/// pass in reverse preorder (children before their immediate dominator). Unreachable nodes: 0.
pub fn retained_sizes(dom: &Dominators, shallow: impl Fn(u32) -> u64) -> Vec<u64> {
    let mut sizes = vec![0u64; dom.idom.len()];
    for &v in &dom.preorder {
        sizes[v as usize] = shallow(v);
    }
    for &v in dom.preorder.iter().skip(1).rev() {
        let d = dom.idom[v as usize];
        sizes[d as usize] += sizes[v as usize];
    }
    sizes
}

/// Objects that would be freed if every node of `set` were freed (MAT semantics): walk from
/// `root` without entering `set`; the answer is `set` plus the nodes reachable from `set` that
/// this walk did not reach. Returns the membership bitmap and its total shallow size.
pub fn retained_set<G: Graph>(
    g: &G,
    root: u32,
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
            if !blocked.put(v as usize) {
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
            if !blocked.contains(v as usize) && !members.put(v as usize) {
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
