//! Duplicate strings and UTF-16 strings that fit Latin-1: `java.lang.String`s grouped by their
//! text without building a Rust `String` per object. The key is a hash of the backing array's
//! bytes (with the encoding), collected per String and sorted; Strings with equal keys are
//! split into texts by comparing bytes with the texts of their key met so far (`verify`), so
//! two texts never share a group by accident. Only the values shown are decoded. Each core
//! collects its half of the objects; `absorb` joins the halves.
//!
//! The copy kept of a text is its String with the lowest object index; every other String of
//! the text is a redundant copy costing its own shallow size, plus its backing array's when
//! that array is not one an earlier copy (or the kept one) already uses — so strings that
//! share one array (JDK 6 substrings, G1 string deduplication) do not count it twice — and
//! when only Strings of this text read it: an array that Strings of another text read too (a
//! JDK 6 substring's window of a longer `char[]`, such as one path of a class path) is not
//! freed by dropping the copy, which then costs its String alone. A value held by `count`
//! strings with `arrays` distinct arrays of their own wastes
//! `(count − 1) × S(String) + (arrays − 1) × S(array)`.
//!
//! The part of that a GC root reaches is what `--reachable-only` counts for the text: the
//! same rule among its reachable copies alone (the lowest-index reachable one kept), whichever
//! copy the rows keep. Each redundant copy carries that part (`StringFindings::redundant`); a
//! reachable copy sharing its array with a garbage one may carry more than it costs in the
//! rows, a reachable copy the rows keep-instead-of carries nothing.
//!
//! A text stored UTF-16 (JDK 9+ coder 1) whose chars are all below 256 could be Latin-1: its
//! kept copy wastes `S(byte[2n]) − S(byte[n])` (the redundant copies are wholly counted above).

use std::borrow::Cow;

use heapql_heap::{ClassIdx, FieldSlot, GrowArray, Heap, ObjIdx, ObjectKind, PrimType, Value};
use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::{DuplicateString, DuplicateStrings};
use heapql_graph::control::{sort_by_key_or_stop, sort_or_stop, Cancelled, Control};

/// Items between two looks at the cancel flag.
const STEP: usize = 1 << 16;

/// Characters of a value shown in the report.
const VALUE_MAX_CHARS: usize = 200;
/// No array (before the first member).
const NO_ARRAY: u32 = u32::MAX;
/// Encodings of a text.
const LATIN1: u8 = 0;
const UTF16_BYTES: u8 = 1;
/// The key's encoding of a UTF-16 text (in a byte[]) whose chars are all below 256: a
/// Latin-1 candidate. Equal texts get equal keys still; only these are read again.
const FITS_LATIN1: u32 = 3;

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
    /// In the heap's scratch placement: a collector made beside the dominator phase keeps
    /// them there, where the pages they fill can leave memory for the phase's own.
    keys: GrowArray<[u32; 2]>,
    /// The sorted keys of the objects after these (`absorb`), merged with them in `finish`.
    after: GrowArray<[u32; 2]>,
    /// The object after the array of the last String added (`index_near`).
    after_array: ObjIdx,
    /// The array of every String with an `offset` field (`Text::windowed`), once per String:
    /// how many Strings read each such array, so a copy pays for its array only when no
    /// String of another text reads it. Empty for JDK 7u6+ and ART Strings, which own their
    /// arrays (or share them with equal texts only).
    users: Vec<ObjIdx>,
}

/// What `finish` found.
pub struct StringFindings {
    pub section: DuplicateStrings,
    /// (redundant String, its overhead, the part of the text's overhead `--reachable-only`
    /// counts on it), for the holder rows.
    pub redundant: Vec<(ObjIdx, u64, u64)>,
    /// (kept String of a UTF-16 text that fits Latin-1, its overhead, the copy of the text
    /// `--reachable-only` keeps: its lowest-index reachable String, if any).
    pub latin1: Vec<(ObjIdx, u64, Option<ObjIdx>)>,
}

