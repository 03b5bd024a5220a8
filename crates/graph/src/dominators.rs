//! Dominator tree by SEMI-NCA (Georgiadis, Tarjan, Werneck: "Finding dominators in practice"),
//! with no recursion: the DFS walks parent pointers instead of a stack, and path compression
//! reverses the ancestor pointers on the way up and restores them on the way down.

use crate::control::{Cancelled, Control};
use crate::csr::{starts_from_counts, Starts};
use crate::{Graph, NONE};
use fixedbitset::FixedBitSet;
use heapql_heap::{BigArray, Placement};
use heapql_scratch::Plain;

/// Marker for the bottom of a reversed ancestor path during compression.
const BOTTOM: u32 = u32::MAX - 1;

/// Result of `dominators`.
pub struct Dominators {
    /// Immediate dominator of every node (`idom[root] == root`; `NONE` = not reachable).
    pub idom: Vec<u32>,
    /// The reachable nodes in DFS preorder (root first). Every node comes after its immediate
    /// dominator, so a reverse walk visits children before parents (used for retained sizes).
    /// Written and read in order, so placed like the predecessor lists.
    pub preorder: BigArray<u32>,
}

/// The edge filter for a graph whose `pinned` nodes' only predecessor is the root (MAT: a GC
/// root is never dominated by an object referencing it).
pub fn pinned_edges(pinned: &FixedBitSet, root: u32) -> impl Fn(u32, u32) -> bool + '_ {
    move |u, v| u == root || !pinned.contains(v as usize)
}

/// Immediate dominators of `g` from `root`, over the edges `u -> v` for which `keep(u, v)`
/// holds (`|_, _| true`: all of them; see `pinned_edges` and `ObjectGraph::follows`).
/// Memory: two `u32` arrays of the node count read at random at any time (node -> preorder
/// and the in-degrees during the DFS; ancestor and label for the semidominators; idom and
/// the result at the end), plus the arrays walked in preorder: vertex, parent, the
/// predecessor offsets that turn into semi, and the predecessor lists of the non-tree edges
/// (tree edges, self-loops and edges into the root left out: they never change a
/// semidominator). The DFS keeps its scan positions for the current path only.
pub fn dominators<G: Graph>(
    g: &G,
    root: u32,
    keep: impl Fn(u32, u32) -> bool,
    ctl: &Control,
) -> Result<Dominators, Cancelled> {
    dominators_in(g, root, keep, ctl, &Placement::Memory)
}

/// `dominators` with the arrays walked in preorder placed by `place` (written and read in
/// order: they can live in a scratch file; the arrays read at random stay in memory).
pub fn dominators_in<G: Graph>(
    g: &G,
    root: u32,
    keep: impl Fn(u32, u32) -> bool,
    ctl: &Control,
    place: &Placement,
) -> Result<Dominators, Cancelled> {
    let n = g.node_count() as usize;
    assert!(n < BOTTOM as usize, "graph too large for u32 node ids");
    assert!((root as usize) < n, "root {root} out of range");
    // ---- 1. iterative DFS: pre (node -> preorder, the one node-indexed array, read at
    // random), vertex (preorder -> node) and parent, both written in preorder, so they go to
    // `place` (only the current path's entries are read back during the walk).
    let mut pre = vec![NONE; n];
    let mut vertex: BigArray<u32> = BigArray::zeroed(n, place);
    let mut parent: BigArray<u32> = BigArray::zeroed(n, place);
    // Scan position in the successor list of each vertex on the current path (deepest last).
    let mut cursors: Vec<u32> = vec![0];
    // In-degree of each vertex over the non-tree edges (tree edges, self-loops and edges
    // into the root never change a semidominator), counted as the DFS scans each edge once.
    // Telling a tree edge reads `parent` at random, but from the page cache: cheaper than
    // the twice as long predecessor lists that keeping tree edges would write at random.
    let mut counts: Vec<u32> = Vec::with_capacity(n + 1);
    pre[root as usize] = 0;
    vertex[0] = root;
    parent[0] = 0;
    counts.push(0);
    let mut r = 1usize;
    let mut cur = 0usize;
    loop {
        let u = vertex[cur];
        let succ = g.successors(u);
        let top = cursors.last_mut().expect("the path holds the current vertex");
        let mut c = *top as usize;
        let mut next = None;
        while c < succ.len() {
            let v = succ[c];
            c += 1;
            if !keep(u, v) {
                continue;
            }
            let pv = pre[v as usize];
            if pv == NONE {
                next = Some(v);
                break;
            }
            if pv != 0 && pv as usize != cur && parent[pv as usize] as usize != cur {
                counts[pv as usize] += 1;
            }
        }
        *top = c as u32;
        match next {
            Some(v) => {
                let k = r;
                r += 1;
                pre[v as usize] = k as u32;
                vertex[k] = v;
                parent[k] = cur as u32;
                cursors.push(0);
                counts.push(0);
                cur = k;
                if k & 0xFFFF == 0 {
                    ctl.tick(k as u64, n as u64 * 3)?;
                }
            }
            None => {
                cursors.pop();
                if cur == 0 {
                    break;
                }
                cur = parent[cur] as usize;
            }
        }
    }
    drop(cursors);
    vertex.truncate(r);
    parent.truncate(r);
    ctl.tick(r as u64, n as u64 * 3)?;

    // ---- 2. predecessor offsets: exclusive prefix sums of the counts, in place while they fit.
    counts.push(0);
    match starts_from_counts(counts) {
        (Starts::U32(starts), total) => finish(g, root, &keep, pre, vertex, parent, starts, total, ctl, place),
        (Starts::U64(starts), total) => finish(g, root, &keep, pre, vertex, parent, starts, total, ctl, place),
    }
}

