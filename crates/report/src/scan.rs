//! One pass over every object (each core takes half): counts by kind, instances and shallow bytes per class, the
//! unreachable part, the threads and class loaders, `Reference.referent` edges (excluded from
//! leak-suspect paths).

use heapql_graph::control::{Cancelled, Control};
use heapql_graph::object_graph::node;
use heapql_heap::{ClassMemo, FieldSlot, ObjIdx, ObjectKind, Value};

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use super::ctx::{ClassCache, ClassSlots, Ctx, KindsSeen, LOADER, REFERENCE, THREAD};
use super::model::HeapFacts;

pub struct Scan {
    /// Covered objects by kind, and the unreachable ones (used heap and class loaders are
    /// filled in later).
    pub facts: HeapFacts,
    /// Covered instances and their shallow bytes per class (class objects under java.lang.Class).
    pub class_instances: Vec<u64>,
    pub class_shallow: Vec<u64>,
    /// Covered `java.lang.Thread` instances (subclasses included), ascending.
    pub threads: Vec<ObjIdx>,
    /// Covered class loader instances, ascending.
    pub loaders: Vec<ObjIdx>,
    /// `(node(reference), node(referent))` of every covered `java.lang.ref.Reference`, sorted.
    pub referents: Vec<(u32, u32)>,
    /// Class of every object (for `Ctx::set_classes`).
    pub classes: ClassCache,
}

/// Objects between two progress ticks.
pub const TICK: u32 = 1 << 16;

/// The pass in two halves, one per core, joined in object order.
pub fn scan(ctx: &Ctx, ctl: &Control, total_work: u64) -> Result<Scan, Cancelled> {
    let heap = ctx.heap;
    let n = heap.object_count();
    let mid = n / 2;
    let mut classes = ClassCache::zeroed(heap.class_count(), n as usize);
    let (slots_low, slots_high) = classes.split_at_mut(mid as usize);
    let done = AtomicU64::new(0);
    // Where `referent` lies in each Reference class, resolved once.
    let referent: Vec<Option<FieldSlot>> =
        (0..heap.class_count()).map(|c| if ctx.class_flags(c) & REFERENCE != 0 { heap.field_slot(c, "referent") } else { None }).collect();
    let (low, high) = heapql_graph::par::both(
        || scan_range(ctx, 0..mid, slots_low, &referent, ctl, &done, total_work),
        || scan_range(ctx, mid..n, slots_high, &referent, ctl, &done, total_work),
    );
    let (mut low, high) = (low?, high?);
    low.kinds.absorb(&high.kinds);
    classes.set_kinds(low.kinds);
    let mut s = low.scan;
    let h = high.scan;
    let f = &mut s.facts;
    f.unreachable_objects += h.facts.unreachable_objects;
    f.unreachable_shallow += h.facts.unreachable_shallow;
    f.objects += h.facts.objects;
    f.instances += h.facts.instances;
    f.object_arrays += h.facts.object_arrays;
    f.primitive_arrays += h.facts.primitive_arrays;
    f.classes += h.facts.classes;
    for (x, y) in s.class_instances.iter_mut().zip(&h.class_instances) {
        *x += y;
    }
    for (x, y) in s.class_shallow.iter_mut().zip(&h.class_shallow) {
        *x += y;
    }
    s.threads.extend(h.threads);
    s.loaders.extend(h.loaders);
    s.referents.extend(h.referents);
    s.referents.sort_unstable();
    s.classes = classes;
    Ok(s)
}

/// One half's sums, and the kinds of objects it saw per class.
struct Half {
    scan: Scan,
    kinds: KindsSeen,
}

fn scan_range(ctx: &Ctx, range: Range<u32>, mut slots: ClassSlots, referent: &[Option<FieldSlot>], ctl: &Control, done: &AtomicU64, total_work: u64) -> Result<Half, Cancelled> {
    let heap = ctx.heap;
    let a = ctx.analysis;
    let classes = heap.class_count() as usize;
    let mut s = Scan {
        facts: HeapFacts::default(),
        class_instances: vec![0; classes],
        class_shallow: vec![0; classes],
        threads: Vec::new(),
        loaders: Vec::new(),
        referents: Vec::new(),
        classes: ClassCache::default(),
    };
    let mut kinds = KindsSeen::new(heap.class_count());
    let first = range.start;
    let mut memo = ClassMemo::default();
    for o in range {
        if (o - first) % TICK == 0 {
            let d = done.fetch_add(TICK as u64, Ordering::Relaxed);
            ctl.tick(d.min(heap.object_count() as u64), total_work)?;
        }
        let kind = heap.object_kind(o);
        let c = heap.class_of_memo(o, &mut memo);
        slots.set((o - first) as usize, c);
        kinds.see(c, kind);
        let shallow = heap.shallow_size_of_class(o, c);
        if !a.is_reachable(o) {
            s.facts.unreachable_objects += 1;
            s.facts.unreachable_shallow += shallow;
        }
        if !a.in_tree(o) {
            continue;
        }
        s.facts.objects += 1;
        match kind {
            ObjectKind::Instance => s.facts.instances += 1,
            ObjectKind::ObjectArray => s.facts.object_arrays += 1,
            ObjectKind::PrimitiveArray(_) => s.facts.primitive_arrays += 1,
            ObjectKind::Class => s.facts.classes += 1,
        }
        s.class_instances[c as usize] += 1;
        s.class_shallow[c as usize] += shallow;
        if kind != ObjectKind::Instance {
            continue;
        }
        let f = ctx.class_flags(c);
        if f == 0 {
            continue;
        }
        if f & THREAD != 0 {
            s.threads.push(o);
        }
        if f & LOADER != 0 {
            s.loaders.push(o);
        }
        if f & REFERENCE != 0 {
            if let Some(Value::Object(id)) = referent[c as usize].and_then(|slot| heap.field_at(o, slot)) {
                if let Some(r) = heap.index_of(id) {
                    s.referents.push((node(o), node(r)));
                }
            }
        }
    }
    Ok(Half { scan: s, kinds })
}
