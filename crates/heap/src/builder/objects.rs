//! The heap pass's object list and its assembly into the index arrays.
//!
//! Each thread of the heap pass appends its objects in file order straight into the index's
//! own layout (offset and kind in a `u32` of `Places` form, the id's low half in a `u32`, the
//! high halves as runs): 8 bytes per object, never the 16 of an `(id, offset)` pair. A
//! HotSpot dump writes the heap in address order after the class dumps, so apart from the
//! class objects (a few thousand, kept aside) each part is ascending and the parts follow each
//! other: the index is then the parts laid end to end, and the class objects merged in. Only
//! a dump in another order (hand-made, another VM) takes the general path: sort and merge
//! `(id, offset)` pairs.

use super::*;
use crate::ids::{id_at, IndexBuilder, PlaceCoder, BLOCK, OFFSET_MASK};
use heapql_scratch::{GrowArray, Placement, Plain};

/// One heap-pass thread's objects in file order (class objects aside, in `classes`).
#[derive(Default)]
pub(super) struct ObjList {
    /// The offsets and kinds of the whole blocks so far, in `Places` form (`coder`'s).
    entries: GrowArray<u32>,
    coder: PlaceCoder,
    /// The `packed` values after them, fewer than a block.
    pending: Vec<u64>,
    id_lo: GrowArray<u32>,
    /// (high half of the id, first position with it), one entry per change.
    runs: Vec<(u32, u32)>,
    last: Option<u64>,
    /// Every id so far greater than the one before.
    ascending: bool,
    /// Class objects `(id, packed)`: the dump writes them first, in no address order.
    classes: Vec<(u64, u64)>,
}

impl ObjList {
    /// Room for `cap` objects: address space reserved once, touched only as it fills. With
    /// `Placement::Files` the lists are scratch files from the start (page cache, not the
    /// process's anonymous memory, and already where the index keeps them).
    ///
    /// No transparent huge pages: a fresh 2 MiB page must come from the kernel's free
    /// high-order blocks, which a virtual machine with free page reporting (virtio-balloon)
    /// has handed back to its host; faulting them in again took 2 to 5 times as long as
    /// small pages, and varied from run to run by as much.
    pub(super) fn with_capacity(cap: usize, place: &Placement) -> ObjList {
        ObjList { entries: GrowArray::with_capacity(cap, place), id_lo: GrowArray::with_capacity(cap, place), ascending: true, ..Default::default() }
    }

    /// Appends an object's offset and kind (`id_lo` gets its id separately).
    #[inline]
    fn push_place(&mut self, packed: u64) {
        self.pending.push(packed);
        if self.pending.len() == BLOCK {
            let mut out = [0u32; BLOCK];
            self.coder.push_block(&self.pending, &mut out);
            self.entries.extend_from_slice(&out);
            self.pending.clear();
        }
    }

    /// The `packed` value (offset and kind) at position `i`.
    #[inline]
    fn packed(&self, i: usize) -> u64 {
        match i.checked_sub(self.entries.len()) {
            None => self.coder.decode(&self.entries, i),
            Some(k) => self.pending[k],
        }
    }

    #[inline]
    pub(super) fn push(&mut self, id: u64, packed: u64) {
        if self.last.is_some_and(|l| id <= l) {
            self.ascending = false;
        }
        self.last = Some(id);
        let hi = (id >> 32) as u32;
        if self.runs.last().map(|r| r.0) != Some(hi) {
            self.runs.push((hi, self.id_lo.len() as u32));
        }
        self.id_lo.push(id as u32);
        self.push_place(packed);
    }

    #[inline]
    pub(super) fn push_class(&mut self, id: u64, packed: u64) {
        self.classes.push((id, packed));
    }

    pub(super) fn len(&self) -> usize {
        self.id_lo.len()
    }

    fn first_id(&self) -> Option<u64> {
        Some(((self.runs.first()?.0 as u64) << 32) | *self.id_lo.first()? as u64)
    }