/// Steps 2–5 of `dominators` once the DFS is done; `starts` are the predecessor list offsets in
/// preorder numbers (`u32` while the edges fit, else `u64`); `vertex` and `parent` have one
/// entry per reached vertex.
///
/// Anonymous memory: two `u32` arrays of the node count at every step (pre and starts, then
/// ancestor and label, then idom and the result); the arrays walked in preorder (vertex,
/// parent, starts during the semidominator pass, the predecessor lists) are placed by `place`.
#[allow(clippy::too_many_arguments)]
fn finish<G: Graph, O, K: Fn(u32, u32) -> bool>(
    g: &G,
    root: u32,
    keep: &K,
    pre: Vec<u32>,
    vertex: BigArray<u32>,
    parent: BigArray<u32>,
    mut starts: Vec<O>,
    total: u64,
    ctl: &Control,
    place: &Placement,
) -> Result<Dominators, Cancelled>
where
    O: Copy + Default + Into<u64> + TryFrom<u64> + From<u32> + Plain,
{
    let n = g.node_count() as usize;
    let r = vertex.len();
    // ---- 2. predecessor lists in preorder numbers, non-tree edges only (the same edges the
    // DFS counted), scanning the nodes in index order so the adjacency reads are sequential.
    let mut preds: BigArray<u32> = BigArray::zeroed(total as usize, place);
    crate::csr::fill(&mut starts, &mut preds, total, &mut |emit: &mut dyn FnMut(u32, u32)| {
        for u in 0..n as u32 {
            let i = pre[u as usize];
            if i == NONE {
                continue;
            }
            for &v in g.successors(u) {
                if !keep(u, v) {
                    continue;
                }
                let pv = pre[v as usize];
                if pv == 0 || pv == i || parent[pv as usize] == i {
                    continue;
                }
                emit(pv, i);
            }
        }
    });
    ctl.tick(r as u64 * 2, n as u64 * 3)?;

    // ---- 3. semidominators in reverse preorder; label holds the minimum semi on the path.
    // `starts[w + 1]` is read for the last time while w is processed (the walk goes down), so
    // from then on it holds semi(w): no separate semi array. From here on `starts` is walked
    // in order only, so it moves to `place` too.
    let mut starts: BigArray<O> = BigArray::from_vec(starts, place);
    let mut label = vec![0u32; r];
    let mut ancestor = pre;
    ancestor.truncate(r);
    ancestor.fill(NONE);
    for w in (1..r).rev() {
        let mut s = parent[w];
        let (a, b) = (starts[w].into() as usize, starts[w + 1].into() as usize);
        for &v in &preds[a..b] {
            let cand = if (v as usize) < w { v } else { eval(&mut ancestor, &mut label, v) };
            if cand < s {
                s = cand;
            }
        }
        starts[w + 1] = O::from(s);
        label[w] = s;
        ancestor[w] = parent[w];
        if w & 0xFFFF == 0 {
            ctl.tick((r + (r - w)) as u64, n as u64 * 3)?;
        }
    }
    drop(preds);
    drop(label);
    drop(ancestor);

    // ---- 4. NCA: idom(w) is the nearest ancestor of parent(w) with preorder <= semi(w)
    // (read at random up the tree: in memory).
    let mut idom: Vec<u32> = parent.to_vec();
    drop(parent);
    for w in 1..r {
        let s = starts[w + 1].into() as u32;
        let mut d = idom[w];
        while d > s {
            d = idom[d as usize];
        }
        idom[w] = d;
    }
    drop(starts);

    // ---- 5. back to node numbers.
    let mut out = vec![NONE; n];
    for i in 0..r {
        out[vertex[i] as usize] = vertex[idom[i] as usize];
    }
    out[root as usize] = root;
    ctl.tick(n as u64 * 3, n as u64 * 3)?;
    Ok(Dominators { idom: out, preorder: vertex })
}

/// Minimum label on the forest path from `v` (linked) up to, but excluding, its tree's root,
/// compressing the path. Stack-free: ancestor pointers are reversed on the way up.
#[inline]
fn eval(ancestor: &mut [u32], label: &mut [u32], v: u32) -> u32 {
    let a = ancestor[v as usize];
    if ancestor[a as usize] == NONE {
        return label[v as usize];
    }
    // Up: reverse pointers until x's ancestor is the root.
    let mut x = v;
    let mut below = BOTTOM;
    while ancestor[ancestor[x as usize] as usize] != NONE {
        let up = ancestor[x as usize];
        ancestor[x as usize] = below;
        below = x;
        x = up;
    }
    let top = ancestor[x as usize];
    let mut m = label[x as usize];
    // Down: running minimum from the top, every node now points at the top.
    let mut y = below;
    while y != BOTTOM {
        let down = ancestor[y as usize];
        let l = &mut label[y as usize];
        if *l > m {
            *l = m;
        } else {
            m = *l;
        }
        ancestor[y as usize] = top;
        y = down;
    }
    label[v as usize]
}
