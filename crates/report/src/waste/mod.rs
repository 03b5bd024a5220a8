//! The waste report: how much memory the heap wastes and where, per check (empty, small and
//! sparse collections, sparse object arrays, boxed primitives, duplicate strings and primitive
//! arrays, zero-tailed arrays, UTF-16 strings that fit Latin-1, objects waiting for
//! finalization), each finding grouped by its holder (`holder.rs`) with its overhead in bytes
//! and percent of the used heap. The formulas: docs/report-model.md, "waste".
//!
//! Cost: one pass over every object for what needs only the object (`scan::Objects`): made
//! beside the dominator phase with the report's object pass (`crate::scan::ScanBeside`), or
//! here in two halves on two threads. Then a walk of its findings and of the `byte[]` and
//! `char[]` it listed with where their records lie, in order, which confirms them against
//! the dominator tree (`scan::attribute`), and a sort of (hash, index) pairs of the primitive arrays; arrays
//! sharing a hash are compared byte by byte, read in object order (`duplicate_arrays`), while
//! another thread does the same for Strings sharing a key (`strings.rs`). Memory: 8 bytes per
//! primitive array (not a String's own) and per String (the Strings' keys in the scratch
//! placement), 16 per wasteful object until its holder is known, 16 per `byte[]` and
//! `char[]` that no String seen before it holds (scratch placement), one bit per object (the
//! Strings' value arrays) and one more (the boxes the box caches hold), the first copies of the groups being compared
//! (`pass_content_bytes` at a time, shared by the two), the Strings of shared keys, and the
//! rows; nothing is allocated per object.
//!
//! Categories never count one object twice: a collection's backing array is judged with the
//! collection, a String's array with the String, a redundant duplicate array is not also a
//! zero tail, a redundant duplicate String is not also a Latin-1 candidate, and what an empty
//! collection or an object waiting for finalization keeps alive (their overhead is their
//! retained size) is counted by them only (`scan::Partial::inside`). So the total never
//! exceeds the used heap, and no percentage is capped. The part of the total in objects no GC
//! root reaches (garbage the dump holds, which the next collection frees) is told apart
//! (`Waste::unreachable_overhead`); the reachable part is what `--reachable-only` counts, also
//! where a duplicate group keeps a garbage copy (`scan::Partial::record_split`).

mod holder;
mod model;
mod roles;
mod scan;
mod strings;

pub use holder::MAX_CLIMB;
pub use model::*;

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use heapql_heap::{ClassIdx, Heap, HeapError, ObjIdx, ObjectKind, ProgressFn, Value};
use fixedbitset::FixedBitSet;
use rustc_hash::FxHashMap;

use heapql_graph::control::{sort_by_key_or_stop, sort_or_stop, Cancelled, Control};
use crate::ObjectRef;
use heapql_graph::FullAnalysis;
use holder::describe_holder;
use crate::ctx::ClassCache;
use heapql_graph::par::both;
use scan::{attribute, see_range, Agg, Env, Partial, RowKey, NO_HEAP};
pub(crate) use scan::Objects;
pub(crate) use roles::Roles;
use crate::scan::Coverage;

/// Options of `analyze` (progress phase: "waste").
#[derive(Clone)]
pub struct WasteOptions {
    /// Rows shown per check (`holders` counts them all).
    pub limit: usize,
    /// Values shown in `duplicateStrings.top`.
    pub top_strings: usize,
    pub progress: Option<ProgressFn>,
    /// Set to true from another thread to stop; analyze() then returns HeapError::Cancelled.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for WasteOptions {
    fn default() -> Self {
        WasteOptions { limit: 25, top_strings: 20, progress: None, cancel: None }
    }
}

/// Runs every check over the objects of the dominator tree.
pub fn analyze(heap: &Heap, analysis: &FullAnalysis, options: &WasteOptions) -> Result<Waste, HeapError> {
    analyze_with(heap, analysis, options, &ClassCache::of_all(heap), None)
}

