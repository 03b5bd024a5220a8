//! Dominator tree by SEMI-NCA (Georgiadis, Tarjan, Werneck: "Finding dominators in practice"),
//! with no recursion: the DFS walks parent pointers instead of a stack, and path compression
//! reverses the ancestor pointers on the way up and restores them on the way down.

use crate::control::{Cancelled, Control};
use crate::buckets::Buckets;
use crate::parents::{Down, ParentsAppender};
use crate::pred_pairs::PredPairs;
use crate::{Graph, NONE};
use fixedbitset::FixedBitSet;
use heapql_heap::{Appender, BigArray, PieceArray, Placement};

/// Successors of a vertex whose preorder entries the DFS asks for when it enters the vertex.
const LOOKAHEAD: usize = 16;

/// Successors the search scans between two looks at the cancel flag.
const SCAN: usize = 1 << 16;

/// Semidominators kept before they are written out, in order.
const WINDOW: usize = 1 << 16;

/// How many vertices ahead the semidominator step asks for the forest entries it will read.
const AHEAD: usize = 4;

/// Asks for the cache line holding `*p` (a hint: no effect on what is computed).
#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing into the program.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

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
    /// The immediate dominator of each vertex of `preorder` as a position in `preorder`
    /// (`[0] == 0`): walks of the tree in that order read it front to back, where `idom`
    /// would be read at random. Placed like `preorder`.
    pub preorder_idom: BigArray<u32>,
}

/// The edge filter for a graph whose `pinned` nodes' only predecessor is the root (MAT: a GC
/// root is never dominated by an object referencing it).
pub fn pinned_edges(pinned: &FixedBitSet, root: u32) -> impl Fn(u32, u32) -> bool + '_ {
    move |u, v| u == root || !pinned.contains(v as usize)
}

/// Immediate dominators of `g` from `root`, over the edges `u -> v` for which `keep(u, v)`
/// holds (`|_, _| true`: all of them; see `pinned_edges` and `ObjectGraph::follows`).
/// Memory: two `u32` arrays of the node count read at random at most (node -> preorder
/// during the DFS; ancestor and label for the semidominators; idom and the result at the
/// end), plus arrays written and read in order: vertex, parent, the semidominators, and the
/// predecessor lists of the non-tree edges, bucketed by preorder number (self-loops, edges
/// into the root and the pairs `pred_pairs` finds redundant left out: they never change a
/// semidominator). The DFS keeps its scan positions for the current path only.
pub fn dominators<G: Graph>(
    g: &G,
    root: u32,
    keep: impl Fn(u32, u32) -> bool,
    ctl: &Control,
) -> Result<Dominators, Cancelled> {
    dominators_in(g, root, keep, ctl, &Placement::Memory)
}