/// The bytes that make up a String's text, tagged with their encoding.
struct Text<'h> {
    /// 0 Latin-1 bytes, 1 UTF-16 in a byte[] (JDK 9+ coder 1), 2 UTF-16 chars (char[]).
    encoding: u8,
    array: ObjIdx,
    bytes: Cow<'h, [u8]>,
    /// The String has an `offset` field (JDK ≤ 7u5, early Android): it may read a window of an
    /// array that Strings of other texts read too.
    windowed: bool,
}

/// Where the fields `text` reads lie in the instances of each of the dump's
/// `java.lang.String` classes (usually one), resolved once: a field a class lacks reads as
/// absent (JDK 9+ Strings have no `offset` or `count`, JDK 8 ones no `coder`).
#[derive(Clone, Default)]
pub struct StringFields(Vec<(ClassIdx, StringSlots)>);

#[derive(Clone, Copy)]
struct StringSlots {
    value: Option<FieldSlot>,
    offset: Option<FieldSlot>,
    count: Option<FieldSlot>,
    coder: Option<FieldSlot>,
}

impl StringSlots {
    fn of(heap: &Heap, c: ClassIdx) -> StringSlots {
        let slot = |name| heap.field_slot(c, name);
        StringSlots { value: slot("value"), offset: slot("offset"), count: slot("count"), coder: slot("coder") }
    }

    fn int(heap: &Heap, o: ObjIdx, slot: Option<FieldSlot>) -> Option<usize> {
        match heap.field_at(o, slot?) {
            Some(Value::Int(v)) if v >= 0 => Some(v as usize),
            _ => None,
        }
    }

    fn coder(&self, heap: &Heap, o: ObjIdx) -> Option<Value> {
        heap.field_at(o, self.coder?)
    }
}

impl StringFields {
    pub fn of(heap: &Heap) -> StringFields {
        StringFields(heap.classes_named("java.lang.String").iter().map(|&c| (c, StringSlots::of(heap, c))).collect())
    }

    /// The slots of class `c` (resolved now if it is not one of the String classes).
    fn of_class(&self, heap: &Heap, c: ClassIdx) -> StringSlots {
        self.0.iter().find(|(k, _)| *k == c).map_or_else(|| StringSlots::of(heap, c), |&(_, s)| s)
    }
}

/// The text bytes of String `o` of class `c` (the window `offset`/`count` selects on old
/// JDKs and Android).
/// `after`: the object after the array of the String read before (`index_near`).
fn text<'h>(heap: &'h Heap, fields: &StringFields, o: ObjIdx, c: ClassIdx, after: &mut ObjIdx) -> Option<Text<'h>> {
    let slots = fields.of_class(heap, c);
    let Value::Object(id) = heap.field_at(o, slots.value?)? else { return None };
    let array = index_near(heap, id, [o.wrapping_add(1), *after])?;
    *after = array.wrapping_add(1);
    let bytes = heap.primitive_array_bytes(array)?;
    let (encoding, unit) = match heap.object_kind(array) {
        ObjectKind::PrimitiveArray(PrimType::Char) => (2u8, 2usize),
        ObjectKind::PrimitiveArray(PrimType::Byte) => match slots.coder(heap, o) {
            Some(Value::Byte(1)) => (UTF16_BYTES, 1),
            _ => (LATIN1, 1),
        },
        _ => return None,
    };
    let units = bytes.len() / unit;
    let (start, count) = if encoding == UTF16_BYTES {
        (0, units)
    } else {
        match (StringSlots::int(heap, o, slots.offset), StringSlots::int(heap, o, slots.count)) {
            (Some(off), Some(cnt)) if off + cnt <= units => (off, cnt),
            (None, Some(cnt)) if slots.coder(heap, o).is_none() && cnt <= units => (0, cnt),
            _ => (0, units),
        }
    };
    let bytes = match bytes {
        Cow::Borrowed(b) => Cow::Borrowed(&b[start * unit..(start + count) * unit]),
        Cow::Owned(b) => Cow::Owned(b[start * unit..(start + count) * unit].to_vec()),
    };
    Some(Text { encoding, array, bytes, windowed: slots.offset.is_some() })
}

