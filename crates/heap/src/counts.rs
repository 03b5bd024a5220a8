//! Whole-heap counts for summaries: objects by kind, GC roots by kind, total shallow heap.

use crate::{Heap, ObjectKind, RootKind};

#[derive(Clone, Debug, Default)]
pub struct HeapCounts {
    pub instances: u64,
    pub object_arrays: u64,
    pub primitive_arrays: u64,
    pub classes: u64,
    pub total_shallow: u64,
    /// GC root records by kind (an object held by several roots counts once per root), by kind order.
    pub roots_by_kind: Vec<(RootKind, u64)>,
}

impl Heap {
    pub fn counts(&self) -> HeapCounts {
        let mut c = HeapCounts::default();
        for o in 0..self.object_count() {
            match self.object_kind(o) {
                ObjectKind::Instance => c.instances += 1,
                ObjectKind::ObjectArray => c.object_arrays += 1,
                ObjectKind::PrimitiveArray(_) => c.primitive_arrays += 1,
                ObjectKind::Class => c.classes += 1,
            }
            c.total_shallow += self.shallow_size(o);
        }
        let mut by_kind: std::collections::BTreeMap<RootKind, u64> = Default::default();
        for root in self.gc_roots() {
            *by_kind.entry(root.kind).or_default() += 1;
        }
        c.roots_by_kind = by_kind.into_iter().collect();
        c
    }
}