/// `dominators` with the arrays walked in order placed by `place` (they can live in scratch
/// files; the arrays read at random stay in memory).
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
    // `place` (the current path's entries are kept on the path, so neither is read during the
    // walk).
    let mut laps = heapql_heap::Laps::new("heapql-graph");
    // Normal pages, not huge ones: on this project's machines a fresh 2 MiB page is about
    // five times slower to make than 512 small ones (0.45 against 2.6 GB/s), more than the
    // page walks it saves the DFS (4.30 GB dump: DFS 1.34-1.55 s against 1.73-1.86 s).
    let mut pre = vec![NONE; n];
    // Appended (`Appender`): their pages are written whole, never faulted in first. Inside
    // 0.35 x bench-1g the faults fell from 611 to 426 over the CLI's report, the search from
    // 1.11-1.86 s to 0.92-1.28 s; unlimited 0.62-0.75 s against 0.52-0.64 s.
    let mut vertex: Appender<u32> = Appender::new(n, place);
    // A byte per vertex for most (`parents`).
    let mut parent = ParentsAppender::new(n, place);
    // The current path (deepest last): each vertex's node and scan position in its
    // successor list (its preorder number is `pre`'s: 8 B per vertex on the path).
    let mut path: Vec<(u32, u32)> = vec![(root, 0)];
    // The DFS scans every edge once, and an edge to a vertex already numbered is a non-tree
    // edge: its (target, source) preorder pair goes to the target's bucket as it is met
    // (unless a later one makes it redundant: `PredPairs`), so the predecessor lists cost no
    // second pass over the graph and no random write.
    let mut preds = PredPairs::new(n, place);
    preds.enter(0);
    pre[root as usize] = 0;
    vertex.push(root);
    parent.push(0);
    let mut r = 1usize;
    loop {
        let (u, c0) = *path.last().expect("the path holds the current vertex");
        let cur = pre[u as usize] as usize;
        let succ = g.successors(u);
        let mut c = c0 as usize;
        if c == 0 {
            // First visit: the successors' preorder entries are read one by one below, each
            // a cache miss on a big graph; ask for them all at once.
            for &v in &succ[..succ.len().min(LOOKAHEAD)] {
                prefetch(&pre[v as usize]);
            }
        }
        let mut next = None;
        // In blocks of SCAN successors, the flag looked at between two: the search looks at
        // it for every 65 536 vertices it numbers, and an array of millions of elements met
        // before is scanned without numbering any.
        'scan: loop {
            let end = succ.len().min(c + SCAN);
            while c < end {
                let v = succ[c];
                c += 1;
                if !keep(u, v) {
                    continue;
                }
                let pv = pre[v as usize];
                if pv == NONE {
                    next = Some(v);
                    break 'scan;
                }
                if pv != 0 && pv as usize != cur {
                    preds.push(pv, cur as u32);
                }
            }
            if c == succ.len() {
                break;
            }
            ctl.check()?;
        }
        path.last_mut().expect("the path holds the current vertex").1 = c as u32;
        match next {
            Some(v) => {
                let k = r;
                r += 1;
                pre[v as usize] = k as u32;
                vertex.push(v);
                parent.push(cur as u32);
                path.push((v, 0));
                preds.enter(k);
                if k & 0xFFFF == 0 {
                    ctl.tick(k as u64, n as u64 * 3)?;
                }
            }
            None => {
                path.pop();
                preds.leave(cur);
                if path.is_empty() {
                    break;
                }
            }
        }
    }
    drop(path);
    let mut preds = preds.finish();
    let (vertex, parent) = (vertex.finish(), parent.finish());
    debug_assert_eq!((vertex.len(), parent.len()), (r, r));
    ctl.tick(r as u64, n as u64 * 3)?;
    laps.lap("dominators: depth-first search");

    // ---- 2. semidominators in reverse preorder, one bucket of predecessor lists at a time
    // (grouped by target in memory; see `semis_of`); label holds the minimum semi on the
    // path. The semidominators are found in reverse preorder, written out in order a window
    // at a time and read in preorder: placed.
    let mut ancestor = pre;
    ancestor.truncate(r);
    ancestor.fill(NONE);
    let mut st = Semi {
        ancestor,
        // Not on huge pages either: measured slower here (the huge-page faults cost more
        // than the page walks they save).
        label: vec![0u32; r],
        semi: PieceArray::new(r, place),
        parent: parent.down(),
        p: 0,
        s: 0,
        window: vec![0; WINDOW],
        window_lo: r,
        window_hi: r,
    };
    // Pairs of a bucket loaded at once (12 bytes each while grouped); bigger buckets (a
    // class object is the target of an edge from each of its instances) are split further.
    let limit = (n / 256).max(1 << 16);
    semis_of(&mut preds, &mut st, limit, place, &|w| ctl.tick((r + (r - w)) as u64, n as u64 * 3), &|| ctl.check())?;
    drop(preds);
    st.flush();
    laps.lap("dominators: semidominators");
    let semi = st.semi.finish();
    // Label's and ancestor's memory is reused for idom and the result: a fresh array costs
    // a page fault per page, about a quarter of this phase's time.
    let (mut idom, mut out) = (st.label, st.ancestor);

    // ---- 3. NCA: idom(w) is the nearest ancestor of parent(w) with preorder <= semi(w)
    // (read at random up the tree: in memory).
    // Progress (of 3 n) in this step and the next: 2 r + half of the vertices done.
    let total = n as u64 * 3;
    parent.copy_to(&mut idom);
    drop(parent);
    for w in 1..r {
        if w & 0xFFFF == 0 {
            ctl.tick((2 * r + w / 2) as u64, total)?;
        }
        let s = semi[w];
        let mut d = idom[w];
        while d > s {
            d = idom[d as usize];
        }
        idom[w] = d;
    }
    drop(semi);
    laps.lap("dominators: nearest common ancestors");

    // ---- 4. back to node numbers.
    out.clear();
    out.resize(n, NONE);
    for i in 0..r {
        if i & 0xFFFF == 0xFFFF {
            ctl.tick((2 * r + r / 2 + i / 2) as u64, total)?;
        }
        out[vertex[i] as usize] = vertex[idom[i] as usize];
    }
    out[root as usize] = root;
    let preorder_idom = BigArray::from_vec(idom, place);
    laps.lap("dominators: node numbers");
    ctl.tick(total, total)?;
    Ok(Dominators { idom: out, preorder: vertex, preorder_idom })
}

