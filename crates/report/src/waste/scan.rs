//! The per-object pass of the waste checks, in two steps.
//!
//! `Objects::see` decides what needs only the object itself (a collection's fill, a sparse
//! array, a box's value, a String's key, an array's hash and zero tail). It needs no dominator,
//! so the analysis can make it beside its dominator phase, with the report's object pass
//! (`crate::scan::ScanBeside`); made after them it read the dump's index a second time, in a
//! memory limit from disk. What it finds waits as candidates. `attribute` then applies what
//! needs the dominator tree (a collection's own map or array, a String's own array, the box
//! caches, retained sizes) and groups each finding by its holder. What needs all objects
//! (duplicate arrays and strings) is joined in `mod.rs`.

use fixedbitset::FixedBitSet;
use heapql_heap::{ArrayRecord, ClassIdx, GrowArray, Heap, ObjIdx, ObjectKind, PrimType, Value};
use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::holder::{holder_of, HolderKey};
use super::model::Check;
use super::roles::{fill, Role, Roles};
use super::strings::StringCollector;
use crate::ctx::ClassCache;
use crate::scan::Coverage;
use heapql_graph::control::{Cancelled, Control};
use heapql_graph::object_graph::obj;
use heapql_graph::FullAnalysis;

/// Objects between two progress ticks / cancellation checks.
const TICK: u32 = 1 << 16;

/// One row's running totals.
#[derive(Clone, Copy, Debug)]
pub struct Agg {
    pub objects: u64,
    pub overhead: u64,
    /// The part of `overhead` `--reachable-only` counts (`Partial::record_split`).
    pub reachable: u64,
    /// Lowest object index.
    pub example: ObjIdx,
}

/// The heap part of a row key on a dump that records no heaps.
pub const NO_HEAP: u32 = u32::MAX;

/// Row key: check, holder, class of the wasteful objects, and the Android heap they are in
/// (`NO_HEAP` without heaps), so app waste and the system's shared zygote and image waste are
/// never one row.
pub type RowKey = (Check, HolderKey, u32, u32);

/// A wasteful object as the first step saw it: its check decides what the dominator tree
/// must still confirm (`attribute`), and whether `overhead` is final or the object's retained
/// size (empty collections, objects waiting for finalization). Kept as `[object | check <<
/// 32, overhead]` in the scratch placement (`Candidate::pack`).
#[derive(Clone, Copy, Debug)]
struct Candidate {
    object: ObjIdx,
    check: Check,
    overhead: u64,
}

impl Candidate {
    fn pack(self) -> [u64; 2] {
        [self.object as u64 | (self.check as u64) << 32, self.overhead]
    }

    /// `Check::ALL` lists the checks in their declaration order, the order of `as u64`.
    fn unpack([head, overhead]: [u64; 2]) -> Candidate {
        Candidate { object: head as u32, check: Check::ALL[(head >> 32) as usize], overhead }
    }
}

/// The first step over a range of objects, seen in order. What it keeps until the
/// dominators are known lies in the heap's scratch placement: made beside the dominator phase,
/// it leaves that phase its memory (on bench-4g 34 MB more anonymous memory in memory).
pub struct Objects {
    /// Object ids of `ReferenceQueue.ENQUEUED` and `ReferenceQueue.NULL` (`NULL_QUEUE`): a
    /// Finalizer whose `queue` is one of them has been handed to the finalizer thread.
    finalizer_states: [Option<u64>; 3],
    ref_size: u64,
    candidates: GrowArray<[u64; 2]>,
    /// [hash of type and content, array] of every primitive array but a `byte[]` or `char[]`.
    arrays: GrowArray<[u32; 2]>,
    /// (array, zero-tail overhead) of those arrays: decided after the duplicates (a redundant
    /// copy is counted there only).
    tails: Vec<(ObjIdx, u64)>,
    strings: StringCollector,
    /// `[array, record]` (`ArrayRecord::to_bits`) of the `byte[]` and `char[]` seen that no
    /// String seen before them holds, ascending: `attribute` hashes those that are no String's
    /// value array. Found here, where each object's kind is known anyway, they spare
    /// `attribute` a walk over every object's class on the report's critical path (bench-4g:
    /// 0.3 s for 49 M objects); where each record lies is found here too, from the index this
    /// pass reads in order, so that `attribute` does not read it again at random (inside
    /// 0.35 × bench-1g that took 0.14–0.15 s, the index paged back in from disk).
    texts: GrowArray<[u64; 2]>,
    /// The value arrays of the Strings seen (1 bit per object of the heap): judged with their
    /// Strings (the duplicate strings), never as arrays, even when Strings share one (a JDK 6
    /// substring), which then none of them dominates.
    string_values: FixedBitSet,
    /// ART's runtime tables (`runtime_tables`), ascending: never hashed for the duplicates.
    runtime_tables: Vec<ObjIdx>,
    /// Android: the shallow bytes of the reachable objects seen, per heap number (`reachable`);
    /// empty for a dump that records no heaps.
    pub reachable_by_heap: Vec<u64>,
}

