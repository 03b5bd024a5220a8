//! Shortest paths: from the root to every node (one BFS, a parent array) and a bounded
//! forward search between two nodes.

use crate::{Graph, NONE};
use heapql_heap::{BigArray, Placement};
use std::collections::{HashMap, VecDeque};

/// BFS parent of every node reached from `root` (`parent[root] == root`, `NONE` = unreached).
/// `skip(u, v)` drops an edge from the search (e.g. excluded fields). Memory: one `u32` array
/// plus two consecutive BFS levels (a FIFO queue would hold every reached node by the end).
/// The array is placed by `place`: written once, then read along a few paths.
pub fn bfs_parents<G: Graph>(g: &G, root: u32, skip: impl Fn(u32, u32) -> bool, place: &Placement) -> BigArray<u32> {
    let n = g.node_count() as usize;
    let mut parent: BigArray<u32> = BigArray::zeroed(n, place);
    parent.fill(NONE);
    parent[root as usize] = root;
    // Levels in order, each in discovery order: the same visiting order as a FIFO queue.
    let mut level: Vec<u32> = vec![root];
    let mut next: Vec<u32> = Vec::new();
    while !level.is_empty() {
        for &u in &level {
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
    parent
}

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

/// Shortest forward path `from ..= to` visiting at most `limit` nodes; None if `to` was not
/// found within the limit. Memory is proportional to the nodes visited, not the graph.
pub fn bounded_path<G: Graph>(g: &G, from: u32, to: u32, limit: usize) -> Option<Vec<u32>> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    parent.insert(from, from);
    let mut queue = VecDeque::from([from]);
    'search: while let Some(u) = queue.pop_front() {
        if u == to {
            break 'search;
        }
        for &v in g.successors(u) {
            if parent.len() >= limit {
                break 'search;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(v) {
                e.insert(u);
                if v == to {
                    break 'search;
                }
                queue.push_back(v);
            }
        }
    }
    parent.get(&to)?;
    let mut path = vec![to];
    let mut v = to;
    while v != from {
        v = parent[&v];
        path.push(v);
    }
    path.reverse();
    Some(path)
}