    /// All objects as `(id, packed)` pairs, this list's memory released.
    fn into_pairs(self) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::with_capacity(self.len() + self.classes.len());
        for (r, &(hi, start)) in self.runs.iter().enumerate() {
            let end = self.runs.get(r + 1).map_or(self.len(), |x| x.1 as usize);
            for i in start as usize..end {
                out.push((((hi as u64) << 32) | self.id_lo[i] as u64, self.packed(i)));
            }
        }
        out.extend_from_slice(&self.classes);
        out
    }
}

/// The object index: the heap pass's objects, then one class object per synthesized class
/// after the largest id (their ids are returned). Warns of repeated ids, and of scratch
/// files asked for but not made.
pub(super) fn object_index(parts: Vec<ObjList>, nsynth: usize, first_synth_class: u32, place: &Placement, warnings: &mut Vec<Warning>) -> (ObjIndex, Vec<u64>) {
    let Assembled { index: mut ib, duplicates, first_duplicate, last_id } = assemble(parts, nsynth, place);
    if duplicates > 0 {
        let (example, offset) = match first_duplicate {
            Some((id, packed)) => (format!(" (e.g. id {id:#x} again in the record at byte offset {}; the first record with an id is kept)", packed & OFFSET_MASK), packed & OFFSET_MASK),
            None => (String::new(), 0),
        };
        warnings.push(Warning { offset, message: format!("{duplicates} objects with an id already seen in this dump were ignored{example}") });
    }
    let max_id = last_id.unwrap_or(0);
    let mut synth_ids: Vec<u64> = Vec::with_capacity(nsynth);
    for k in 0..nsynth {
        let Some(id) = (max_id | 0xF).checked_add(1 + 16 * k as u64) else { break };
        synth_ids.push(id);
        ib.push(id, ids::pack(ids::K_SYNTH_CLASS, (first_synth_class + k as u32) as u64));
    }
    let objs = ib.finish();
    if let Placement::Files(dir) = place {
        // BigArray falls back to memory rather than fail; say so once, here, where it shows.
        if objs.in_memory() {
            warnings.push(Warning {
                offset: 0,
                message: format!(
                    "could not make scratch files in {} (no space left, or not writable); the analysis keeps its arrays in memory",
                    dir.display()
                ),
            });
        }
    }
    (objs, synth_ids)
}

/// The object index's arrays before the synthetic classes are added.
struct Assembled {
    pub(super) index: IndexBuilder,
    pub(super) duplicates: u64,
    /// The skipped record of the lowest repeated id: (id, packed).
    pub(super) first_duplicate: Option<(u64, u64)>,
    pub(super) last_id: Option<u64>,
}

/// Lays the parts (in file order) into the index arrays, with room for `extra` objects
/// appended afterwards (synthetic classes) and placed by `place`. A repeated id keeps the
/// record that comes first in the file.
fn assemble(parts: Vec<ObjList>, extra: usize, place: &Placement) -> Assembled {
    // Each part ascending, and each part's ids above those of the parts before it.
    let mut prev_last: Option<u64> = None;
    let in_order = parts.iter().all(|p| {
        let follows = match (prev_last, p.first_id()) {
            (Some(a), Some(b)) => a < b,
            _ => true,
        };
        prev_last = p.last.or(prev_last);
        p.ascending && follows
    });
    let mut laps = heapql_scratch::Laps::new("heapql-heap");
    if in_order {
        let mut parts = parts.into_iter().filter(|p| p.len() > 0 || !p.classes.is_empty());
        let mut all = parts.next().unwrap_or_else(|| ObjList::with_capacity(0, &Placement::Memory));
        for p in parts {
            append(&mut all, p);
        }
        laps.lap("  parts laid end to end");
        if merge_classes(&mut all) {
            laps.lap("  class objects merged in");
            let done = finish(all, extra, place);
            laps.lap("  arrays placed");
            return done;
        }
        return general(vec![all], extra, place);
    }
    laps.lap("  objects not in address order: to be sorted and merged");
    general(parts, extra, place)
}