impl Objects {
    /// The first step over `heap`'s objects; `strings`: the Strings it may see (room for
    /// their keys is reserved, and the pages not filled are never touched).
    pub fn new(heap: &Heap, strings: usize) -> Objects {
        Objects {
            finalizer_states: finalizer_states(heap),
            ref_size: heap.size_model().ref_size as u64,
            candidates: GrowArray::with_capacity(0, heap.scratch()),
            arrays: GrowArray::with_capacity(0, heap.scratch()),
            tails: Vec::new(),
            strings: StringCollector::with_capacity(heap, strings),
            texts: GrowArray::with_capacity(0, heap.scratch()),
            string_values: FixedBitSet::with_capacity(heap.object_count() as usize),
            runtime_tables: runtime_tables(heap),
            reachable_by_heap: vec![0; heap.heap_names().len()],
        }
    }

    /// Android: counts reachable object `o` of shallow size `shallow` in its heap (nothing for
    /// a dump without heaps). Called once per reachable object, beside `see`.
    #[inline]
    pub fn reachable(&mut self, heap: &Heap, o: ObjIdx, shallow: u64) {
        if let Some(k) = heap.heap_of(o) {
            self.reachable_by_heap[k as usize] += shallow;
        }
    }

    /// Whether the dump records heaps (`reachable` counts something).
    #[inline]
    pub fn has_heaps(&self) -> bool {
        !self.reachable_by_heap.is_empty()
    }

    fn candidate(&mut self, object: ObjIdx, check: Check, overhead: u64) {
        self.candidates.push(Candidate { object, check, overhead }.pack());
    }

    /// Sees object `o` of class `c` and kind `kind`, one the report covers (`cover`).
    #[inline]
    pub fn see(&mut self, heap: &Heap, roles: &Roles, cover: Coverage, o: ObjIdx, c: ClassIdx, kind: ObjectKind) {
        match kind {
            ObjectKind::Instance => match roles.of(c) {
                Role::Other => {}
                Role::Collection(shape) => {
                    let Some(f) = fill(heap, roles, o, c, shape) else { return };
                    if f.size == 0 {
                        self.candidate(o, Check::EmptyCollections, 0);
                    } else if f.underfilled {
                        let check = if f.slots == f.default { Check::SmallCollections } else { Check::SparseCollections };
                        self.candidate(o, check, (f.slots - f.size) * self.ref_size);
                    }
                }
                Role::Boxed(width) => {
                    // Field 0 of a box: its `value` (`roles::role_fields`).
                    if !cacheable(roles.field(heap, o, c, 0)) {
                        self.candidate(o, Check::BoxedPrimitives, heap.instance_size(c).saturating_sub(width as u64));
                    }
                }
                Role::String => {
                    if let Some(array) = self.strings.add(heap, o, c) {
                        self.string_values.insert(array as usize);
                    }
                }
                Role::Finalizer => {
                    if let Some(r) = pending_referent(heap, roles, &self.finalizer_states, cover, o, c) {
                        self.candidate(r, Check::PendingFinalization, 0);
                    }
                }
            },
            ObjectKind::ObjectArray => {
                let len = heap.array_length(o).unwrap_or(0) as u64;
                let mut used = 0u64;
                heap.for_each_reference(o, |_, _| used += 1);
                let nulls = len - used.min(len);
                if nulls > used {
                    self.candidate(o, Check::SparseArrays, nulls * self.ref_size);
                }
            }
            ObjectKind::PrimitiveArray(t) => {
                // A `byte[]` or `char[]` is most often a String's value, judged with the
                // String, which may come later: it waits for `attribute`, so no String's
                // array is hashed.
                if is_text(t) {
                    if !self.string_values.contains(o as usize) {
                        if let Some(r) = heap.primitive_array_record(o) {
                            self.texts.push([o as u64, r.to_bits()]);
                        }
                    }
                } else if self.runtime_tables.binary_search(&o).is_err() {
                    self.hash_array(heap, o, c);
                }
            }
            ObjectKind::Class => {}
        }
    }