/// The semidominator step's state: `s` is the running minimum of the vertex being done.
struct Semi<'a> {
    ancestor: Vec<u32>,
    label: Vec<u32>,
    semi: PieceArray<u32>,
    /// Read for the vertices in reverse preorder, as they are done.
    parent: Down<'a>,
    /// The parent of the vertex being done (read once, by `start`).
    p: u32,
    s: u32,
    /// Semidominators of the vertices `window_lo..window_hi`, not yet written out (the
    /// vertices are done one by one in reverse preorder: see `semis_of`).
    window: Vec<u32>,
    window_lo: usize,
    window_hi: usize,
}

impl Semi<'_> {
    /// Asks for the forest entries of the linked vertex `v` (see `pred`).
    #[inline]
    fn prefetch(&self, v: u32) {
        prefetch(&self.ancestor[v as usize]);
        prefetch(&self.label[v as usize]);
    }

    #[inline]
    fn start(&mut self, w: usize) {
        self.p = self.parent.get(w);
        self.s = self.p;
    }

    /// Writes the window of semidominators out (in order: the vertices are done in reverse
    /// preorder), by `write` (`PieceArray`), so no page is faulted in to be overwritten.
    fn flush(&mut self) {
        let (lo, hi) = (self.window_lo, self.window_hi);
        self.semi.write(lo, &self.window[..hi - lo]);
        self.window_lo = hi;
    }

    /// Takes the predecessor `v` of the vertex `w` being done into account. Once the minimum
    /// is the root's 0, no predecessor can lower it, so the rest are passed over without an
    /// `eval` (whose path compression only speeds up later ones): 2.2 M of 9.8 M evals on
    /// bench-1g (semidominators 0.33-0.36 s against 0.37-0.41 s), 9.1 M of 37.6 M on bench-4g.
    #[inline]
    fn pred(&mut self, w: usize, v: u32) {
        if self.s == 0 {
            return;
        }
        let cand = if (v as usize) < w { v } else { eval(&mut self.ancestor, &mut self.label, v) };
        if cand < self.s {
            self.s = cand;
        }
    }

    /// `w` is done: its semidominator is set and it joins the forest.
    #[inline]
    fn finish(&mut self, w: usize) {
        if w < self.window_lo {
            self.flush();
            // Vertex 0, the root, is never done: its entry stays 0.
            self.window_lo = (w + 1).saturating_sub(self.window.len()).max(1);
            self.window_hi = w + 1;
        }
        self.window[w - self.window_lo] = self.s;
        self.label[w] = self.s;
        self.ancestor[w] = self.p;
    }
}