/// Appends `b` (all of whose ids follow `a`'s) to `a`, releasing `b`'s pages as they are
/// copied so that the two never take more memory than the result.
fn append(a: &mut ObjList, b: ObjList) {
    let base = a.len() as u32;
    for &(hi, start) in &b.runs {
        if a.runs.last().map(|r| r.0) != Some(hi) {
            a.runs.push((hi, base + start));
        }
    }
    append_places(a, &b);
    append_releasing(&mut a.id_lo, b.id_lo);
    a.last = b.last.or(a.last);
    a.classes.extend_from_slice(&b.classes);
}

/// Appends `b`'s offsets and kinds to `a`'s, block by block: `a`'s blocks start at its own
/// positions, so each value is decoded from `b`'s form and encoded again in `a`'s. `b`'s
/// pages are handed back to the kernel as they are read. A long list is encoded in two
/// halves on two threads, each with the page faults of its own part of `a`'s fresh pages
/// (bench-4g, 24 M objects appended: the join 0.085-0.099 s with one, 0.059-0.066 s with two).
fn append_places(a: &mut ObjList, b: &ObjList) {
    let pending = std::mem::take(&mut a.pending);
    let total = pending.len() + b.entries.len() + b.pending.len();
    let whole = total / BLOCK;
    let half = if whole * BLOCK >= TWO_THREADS { whole / 2 } else { whole };
    let mut coders = (PlaceCoder::default(), PlaceCoder::default());
    let encode = |blocks: std::ops::Range<usize>, out: &mut [std::mem::MaybeUninit<u32>]| encode_joined(&pending, b, blocks, out);
    // SAFETY: the two halves write every value of the `whole * BLOCK` of the tail.
    unsafe {
        a.entries.append_with(whole * BLOCK, |out| {
            let (low, high) = out.split_at_mut(half * BLOCK);
            coders = if half == whole {
                (encode(0..whole, low), PlaceCoder::default())
            } else {
                heapql_scratch::both(|| encode(0..half, low), || encode(half..whole, high))
            };
        })
    };
    a.coder.append(coders.0);
    a.coder.append(coders.1);
    a.pending = vec![0; total - whole * BLOCK];
    joined(&pending, b, whole * BLOCK, &mut a.pending);
}

/// Values appended at or above this count are encoded on two threads.
const TWO_THREADS: usize = 1 << 20;

/// Values `from..from + out.len()` of `pending` (the first list's last, partial block), then
/// `b`'s entries decoded, then `b`'s pending values: the sequence `append_places` encodes.
fn joined(pending: &[u64], b: &ObjList, from: usize, out: &mut [u64]) {
    let (p, e) = (pending.len(), b.entries.len());
    let (mut x, end, mut k) = (from, from + out.len(), 0);
    if x < p.min(end) {
        let n = p.min(end) - x;
        out[..n].copy_from_slice(&pending[x..x + n]);
        (x, k) = (x + n, n);
    }
    if x < (p + e).min(end) {
        let n = (p + e).min(end) - x;
        b.coder.decode_run(&b.entries, 0, x - p, &mut out[k..k + n]);
        (x, k) = (x + n, k + n);
    }
    if x < end {
        let at = x - p - e;
        out[k..].copy_from_slice(&b.pending[at..at + (end - x)]);
    }
}

/// Encodes blocks `blocks` of the joined sequence (`joined`) into `out` (their entries, as
/// many) with a coder of their own, releasing the pages of `b`'s entries it has read.
fn encode_joined(pending: &[u64], b: &ObjList, blocks: std::ops::Range<usize>, out: &mut [std::mem::MaybeUninit<u32>]) -> PlaceCoder {
    const CHUNK_BLOCKS: usize = 2048;
    let (p, e) = (pending.len(), b.entries.len());
    let mut coder = PlaceCoder::default();
    let mut values = vec![0u64; CHUNK_BLOCKS.min(blocks.len()) * BLOCK];
    let mut block = [0u32; BLOCK];
    for start in blocks.clone().step_by(CHUNK_BLOCKS) {
        let end = (start + CHUNK_BLOCKS).min(blocks.end);
        let values = &mut values[..(end - start) * BLOCK];
        joined(pending, b, start * BLOCK, values);
        let dst = &mut out[(start - blocks.start) * BLOCK..(end - blocks.start) * BLOCK];
        for (vals, dst) in values.chunks_exact(BLOCK).zip(dst.chunks_exact_mut(BLOCK)) {
            coder.push_block(vals, &mut block);
            for (d, &v) in dst.iter_mut().zip(&block) {
                d.write(v);
            }
        }
        let read = |at: usize| at.saturating_sub(p).min(e);
        release(&b.entries[read(start * BLOCK)..read(end * BLOCK)]);
    }
    coder
}