/// The first step of the checks over every object (`Objects::see`), made beside another pass
/// over them (`crate::scan::ScanBeside`): it needs no dominator.
pub(crate) fn objects_beside(heap: &Heap) -> Objects {
    Objects::new(heap, string_count(heap))
}

/// `analyze` with the class of every object already known (the report's object pass), and
/// the first step over the objects when it was made beside the dominators (else it is made
/// here, one half per core).
pub(crate) fn analyze_with(heap: &Heap, analysis: &FullAnalysis, options: &WasteOptions, classes: &ClassCache, seen: Option<Objects>) -> Result<Waste, HeapError> {
    let ctl = Control { phase: "waste", progress: options.progress.clone(), cancel: options.cancel.clone() };
    let mut laps = heapql_heap::Laps::new("heapql-report");
    let roles = Roles::new(heap);
    let env = Env { heap, analysis, roles: &roles, classes, box_cached: box_cached(heap) };
    let n = heap.object_count();
    let total = n as u64 + 1;
    let seen = match seen {
        Some(seen) => seen,
        None => {
            let (cover, strings, done, mid) = (Coverage::of(analysis), string_count(heap), AtomicU64::new(0), n / 2);
            let (low, high) = both(|| see_range(&env, cover, strings, 0..mid, &ctl, &done, total), || see_range(&env, cover, strings, mid..n, &ctl, &done, total));
            let (mut low, high) = (low.map_err(|_| HeapError::Cancelled)?, high.map_err(|_| HeapError::Cancelled)?);
            low.absorb(high);
            laps.lap("waste: object scan (both halves)");
            low
        }
    };
    let mut p = attribute(&env, seen, &ctl).map_err(|_| HeapError::Cancelled)?;
    laps.lap("waste: findings confirmed by the dominators");

    // Duplicate arrays and duplicate strings side by side (each reads its own candidates in
    // object order), sharing the content budget of a verification pass.
    let strings = std::mem::take(&mut p.strings);
    let (arrays, findings) = both(
        || duplicate_arrays(&env, &mut p, pass_content_bytes(heap) / 4 * 3, &ctl),
        || strings.finish(heap, |o| analysis.is_reachable(o), options.top_strings, pass_content_bytes(heap) / 4, &ctl),
    );
    let (arrays, findings) = (arrays.map_err(|_| HeapError::Cancelled)?, findings.map_err(|_| HeapError::Cancelled)?);
    laps.lap("waste: duplicate arrays and strings");
    // A finding of a duplicate group's kept copy (a zero tail, a Latin-1 text) is reachable
    // when `--reachable-only` finds it on the copy it keeps instead: the same content, the
    // same finding, unless that copy is inside another finding.
    let reachable_part = |p: &Partial, overhead: u64, kept_reachable: Option<ObjIdx>| match kept_reachable {
        Some(k) if !p.inside.contains(k as usize) => overhead,
        _ => 0,
    };
    for (o, overhead) in std::mem::take(&mut p.tails) {
        if arrays.redundant.binary_search_by_key(&o, |r| r.0).is_err() {
            let kept_reachable = if analysis.is_reachable(o) {
                Some(o)
            } else {
                arrays.stand_ins.binary_search_by_key(&o, |s| s.0).ok().map(|i| arrays.stand_ins[i].1)
            };
            let reachable = reachable_part(&p, overhead, kept_reachable);
            p.record_split(&env, Check::ZeroTailArrays, o, overhead, reachable);
        }
    }
    for &(s, overhead, reachable) in &findings.redundant {
        p.record_split(&env, Check::DuplicateStrings, s, overhead, reachable);
    }
    for &(s, overhead, kept_reachable) in &findings.latin1 {
        let reachable = reachable_part(&p, overhead, kept_reachable);
        p.record_split(&env, Check::Latin1Strings, s, overhead, reachable);
    }
    laps.lap("waste: zero tail and string rows");
    ctl.tick(total, total).map_err(|_| HeapError::Cancelled)?;
    let waste = assemble(heap, analysis, p.rows, p.reachable, &p.reachable_by_heap, findings.section, options.limit.max(1));
    laps.lap("waste: assemble");
    Ok(waste)
}