    /// Hashes primitive array `o` of class `c` for the duplicates unless empty, and keeps its
    /// zero tail when longer than half the array. An Android array dumped without its data
    /// (NODATA) has none to read (`Heap::primitive_array_at`): its contents are unknown, so it is
    /// neither a duplicate nor a zero tail.
    fn hash_array(&mut self, heap: &Heap, o: ObjIdx, c: ClassIdx) {
        if let Some((len, bytes)) = heap.primitive_array_record(o).and_then(|r| heap.primitive_array_at(r)) {
            self.hash_content(o, c, len, &bytes);
        }
    }

    /// `hash_array` of array `o` of class `c` with its length and data already read.
    fn hash_content(&mut self, o: ObjIdx, c: ClassIdx, len: u32, bytes: &[u8]) {
        let len = len as usize;
        if len == 0 {
            return;
        }
        // xxh3: arrays are most of a heap's bytes, and it hashes them several times faster
        // than a word-at-a-time hash.
        let h = xxh3_64_with_seed(bytes, c as u64);
        self.arrays.push([(h >> 32) as u32, o]);
        let elem = bytes.len() / len;
        let zero_bytes = bytes.iter().rev().take_while(|&&b| b == 0).count();
        if let Some(tail) = zero_bytes.checked_div(elem).map(|t| t as u64) {
            if 2 * tail > len as u64 {
                self.tails.push((o, tail * elem as u64));
            }
        }
    }

    /// Ends the step over a range (each core sorts its own String keys), looking at `ctl`'s
    /// cancel flag.
    pub fn seal(&mut self, ctl: &Control) -> Result<(), Cancelled> {
        self.strings.seal(ctl)
    }

    /// Joins the sealed step over the objects after this sealed one's.
    pub fn absorb(&mut self, mut next: Objects) {
        self.candidates.extend_from_slice(&next.candidates);
        self.arrays.extend_from_slice(&next.arrays);
        self.tails.append(&mut next.tails);
        self.strings.absorb(next.strings);
        self.texts.extend_from_slice(&next.texts);
        self.string_values.union_with(&next.string_values);
        for (x, y) in self.reachable_by_heap.iter_mut().zip(&next.reachable_by_heap) {
            *x += y;
        }
    }
}

/// The first step over `range` (covered objects only), sealed.
pub fn see_range(env: &Env, cover: Coverage, strings: usize, range: std::ops::Range<u32>, ctl: &Control, done: &std::sync::atomic::AtomicU64, total: u64) -> Result<Objects, Cancelled> {
    let (heap, classes) = (env.heap, env.classes);
    let mut seen = Objects::new(heap, strings);
    for o in range {
        if o % TICK == 0 {
            let d = done.fetch_add(TICK as u64, std::sync::atomic::Ordering::Relaxed);
            ctl.tick(d.min(total), total)?;
        }
        if cover.covers(o) {
            let c = classes.class_of(heap, o);
            seen.see(heap, env.roles, cover, o, c, classes.kind(heap, o));
            if seen.has_heaps() && cover.is_reachable(o) {
                seen.reachable(heap, o, heap.shallow_size_of_class(o, c));
            }
        }
    }
    seen.seal(ctl)?;
    Ok(seen)
}