/// The index of object `id`, tried first at the `likely` indices: objects are indexed in
/// address order, and a String's array is most often allocated right after it (the corpus
/// dumps: 85-100% of their Strings), else often right after the previous String's array
/// (Strings and arrays in separate regions, allocated in the same order).
fn index_near(heap: &Heap, id: u64, likely: [ObjIdx; 2]) -> Option<ObjIdx> {
    for o in likely {
        if o < heap.object_count() && heap.object_id(o) == id {
            return Some(o);
        }
    }
    heap.index_of(id)
}

/// The collector's key of a text: its encoding (`FITS_LATIN1` for a UTF-16 text that could
/// be Latin-1), then 30 bits of the hash of its bytes.
fn text_key(t: &Text, high: usize) -> u32 {
    let h = xxh3_64_with_seed(&t.bytes, t.encoding as u64);
    let encoding = if t.encoding == UTF16_BYTES && fits_latin1(&t.bytes, high) { FITS_LATIN1 } else { t.encoding as u32 };
    encoding << 30 | (h >> 34) as u32
}

/// UTF-16 bytes whose every unit has a zero high byte (`high`: 0 big-endian, 1 little).
fn fits_latin1(bytes: &[u8], high: usize) -> bool {
    bytes.len() % 2 == 0 && bytes.chunks_exact(2).all(|u| u[high] == 0)
}

/// The high byte of each UTF-16 unit of the dump's byte[] Strings: the first of a pair
/// big-endian, the second little.
fn high_byte(heap: &Heap) -> usize {
    if heap.utf16_big_endian() {
        0
    } else {
        1
    }
}

impl StringCollector {
    /// Adds String `o` of class `c`.
    /// Takes String `o` of class `c` in; its value array, when it has one.
    pub fn add(&mut self, heap: &Heap, o: ObjIdx, c: ClassIdx) -> Option<ObjIdx> {
        self.strings += 1;
        let t = text(heap, &self.fields, o, c, &mut self.after_array)?;
        if t.windowed {
            self.users.push(t.array);
        }
        self.keys.push([text_key(&t, high_byte(heap)), o]);
        Some(t.array)
    }

    pub fn with_capacity(heap: &Heap, strings: usize) -> StringCollector {
        StringCollector { keys: GrowArray::with_capacity(strings, heap.scratch()), fields: StringFields::of(heap), ..Default::default() }
    }

    /// Sorts the keys (each core sorts its own half), looking at `ctl`'s cancel flag.
    pub fn seal(&mut self, ctl: &Control) -> Result<(), Cancelled> {
        // As one u64 (key, then String): the order of the pairs, one compare each.
        sort_by_key_or_stop(&mut self.keys, |&[key, o]| (key as u64) << 32 | o as u64, ctl)
    }

    /// Joins the sealed collector of the objects after this one's.
    pub fn absorb(&mut self, other: StringCollector) {
        self.strings += other.strings;
        self.after = other.keys;
        self.users.extend(other.users);
    }

    /// The section (totals over every value, the `top` most wasteful values), the redundant
    /// copies and the Latin-1 candidates; `reachable` tells the Strings a GC root reaches.
    /// Keeps at most about `pass_bytes` of texts in memory per verification pass. Looks at
    /// `ctl`'s cancel flag every 65 536 Strings of each step and of each sort (`sort_or_stop`).
    pub fn finish(self, heap: &Heap, reachable: impl Fn(ObjIdx) -> bool, top: usize, pass_bytes: u64, ctl: &Control) -> Result<StringFindings, Cancelled> {
        Ok(self.finish_within(heap, &reachable, top, pass_bytes, ctl)?.0)
    }