/// `dst.extend(src)`, handing the copied chunks of `src` back to the kernel as it goes. A
/// large copy is split between two threads: its cost is mostly the page faults of `dst`'s
/// fresh pages, which the two cores take in parallel.
fn append_releasing<T: Plain>(dst: &mut GrowArray<T>, src: GrowArray<T>) {
    let n = src.len();
    let copy = |out: &mut [std::mem::MaybeUninit<T>]| {
        if std::mem::size_of_val(&src[..]) >= (16 << 20) {
            let (o1, o2) = out.split_at_mut(n / 2);
            let (s1, s2) = src.split_at(n / 2);
            heapql_scratch::both(|| copy_releasing(o1, s1), || copy_releasing(o2, s2));
        } else {
            copy_releasing(out, &src);
        }
    };
    // SAFETY: `copy` writes all `n` values of the tail.
    unsafe { dst.append_with(n, copy) };
}

/// Copies `src` into `out` (of the same length) chunk by chunk, releasing each copied chunk.
fn copy_releasing<T: Plain>(out: &mut [std::mem::MaybeUninit<T>], src: &[T]) {
    // Small chunks: what is copied but not yet released adds to the peak (per thread).
    const CHUNK: usize = 512 << 10;
    let per = (CHUNK / std::mem::size_of::<T>().max(1)).max(1);
    for (o, s) in out.chunks_mut(per).zip(src.chunks(per)) {
        // SAFETY: `o` and `s` have the same length, do not overlap (one is the tail of another
        // array) and `T` is `Copy`.
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), o.as_mut_ptr() as *mut T, s.len()) };
        release(s);
    }
}

/// Tells the kernel the whole pages inside `s` are no longer needed (they read back as zeros;
/// the caller never reads them again). Not worth a system call under a few pages.
fn release<T: Plain>(s: &[T]) {
    let bytes = heapql_scratch::as_bytes(s);
    if bytes.len() >= (256 << 10) {
        // SAFETY: plain integers inside a live allocation that are never read again before it
        // is freed; zero pages are valid values.
        unsafe { heapql_scratch::forget_pages(bytes) };
    }
}

/// Merges the class objects into the ascending list in place, from the back. Returns false
/// (nothing changed but the class list's order) when a class id repeats or is also another
/// object's id: a corrupt dump, left to the general path that settles which record counts.
fn merge_classes(l: &mut ObjList) -> bool {
    if l.classes.is_empty() {
        return true;
    }
    let mut cls = std::mem::take(&mut l.classes);
    cls.sort_unstable_by_key(|c| c.0);
    let m = l.len();
    let places: Vec<usize> = cls.iter().map(|&(id, _)| lower_bound(&l.runs, &l.id_lo, id)).collect();
    let clash = cls.windows(2).any(|w| w[0].0 == w[1].0)
        || cls.iter().zip(&places).any(|(&(id, _), &p)| p < m && id_at(&l.runs, &l.id_lo, p) == id);
    if clash {
        l.classes = cls;
        return false;
    }
    // Class j (in id order) goes to its place among the other objects, shifted by the j
    // classes before it: each block of objects between two class places moves once, as a
    // whole, back to front.
    let s = cls.len();
    l.id_lo.extend_zeroed(s);
    let mut end = m;
    for j in (0..s).rev() {
        let p = places[j];
        l.id_lo.copy_within(p..end, p + j + 1);
        l.id_lo[p + j] = cls[j].0 as u32;
        end = p;
    }
    merge_places(l, &cls, &places, m);
    l.runs = merged_runs(&l.runs, &cls, &places, m);
    l.last = Some(l.last.unwrap_or(0).max(cls[s - 1].0));
    true
}

