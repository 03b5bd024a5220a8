//! Duplicate strings and UTF-16 strings that fit Latin-1: `java.lang.String`s grouped by their
//! text without building a Rust `String` per object. The key is a hash of the backing array's
//! bytes (with the encoding); a hit is confirmed by comparing bytes with the group's first
//! member, so two texts never share a group by accident. Only the values shown are decoded.
//! Each core collects its half of the objects; `absorb` joins the halves.
//!
//! The copy kept of a text is its String with the lowest object index; every other String of
//! the text is a redundant copy costing its own shallow size, plus its backing array's when
//! that array is not one an earlier copy (or the kept one) already uses — so strings that
//! share one array (JDK 6 substrings, G1 string deduplication) do not count it twice. A value
//! held by `count` strings with `arrays` distinct arrays wastes
//! `(count − 1) × S(String) + (arrays − 1) × S(array)`.
//!
//! A text stored UTF-16 (JDK 9+ coder 1) whose chars are all below 256 could be Latin-1: its
//! kept copy wastes `S(byte[2n]) − S(byte[n])` (the redundant copies are wholly counted above).

use std::borrow::Cow;
use std::hash::Hasher;

use heapql_heap::{Heap, ObjIdx, ObjectKind, PrimType, Value};
use rustc_hash::{FxHashMap, FxHasher};

use crate::{DuplicateString, DuplicateStrings};

/// Characters of a value shown in the report.
const VALUE_MAX_CHARS: usize = 200;
const NO_GROUP: u32 = u32::MAX;
/// Encodings of a text.
const LATIN1: u8 = 0;
const UTF16_BYTES: u8 = 1;

#[derive(Clone, Copy)]
struct Group {
    /// First String seen with this text (the lowest index: each half is scanned in order,
    /// and the lower half absorbs the upper).
    rep: ObjIdx,
    rep_array: ObjIdx,
    count: u32,
    encoding: u8,
    /// The text is the whole of `rep_array` (JDK 9+): a hit compares with the array directly.
    whole: bool,
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
    /// (group, backing array, string) of every String whose value is duplicated.
    members: Vec<(u32, ObjIdx, ObjIdx)>,
}

/// What `finish` found.
pub struct StringFindings {
    pub section: DuplicateStrings,
    /// (redundant String, its overhead), for the holder rows.
    pub redundant: Vec<(ObjIdx, u64)>,
    /// (kept String of a UTF-16 text that fits Latin-1, its overhead).
    pub latin1: Vec<(ObjIdx, u64)>,
}

/// The bytes that make up a String's text, tagged with their encoding.
struct Text<'h> {
    /// 0 Latin-1 bytes, 1 UTF-16 in a byte[] (JDK 9+ coder 1), 2 UTF-16 chars (char[]).
    encoding: u8,
    array: ObjIdx,
    bytes: Cow<'h, [u8]>,
    /// The bytes are the whole array (no offset/count window).
    whole: bool,
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
            Some(Value::Byte(1)) => (UTF16_BYTES, 1),
            _ => (LATIN1, 1),
        },
        _ => return None,
    };
    let units = bytes.len() / unit;
    let (start, count) = if encoding == UTF16_BYTES {
        (0, units)
    } else {
        match (int_field(heap, o, "offset"), int_field(heap, o, "count")) {
            (Some(off), Some(cnt)) if off + cnt <= units => (off, cnt),
            (None, Some(cnt)) if heap.field(o, "coder").is_none() && cnt <= units => (0, cnt),
            _ => (0, units),
        }
    };
    let whole = start == 0 && count == units && units * unit == bytes.len();
    let bytes = match bytes {
        Cow::Borrowed(b) => Cow::Borrowed(&b[start * unit..(start + count) * unit]),
        Cow::Owned(b) => Cow::Owned(b[start * unit..(start + count) * unit].to_vec()),
    };
    Some(Text { encoding, array, bytes, whole })
}

fn text_hash(t: &Text) -> u32 {
    let mut h = FxHasher::default();
    h.write_u8(t.encoding);
    h.write(&t.bytes);
    (h.finish() >> 32) as u32
}

impl StringCollector {
    pub fn add(&mut self, heap: &Heap, o: ObjIdx) {
        self.strings += 1;
        let Some(t) = text(heap, o) else { return };
        let g = self.group_for(heap, &t, o);
        let grp = &mut self.groups[g as usize];
        grp.count += 1;
        // Members are only needed for duplicated values: the first joins on the second.
        if grp.count == 2 {
            let (rep, rep_array) = (grp.rep, grp.rep_array);
            self.members.push((g, rep_array, rep));
        }
        if grp.count >= 2 {
            self.members.push((g, t.array, o));
        }
    }