/// Semidominators of the vertices of `preds`' key range below the vertex count, in reverse
/// preorder, bucket by bucket from the last. A bucket of at most `limit` pairs is grouped in
/// memory; a single vertex's predecessors are streamed straight into its minimum; a bigger
/// bucket is counted per vertex, split into consecutive ranges of at most `limit` pairs (or
/// of one vertex) and done the same way. `tick(w)` reports progress (every 65 536 vertices);
/// `check()` looks at the cancel flag, for each piece of a bucket too big to group (64 KiB).
fn semis_of(
    preds: &mut Buckets,
    st: &mut Semi,
    limit: usize,
    place: &Placement,
    tick: &dyn Fn(usize) -> Result<(), Cancelled>,
    check: &dyn Fn() -> Result<(), Cancelled>,
) -> Result<(), Cancelled> {
    let r = st.label.len();
    let (mut starts, mut lists): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    for b in (0..preds.count()).rev() {
        let (lo, hi) = preds.range(b);
        let hi = hi.min(r);
        if lo >= hi {
            preds.clear(b);
            continue;
        }
        if preds.len(b) <= limit {
            group_by_key(&preds.take(b), lo, hi - lo, &mut starts, &mut lists);
            for w in (lo.max(1)..hi).rev() {
                if w >= lo + AHEAD {
                    // The vertex done AHEAD steps later: ask for its linked predecessors'
                    // forest entries (the walk is bound by these random reads).
                    let x = w - AHEAD;
                    let list = &lists[starts[x - lo] as usize..starts[x - lo + 1] as usize];
                    for &v in &list[..list.len().min(8)] {
                        if v as usize > x {
                            st.prefetch(v);
                        }
                    }
                }
                st.start(w);
                for &v in &lists[starts[w - lo] as usize..starts[w - lo + 1] as usize] {
                    st.pred(w, v);
                }
                st.finish(w);
                if w & 0xFFFF == 0 {
                    tick(w)?;
                }
            }
        } else if hi - lo == 1 {
            // No edge enters the root (vertex 0), so `lo` is a vertex with predecessors (a
            // class object has one per instance: millions, each piece of them looks at the
            // flag).
            st.start(lo);
            preds.try_stream(b, |c| {
                check()?;
                c.chunks_exact(2).for_each(|p| st.pred(lo, p[1]));
                Ok(())
            })?;
            preds.clear(b);
            st.finish(lo);
        } else {
            let mut counts = vec![0u32; hi - lo];
            preds.try_stream(b, |c| {
                check()?;
                c.chunks_exact(2).for_each(|p| counts[p[0] as usize - lo] += 1);
                Ok(())
            })?;
            // A vertex with more than `limit` predecessors gets a range of its own.
            let mut bounds = vec![lo];
            let mut sum = 0usize;
            for (k, &c) in counts.iter().enumerate() {
                if lo + k > bounds[bounds.len() - 1] && sum + c as usize > limit {
                    bounds.push(lo + k);
                    sum = 0;
                }
                sum += c as usize;
            }
            bounds.push(hi);
            drop(counts);
            let mut finer = Buckets::with_bounds(bounds, place);
            preds.try_stream(b, |c| {
                check()?;
                c.chunks_exact(2).for_each(|p| finer.push(p[0], p[1]));
                Ok(())
            })?;
            finer.flush();
            preds.clear(b);
            semis_of(&mut finer, st, limit, place, tick, check)?;
        }
    }
    Ok(())
}