/// The offsets and kinds with class `j`'s at position `places[j] + j` among the `m` others,
/// in place, from the back: every block moves to a position at or after its old one and is
/// encoded again (its base changes with its members), so each new block is read whole from
/// the old positions before its entries are written. A large list is done in two halves side
/// by side, the upper one keeping aside the old values it needs from the lower one's part.
/// A last partial block stays pending.
fn merge_places(l: &mut ObjList, cls: &[(u64, u64)], places: &[usize], m: usize) {
    let total = m + cls.len();
    let (old, pending) = (std::mem::take(&mut l.coder), std::mem::take(&mut l.pending));
    let stored = l.entries.len();
    let whole = total / BLOCK * BLOCK;
    l.entries.extend_zeroed(whole - stored);
    // Old values from `entries` (part of the encoded ones, from position `origin`) or pending.
    let old_run = |entries: &[u32], origin: usize, from: usize, out: &mut [u64]| {
        let split = stored.clamp(from, from + out.len()) - from;
        old.decode_run(entries, origin, from, &mut out[..split]);
        let rest = &mut out[split..];
        if !rest.is_empty() {
            let at = from + split - stored;
            rest.copy_from_slice(&pending[at..at + rest.len()]);
        }
    };
    // The halves meet at a block boundary; the upper half's objects come from `j_half` places
    // before it at most (the classes below the boundary), which the lower half overwrites.
    let half = whole / 2 / BLOCK * BLOCK;
    let j_half = (0..cls.len()).take_while(|&j| places[j] + j < half).count();
    if total < (1 << 20) || half > stored || j_half > half {
        let (coder, last) = refill(&mut l.entries, 0, 0..total, cls, places, &|e, from, out| old_run(e, 0, from, out));
        (l.coder, l.pending) = (coder, last);
        return;
    }
    let mut kept = vec![0u64; j_half];
    old_run(&l.entries, 0, half - j_half, &mut kept);
    let (low, high) = l.entries.split_at_mut(half);
    let read_high = |e: &[u32], from: usize, out: &mut [u64]| {
        let split = half.clamp(from, from + out.len()) - from;
        if split > 0 {
            let at = from - (half - j_half);
            out[..split].copy_from_slice(&kept[at..at + split]);
        }
        old_run(e, half, from + split, &mut out[split..]);
    };
    let ((mut coder, _), (upper, last)) = heapql_scratch::both(
        || refill(low, 0, 0..half, &cls[..j_half], places, &|e, from, out| old_run(e, 0, from, out)),
        || refill(high, half, half..total, cls, places, &read_high),
    );
    coder.append(upper);
    (l.coder, l.pending) = (coder, last);
}

/// Reads the values of old positions `from..from + out.len()` into `out`, given the entries
/// being refilled: `read(entries, from, out)`.
type OldValues<'a> = dyn Fn(&[u32], usize, &mut [u64]) + 'a;

