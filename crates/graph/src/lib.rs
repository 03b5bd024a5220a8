//! The full path of heapql: the object graph of a heap dump as compressed sparse rows, its
//! dominator tree, retained sizes, retained sets and paths.
//!
//! The algorithms (`csr`, `dominators`, `retained`, `paths`, `domtree`) work on any `Graph`
//! with `u32` node ids; `object_graph` and `analysis` apply them to a `heapql_heap::Heap`
//! following MAT's graph (docs/mat-semantics.md §1–2). The report built on top of them lives
//! in the `heapql-report` crate.

pub mod analysis;
mod buckets;
pub mod control;
pub mod csr;
pub mod dominators;
pub mod domtree;
pub mod lookup;
mod marking;
pub mod object_graph;
pub mod par;
pub mod paths;
mod packed_offsets;
mod parents;
mod persist;
mod pred_pairs;
pub use persist::CACHE_LAYOUT;
pub mod reachability;
pub mod retained;

pub use analysis::{dangling_warning, edge_label, FullAnalysis, GraphOptions, PassBeside, PathStep, RetainedSet, ShallowSizes};
pub use control::{Cancelled, Control};
pub use csr::{Csr, CsrParts, SequentialCsrBuilder, SparseCsr};
pub use dominators::{dominators, dominators_in, pinned_edges, Dominators};
pub use domtree::dominator_children;
pub use fixedbitset::FixedBitSet;
pub use object_graph::{Dangling, DanglingRef, ObjectGraph};
pub use paths::{bfs_parents, bfs_parents_or_stop, bounded_path, path_from_parents, search_path, search_path_or_stop, PathSearch};
pub use reachability::reachable_bitmap;
pub use retained::{min_retained_size, own_sizes, own_sizes_seen, retained_set, retained_sizes, retained_sizes_in, sum_retained, sum_retained_or_stop, OwnSizes, RetainedSizes};

/// "No node": no dominator, not reached, not linked.
pub const NONE: u32 = u32::MAX;

/// A directed graph with dense `u32` node ids and slice access to each node's successors.
pub trait Graph {
    fn node_count(&self) -> u32;
    fn successors(&self, v: u32) -> &[u32];
}

impl Graph for Csr {
    fn node_count(&self) -> u32 {
        Csr::node_count(self)
    }
    fn successors(&self, v: u32) -> &[u32] {
        Csr::successors(self, v)
    }
}