    /// The group of text `t`, created (count 0, representative `o`) when new.
    fn group_for(&mut self, heap: &Heap, t: &Text, o: ObjIdx) -> u32 {
        let hash = text_hash(t);
        let mut g = *self.by_hash.get(&hash).unwrap_or(&NO_GROUP);
        let mut last = NO_GROUP;
        while g != NO_GROUP {
            let grp = self.groups[g as usize];
            let same = grp.encoding == t.encoding
                && if grp.whole {
                    heap.primitive_array_bytes(grp.rep_array).is_some_and(|r| *r == *t.bytes)
                } else {
                    text(heap, grp.rep).is_some_and(|r| r.bytes == t.bytes)
                };
            if same {
                return g;
            }
            last = g;
            g = grp.next;
        }
        let g = self.groups.len() as u32;
        self.groups.push(Group { rep: o, rep_array: t.array, count: 0, encoding: t.encoding, whole: t.whole, next: NO_GROUP });
        if last == NO_GROUP {
            self.by_hash.insert(hash, g);
        } else {
            self.groups[last as usize].next = g;
        }
        g
    }

    /// Joins the collector of the objects after this one's.
    pub fn absorb(&mut self, heap: &Heap, other: StringCollector) {
        self.strings += other.strings;
        let mut remap = Vec::with_capacity(other.groups.len());
        for h in &other.groups {
            let Some(t) = text(heap, h.rep) else {
                remap.push(NO_GROUP);
                continue;
            };
            let g = self.group_for(heap, &t, h.rep);
            let grp = &mut self.groups[g as usize];
            let before = grp.count;
            grp.count += h.count;
            let (rep, rep_array) = (grp.rep, grp.rep_array);
            if before == 1 {
                self.members.push((g, rep_array, rep));
            }
            if h.count == 1 && before >= 1 {
                self.members.push((g, h.rep_array, h.rep));
            }
            remap.push(g);
        }
        for (j, array, s) in other.members {
            let g = remap[j as usize];
            if g != NO_GROUP {
                self.members.push((g, array, s));
            }
        }
    }

    /// The section (totals over every value, the `top` most wasteful values), the redundant
    /// copies and the Latin-1 candidates.
    pub fn finish(mut self, heap: &Heap, top: usize) -> StringFindings {
        self.by_hash = FxHashMap::default();
        let groups = self.groups;
        self.members.sort_unstable();
        self.members.dedup();
        let mut redundant = Vec::new();
        // (wasted, count, group) per duplicated value.
        let mut dups: Vec<(u64, u32, u32)> = Vec::new();
        let mut i = 0;
        while i < self.members.len() {
            let g = self.members[i].0;
            let grp = groups[g as usize];
            let mut wasted = 0;
            let mut prev_array = NO_GROUP;
            while i < self.members.len() && self.members[i].0 == g {
                let (_, array, s) = self.members[i];
                if s != grp.rep {
                    let mut cost = heap.shallow_size(s);
                    if array != grp.rep_array && array != prev_array {
                        cost += heap.shallow_size(array);
                    }
                    wasted += cost;
                    redundant.push((s, cost));
                }
                prev_array = array;
                i += 1;
            }
            dups.push((wasted, grp.count, g));
        }
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
        let latin1 = latin1_candidates(heap, &groups);
        let section = DuplicateStrings { strings: self.strings, distinct: groups.len() as u64, duplicated_values, wasted_bytes, top };
        StringFindings { section, redundant, latin1 }
    }
}

/// Kept copies of UTF-16 texts whose chars are all below 256, with `S(byte[2n]) − S(byte[n])`.
fn latin1_candidates(heap: &Heap, groups: &[Group]) -> Vec<(ObjIdx, u64)> {
    let model = heap.size_model();
    // The high byte of each UTF-16 unit: the first of a pair big-endian, the second little.
    let high = if heap.utf16_big_endian() { 0 } else { 1 };
    let mut out = Vec::new();
    for g in groups.iter().filter(|g| g.encoding == UTF16_BYTES) {
        let Some(t) = text(heap, g.rep) else { continue };
        if t.bytes.len() % 2 != 0 || t.bytes.chunks_exact(2).any(|u| u[high] != 0) {
            continue;
        }
        let latin1 = model.array_size(1, (t.bytes.len() / 2) as u64);
        let now = heap.shallow_size(g.rep_array);
        if now > latin1 {
            out.push((g.rep, now - latin1));
        }
    }
    out
}