/// Instances of `java.lang.String` in the dump.
fn string_count(heap: &Heap) -> usize {
    let strings = heap.classes_named("java.lang.String");
    heap.class_histogram().iter().filter(|r| strings.contains(&r.class)).map(|r| r.count as usize).sum()
}

/// The boxes the JDK's box caches hold: every element of an array held by a static of a
/// `java.lang.<Box>$<Box>Cache` class (`Integer$IntegerCache.cache`, raised by
/// `-XX:AutoBoxCacheMax`; `archivedCache` with class data sharing), one bit per object, marked
/// while those arrays are read. A cached box is shared by every `valueOf` caller whoever else
/// holds it (the application too, when it keeps what `valueOf` returned), so it is no waste.
fn box_cached(heap: &Heap) -> FixedBitSet {
    let mut cached = FixedBitSet::with_capacity(heap.object_count() as usize);
    for c in 0..heap.class_count() {
        let info = heap.class(c);
        let Some(nested) = info.name.strip_prefix("java.lang.") else { continue };
        let Some((outer, inner)) = nested.split_once('$') else { continue };
        if inner.strip_prefix(outer) != Some("Cache") {
            continue;
        }
        for s in &info.statics {
            let Value::Object(id) = s.value else { continue };
            let Some(array) = heap.index_of(id).filter(|&o| heap.object_kind(o) == ObjectKind::ObjectArray) else { continue };
            heap.for_each_reference(array, |element, _| {
                if let Some(o) = heap.index_of(element) {
                    cached.insert(o as usize);
                }
            });
        }
    }
    cached
}

/// Content kept in memory per verification pass (shared by duplicate arrays and strings): the first copy of every group being checked,
/// one byte per object of the dump (within the report's memory budget), at least 4 MiB and at
/// most 64 MiB. A dump with more distinct duplicated content is checked in several passes.
fn pass_content_bytes(heap: &Heap) -> u64 {
    (heap.object_count() as u64).clamp(4 << 20, 64 << 20)
}

/// What `duplicate_arrays` found.
struct DuplicateArrays {
    /// The redundant copies, sorted, each with whether `--reachable-only` counts it: a
    /// reachable copy after another reachable copy of its content.
    redundant: Vec<(ObjIdx, bool)>,
    /// (garbage kept copy, the copy `--reachable-only` keeps: the lowest-index reachable one)
    /// of each content whose kept copy no GC root reaches and some copy does, sorted.
    stand_ins: Vec<(ObjIdx, ObjIdx)>,
}