/// Fills positions `range` (from a block boundary; `entries[k]` is position `origin + k`)
/// from the back with the objects and the classes `cls` (the ones at positions before the
/// range's end) at their places, reading old values with `read(entries, from, out)`. Returns
/// the blocks' coder and the values of a last partial block.
fn refill(
    entries: &mut [u32],
    origin: usize,
    range: std::ops::Range<usize>,
    cls: &[(u64, u64)],
    places: &[usize],
    read: &OldValues,
) -> (PlaceCoder, Vec<u64>) {
    let mut coder = PlaceCoder { bases: vec![0; (range.end - range.start) / BLOCK], wide: Vec::new() };
    let mut last = Vec::new();
    // Classes at positions before the end of the block being filled, not yet met.
    let mut j = (0..cls.len()).take_while(|&j| places[j] + j < range.end).count();
    let (mut values, mut out) = ([0u64; BLOCK], [0u32; BLOCK]);
    for start in range.clone().step_by(BLOCK).rev() {
        let end = (start + BLOCK).min(range.end);
        let len = end - start;
        // Classes before this block: its objects came from `before` places earlier, unless a
        // class falls inside it (about one block in a thousand).
        let mut before = j;
        while before > 0 && places[before - 1] + before > start {
            before -= 1;
        }
        if before == j {
            read(entries, start - j, &mut values[..len]);
        } else {
            for q in (start..end).rev() {
                values[q - start] = if j > 0 && places[j - 1] + j - 1 == q {
                    j -= 1;
                    cls[j].1
                } else {
                    let mut v = [0u64];
                    read(entries, q - j, &mut v);
                    v[0]
                };
            }
        }
        j = before;
        if len < BLOCK {
            last = values[..len].to_vec();
        } else {
            coder.bases[(start - range.start) / BLOCK] = coder.encode(&values, &mut out);
            entries[start - origin..end - origin].copy_from_slice(&out);
        }
    }
    (coder, last)
}

/// The high-half runs after inserting the class objects `cls` at `places` (their positions
/// among the `m` other objects): the objects before class j's place keep their runs, moved
/// up by j.
fn merged_runs(old: &[(u32, u32)], cls: &[(u64, u64)], places: &[usize], m: usize) -> Vec<(u32, u32)> {
    let mut runs: Vec<(u32, u32)> = Vec::with_capacity(old.len() + 1);
    let mut push = |hi: u32, at: usize| {
        if runs.last().map(|r| r.0) != Some(hi) {
            runs.push((hi, at as u32));
        }
    };
    let mut a = 0;
    for j in 0..=cls.len() {
        let b = places.get(j).copied().unwrap_or(m);
        if a < b {
            // Objects [a, b) now sit at [a + j, b + j).
            let mut r = old.partition_point(|&(_, st)| st as usize <= a) - 1;
            while r < old.len() && (old[r].1 as usize) < b {
                push(old[r].0, (old[r].1 as usize).max(a) + j);
                r += 1;
            }
        }
        if let Some(&(id, _)) = cls.get(j) {
            push((id >> 32) as u32, b + j);
        }
        a = b;
    }
    runs
}

/// First position whose id is ≥ `id` in an ascending list.
fn lower_bound(runs: &[(u32, u32)], id_lo: &[u32], id: u64) -> usize {
    let hi = (id >> 32) as u32;
    let r = runs.partition_point(|&(h, _)| h < hi);
    if r == runs.len() {
        return id_lo.len();
    }
    let start = runs[r].1 as usize;
    if runs[r].0 != hi {
        return start;
    }
    let end = runs.get(r + 1).map_or(id_lo.len(), |x| x.1 as usize);
    start + id_lo[start..end].partition_point(|&x| x < id as u32)
}

/// The laid-out list as the index builder, with room for `extra` more objects.
fn finish(l: ObjList, extra: usize, place: &Placement) -> Assembled {
    let len = l.len();
    let last_id = l.last.filter(|_| len > 0);
    // Lists already in scratch files stay where they are.
    let entries = l.entries.into_big_array(l.pending.len() + extra, place);
    let id_lo = l.id_lo.into_big_array(extra, place);
    Assembled { index: IndexBuilder::from_parts(entries, l.coder, l.pending, id_lo, len, l.runs), duplicates: 0, first_duplicate: None, last_id }
}

