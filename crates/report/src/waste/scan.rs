//! The per-object pass of the waste checks over one range of objects (each core takes half).
//! Everything that needs only the object itself is decided here; what needs all objects
//! (duplicate arrays and strings) leaves compact candidates for `mod.rs` to join.


use heapql_heap::{Heap, ObjIdx, ObjectKind, PrimType, Value};
use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::holder::{holder_of, HolderKey};
use super::model::Check;
use super::roles::{fill, Role, Roles};
use super::strings::StringCollector;
use crate::ctx::ClassCache;
use heapql_graph::control::{Cancelled, Control};
use heapql_graph::FullAnalysis;

/// Objects between two progress ticks / cancellation checks.
const TICK: u32 = 1 << 16;

/// One row's running totals.
#[derive(Clone, Copy, Debug)]
pub struct Agg {
    pub objects: u64,
    pub overhead: u64,
    /// Lowest object index.
    pub example: ObjIdx,
}

/// Row key: check, holder, class of the wasteful objects.
pub type RowKey = (Check, HolderKey, u32);

pub struct Env<'a> {
    pub heap: &'a Heap,
    pub analysis: &'a FullAnalysis,
    pub roles: &'a Roles,
    /// The class of every object (the index reads the dump and hashes the class id).
    pub classes: &'a ClassCache,
    /// Object ids of `ReferenceQueue.ENQUEUED` and `ReferenceQueue.NULL` (`NULL_QUEUE`): a
    /// Finalizer whose `queue` is one of them has been handed to the finalizer thread.
    pub finalizer_states: [Option<u64>; 3],
    /// The arrays the JDK's box caches keep (`Integer$IntegerCache.cache`, `archivedCache`, …),
    /// sorted: with class data sharing they are held from the roots, not by the cache class.
    pub box_cache_arrays: Vec<ObjIdx>,
    /// Strings in the dump: each half reserves room for the keys of all of them (no copy as
    /// the list grows; the pages a half does not fill are never touched).
    pub strings: usize,
}

#[derive(Default)]
pub struct Partial {
    pub rows: FxHashMap<RowKey, Agg>,
    /// (hash of type and content, array) of every primitive array considered for duplicates.
    pub arrays: Vec<(u32, ObjIdx)>,
    /// (array, zero-tail overhead): decided after the duplicates (a redundant copy is counted
    /// there only).
    pub tails: Vec<(ObjIdx, u64)>,
    pub strings: StringCollector,
}

impl Env<'_> {
    /// Adds one wasteful object to its row.
    pub fn record(&self, rows: &mut FxHashMap<RowKey, Agg>, check: Check, o: ObjIdx, overhead: u64) {
        let heap = self.heap;
        let key = (check, holder_of(heap, self.analysis, self.roles, self.classes, o), self.class_of(o));
        let agg = rows.entry(key).or_insert(Agg { objects: 0, overhead: 0, example: o });
        agg.objects += 1;
        agg.overhead += overhead;
        agg.example = agg.example.min(o);
    }

    fn idom_role(&self, o: ObjIdx) -> Option<Role> {
        let d = self.analysis.immediate_dominator(o)?;
        (self.classes.kind(self.heap, d) == ObjectKind::Instance).then(|| self.roles.of(self.class_of(d)))
    }

    #[inline]
    pub fn class_of(&self, o: ObjIdx) -> u32 {
        self.classes.class_of(self.heap, o)
    }
}

