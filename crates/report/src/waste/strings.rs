//! Duplicate strings and UTF-16 strings that fit Latin-1: `java.lang.String`s grouped by their
//! text without building a Rust `String` per object. The key is a hash of the backing array's
//! bytes (with the encoding), collected per String and sorted; Strings with equal keys are
//! confirmed by comparing bytes with the run's first, so two texts never share a group by
//! accident. Only the values shown are decoded. Each core collects its half of the objects;
//! `absorb` joins the halves.
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
use rustc_hash::FxHasher;

use crate::{DuplicateString, DuplicateStrings};

/// Characters of a value shown in the report.
const VALUE_MAX_CHARS: usize = 200;
/// No array (before the first member).
const NO_ARRAY: u32 = u32::MAX;
/// Encodings of a text.
const LATIN1: u8 = 0;
const UTF16_BYTES: u8 = 1;

/// One text: its kept copy (lowest object index) and its encoding.
#[derive(Clone, Copy)]
struct Group {
    rep: ObjIdx,
    encoding: u8,
}

/// Collects a key per String; the texts are grouped once every object has been seen. 8 bytes
/// per String, where a table of the distinct texts would cost several times that (most
/// texts of a heap are unique).
#[derive(Default)]
pub struct StringCollector {
    strings: u64,
    fields: StringFields,
    /// (encoding in the top two bits, 30 bits of the text's hash; the String) of every String
    /// with a readable text, in object order until `seal` sorts them. Equal keys are
    /// confirmed by comparing bytes.
    keys: Vec<(u32, ObjIdx)>,
    /// The sorted keys of the objects after these (`absorb`), merged with them in `finish`.
    after: Vec<(u32, ObjIdx)>,
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
}

/// Which of the fields `text` reads the dump's `java.lang.String` classes have: a field a
/// class lacks reads as absent, so `text` skips looking it up by name (JDK 9+ Strings have no
/// `offset` or `count`, JDK 8 ones no `coder`): half the field reads of a Latin-1 String.
#[derive(Clone, Copy, Default)]
pub struct StringFields {
    offset: bool,
    count: bool,
    coder: bool,
}

impl StringFields {
    pub fn of(heap: &Heap) -> StringFields {
        let has = |name: &str| {
            heap.classes_named("java.lang.String").iter().any(|&c| heap.instance_layout(c).iter().any(|f| f.name == name))
        };
        StringFields { offset: has("offset"), count: has("count"), coder: has("coder") }
    }

    fn int(&self, heap: &Heap, o: ObjIdx, name: &str, present: bool) -> Option<usize> {
        if !present {
            return None;
        }
        match heap.field(o, name) {
            Some(Value::Int(v)) if v >= 0 => Some(v as usize),
            _ => None,
        }
    }

    fn coder(&self, heap: &Heap, o: ObjIdx) -> Option<Value> {
        if self.coder {
            heap.field(o, "coder")
        } else {
            None
        }
    }
}

/// The text bytes of String `o` (the window `offset`/`count` selects on old JDKs and Android).
fn text<'h>(heap: &'h Heap, fields: StringFields, o: ObjIdx) -> Option<Text<'h>> {
    let Value::Object(id) = heap.field(o, "value")? else { return None };
    let array = heap.index_of(id)?;
    let bytes = heap.primitive_array_bytes(array)?;
    let (encoding, unit) = match heap.object_kind(array) {
        ObjectKind::PrimitiveArray(PrimType::Char) => (2u8, 2usize),
        ObjectKind::PrimitiveArray(PrimType::Byte) => match fields.coder(heap, o) {
            Some(Value::Byte(1)) => (UTF16_BYTES, 1),
            _ => (LATIN1, 1),
        },
        _ => return None,
    };
    let units = bytes.len() / unit;
    let (start, count) = if encoding == UTF16_BYTES {
        (0, units)
    } else {
        match (fields.int(heap, o, "offset", fields.offset), fields.int(heap, o, "count", fields.count)) {
            (Some(off), Some(cnt)) if off + cnt <= units => (off, cnt),
            (None, Some(cnt)) if fields.coder(heap, o).is_none() && cnt <= units => (0, cnt),
            _ => (0, units),
        }
    };
    let bytes = match bytes {
        Cow::Borrowed(b) => Cow::Borrowed(&b[start * unit..(start + count) * unit]),
        Cow::Owned(b) => Cow::Owned(b[start * unit..(start + count) * unit].to_vec()),
    };
    Some(Text { encoding, array, bytes })
}

/// The collector's key of a text: its encoding, then 30 bits of the hash of its bytes.
fn text_key(t: &Text) -> u32 {
    let mut h = FxHasher::default();
    h.write_u8(t.encoding);
    h.write(&t.bytes);
    (t.encoding as u32) << 30 | (h.finish() >> 34) as u32
}

impl StringCollector {
    pub fn add(&mut self, heap: &Heap, o: ObjIdx) {
        self.strings += 1;
        if let Some(t) = text(heap, self.fields, o) {
            self.keys.push((text_key(&t), o));
        }
    }

    pub fn with_capacity(heap: &Heap, strings: usize) -> StringCollector {
        StringCollector { keys: Vec::with_capacity(strings), fields: StringFields::of(heap), ..Default::default() }
    }

    /// Sorts the keys (each core sorts its own half).
    pub fn seal(&mut self) {
        self.keys.sort_unstable();
    }