/// What the dominator tree decides, and the rows: the findings of the first step's
/// candidates grouped by holder, and the arrays left for the duplicates and zero tails.
#[derive(Default)]
pub struct Partial {
    pub rows: FxHashMap<RowKey, Agg>,
    /// The objects inside the retained set of a finding counted with its whole retained size
    /// (an empty collection, an object waiting for finalization; not those findings
    /// themselves): that finding pays for them, so no check counts them again (`record`).
    pub inside: FixedBitSet,
    /// [hash of type and content, array] of every primitive array considered for duplicates.
    pub arrays: GrowArray<[u32; 2]>,
    /// (array, zero-tail overhead): decided after the duplicates (a redundant copy is counted
    /// there only).
    pub tails: Vec<(ObjIdx, u64)>,
    pub strings: StringCollector,
    /// The part of the findings' overhead a GC root reaches: what `--reachable-only` counts
    /// (the rest is garbage the dump holds). A finding's own reachability tells it, except
    /// in a duplicate group whose kept copy is garbage (`record_split`).
    pub reachable: u64,
    /// Android: the shallow bytes of the reachable objects per heap number (`Objects::reachable`).
    pub reachable_by_heap: Vec<u64>,
}

/// What the second step reads.
pub struct Env<'a> {
    pub heap: &'a Heap,
    pub analysis: &'a FullAnalysis,
    pub roles: &'a Roles,
    /// The class of every object (the index reads the dump and hashes the class id).
    pub classes: &'a ClassCache,
    /// The boxes the JDK's box caches hold (elements of `Integer$IntegerCache.cache`,
    /// `archivedCache`, …; `mod.rs`, `box_cached`), one bit per object: never waste, whoever
    /// else holds them (with class data sharing the arrays are held from the roots, and a box
    /// the application also keeps is dominated by neither).
    pub box_cached: FixedBitSet,
}

impl Partial {
    /// Adds one wasteful object to its row, unless a finding counted with its whole retained
    /// size keeps it alive (`inside`): each object is counted by one check at most. Its
    /// overhead is reachable when the object is.
    pub fn record(&mut self, env: &Env, check: Check, o: ObjIdx, overhead: u64) {
        let reachable = if env.analysis.is_reachable(o) { overhead } else { 0 };
        self.record_split(env, check, o, overhead, reachable);
    }

    /// `record` with the part of the overhead `--reachable-only` would count given: the
    /// duplicates keep their lowest-index copy whatever its reachability, where
    /// `--reachable-only` keeps the lowest-index reachable one, so a reachable redundant copy
    /// may be no waste there (the copy it keeps), a garbage kept copy's own finding may be
    /// (a reachable copy has it), and a reachable copy sharing its array with a garbage one
    /// may pay that array there.
    pub fn record_split(&mut self, env: &Env, check: Check, o: ObjIdx, overhead: u64, reachable: u64) {
        if self.inside.contains(o as usize) {
            return;
        }
        let heap_no = env.heap.heap_of(o).unwrap_or(NO_HEAP);
        let key = (check, holder_of(env.heap, env.analysis, env.roles, env.classes, o), env.class_of(o), heap_no);
        let agg = self.rows.entry(key).or_insert(Agg { objects: 0, overhead: 0, reachable: 0, example: o });
        agg.objects += 1;
        agg.overhead += overhead;
        agg.reachable += reachable;
        agg.example = agg.example.min(o);
        self.reachable += reachable;
    }
}

impl Env<'_> {
    fn idom_role(&self, o: ObjIdx) -> Option<Role> {
        let d = self.analysis.immediate_dominator(o)?;
        (self.classes.kind(self.heap, d) == ObjectKind::Instance).then(|| self.roles.of(self.class_of(d)))
    }

    #[inline]
    pub fn class_of(&self, o: ObjIdx) -> u32 {
        self.classes.class_of(self.heap, o)
    }
}