/// Groups primitive arrays of equal class and content; every member but the lowest-index one
/// of a group is a redundant copy costing its shallow size, of which `--reachable-only`
/// counts the reachable copies after the first reachable one. Returns the copies.
///
/// The scan hashed every array; arrays sharing a hash are candidates, verified by comparing
/// bytes. The candidates are read in object order (the dump's order), each compared with the
/// first copy of its group kept in memory, never by jumping back to that first copy: when the
/// dump is larger than memory, reading copies group after group would fault its pages in at
/// random. The groups are taken in passes keeping about `pass_bytes` of copies each.
fn duplicate_arrays(env: &Env, p: &mut Partial, pass_bytes: u64, ctl: &Control) -> Result<DuplicateArrays, Cancelled> {
    let heap = env.heap;
    let mut arrays = std::mem::take(&mut p.arrays);
    // As one u64 (hash, then array): the order of the pairs, one compare each.
    sort_by_key_or_stop(&mut arrays, |&[h, o]| (h as u64) << 32 | o as u64, ctl)?;
    // Candidates: members of hash groups with more than one array, as (array, group); the
    // groups are numbered in hash order.
    let mut candidates: Vec<(ObjIdx, u32)> = Vec::new();
    let mut groups = 0u32;
    let mut i = 0;
    // The cancel flag is looked at every 65 536 arrays here and below (in a sort too:
    // `sort_or_stop`).
    let mut next_look = STEP;
    while i < arrays.len() {
        if i >= next_look {
            ctl.check()?;
            next_look = i + STEP;
        }
        let mut j = i + 1;
        while j < arrays.len() && arrays[j][0] == arrays[i][0] {
            j += 1;
        }
        if j - i > 1 {
            candidates.extend(arrays[i..j].iter().map(|&[_, o]| (o, groups)));
            groups += 1;
        }
        i = j;
    }
    drop(arrays);
    // In object order from here on.
    sort_by_key_or_stop(&mut candidates, |&(o, g)| (o as u64) << 32 | g as u64, ctl)?;
    let (mut redundant, mut stand_ins) = (Vec::new(), Vec::new());
    // Per group of the pass, the distinct contents seen so far (several only when different
    // contents share a hash): (class, bytes, the lowest-index array holding each, whether a
    // reachable one was seen).
    type Seen = FxHashMap<u32, Vec<(ClassIdx, Vec<u8>, ObjIdx, bool)>>;
    in_passes_or_stop(&candidates, groups as usize, pass_bytes, |kept: &mut Seen, o, g| {
        let Some(content) = heap.primitive_array_bytes(o) else { return 0 };
        let class = env.class_of(o);
        let reachable = env.analysis.is_reachable(o);
        let seen = kept.entry(g).or_default();
        if let Some((_, _, first, reachable_seen)) = seen.iter_mut().find(|(c, bytes, _, _)| *c == class && bytes[..] == content[..]) {
            redundant.push((o, reachable && *reachable_seen));
            if reachable && !*reachable_seen {
                // The copy `--reachable-only` keeps instead of the garbage first one.
                stand_ins.push((*first, o));
                *reachable_seen = true;
            }
            0
        } else {
            let len = content.len() as u64;
            seen.push((class, content.into_owned(), o, reachable));
            len
        }
    }, ctl)?;
    drop(candidates);
    sort_or_stop(&mut redundant, |x, y| x.cmp(y), ctl)?;
    sort_or_stop(&mut stand_ins, |x, y| x.cmp(y), ctl)?;
    for (k, &(o, counted)) in redundant.iter().enumerate() {
        if k.is_multiple_of(STEP) {
            ctl.check()?;
        }
        let size = heap.shallow_size(o);
        p.record_split(env, Check::DuplicateArrays, o, size, if counted { size } else { 0 });
    }
    Ok(DuplicateArrays { redundant, stand_ins })
}

/// Verifies groups of candidates in passes, each keeping about `budget` bytes in memory.
/// `candidates` are (object, group) in object order; a group joins the current pass when its
/// first member comes while the pass keeps fewer than `budget` bytes, and the groups left out
/// wait for the next pass, so every group is seen whole by one pass, in object order.
/// `visit(pass state, object, group)` returns the bytes it kept. Returns the passes made.
#[cfg(test)]
fn in_passes<P: Default>(candidates: &[(ObjIdx, u32)], groups: usize, budget: u64, visit: impl FnMut(&mut P, ObjIdx, u32) -> u64) -> u32 {
    match in_passes_or_stop(candidates, groups, budget, visit, &Control::none()) {
        Ok(passes) => passes,
        Err(Cancelled) => unreachable!("no cancel flag"),
    }
}

/// Items between two looks at the cancel flag.
const STEP: usize = 1 << 16;

