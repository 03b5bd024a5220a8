//! Android heaps (`app`, `zygote`, `image`): which heap each object is in.
//!
//! An ART or Dalvik dump says it with HEAP DUMP INFO sub-records (0xFE, hprof-format.md §9):
//! each switches the "current heap" for the objects after it. The index keeps the switches
//! only — a short table of (file offset, heap) in file order, one entry per change of heap —
//! and finds an object's heap from its record offset by binary search: nothing per object,
//! and exact whatever the order of the object index (ids) against the order of the file.
//!
//! The rules:
//! * A HEAP DUMP INFO holds until the next one, across HEAP DUMP SEGMENT records (as ahat
//!   reads it). ART resets its current heap at each new segment but writes the record again
//!   before the segment's first object, so its dumps read the same either way; a writer that
//!   does not repeat it means the heap to go on.
//! * Objects before the first HEAP DUMP INFO of a dump that has one are in the heap
//!   `default` (ahat's name; ART's heap id 0 is its "default" heap, which no object of an ART
//!   dump is in).
//! * A heap is its name (the record's string), as ahat keys heaps; a name the dump does not
//!   hold is made from ART's heap id (`A` app, `Z` zygote, `I` image).
//! * A dump with no HEAP DUMP INFO (HotSpot, an `hprof-conv` output) has no heaps: `None`.
//! * A class object the index made up (no CLASS DUMP) is in no heap.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::{ClassMemo, Heap, ObjIdx};

/// The heap of the objects before the first HEAP DUMP INFO.
pub const DEFAULT_HEAP: &str = "default";

/// One heap: its name, its objects and their shallow bytes (`Heap::heaps`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HeapStats {
    pub name: String,
    pub objects: u64,
    pub shallow: u64,
}

/// The heaps of a dump and where in the file each begins.
#[derive(Clone, Debug, Default)]
pub(crate) struct HeapTable {
    /// By heap number; `DEFAULT_HEAP` first. Empty for a dump without HEAP DUMP INFO.
    pub(crate) names: Vec<Arc<str>>,
    /// (offset of a HEAP DUMP INFO that changes the heap, the heap number from there on),
    /// ascending offsets; before the first, heap 0 (`DEFAULT_HEAP`).
    pub(crate) marks: Vec<(u64, u32)>,
}

/// A HEAP DUMP INFO as the heap pass meets it: (offset, heap id, name string id).
pub(crate) type HeapInfo = (u64, u32, u64);

impl HeapTable {
    /// The table of a dump's HEAP DUMP INFO records (in file order), their names read by
    /// `name_of` (the string of a name id, None when the dump has none).
    pub(crate) fn new(infos: &[HeapInfo], name_of: impl Fn(u64) -> Option<String>) -> HeapTable {
        if infos.is_empty() {
            return HeapTable::default();
        }
        let mut names: Vec<Arc<str>> = vec![Arc::from(DEFAULT_HEAP)];
        let mut numbers: FxHashMap<(u32, u64), u32> = FxHashMap::default();
        let mut marks: Vec<(u64, u32)> = Vec::new();
        for &(offset, heap_id, name_id) in infos {
            let n = *numbers.entry((heap_id, name_id)).or_insert_with(|| {
                let name = name_of(name_id).filter(|s| !s.is_empty()).unwrap_or_else(|| art_heap_name(heap_id));
                match names.iter().position(|x| **x == *name) {
                    Some(i) => i as u32,
                    None => {
                        names.push(Arc::from(name));
                        names.len() as u32 - 1
                    }
                }
            });
            if marks.last().map_or(0, |m| m.1) != n {
                marks.push((offset, n));
            }
        }
        HeapTable { names, marks }
    }

    /// Whether the table is whole (a cache file read back): every mark names a heap, and the
    /// marks are in file order.
    pub(crate) fn fits(&self) -> bool {
        (self.names.is_empty() && self.marks.is_empty())
            || (self.marks.iter().all(|m| (m.1 as usize) < self.names.len()) && self.marks.windows(2).all(|w| w[0].0 < w[1].0))
    }

    /// The heap number of the object whose record is at `offset` (the table is not empty).
    #[inline]
    pub(crate) fn heap_at(&self, offset: u64) -> u32 {
        match self.marks.partition_point(|&(at, _)| at <= offset) {
            0 => 0,
            i => self.marks[i - 1].1,
        }
    }
}

/// ART's name of a heap id (its `HprofHeapId`), for a name string the dump does not hold.
fn art_heap_name(heap_id: u32) -> String {
    match heap_id {
        0 => DEFAULT_HEAP.to_string(),
        0x41 => "app".to_string(),
        0x49 => "image".to_string(),
        0x5A => "zygote".to_string(),
        other => format!("heap {other:#x}"),
    }
}

/// Every heap with at least one object, in heap-number order (the order of their first
/// HEAP DUMP INFO, `default` first): one pass over the objects, on both cores.
pub(crate) fn heap_stats(h: &Heap) -> Vec<HeapStats> {
    let t = &h.heaps;
    if t.names.is_empty() {
        return Vec::new();
    }
    let count = |from: ObjIdx, to: ObjIdx| -> Vec<(u64, u64)> {
        let mut acc = vec![(0u64, 0u64); t.names.len()];
        let mut memo = ClassMemo::default();
        for o in from..to {
            if let Some(k) = h.heap_of(o) {
                let c = h.class_of_memo(o, &mut memo);
                let a = &mut acc[k as usize];
                a.0 += 1;
                a.1 += h.shallow_size_of_class(o, c);
            }
        }
        acc
    };
    let n = h.object_count();
    let (low, high) = heapql_scratch::both(|| count(0, n / 2), || count(n / 2, n));
    t.names
        .iter()
        .zip(low.iter().zip(&high))
        .filter(|(_, (a, b))| a.0 + b.0 > 0)
        .map(|(name, (a, b))| HeapStats { name: name.to_string(), objects: a.0 + b.0, shallow: a.1 + b.1 })
        .collect()
}