/// The second step: the candidates the dominator tree confirms, as rows; the `byte[]` and
/// `char[]` that are no String's value, hashed.
pub fn attribute(env: &Env, mut seen: Objects, ctl: &Control) -> Result<Partial, Cancelled> {
    let a = env.analysis;
    let heap = env.heap;
    // First the findings that pay for their whole retained set: what they keep alive is
    // theirs (an empty subclass of ArrayList with a big array of its own, the arrays of an
    // object waiting for finalization), so the other checks must not count it again.
    let mut whole: Vec<(ObjIdx, Check)> = Vec::new();
    // Cancellation only, every TICK candidates here and below: the progress stays where the
    // object pass left it.
    let look = |k: usize| if k.is_multiple_of(TICK as usize) { ctl.tick(heap.object_count() as u64, heap.object_count() as u64 + 1) } else { Ok(()) };
    for (k, &packed) in seen.candidates.iter().enumerate() {
        look(k)?;
        let Candidate { object: o, check, .. } = Candidate::unpack(packed);
        let keep = match check {
            // A set's own map, a collection's own array: the collection's business (it is
            // counted as the collection).
            Check::EmptyCollections => !held_by_collection(env, o),
            Check::PendingFinalization => true,
            _ => false,
        };
        if keep {
            whole.push((o, check));
        }
    }
    // One object, one finding (a referent waiting for finalization may be an empty collection).
    whole.sort_unstable_by_key(|&(o, _)| o);
    whole.dedup_by_key(|&mut (o, _)| o);
    let mut p = Partial { inside: inside_of(heap, a, whole.iter().map(|&(o, _)| o), ctl)?, ..Partial::default() };
    for (k, &(o, check)) in whole.iter().enumerate() {
        look(k)?;
        p.record(env, check, o, a.retained_size(o));
    }
    for (k, &packed) in seen.candidates.iter().enumerate() {
        look(k)?;
        let Candidate { object: o, check, overhead } = Candidate::unpack(packed);
        let keep = match check {
            Check::EmptyCollections | Check::PendingFinalization => false,
            Check::SmallCollections | Check::SparseCollections | Check::SparseArrays => !held_by_collection(env, o),
            Check::BoxedPrimitives => !in_box_cache(env, o),
            // Found among all objects in `mod.rs`, never a candidate of the first step.
            Check::DuplicateStrings | Check::DuplicateArrays | Check::ZeroTailArrays | Check::Latin1Strings => true,
        };
        if keep {
            p.record(env, check, o, overhead);
        }
    }
    // The byte[] and char[] of the tree (the first step saw only the tree's objects), in
    // order: each is hashed unless it is a String's value, judged with the String, or ART's
    // stand-in for a class's native size (`class_overhead`).
    let texts = std::mem::take(&mut seen.texts);
    let mut overhead: Vec<ObjIdx> = class_overhead(env).collect();
    overhead.sort_unstable();
    for (k, &[o, record]) in texts.iter().enumerate() {
        if k % TICK as usize == 0 {
            // Cancellation only: the progress stays where the object pass left it.
            ctl.tick(heap.object_count() as u64, heap.object_count() as u64 + 1)?;
        }
        let o = o as ObjIdx;
        if seen.string_values.contains(o as usize) || overhead.binary_search(&o).is_ok() {
            continue;
        }
        if let Some((len, bytes)) = heap.primitive_array_at(ArrayRecord::from_bits(record)) {
            seen.hash_content(o, env.class_of(o), len, &bytes);
        }
    }
    seen.string_values = FixedBitSet::new();
    p.arrays = seen.arrays;
    p.tails = seen.tails;
    p.strings = seen.strings;
    p.reachable_by_heap = seen.reachable_by_heap;
    Ok(p)
}