/// Groups the interleaved `(key, value)` pairs with keys in `lo..lo + len` by key (counting
/// sort, each group in the pairs' order): the values of key `k` end up in
/// `lists[starts[k - lo]..starts[k - lo + 1]]`.
fn group_by_key(pairs: &[u32], lo: usize, len: usize, starts: &mut Vec<u32>, lists: &mut Vec<u32>) {
    starts.clear();
    starts.resize(len + 1, 0);
    for p in pairs.chunks_exact(2) {
        starts[p[0] as usize - lo + 1] += 1;
    }
    for k in 1..=len {
        starts[k] += starts[k - 1];
    }
    lists.clear();
    lists.resize(pairs.len() / 2, 0);
    for p in pairs.chunks_exact(2) {
        let at = &mut starts[p[0] as usize - lo];
        lists[*at as usize] = p[1];
        *at += 1;
    }
    // Each start moved to the next one's place: shift back.
    for k in (1..=len).rev() {
        starts[k] = starts[k - 1];
    }
    starts[0] = 0;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parents::Parents;

    /// The parents of `r` vertices, each the child of the one before.
    fn chain(r: usize) -> (Vec<u32>, Parents) {
        let parent: Vec<u32> = (0..r as u32).map(|w| w.saturating_sub(1)).collect();
        let mut a = ParentsAppender::new(r, &Placement::Memory);
        parent.iter().for_each(|&p| a.push(p));
        (parent, a.finish())
    }

    /// The semidominator step's state for the vertices of `parent`.
    fn chain_state(parent: &Parents) -> Semi<'_> {
        let r = parent.len();
        Semi {
            ancestor: vec![NONE; r],
            label: vec![0; r],
            semi: PieceArray::new(r, &Placement::Memory),
            parent: parent.down(),
            p: 0,
            s: 0,
            window: vec![0; WINDOW],
            window_lo: r,
            window_hi: r,
        }
    }

    /// A bucket too big to group (more than `limit` pairs) is streamed piece by piece, with a
    /// look at the flag for each: set before the step, the step stops before it is through
    /// the bucket (no vertex of it finished), where no progress report would come (no vertex
    /// numbered a multiple of 65 536).
    #[test]
    fn a_bucket_too_big_to_group_stops_when_cancelled() {
        let r = 100usize;
        let (parent, parents) = chain(r);
        let (limit, pairs) = (1000usize, 300_000u32);
        // The last vertex alone in its bucket (streamed into its minimum), and the ten before
        // it sharing one (split into ranges of at most `limit` pairs).
        for bounds in [vec![0, r - 1, r], vec![0, r - 11, r - 1, r]] {
            let alone = bounds.len() == 3;
            let filled = || {
                let mut preds = Buckets::with_bounds(bounds.clone(), &Placement::Memory);
                for k in 0..pairs {
                    let w = if alone { r - 1 } else { r - 11 + k as usize % 10 } as u32;
                    // Sources below the target (no forest lookup), 1 among them.
                    preds.push(w, 1 + (k / 10) % (w - 1));
                }
                preds.flush();
                preds
            };
            let mut preds = filled();
            let looks = std::cell::Cell::new(0);
            let cancelled = || {
                looks.set(looks.get() + 1);
                Err(Cancelled)
            };
            let mut st = chain_state(&parents);
            let outcome = semis_of(&mut preds, &mut st, limit, &Placement::Memory, &|_| Ok(()), &cancelled);
            assert_eq!(outcome, Err(Cancelled), "bounds {bounds:?}: cancelled");
            assert_eq!(looks.get(), 1, "bounds {bounds:?}: stopped at the first look");
            let big = if alone { r - 1..r } else { r - 11..r - 1 };
            assert!(big.clone().all(|w| st.ancestor[w] == NONE), "bounds {bounds:?}: no vertex of the big bucket finished");
            // Uncancelled, the same step goes through.
            let mut preds = filled();
            let mut st = chain_state(&parents);
            assert_eq!(semis_of(&mut preds, &mut st, limit, &Placement::Memory, &|_| Ok(()), &|| Ok(())), Ok(()));
            assert!(big.clone().all(|w| st.ancestor[w] == parent[w] && st.label[w] == 1), "bounds {bounds:?}: each semidominator the lowest source");
        }
    }
}