/// Any order: each part sorted as `(id, offset)` pairs (the first record of a repeated id
/// first), then the parts merged (earlier parts win ties).
fn general(parts: Vec<ObjList>, extra: usize, place: &Placement) -> Assembled {
    let sorted: Vec<Vec<(u64, u64)>> = std::thread::scope(|sc| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|p| {
                sc.spawn(move || {
                    let mut v = p.into_pairs();
                    v.sort_unstable_by_key(|&(id, packed)| (id, packed & OFFSET_MASK));
                    v
                })
            })
            .collect();
        // A part lost to a panicking thread would silently drop its objects: pass it on.
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let mut it = sorted.into_iter();
    let mut a = it.next().unwrap_or_default();
    let mut b = it.next().unwrap_or_default();
    for rest in it {
        // More than two parts: fold the extra ones into the second (not used by the heap pass).
        b.extend(rest);
        b.sort_unstable_by_key(|&(id, packed)| (id, packed & OFFSET_MASK));
    }
    if a.is_empty() {
        std::mem::swap(&mut a, &mut b);
    }
    let m = crate::merge::merge(a, b, extra, place);
    Assembled { index: m.index, duplicates: m.duplicates, first_duplicate: m.first_duplicate, last_id: m.last_id }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The offset of the `k`th record of a part: records close together, with a jump of 300
    /// MiB after every 1000th (a block holding one keeps its offsets whole).
    fn offset(k: usize) -> u64 {
        100 + k as u64 + (k as u64 / 1000) * (300 << 20)
    }

    fn list(ids: &[(u64, bool)], place: &Placement) -> ObjList {
        let mut l = ObjList::with_capacity(ids.len(), place);
        for (k, &(id, class)) in ids.iter().enumerate() {
            let kind = if class { ids::K_CLASS } else { ids::K_INSTANCE };
            if class {
                l.push_class(id, ids::pack(kind, offset(k)));
            } else {
                l.push(id, ids::pack(kind, offset(k)));
            }
        }
        l
    }

    /// What the index must hold: ids ascending, each id's first record in file order.
    fn want(parts: &[Vec<(u64, bool)>]) -> Vec<(u64, u64)> {
        // File order: part by part, then position (the offsets restart per part here, so
        // order by part first).
        let mut tagged: Vec<(u64, usize, u64)> = Vec::new();
        let mut n = 0;
        for p in parts {
            for (k, &(id, class)) in p.iter().enumerate() {
                let kind = if class { ids::K_CLASS } else { ids::K_INSTANCE };
                tagged.push((id, n, ids::pack(kind, offset(k))));
                n += 1;
            }
        }
        tagged.sort();
        tagged.dedup_by_key(|t| t.0);
        tagged.into_iter().map(|(id, _, p)| (id, p)).collect()
    }

    /// Assembles `parts` with the lists and the index in memory, then in scratch files (the
    /// lists then are files from the start and the index keeps them).
    fn check(parts: Vec<Vec<(u64, bool)>>, extra: usize) {
        let dir = tempfile::tempdir().unwrap();
        for place in [Placement::Memory, Placement::Files(std::sync::Arc::from(dir.path()))] {
            let w = want(&parts);
            let lists: Vec<ObjList> = parts.iter().map(|p| list(p, &place)).collect();
            let total: usize = parts.iter().map(|p| p.len()).sum();
            let a = assemble(lists, extra, &place);
            assert_eq!(a.duplicates as usize, total - w.len());
            assert_eq!(a.last_id, w.last().map(|x| x.0));
            let ix = a.index.finish();
            assert_eq!(ix.len() as usize, w.len());
            assert_eq!(ix.places.entries.is_mapped(), place != Placement::Memory && w.len() + extra > 0, "{place:?}");
            for (k, &(id, p)) in w.iter().enumerate() {
                assert_eq!(ix.id(k as u32), id, "position {k}");
                assert_eq!(ix.places.packed(k as u32), p, "position {k}");
                assert_eq!(ix.index_of(id), Some(k as u32));
            }
        }
    }

    #[test]
    fn ascending_parts_with_class_objects_first() {
        let hi = 0x7_ffff_ff00u64; // crosses a 4 GiB boundary
        let classes: Vec<(u64, bool)> = [hi + 0x208, 0x10, hi + 0x10_0008, hi + 0x100].iter().map(|&i| (i, true)).collect();
        let a: Vec<(u64, bool)> = classes.into_iter().chain((0..50).map(|k| (hi + 0x20 + 16 * k, false))).collect();
        let b: Vec<(u64, bool)> = (0..80).map(|k| (hi + 0x400 + 24 * k, false)).chain([(hi + 0x3f8, true)]).collect();
        check(vec![a, b], 3);
        // Several classes in one gap, classes before, inside and after runs of other high
        // halves, and a part made of class objects only.
        let c: Vec<(u64, bool)> = [(0x3_0000_0000, true), (0x1_0000_0010, true), (0x1_0000_0008, true), (0x5, true)]
            .into_iter()
            .chain((0..40).map(|k| (0x1_0000_0000 + 0x20 * k, false)))
            .chain((0..40).map(|k| (0x2_0000_0000 + 0x20 * k, false)))
            .chain([(0x2_0000_0100, true), (0x2_0000_0108, true), (0x1_0000_0fff_0000, true)])
            .collect();
        check(vec![c.clone(), vec![]], 1);
        check(vec![vec![(0x40, true), (0x20, true)], c.into_iter().filter(|x| !x.1).collect()], 0);
    }

    #[test]
    fn large_parts_are_appended_with_their_pages_released() {
        // Neither part a whole number of blocks: the last partial block of each joins the
        // blocks encoded again (32 + 37 values: one whole block more, 5 left pending).
        let a: Vec<(u64, bool)> = (0..1_500_000u64).map(|k| (0x1000 + 16 * k, false)).collect();
        // Over 16 MiB of ids, a million offsets: the copy and the encoding are each split
        // between two threads.
        let b: Vec<(u64, bool)> = (0..2_200_037u64).map(|k| (0x1000_0000 + 16 * k, false)).chain([(0x8, true)]).collect();
        check(vec![a, b], 0);
    }

    /// Class objects (their records first in the file, far from the instances' in a large
    /// dump) all over a list long enough to be merged in two halves, one of them right at
    /// the halves' boundary: blocks holding one keep their offsets whole.
    #[test]
    fn class_objects_merged_into_both_halves_of_a_large_list() {
        let n = 1_300_000u64;
        let classes: Vec<(u64, bool)> = [0u64, 1, 2, 640_001, 650_000, 650_001, 650_100, 1_299_999, 2_000_000]
            .iter()
            .map(|&k| (0x1000 + 16 * k + 8, true))
            .collect();
        let a: Vec<(u64, bool)> = classes.into_iter().chain((0..n / 2).map(|k| (0x1000 + 16 * k, false))).collect();
        let b: Vec<(u64, bool)> = (n / 2..n).map(|k| (0x1000 + 16 * k, false)).collect();
        check(vec![a, b], 2);
    }

    #[test]
    fn any_other_order_or_repeated_ids_take_the_general_path() {
        // Parts out of order, overlapping.
        check(vec![vec![(0x500, false), (0x600, false)], vec![(0x100, false), (0x550, false)]], 1);
        // Not ascending inside a part.
        check(vec![vec![(0x500, false), (0x100, false), (0x300, false)], vec![]], 0);
        // A class object with an instance's id, and a class dumped twice.
        check(vec![vec![(0x300, true), (0x300, false), (0x400, false)], vec![(0x500, false), (0x300, true)]], 0);
        check(vec![vec![(0x700, true), (0x100, false)], vec![(0x700, true), (0x800, false)]], 0);
        // An empty part between two that overlap.
        check(vec![vec![(0x500, false)], vec![], vec![(0x100, false), (0x600, false)]], 0);
        // Long enough to hold blocks whose records are far apart (`offset`), in descending
        // order: the general path puts the merged values into the index's form.
        check(vec![(0..3000u64).rev().map(|k| (0x1000 + 16 * k, false)).collect(), vec![(0x8, false)]], 1);
    }

    #[test]
    fn empty_parts() {
        check(vec![vec![], vec![]], 2);
        check(vec![vec![], vec![(0x20, false), (0x10, true)]], 0);
        check(vec![vec![(0x10, true)]], 0);
    }
}
