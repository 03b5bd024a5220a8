//! Dominator tree by SEMI-NCA (Georgiadis, Tarjan, Werneck: "Finding dominators in practice"),
//! with no recursion: the DFS walks parent pointers instead of a stack, and path compression
//! reverses the ancestor pointers on the way up and restores them on the way down.

use crate::control::{Cancelled, Control};
use crate::{Graph, NONE};
use fixedbitset::FixedBitSet;

/// Marker for the bottom of a reversed ancestor path during compression.
const BOTTOM: u32 = u32::MAX - 1;

/// Result of `dominators`.
pub struct Dominators {
    /// Immediate dominator of every node (`idom[root] == root`; `NONE` = not reachable).
    pub idom: Vec<u32>,
    /// The reachable nodes in DFS preorder (root first). Every node comes after its immediate
    /// dominator, so a reverse walk visits children before parents (used for retained sizes).
    pub preorder: Vec<u32>,
}

/// Is the edge `u -> v` part of the graph the dominators are computed on? A pinned node's only
/// predecessor is the root (MAT: a GC root is never dominated by an object referencing it).
#[inline]
fn edge_ok(pinned: Option<&FixedBitSet>, root: u32, u: u32, v: u32) -> bool {
    match pinned {
        Some(p) => u == root || !p.contains(v as usize),
        None => true,
    }
}

/// Immediate dominators of `g` from `root`. `pinned` nodes ignore every incoming edge except the
/// root's. Memory: five `u32` arrays of the node count plus the predecessor lists of the
/// non-tree edges (tree edges and self-loops are left out: they never change a semidominator).
pub fn dominators<G: Graph>(
    g: &G,
    root: u32,
    pinned: Option<&FixedBitSet>,
    ctl: &Control,
) -> Result<Dominators, Cancelled> {
    let n = g.node_count() as usize;
    assert!(n < BOTTOM as usize, "graph too large for u32 node ids");
    assert!((root as usize) < n, "root {root} out of range");
    // ---- 1. iterative DFS: pre (node -> preorder), vertex (preorder -> node), parent, cursor.
    let mut pre = vec![NONE; n];
    let mut vertex: Vec<u32> = Vec::with_capacity(n);
    let mut parent: Vec<u32> = Vec::with_capacity(n);
    let mut cursor: Vec<u32> = Vec::with_capacity(n);
    // In-degree of each vertex over the non-tree edges, counted as the DFS scans each edge once.
    let mut counts: Vec<u32> = Vec::with_capacity(n + 1);
    pre[root as usize] = 0;
    vertex.push(root);
    parent.push(0);
    cursor.push(0);
    counts.push(0);
    let mut cur = 0usize;
    loop {
        let u = vertex[cur];
        let succ = g.successors(u);
        let mut c = cursor[cur] as usize;
        let mut next = None;
        while c < succ.len() {
            let v = succ[c];
            c += 1;
            if !edge_ok(pinned, root, u, v) {
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
        cursor[cur] = c as u32;
        match next {
            Some(v) => {
                let k = vertex.len();
                pre[v as usize] = k as u32;
                vertex.push(v);
                parent.push(cur as u32);
                cursor.push(0);
                counts.push(0);
                cur = k;
                if k & 0xFFFF == 0 {
                    ctl.tick(k as u64, n as u64 * 3)?;
                }
            }
            None => {
                if cur == 0 {
                    break;
                }
                cur = parent[cur] as usize;
            }
        }
    }
    let r = vertex.len();
    ctl.tick(r as u64, n as u64 * 3)?;

    // ---- 2. predecessor lists in preorder numbers, non-tree edges only (the same edges the
    // DFS counted), scanning the nodes in index order so the adjacency reads are sequential.
    counts.push(0);
    let preds = crate::Csr::from_counts(counts, |emit| {
        for u in 0..n as u32 {
            let i = pre[u as usize];
            if i == NONE {
                continue;
            }
            for &v in g.successors(u) {
                if !edge_ok(pinned, root, u, v) {
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
    let mut semi = cursor;
    let mut label = vec![0u32; r];
    let mut ancestor = pre;
    ancestor[..r].fill(NONE);
    for w in (1..r).rev() {
        let mut s = parent[w];
        for &v in preds.successors(w as u32) {
            let cand = if (v as usize) < w { v } else { eval(&mut ancestor, &mut label, v) };
            if cand < s {
                s = cand;
            }
        }
        semi[w] = s;
        label[w] = s;
        ancestor[w] = parent[w];
        if w & 0xFFFF == 0 {
            ctl.tick((r + (r - w)) as u64, n as u64 * 3)?;
        }
    }
    drop(preds);
    drop(label);

    // ---- 4. NCA: idom(w) is the nearest ancestor of parent(w) with preorder <= semi(w).
    let mut idom = parent;
    for w in 1..r {
        let s = semi[w];
        let mut d = idom[w];
        while d > s {
            d = idom[d as usize];
        }
        idom[w] = d;
    }
    drop(semi);

    // ---- 5. back to node numbers.
    let mut out = ancestor;
    out.fill(NONE);
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