/// The objects of the dominator tree inside the retained set of one of `heads` (strictly:
/// not a head itself unless another head keeps it alive), in one pass over the tree in the
/// dominator phase's DFS order, where every object comes after its immediate dominator: an
/// object is inside when its dominator is a head or inside. Only heads that dominate anything
/// (retained size above their own) count, and the pass ends once their retained sets are all
/// found (their bytes add up); no pass without one. Reads the two order arrays front to back;
/// one bit per object and one per tree position.
fn inside_of(heap: &Heap, a: &FullAnalysis, heads: impl Iterator<Item = ObjIdx>, ctl: &Control) -> Result<FixedBitSet, Cancelled> {
    let objects = heap.object_count() as usize;
    let mut inside = FixedBitSet::with_capacity(objects);
    let mut is_head = FixedBitSet::with_capacity(objects);
    // The bytes the heads' retained sets hold besides the heads, still to find: a head found
    // inside another is in that one's bytes already, so its own are taken off when it is met.
    let mut bytes = 0u64;
    // A filter on each object's index, small enough for the first cache level: the heads
    // are few, and most positions are told from them without a look into `is_head`.
    let mut filter = [0u64; HEAD_FILTER_BITS / 64];
    for o in heads {
        let below = a.retained_size(o).saturating_sub(heap.shallow_size(o));
        if below > 0 && !is_head.put(o as usize) {
            bytes += below;
            let bit = head_filter_bit(o);
            filter[bit / 64] |= 1 << (bit % 64);
        }
    }
    let (order, idoms) = (a.tree_order(), a.tree_order_idoms());
    // Positions inside a head's retained set or heading one (the virtual root, 0, is neither).
    let mut marked = FixedBitSet::with_capacity(order.len());
    // None once the sizes did not add up: the pass then goes on to the end, never stops early.
    let mut left = Some(bytes);
    for (pos, (&v, &d)) in order.iter().zip(idoms).enumerate().skip(1) {
        if left == Some(0) {
            break;
        }
        if pos % TICK as usize == 0 {
            // Cancellation only: the progress stays where the object pass left it.
            ctl.tick(objects as u64, objects as u64 + 1)?;
        }
        let o = obj(v);
        let within = marked.contains(d as usize);
        let bit = head_filter_bit(o);
        let head = filter[bit / 64] & 1 << (bit % 64) != 0 && is_head.contains(o as usize);
        if within {
            inside.insert(o as usize);
            let found = if head { a.retained_size(o) } else { heap.shallow_size(o) };
            left = left.and_then(|l| l.checked_sub(found));
        }
        if within || head {
            marked.insert(pos);
        }
    }
    debug_assert!(matches!(left, Some(0) | None) || bytes == 0, "the heads' retained sets add up");
    Ok(inside)
}

/// Bits of `inside_of`'s filter on the heads: 8 KiB.
const HEAD_FILTER_BITS: usize = 1 << 16;

#[inline]
fn head_filter_bit(o: ObjIdx) -> usize {
    (o.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

/// The `byte[]`s ART's hprof writer makes up for classes' `$classOverhead` statics
/// (`$staticOverhead` in Dalvik and early ART dumps; `Heap::class_overhead_array`) that only their class holds (it dominates them): they stand
/// for the class's native size, no code change saves them, so no check counts them. One look
/// per class, none per object.
fn class_overhead<'a>(env: &Env<'a>) -> impl Iterator<Item = ObjIdx> + 'a {
    let (heap, a) = (env.heap, env.analysis);
    (0..heap.class_count()).filter_map(move |c| {
        let o = heap.class_overhead_array(c)?;
        (a.immediate_dominator(o) == Some(heap.class(c).object)).then_some(o)
    })
}

/// The method tables an ART dump's class objects point at through the `$class$…` statics its
/// hprof writer makes of `java.lang.Class`'s own fields: the `vtable`, and the method arrays
/// inside the `ifTable` (an `Object[]` of interface, methods pairs), each a `long[]` (an
/// `int[]` on 32-bit devices) of method pointers. Runtime data that classes with the same
/// methods share in content, not a copy a code change could save, so never duplicate arrays
/// (hprof-format.md §8.1, synthetic static fields). Sorted; empty for other dumps. One look
/// per class.
fn runtime_tables(heap: &Heap) -> Vec<ObjIdx> {
    if !heap.size_model().android {
        return Vec::new();
    }
    let is_primitive_array = |o: ObjIdx| matches!(heap.object_kind(o), ObjectKind::PrimitiveArray(_));
    let mut tables = Vec::new();
    for c in 0..heap.class_count() {
        for s in heap.class(c).statics.iter().filter(|s| s.name.starts_with("$class$")) {
            let Value::Object(id) = s.value else { continue };
            let Some(o) = heap.index_of(id) else { continue };
            match heap.object_kind(o) {
                ObjectKind::PrimitiveArray(_) => tables.push(o),
                ObjectKind::ObjectArray if s.name == "$class$ifTable" => heap.for_each_reference(o, |id, _| {
                    if let Some(m) = heap.index_of(id).filter(|&m| is_primitive_array(m)) {
                        tables.push(m);
                    }
                }),
                _ => {}
            }
        }
    }
    tables.sort_unstable();
    tables.dedup();
    tables
}