/// `in_passes`, looking at `ctl`'s cancel flag every 65 536 candidates.
fn in_passes_or_stop<P: Default>(candidates: &[(ObjIdx, u32)], groups: usize, budget: u64, mut visit: impl FnMut(&mut P, ObjIdx, u32) -> u64, ctl: &Control) -> Result<u32, Cancelled> {
    // Per group: 0 waiting, 1 in this pass, 2 done.
    let mut state = vec![0u8; groups];
    let mut passes = 0;
    // Another pass while a candidate's group still waits (not while any group number does:
    // a number with no candidates would never leave the waiting state, and the loop would
    // never end).
    let mut waiting = !candidates.is_empty();
    while waiting {
        passes += 1;
        waiting = false;
        let mut pass = P::default();
        let mut kept = 0u64;
        for (k, &(o, g)) in candidates.iter().enumerate() {
            if k & 0xFFFF == 0 {
                ctl.check()?;
            }
            let group = &mut state[g as usize];
            if *group == 0 && (kept == 0 || kept < budget) {
                *group = 1;
            }
            match *group {
                0 => waiting = true,
                1 => kept += visit(&mut pass, o, g),
                _ => {}
            }
        }
        for x in state.iter_mut().filter(|x| **x == 1) {
            *x = 2;
        }
    }
    Ok(passes)
}

/// `reachable_by_heap`: the shallow bytes of the reachable objects per heap number
/// (`Objects::reachable`; empty without heaps).
fn assemble(heap: &Heap, a: &FullAnalysis, rows: FxHashMap<RowKey, Agg>, reachable: u64, reachable_by_heap: &[u64], strings: crate::DuplicateStrings, limit: usize) -> Waste {
    let used = a.total_size();
    let percent = |b: u64| if used == 0 { 0.0 } else { b as f64 * 100.0 / used as f64 };
    let mut by_check: FxHashMap<Check, Vec<(RowKey, Agg)>> = FxHashMap::default();
    for (k, v) in rows {
        by_check.entry(k.0).or_default().push((k, v));
    }
    let mut categories = Vec::new();
    let mut overhead = 0;
    // Per heap number of the dump (none without heaps).
    let mut per_heap: Vec<WasteHeap> = heap
        .heap_names()
        .iter()
        .zip(reachable_by_heap)
        .map(|(n, &live)| WasteHeap {
            name: n.to_string(),
            objects: 0,
            overhead: 0,
            overhead_percent: 0.0,
            reachable_overhead: 0,
            reachable_shallow: live,
            percent_of_reachable: 0.0,
        })
        .collect();
    for check in Check::ALL {
        let mut list = by_check.remove(&check).unwrap_or_default();
        list.sort_unstable_by(|x, y| y.1.overhead.cmp(&x.1.overhead).then(y.1.objects.cmp(&x.1.objects)).then(x.0.cmp(&y.0)));
        let objects = list.iter().map(|r| r.1.objects).sum();
        let bytes: u64 = list.iter().map(|r| r.1.overhead).sum();
        overhead += bytes;
        for &((_, _, _, k), agg) in &list {
            if let Some(h) = per_heap.get_mut(k as usize) {
                h.objects += agg.objects;
                h.overhead += agg.overhead;
                h.reachable_overhead += agg.reachable;
            }
        }
        let rows = list
            .iter()
            .take(limit)
            .map(|&((_, key, class, k), agg)| WasteRow {
                holder: describe_holder(heap, key, class),
                class_name: heap.class(class).name.clone(),
                objects: agg.objects,
                overhead: agg.overhead,
                overhead_percent: percent(agg.overhead),
                example: object_ref(heap, agg.example),
                heap: (k != NO_HEAP).then(|| heap.heap_names()[k as usize].to_string()),
            })
            .collect();
        categories.push(WasteCategory {
            check,
            title: check.title().to_string(),
            rule: check.rule().to_string(),
            objects,
            overhead: bytes,
            overhead_percent: percent(bytes),
            rows,
            holders: list.len() as u64,
        });
    }
    // A reachable copy sharing its array with a garbage one may pay that array in the
    // reachable part only (`Partial::record_split`): never more than the whole.
    let reachable = reachable.min(overhead);
    let unreachable = overhead - reachable;
    let heaps = (!per_heap.is_empty()).then(|| {
        // Every heap with objects, whether or not they waste anything, as `heaps()` lists them.
        let with_objects: Vec<&str> = heap.heaps().iter().map(|h| &*h.name).collect();
        per_heap
            .into_iter()
            .filter(|h| with_objects.contains(&h.name.as_str()))
            .map(|h| {
                let reachable_overhead = h.reachable_overhead.min(h.overhead);
                let of_live = if h.reachable_shallow == 0 { 0.0 } else { reachable_overhead as f64 * 100.0 / h.reachable_shallow as f64 };
                WasteHeap { overhead_percent: percent(h.overhead), reachable_overhead, percent_of_reachable: of_live, ..h }
            })
            .collect()
    });
    Waste {
        used_heap: used,
        overhead,
        overhead_percent: percent(overhead),
        reachable_overhead: reachable,
        reachable_overhead_percent: percent(reachable),
        unreachable_overhead: unreachable,
        unreachable_overhead_percent: percent(unreachable),
        dump_cut_short: heap.summary().cut_short,
        categories,
        heaps,
        duplicate_strings: strings,
    }
}

