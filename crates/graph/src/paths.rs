//! Shortest paths: from the root to every node (one BFS, a parent array) and a bounded
//! forward search between two nodes.

use crate::control::{Cancelled, Control};
use crate::{Graph, NONE};
use heapql_heap::{BigArray, Placement};
use rustc_hash::FxHashMap;

/// BFS parent of every node reached from `root` (`parent[root] == root`, `NONE` = unreached).
/// `skip(u, v)` drops an edge from the search (e.g. excluded fields). Memory: one `u32` array
/// plus two consecutive BFS levels (a FIFO queue would hold every reached node by the end).
/// The array is placed by `place`: written once, then read along a few paths.
pub fn bfs_parents<G: Graph>(g: &G, root: u32, skip: impl Fn(u32, u32) -> bool, place: &Placement) -> BigArray<u32> {
    match bfs_parents_or_stop(g, root, skip, place, &Control::none()) {
        Ok(parent) => parent,
        Err(Cancelled) => unreachable!("no cancel flag"),
    }
}

/// `bfs_parents`, looking at `ctl`'s cancel flag every 65 536 nodes it takes from its levels.
pub fn bfs_parents_or_stop<G: Graph>(g: &G, root: u32, skip: impl Fn(u32, u32) -> bool, place: &Placement, ctl: &Control) -> Result<BigArray<u32>, Cancelled> {
    ctl.check()?;
    let n = g.node_count() as usize;
    let mut parent: BigArray<u32> = BigArray::zeroed(n, place);
    parent.fill(NONE);
    parent[root as usize] = root;
    // Levels in order, each in discovery order: the same visiting order as a FIFO queue.
    let mut level: Vec<u32> = vec![root];
    let mut next: Vec<u32> = Vec::new();
    let mut taken = 0u32;
    while !level.is_empty() {
        for &u in &level {
            taken = taken.wrapping_add(1);
            if taken & LOOK_MASK == 0 {
                ctl.check()?;
            }
            for &v in g.successors(u) {
                if parent[v as usize] == NONE && !skip(u, v) {
                    parent[v as usize] = u;
                    next.push(v);
                }
            }
        }
        std::mem::swap(&mut level, &mut next);
        next.clear();
    }
    Ok(parent)
}

/// Nodes between two looks at the cancel flag (a mask: every 65 536).
const LOOK_MASK: u32 = 0xFFFF;

/// Node sequence root..=target following a BFS parent array; None if target was not reached.
pub fn path_from_parents(parent: &[u32], target: u32) -> Option<Vec<u32>> {
    if parent[target as usize] == NONE {
        return None;
    }
    let mut path = vec![target];
    let mut v = target;
    while parent[v as usize] != v {
        v = parent[v as usize];
        path.push(v);
    }
    path.reverse();
    Some(path)
}

/// What a bounded path search found: a path, certainly none (every object reachable from the
/// start was visited), or nothing within its bounds (it gave up: there may be one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSearch {
    Found(Vec<u32>),
    NoPath,
    GaveUp,
}

impl PathSearch {
    pub fn found(self) -> Option<Vec<u32>> {
        match self {
            PathSearch::Found(p) => Some(p),
            _ => None,
        }
    }
}

/// Shortest forward path `from ..= to` over `successors`, at most `max_depth` edges long and
/// visiting at most `max_visited` nodes, so one call cannot stall a query; None if `to` was not
/// found within those bounds (`search_path` tells "no path" from "gave up"). Memory is
/// proportional to the nodes visited, not the graph.
pub fn bounded_path<I: IntoIterator<Item = u32>>(
    from: u32,
    to: u32,
    max_depth: usize,
    max_visited: usize,
    successors: impl Fn(u32) -> I,
) -> Option<Vec<u32>> {
    search_path(from, to, max_depth, max_visited, successors).found()
}

/// `bounded_path`, telling a complete search that found no path (`NoPath`) from one that
/// stopped at a bound (`GaveUp`). The one bounded search of heapql (`FullAnalysis::path`, the
/// executor's `path(a, b)`, paths to roots).
pub fn search_path<I: IntoIterator<Item = u32>>(
    from: u32,
    to: u32,
    max_depth: usize,
    max_visited: usize,
    successors: impl Fn(u32) -> I,
) -> PathSearch {
    match search_path_or_stop(from, to, max_depth, max_visited, successors, &Control::none()) {
        Ok(found) => found,
        Err(Cancelled) => unreachable!("no cancel flag"),
    }
}

/// `search_path`, looking at `ctl`'s cancel flag every 65 536 nodes whose successors it reads
/// (the leak suspects' paths: up to a million nodes before the full BFS answers).
pub fn search_path_or_stop<I: IntoIterator<Item = u32>>(
    from: u32,
    to: u32,
    max_depth: usize,
    max_visited: usize,
    successors: impl Fn(u32) -> I,
    ctl: &Control,
) -> Result<PathSearch, Cancelled> {
    ctl.check()?;
    if from == to {
        return Ok(PathSearch::Found(vec![from]));
    }
    let mut parent: FxHashMap<u32, u32> = FxHashMap::default();
    parent.insert(from, from);
    let mut frontier = vec![from];
    let mut next = Vec::new();
    let mut taken = 0u32;
    for _ in 0..max_depth {
        for &u in &frontier {
            taken = taken.wrapping_add(1);
            if taken & LOOK_MASK == 0 {
                ctl.check()?;
            }
            for v in successors(u) {
                if parent.contains_key(&v) {
                    continue;
                }
                parent.insert(v, u);
                if v == to {
                    let mut path = vec![to];
                    let mut x = to;
                    while x != from {
                        x = parent[&x];
                        path.push(x);
                    }
                    path.reverse();
                    return Ok(PathSearch::Found(path));
                }
                if parent.len() >= max_visited {
                    return Ok(PathSearch::GaveUp);
                }
                next.push(v);
            }
        }
        if next.is_empty() {
            return Ok(PathSearch::NoPath);
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
    Ok(PathSearch::GaveUp)
}