/// The types of a String's value.
fn is_text(t: PrimType) -> bool {
    matches!(t, PrimType::Byte | PrimType::Char)
}

fn held_by_collection(env: &Env, o: ObjIdx) -> bool {
    matches!(env.idom_role(o), Some(Role::Collection(_)))
}

/// A box value that `valueOf` hands out from the JDK's caches (−128..127, chars 0..127, both
/// booleans): every caller shares it, whoever holds it; with class data sharing the cache arrays
/// of a JDK 25 are held from the VM's archive roots, so their dominator does not tell.
fn cacheable(v: Option<Value>) -> bool {
    match v {
        Some(Value::Boolean(_)) | Some(Value::Byte(_)) => true,
        Some(Value::Char(c)) => c <= 127,
        Some(Value::Short(x)) => (-128..=127).contains(&x),
        Some(Value::Int(x)) => (-128..=127).contains(&x),
        Some(Value::Long(x)) => (-128..=127).contains(&x),
        _ => false,
    }
}

/// A box held by the JDK's own caches (`Integer.valueOf`'s `IntegerCache.cache`, `Boolean.TRUE`):
/// an element of one of the caches' arrays (whoever else holds it), or dominated by the box
/// class or one of its nested classes, directly or through an array.
fn in_box_cache(env: &Env, o: ObjIdx) -> bool {
    if env.box_cached.contains(o as usize) {
        return true;
    }
    let heap = env.heap;
    let a = env.analysis;
    let Some(mut d) = a.immediate_dominator(o) else { return false };
    if env.classes.kind(heap, d) == ObjectKind::ObjectArray {
        let Some(up) = a.immediate_dominator(d) else { return false };
        d = up;
    }
    if env.classes.kind(heap, d) != ObjectKind::Class {
        return false;
    }
    let Some(c) = heap.class_described_by(d) else { return false };
    let holder = &heap.class(c).name;
    let boxed = &heap.class(env.class_of(o)).name;
    holder == boxed || holder.strip_prefix(boxed.as_str()).is_some_and(|rest| rest.starts_with('$'))
}

/// The referent of Finalizer `f` when the JVM has handed it over for finalization: its
/// `queue` is `ReferenceQueue.ENQUEUED` (waiting for the finalizer thread) or
/// `ReferenceQueue.NULL` / `NULL_QUEUE` (taken off the queue, `finalize()` running), and
/// the referent is not yet cleared.
fn pending_referent(heap: &Heap, roles: &Roles, states: &[Option<u64>; 3], cover: Coverage, f: ObjIdx, c: u32) -> Option<ObjIdx> {
    // A Finalizer's fields 0 and 1: `queue` and `referent` (`roles::role_fields`).
    let Some(Value::Object(q)) = roles.field(heap, f, c, 0) else { return None };
    if !states.contains(&Some(q)) {
        return None;
    }
    let Some(Value::Object(r)) = roles.field(heap, f, c, 1) else { return None };
    heap.index_of(r).filter(|&r| cover.covers(r))
}

/// Ids of `java.lang.ref.ReferenceQueue`'s `ENQUEUED` and `NULL` sentinels (`NULL_QUEUE` since
/// JDK 21).
fn finalizer_states(heap: &Heap) -> [Option<u64>; 3] {
    let get = |name: &str| {
        heap.classes_named("java.lang.ref.ReferenceQueue").iter().find_map(|&c| {
            heap.class(c).statics.iter().find(|s| s.name == name).and_then(|s| match s.value {
                Value::Object(id) if id != 0 => Some(id),
                _ => None,
            })
        })
    };
    [get("ENQUEUED"), get("NULL"), get("NULL_QUEUE")]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A candidate comes back from its packed form as it went in, for every check.
    #[test]
    fn candidates_unpack_as_packed() {
        for (i, &check) in Check::ALL.iter().enumerate() {
            let c = Candidate { object: u32::MAX - i as u32, check, overhead: u64::MAX - i as u64 };
            let back = Candidate::unpack(c.pack());
            assert_eq!((back.object, back.check, back.overhead), (c.object, c.check, c.overhead));
        }
    }
}