pub fn scan_range(env: &Env, range: std::ops::Range<u32>, ctl: &Control, done: &std::sync::atomic::AtomicU64, total: u64) -> Result<Partial, Cancelled> {
    let heap = env.heap;
    let a = env.analysis;
    let ref_size = heap.size_model().ref_size as u64;
    let mut p = Partial { strings: StringCollector::with_capacity(heap, env.strings), ..Default::default() };
    for o in range {
        if o % TICK == 0 {
            let d = done.fetch_add(TICK as u64, std::sync::atomic::Ordering::Relaxed);
            ctl.tick(d.min(total), total)?;
        }
        if !a.in_tree(o) {
            continue;
        }
        // The kind from the class (the object pass learnt it): most objects need no read of
        // the index's entry.
        match env.classes.kind(heap, o) {
            ObjectKind::Instance => {
                let c = env.class_of(o);
                match env.roles.of(c) {
                    Role::Other => {}
                    Role::Collection(shape) => {
                        // A set's own map is the set's business (it is counted as the set).
                        if matches!(env.idom_role(o), Some(Role::Collection(_))) {
                            continue;
                        }
                        let Some(f) = fill(heap, env.roles, o, c, shape) else { continue };
                        if f.size == 0 {
                            env.record(&mut p.rows, Check::EmptyCollections, o, a.retained_size(o));
                        } else if f.underfilled {
                            let check = if f.slots == f.default { Check::SmallCollections } else { Check::SparseCollections };
                            env.record(&mut p.rows, check, o, (f.slots - f.size) * ref_size);
                        }
                    }
                    Role::Boxed(width) => {
                        // Field 0 of a box: its `value` (`roles::role_fields`).
                        if !cacheable(env.roles.field(heap, o, c, 0)) && !in_box_cache(env, o) {
                            env.record(&mut p.rows, Check::BoxedPrimitives, o, heap.instance_size(c).saturating_sub(width as u64));
                        }
                    }
                    Role::String => p.strings.add(heap, o, c),
                    Role::Finalizer => {
                        if let Some(r) = pending_referent(env, o, c) {
                            env.record(&mut p.rows, Check::PendingFinalization, r, a.retained_size(r));
                        }
                    }
                }
            }
            ObjectKind::ObjectArray => {
                if matches!(env.idom_role(o), Some(Role::Collection(_))) {
                    continue;
                }
                let len = heap.array_length(o).unwrap_or(0) as u64;
                let mut used = 0u64;
                heap.for_each_reference(o, |_, _| used += 1);
                let nulls = len - used.min(len);
                if nulls > used {
                    env.record(&mut p.rows, Check::SparseArrays, o, nulls * ref_size);
                }
            }
            ObjectKind::PrimitiveArray(t) => {
                let len = heap.array_length(o).unwrap_or(0) as usize;
                // A String's value (byte[] or char[]) is judged with the String.
                if len == 0 || matches!(t, PrimType::Byte | PrimType::Char) && env.idom_role(o) == Some(Role::String) {
                    continue;
                }
                let Some(bytes) = heap.primitive_array_bytes(o) else { continue };
                // xxh3: arrays are most of a heap's bytes, and it hashes them several times
                // faster than a word-at-a-time hash.
                let h = xxh3_64_with_seed(&bytes, env.class_of(o) as u64);
                p.arrays.push(((h >> 32) as u32, o));
                let elem = bytes.len() / len;
                let zero_bytes = bytes.iter().rev().take_while(|&&b| b == 0).count();
                if let Some(tail) = zero_bytes.checked_div(elem).map(|t| t as u64) {
                    if 2 * tail > len as u64 {
                        p.tails.push((o, tail * elem as u64));
                    }
                }
            }
            ObjectKind::Class => {}
        }
    }
    p.strings.seal();
    Ok(p)
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
/// its dominator is one of the caches' arrays, or the box class or one of its nested classes,
/// directly or through an array.
fn in_box_cache(env: &Env, o: ObjIdx) -> bool {
    let heap = env.heap;
    let a = env.analysis;
    let Some(mut d) = a.immediate_dominator(o) else { return false };
    if env.box_cache_arrays.binary_search(&d).is_ok() {
        return true;
    }
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

/// The referent of Finalizer `f` when the JVM has handed it over for finalization: its `queue`
/// is `ReferenceQueue.ENQUEUED` (waiting for the finalizer thread) or `ReferenceQueue.NULL` /
/// `NULL_QUEUE` (taken off the queue, `finalize()` running), and the referent is not yet cleared.
fn pending_referent(env: &Env, f: ObjIdx, c: u32) -> Option<ObjIdx> {
    let heap = env.heap;
    // A Finalizer's fields 0 and 1: `queue` and `referent` (`roles::role_fields`).
    let Some(Value::Object(q)) = env.roles.field(heap, f, c, 0) else { return None };
    if !env.finalizer_states.contains(&Some(q)) {
        return None;
    }
    let Some(Value::Object(r)) = env.roles.field(heap, f, c, 1) else { return None };
    heap.index_of(r).filter(|&r| env.analysis.in_tree(r))
}