    /// Joins the sealed collector of the objects after this one's.
    pub fn absorb(&mut self, other: StringCollector) {
        self.strings += other.strings;
        self.after = other.keys;
    }

    /// The section (totals over every value, the `top` most wasteful values), the redundant
    /// copies and the Latin-1 candidates.
    pub fn finish(self, heap: &Heap, top: usize) -> StringFindings {
        // Equal keys come together, each run in object order: the first String of a text is
        // the copy kept.
        let mut laps = crate::timing::Laps::new();
        let mut f = Finder { heap, fields: self.fields, groups: Vec::new(), redundant: Vec::new(), dups: Vec::new(), members: Vec::new() };
        let mut run: Vec<ObjIdx> = Vec::new();
        let mut run_key = 0u32;
        for (key, o) in merged(&self.keys, &self.after) {
            if key != run_key && !run.is_empty() {
                f.run(run_key, &mut run);
            }
            run_key = key;
            run.push(o);
        }
        if !run.is_empty() {
            f.run(run_key, &mut run);
        }
        drop((self.keys, self.after));
        laps.lap("waste: strings: grouping and verification (Finder::run)");
        let Finder { groups, redundant, mut dups, .. } = f;
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
        laps.lap("waste: strings: top values");
        let latin1 = latin1_candidates(heap, self.fields, &groups);
        laps.lap("waste: strings: latin-1");
        let section = DuplicateStrings { strings: self.strings, distinct: groups.len() as u64, duplicated_values, wasted_bytes, top };
        StringFindings { section, redundant, latin1 }
    }
}

/// Two sorted lists as one sorted sequence.
fn merged<'l>(a: &'l [(u32, ObjIdx)], b: &'l [(u32, ObjIdx)]) -> impl Iterator<Item = (u32, ObjIdx)> + 'l {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x <= y => x,
            (_, Some(&y)) => y,
            (Some(&x), None) => x,
            (None, None) => return None,
        };
        if a.get(i) == Some(&next) {
            i += 1;
        } else {
            j += 1;
        }
        Some(next)
    })
}

/// Groups the runs of equal keys into texts and prices the redundant copies.
struct Finder<'h> {
    heap: &'h Heap,
    fields: StringFields,
    groups: Vec<Group>,
    /// (redundant String, its overhead).
    redundant: Vec<(ObjIdx, u64)>,
    /// (wasted, count, group) per duplicated value.
    dups: Vec<(u64, u32, u32)>,
    /// (backing array, String) of the members of one text.
    members: Vec<(ObjIdx, ObjIdx)>,
}

impl Finder<'_> {
    /// One run of Strings with key `key`, ascending (emptied).
    fn run(&mut self, key: u32, run: &mut Vec<ObjIdx>) {
        let heap = self.heap;
        let encoding = (key >> 30) as u8;
        if run.len() == 1 {
            self.groups.push(Group { rep: run[0], encoding });
            run.clear();
            return;
        }
        // One key, maybe several texts: split the run by comparing bytes.
        while let Some(&rep) = run.first() {
            let Some(kept) = text(heap, self.fields, rep) else {
                run.remove(0);
                continue;
            };
            self.members.clear();
            self.members.push((kept.array, rep));
            let mut rest = Vec::new();
            for &o in &run[1..] {
                match text(heap, self.fields, o) {
                    Some(t) if t.encoding == kept.encoding && t.bytes == kept.bytes => self.members.push((t.array, o)),
                    _ => rest.push(o),
                }
            }
            *run = rest;
            let g = self.groups.len() as u32;
            self.groups.push(Group { rep, encoding });
            if self.members.len() < 2 {
                continue;
            }
            // A copy pays its String, and its array unless the kept copy or the copy before
            // it (members sorted by array) uses the same one.
            self.members.sort_unstable();
            let mut wasted = 0;
            let mut prev_array = NO_ARRAY;
            for &(array, s) in &self.members {
                if s != rep {
                    let mut cost = heap.shallow_size(s);
                    if array != kept.array && array != prev_array {
                        cost += heap.shallow_size(array);
                    }
                    wasted += cost;
                    self.redundant.push((s, cost));
                }
                prev_array = array;
            }
            self.dups.push((wasted, self.members.len() as u32, g));
        }
    }
}

/// Kept copies of UTF-16 texts whose chars are all below 256, with `S(byte[2n]) − S(byte[n])`.
fn latin1_candidates(heap: &Heap, fields: StringFields, groups: &[Group]) -> Vec<(ObjIdx, u64)> {
    let model = heap.size_model();
    // The high byte of each UTF-16 unit: the first of a pair big-endian, the second little.
    let high = if heap.utf16_big_endian() { 0 } else { 1 };
    let mut out = Vec::new();
    // In object order (the dump's), not the groups' key order, which reads the dump at random.
    let mut reps: Vec<ObjIdx> = groups.iter().filter(|g| g.encoding == UTF16_BYTES).map(|g| g.rep).collect();
    reps.sort_unstable();
    for rep in reps {
        let Some(t) = text(heap, fields, rep) else { continue };
        if t.bytes.len() % 2 != 0 || t.bytes.chunks_exact(2).any(|u| u[high] != 0) {
            continue;
        }
        let latin1 = model.array_size(1, (t.bytes.len() / 2) as u64);
        let now = heap.shallow_size(t.array);
        if now > latin1 {
            out.push((rep, now - latin1));
        }
    }
    out
}