    /// `finish`, keeping at most about `budget` bytes of texts per verification pass; also
    /// the number of passes.
    fn finish_within(self, heap: &Heap, reachable: &dyn Fn(ObjIdx) -> bool, top: usize, budget: u64, ctl: &Control) -> Result<(StringFindings, u32), Cancelled> {
        let mut laps = heapql_heap::Laps::new("heapql-report");
        // Equal keys come together: a key held by one String is one text; the Strings of a
        // key held by several (a run) are candidates, verified below.
        let mut g = Grouping::default();
        let (mut run_key, mut run_start, mut first) = (0u32, 0usize, NO_ARRAY);
        for (k, [key, o]) in merged(&self.keys, &self.after).enumerate() {
            if k.is_multiple_of(STEP) {
                ctl.check()?;
            }
            if first != NO_ARRAY && key == run_key {
                // A second String of the key: the run's first becomes a candidate too.
                let run = g.run_encoding.len() as u32;
                if run_start == g.candidates.len() {
                    g.candidates.push((first, run));
                }
                g.candidates.push((o, run));
                continue;
            }
            if first != NO_ARRAY {
                g.end_run(run_key, run_start, first);
            }
            (run_key, run_start, first) = (key, g.candidates.len(), o);
        }
        if first != NO_ARRAY {
            g.end_run(run_key, run_start, first);
        }
        let Grouping { mut distinct, latin1_reps, candidates, run_encoding } = g;
        drop((self.keys, self.after));
        let mut users = self.users;
        sort_or_stop(&mut users, |x, y| x.cmp(y), ctl)?;
        laps.lap("waste: strings: grouping");
        let verified = verify(heap, &self.fields, candidates, &run_encoding, &users, reachable, budget, ctl)?;
        laps.lap("waste: strings: verification");
        distinct += verified.texts;
        // A text of one String: `--reachable-only` keeps it when it is reachable.
        let mut latin1_reps: Vec<(ObjIdx, Option<ObjIdx>)> = latin1_reps.into_iter().map(|r| (r, reachable(r).then_some(r))).collect();
        latin1_reps.extend(verified.latin1_reps);
        let StringsVerified { redundant, mut dups, passes, .. } = verified;
        let wasted_bytes = dups.iter().map(|d| d.0).sum();
        let duplicated_values = dups.len() as u64;
        sort_or_stop(&mut dups, |a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(heap.object_id(a.2).cmp(&heap.object_id(b.2))), ctl)?;
        let top = dups
            .iter()
            .take(top)
            .map(|&(wasted, count, rep)| {
                let full = heap.string_value(rep).unwrap_or_default();
                let length = full.encode_utf16().count() as u64;
                let mut chars = full.chars();
                let value: String = chars.by_ref().take(VALUE_MAX_CHARS).collect();
                let truncated = chars.next().is_some();
                DuplicateString { value, truncated, length, count: count as u64, wasted_bytes: wasted }
            })
            .collect();
        laps.lap("waste: strings: top values");
        ctl.check()?;
        let latin1 = latin1_candidates(heap, &self.fields, latin1_reps, ctl)?;
        laps.lap("waste: strings: latin-1");
        let section = DuplicateStrings { strings: self.strings, distinct, duplicated_values, wasted_bytes, top };
        Ok((StringFindings { section, redundant, latin1 }, passes))
    }
}

/// The keys in order, split into texts of their own and runs of Strings sharing a key.
#[derive(Default)]
struct Grouping {
    /// Texts held by a key of their own.
    distinct: u64,
    /// Kept copies of UTF-16 texts that fit Latin-1 (key encoding `FITS_LATIN1`).
    latin1_reps: Vec<ObjIdx>,
    /// (String, run) of the Strings of keys several Strings share.
    candidates: Vec<(ObjIdx, u32)>,
    /// Encoding of each run (the key's top bits).
    run_encoding: Vec<u8>,
}

impl Grouping {
    /// Ends the run of `key` whose candidates start at `run_start` (none: `first` alone).
    fn end_run(&mut self, key: u32, run_start: usize, first: ObjIdx) {
        let encoding = (key >> 30) as u8;
        if run_start == self.candidates.len() {
            self.distinct += 1;
            if encoding as u32 == FITS_LATIN1 {
                self.latin1_reps.push(first);
            }
        } else {
            self.run_encoding.push(encoding);
        }
    }
}