fn object_ref(heap: &Heap, o: ObjIdx) -> ObjectRef {
    let (address, _, label) = heapql_heap::describe(heap, o);
    let class_name = match heap.object_kind(o) {
        ObjectKind::Class => "java.lang.Class".to_string(),
        _ => heap.class(heap.class_of(o)).name.clone(),
    };
    ObjectRef { object_id: o, address, class_name, label }
}

#[cfg(test)]
mod tests {
    use super::{in_passes, in_passes_or_stop};
    use heapql_graph::control::{Cancelled, Control};

    /// With the cancel flag set, the passes stop before visiting a candidate.
    #[test]
    fn passes_stop_when_cancelled() {
        let candidates: Vec<(u32, u32)> = (0..10).map(|o| (o, o % 3)).collect();
        let ctl = Control { cancel: Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true))), ..Control::none() };
        let mut visits = 0;
        let outcome = in_passes_or_stop(&candidates, 3, u64::MAX, |_: &mut (), _, _| {
            visits += 1;
            0
        }, &ctl);
        assert_eq!((outcome, visits), (Err(Cancelled), 0));
        assert_eq!(in_passes_or_stop(&candidates, 3, u64::MAX, |_: &mut (), _, _| 0, &Control::none()), Ok(1));
    }

    /// Every candidate is visited once, each group whole within one pass, in object order;
    /// group numbers with no candidates (1 and 4 here) do not keep the passes going.
    #[test]
    fn passes_visit_every_candidate_once_and_end() {
        let candidates = [(1, 0), (2, 2), (3, 0), (4, 2), (5, 3)];
        for (budget, want_passes) in [(1, 3), (u64::MAX, 1)] {
            // (pass, object, group) of every visit; a pass's first visit finds its state empty.
            let mut visits: Vec<(u32, u32, u32)> = Vec::new();
            let mut pass_no = 0;
            let passes = in_passes(&candidates, 5, budget, |pass: &mut Vec<u32>, o, g| {
                if pass.is_empty() {
                    pass_no += 1;
                }
                pass.push(g);
                visits.push((pass_no, o, g));
                1
            });
            assert_eq!(passes, want_passes, "budget {budget}");
            let mut objects: Vec<(u32, u32)> = visits.iter().map(|&(_, o, g)| (o, g)).collect();
            objects.sort_unstable();
            assert_eq!(objects, candidates, "budget {budget}");
            for g in [0, 2, 3] {
                let mut in_pass: Vec<u32> = visits.iter().filter(|v| v.2 == g).map(|v| v.0).collect();
                in_pass.dedup();
                assert_eq!(in_pass.len(), 1, "budget {budget}: group {g} seen by passes {in_pass:?}");
            }
        }
        assert_eq!(in_passes(&[], 3, 1, |_: &mut (), _, _| 0), 0, "no candidates, no pass");
    }
}
