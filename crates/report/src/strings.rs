//! Duplicate strings: `java.lang.String`s grouped by their text without building a Rust
//! `String` per object. The key is a hash of the backing array's bytes (with the encoding);
//! a hit is confirmed by comparing bytes with the group's first member, so two texts never
//! share a group by accident. Only the values shown are decoded.
//!
//! Wasted bytes of a value held by `count` strings: every String beyond the first, plus every
//! distinct backing array beyond the first — `(count − 1) × (String + array)` unless strings
//! share one array (JDK 6 substrings, G1 string deduplication), whose bytes are not wasted twice.

use std::borrow::Cow;
use std::hash::Hasher;

use heapql_heap::{Heap, ObjIdx, ObjectKind, PrimType, Value};
use rustc_hash::{FxHashMap, FxHasher};

use super::model::{DuplicateString, DuplicateStrings};

/// Characters of a value shown in the report.
const VALUE_MAX_CHARS: usize = 200;
const NO_GROUP: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Group {
    /// First String seen with this text.
    rep: ObjIdx,
    count: u32,
    /// Next group with the same hash (a collision), or NO_GROUP.
    next: u32,
}

#[derive(Default)]
pub struct StringCollector {
    strings: u64,
    /// 32 bits of the text's hash → first group with it: 8 bytes an entry instead of 16; a
    /// shared key is one more collision, resolved by the chain and the byte comparison.
    by_hash: FxHashMap<u32, u32>,
    groups: Vec<Group>,
    /// (group, backing array) of every String whose value is duplicated.
    members: Vec<(u32, ObjIdx)>,
}

/// The bytes that make up a String's text, tagged with their encoding.
struct Text<'h> {
    /// 0 Latin-1 bytes, 1 UTF-16 in a byte[] (JDK 9+ coder 1), 2 UTF-16 chars (char[]).
    encoding: u8,
    array: ObjIdx,
    bytes: Cow<'h, [u8]>,
}

fn int_field(heap: &Heap, o: ObjIdx, name: &str) -> Option<usize> {
    match heap.field(o, name) {
        Some(Value::Int(v)) if v >= 0 => Some(v as usize),
        _ => None,
    }
}

/// The text bytes of String `o` (the window `offset`/`count` selects on old JDKs and Android).
fn text(heap: &Heap, o: ObjIdx) -> Option<Text<'_>> {
    let Value::Object(id) = heap.field(o, "value")? else { return None };
    let array = heap.index_of(id)?;
    let bytes = heap.primitive_array_bytes(array)?;
    let (encoding, unit) = match heap.object_kind(array) {
        ObjectKind::PrimitiveArray(PrimType::Char) => (2u8, 2usize),
        ObjectKind::PrimitiveArray(PrimType::Byte) => match heap.field(o, "coder") {
            Some(Value::Byte(1)) => (1, 1),
            _ => (0, 1),
        },
        _ => return None,
    };
    let units = bytes.len() / unit;
    let (start, count) = if encoding == 1 {
        (0, units)
    } else {
        match (int_field(heap, o, "offset"), int_field(heap, o, "count")) {
            (Some(off), Some(cnt)) if off + cnt <= units => (off, cnt),
            (None, Some(cnt)) if heap.field(o, "coder").is_none() && cnt <= units => (0, cnt),
            _ => (0, units),
        }
    };
    let bytes = match bytes {
        Cow::Borrowed(b) => Cow::Borrowed(&b[start * unit..(start + count) * unit]),
        Cow::Owned(b) => Cow::Owned(b[start * unit..(start + count) * unit].to_vec()),
    };
    Some(Text { encoding, array, bytes })
}

impl StringCollector {
    pub fn add(&mut self, heap: &Heap, o: ObjIdx) {
        self.strings += 1;
        let Some(t) = text(heap, o) else { return };
        let mut h = FxHasher::default();
        h.write_u8(t.encoding);
        h.write(&t.bytes);
        let hash = (h.finish() >> 32) as u32;
        let mut g = *self.by_hash.get(&hash).unwrap_or(&NO_GROUP);
        let mut last = NO_GROUP;
        let mut rep_array = NO_GROUP;
        while g != NO_GROUP {
            let rep = self.groups[g as usize].rep;
            if let Some(r) = text(heap, rep).filter(|r| r.encoding == t.encoding && r.bytes == t.bytes) {
                rep_array = r.array;
                break;
            }
            last = g;
            g = self.groups[g as usize].next;
        }
        if g == NO_GROUP {
            g = self.groups.len() as u32;
            self.groups.push(Group { rep: o, count: 0, next: NO_GROUP });
            if last == NO_GROUP {
                self.by_hash.insert(hash, g);
            } else {
                self.groups[last as usize].next = g;
            }
        }
        let count = &mut self.groups[g as usize].count;
        *count += 1;
        // Arrays are only needed for duplicated values: the first member's joins on the second.
        if *count == 2 {
            self.members.push((g, rep_array));
        }
        if *count >= 2 {
            self.members.push((g, t.array));
        }
    }

    /// The section: totals over every value, the `top` most wasteful values.
    pub fn finish(mut self, heap: &Heap, top: usize) -> DuplicateStrings {
        self.by_hash = FxHashMap::default();
        let groups = self.groups;
        self.members.retain(|&(g, _)| groups[g as usize].count > 1);
        self.members.sort_unstable();
        self.members.dedup();
        // Distinct backing arrays per duplicated value.
        let mut arrays: FxHashMap<u32, (u64, ObjIdx)> = FxHashMap::default();
        for &(g, array) in &self.members {
            arrays.entry(g).or_insert((0, array)).0 += 1;
        }
        let mut dups: Vec<(u64, u32, u32)> = arrays
            .iter()
            .map(|(&g, &(distinct_arrays, array))| {
                let grp = groups[g as usize];
                let wasted = (grp.count as u64 - 1) * heap.shallow_size(grp.rep)
                    + (distinct_arrays - 1) * heap.shallow_size(array);
                (wasted, grp.count, g)
            })
            .collect();
        let wasted_bytes = dups.iter().map(|d| d.0).sum();
        let duplicated_values = dups.len() as u64;
        dups.sort_unstable_by(|a, b| {
            b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(heap.object_id(groups[a.2 as usize].rep).cmp(&heap.object_id(groups[b.2 as usize].rep)))
        });
        let top = dups
            .iter()
            .take(top)
            .map(|&(wasted, count, g)| {
                let full = heap.string_value(groups[g as usize].rep).unwrap_or_default();
                let length = full.encode_utf16().count() as u64;
                let mut chars = full.chars();
                let value: String = chars.by_ref().take(VALUE_MAX_CHARS).collect();
                let truncated = chars.next().is_some();
                DuplicateString { value, truncated, length, count: count as u64, wasted_bytes: wasted }
            })
            .collect();
        DuplicateStrings { strings: self.strings, distinct: groups.len() as u64, duplicated_values, wasted_bytes, top }
    }
}