/// What `verify` found among the Strings of shared keys.
struct StringsVerified {
    /// Texts among them.
    texts: u64,
    /// Kept copies of those that are UTF-16 texts fitting Latin-1, with the copy
    /// `--reachable-only` keeps (`StringFindings::latin1`).
    latin1_reps: Vec<(ObjIdx, Option<ObjIdx>)>,
    /// (redundant String, its overhead, its reachable part: `StringFindings::redundant`).
    redundant: Vec<(ObjIdx, u64, u64)>,
    /// (wasted, count, kept copy) per duplicated value.
    dups: Vec<(u64, u32, ObjIdx)>,
    passes: u32,
}

/// Splits the Strings of each run (`candidates`: (String, run)) into texts by comparing
/// bytes, and prices the redundant copies. The Strings are read in object order (the dump's),
/// each compared with the texts of its run seen so far, kept in memory: never by jumping back
/// to an earlier copy, which in a dump larger than memory faults pages in at random. A run
/// joins a pass when its first String comes while the pass keeps fewer than
/// `budget` bytes; the runs left out are verified by the next pass. `users`: the sorted
/// arrays of the Strings with an `offset` field, once per String (`StringCollector::users`).
/// `reachable` tells the Strings a GC root reaches (each copy's reachable part). Looks at
/// `ctl`'s cancel flag every 65 536 Strings (in the sorts too).
#[allow(clippy::too_many_arguments)]
fn verify(heap: &Heap, fields: &StringFields, mut candidates: Vec<(ObjIdx, u32)>, run_encoding: &[u8], users: &[ObjIdx], reachable: &dyn Fn(ObjIdx) -> bool, budget: u64, ctl: &Control) -> Result<StringsVerified, Cancelled> {
    sort_or_stop(&mut candidates, |x, y| x.cmp(y), ctl)?;
    let mut after = 0;
    // (text, array, String) of every candidate, and (kept String, its array) per text.
    let mut members: Vec<(u32, ObjIdx, ObjIdx)> = Vec::with_capacity(candidates.len());
    let mut texts: Vec<(ObjIdx, ObjIdx)> = Vec::new();
    // The texts that are UTF-16 fitting Latin-1, ascending.
    let mut latin1_texts: Vec<u32> = Vec::new();
    let mut out = StringsVerified { texts: 0, latin1_reps: Vec::new(), redundant: Vec::new(), dups: Vec::new(), passes: 0 };
    // Per run of the pass, its texts so far: (encoding, bytes, text).
    out.passes = super::in_passes_or_stop(&candidates, run_encoding.len(), budget, |kept: &mut FxHashMap<u32, Vec<(u8, Vec<u8>, u32)>>, o, r| {
        let Some(t) = text(heap, fields, o, heap.class_of(o), &mut after) else { return 0 };
        let seen = kept.entry(r).or_default();
        let mut kept_bytes = 0;
        let id = match seen.iter().find(|(e, bytes, _)| *e == t.encoding && bytes[..] == t.bytes[..]) {
            Some(&(_, _, id)) => id,
            None => {
                let id = texts.len() as u32;
                texts.push((o, t.array));
                if run_encoding[r as usize] as u32 == FITS_LATIN1 {
                    latin1_texts.push(id);
                }
                kept_bytes = t.bytes.len() as u64;
                seen.push((t.encoding, t.bytes.into_owned(), id));
                id
            }
        };
        members.push((id, t.array, o));
        kept_bytes
    }, ctl)?;
    drop(candidates);
    out.texts = texts.len() as u64;
    // Per text, its members by array: a copy pays its String, and its array unless the kept
    // copy or the copy before it uses the same one. Its reachable part is the same rule among
    // the reachable copies alone, as `--reachable-only` sees the text: the lowest-index
    // reachable copy kept, an array paid unless it is that copy's or the previous reachable
    // copy's.
    sort_or_stop(&mut members, |x, y| x.cmp(y), ctl)?;
    let mut latin1_texts = latin1_texts.into_iter().peekable();
    // Members since the last look at the flag.
    let mut since = 0;
    for group in members.chunk_by(|x, y| x.0 == y.0) {
        since += group.len();
        if since >= STEP {
            ctl.check()?;
            since = 0;
        }
        let (rep, rep_array) = texts[group[0].0 as usize];
        let kept_reachable = group.iter().filter(|m| reachable(m.2)).min_by_key(|m| m.2).map(|m| (m.2, m.1));
        if latin1_texts.next_if_eq(&group[0].0).is_some() {
            out.latin1_reps.push((rep, kept_reachable.map(|k| k.0)));
        }
        if group.len() < 2 {
            continue;
        }
        let mut wasted = 0;
        // An array only copies of this text read: freed with them. The group is in array
        // order, so its members of one array are a run; `users` counts every String of it.
        let own = |array: ObjIdx| {
            if users.is_empty() {
                return true;
            }
            let in_group = group.partition_point(|m| m.1 <= array) - group.partition_point(|m| m.1 < array);
            let all = users.partition_point(|&a| a <= array) - users.partition_point(|&a| a < array);
            all <= in_group
        };
        let (mut prev_array, mut prev_reachable_array) = (NO_ARRAY, NO_ARRAY);
        for &(_, array, s) in group {
            let s_reachable = reachable(s);
            if s != rep {
                let mut cost = heap.shallow_size(s);
                let array_own = own(array);
                if array != rep_array && array != prev_array && array_own {
                    cost += heap.shallow_size(array);
                }
                let reachable_part = match kept_reachable {
                    Some((k, k_array)) if s_reachable && s != k => {
                        heap.shallow_size(s) + if array != k_array && array != prev_reachable_array && array_own { heap.shallow_size(array) } else { 0 }
                    }
                    _ => 0,
                };
                wasted += cost;
                out.redundant.push((s, cost, reachable_part));
            }
            prev_array = array;
            if s_reachable {
                prev_reachable_array = array;
            }
        }
        out.dups.push((wasted, group.len() as u32, rep));
    }
    Ok(out)
}

/// Two sorted lists as one sorted sequence.
fn merged<'l>(a: &'l [[u32; 2]], b: &'l [[u32; 2]]) -> impl Iterator<Item = [u32; 2]> + 'l {
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

/// Kept copies of UTF-16 texts whose chars are all below 256, with `S(byte[2n]) − S(byte[n])`
/// (and the copy `--reachable-only` keeps, passed through).
fn latin1_candidates(heap: &Heap, fields: &StringFields, mut reps: Vec<(ObjIdx, Option<ObjIdx>)>, ctl: &Control) -> Result<Vec<(ObjIdx, u64, Option<ObjIdx>)>, Cancelled> {
    let model = heap.size_model();
    let high = high_byte(heap);
    let mut out = Vec::new();
    let mut after = 0;
    // In object order (the dump's), not the groups' key order, which reads the dump at random.
    sort_or_stop(&mut reps, |x, y| x.cmp(y), ctl)?;
    for (k, (rep, kept_reachable)) in reps.into_iter().enumerate() {
        if k.is_multiple_of(STEP) {
            ctl.check()?;
        }
        let Some(t) = text(heap, fields, rep, heap.class_of(rep), &mut after) else { continue };
        if t.encoding != UTF16_BYTES || !fits_latin1(&t.bytes, high) {
            continue;
        }
        let latin1 = model.array_size(1, (t.bytes.len() / 2) as u64);
        let now = heap.shallow_size(t.array);
        if now > latin1 {
            out.push((rep, now - latin1, kept_reachable));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use heapql_heap::{Heap, OpenOptions};

    fn collect(heap: &Heap) -> StringCollector {
        let strings = heap.classes_named("java.lang.String");
        let mut c = StringCollector::with_capacity(heap, 0);
        for o in 0..heap.object_count() {
            if heap.object_kind(o) == ObjectKind::Instance && strings.contains(&heap.class_of(o)) {
                c.add(heap, o, heap.class_of(o));
            }
        }
        c.seal(&Control::none()).unwrap();
        c
    }

    /// Verifying one run per pass finds exactly what one pass finds: the texts, the copies
    /// kept, the redundant ones and their prices (dumps with duplicate strings, JDK 17 and an
    /// old JDK whose Strings select a window of a shared char[]).
    #[test]
    fn passes_do_not_change_the_groups() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        for dump in ["fixtures/dumps/waste/WasteHeap-jdk17-coops.hprof", "fixtures/demo/demo.hprof"] {
            let heap = Heap::open(&root.join(dump), OpenOptions::default()).unwrap();
            // Every other String reachable: the reachable parts differ from the overheads.
            let reachable = |o: ObjIdx| o % 2 == 0;
            let none = Control::none();
            let (one, one_passes) = collect(&heap).finish_within(&heap, &reachable, 50, u64::MAX, &none).unwrap();
            let (many, many_passes) = collect(&heap).finish_within(&heap, &reachable, 50, 1, &none).unwrap();
            assert!(one.section.duplicated_values > 1, "{dump}: the dump has duplicate strings");
            assert_eq!(one_passes, 1);
            assert!(many_passes > 1, "{dump}: a budget of one byte takes a pass per run");
            assert_eq!(serde_json::to_string(&one.section).unwrap(), serde_json::to_string(&many.section).unwrap(), "{dump}");
            fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
                v.sort_unstable();
                v
            }
            assert_eq!(sorted(one.redundant), sorted(many.redundant), "{dump}");
            assert_eq!(sorted(one.latin1), sorted(many.latin1), "{dump}");
        }
    }

    /// With the cancel flag set, the duplicate strings step (grouping, verification,
    /// pricing, Latin-1) comes back cancelled instead of with its findings.
    #[test]
    fn the_duplicate_strings_step_stops_when_cancelled() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let heap = Heap::open(&root.join("fixtures/dumps/waste/WasteHeap-jdk17-coops.hprof"), OpenOptions::default()).unwrap();
        let reachable = |_: ObjIdx| true;
        let found = collect(&heap).finish_within(&heap, &reachable, 50, u64::MAX, &Control::none()).unwrap().0;
        assert!(found.section.duplicated_values > 1, "the dump has duplicate strings");
        let cancelled = Control { cancel: Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true))), ..Control::none() };
        assert!(collect(&heap).finish_within(&heap, &reachable, 50, u64::MAX, &cancelled).is_err(), "cancelled");
    }

    /// The sort of the Strings' keys that ends the step over the objects (`seal`, made beside
    /// the dominators or by each core) looks at the cancel flag: set, it comes back cancelled
    /// with the keys not sorted, where it ran to its end before.
    #[test]
    fn the_sort_of_the_string_keys_stops_when_cancelled() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let heap = Heap::open(&root.join("fixtures/dumps/waste/WasteHeap-jdk17-coops.hprof"), OpenOptions::default()).unwrap();
        let strings = heap.classes_named("java.lang.String");
        let mut c = StringCollector::with_capacity(&heap, 0);
        for o in (0..heap.object_count()).rev() {
            if heap.object_kind(o) == ObjectKind::Instance && strings.contains(&heap.class_of(o)) {
                c.add(&heap, o, heap.class_of(o));
            }
        }
        let sorted = |c: &StringCollector| c.keys.windows(2).all(|w| w[0] <= w[1]);
        assert!(c.keys.len() > 100 && !sorted(&c), "Strings added in reverse order: keys to sort");
        let cancelled = Control { cancel: Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true))), ..Control::none() };
        assert_eq!(c.seal(&cancelled), Err(Cancelled));
        assert!(!sorted(&c), "stopped before sorting");
        c.seal(&Control::none()).unwrap();
        assert!(sorted(&c));
    }
}
