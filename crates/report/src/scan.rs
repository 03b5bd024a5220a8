//! One pass over every object (each core takes half, or one core beside the dominator phase:
//! `crate::object_pass`): counts by kind, instances and shallow bytes per class, the
//! unreachable part, the threads and class loaders, `Reference.referent` edges (excluded from
//! leak-suspect paths).

use heapql_graph::control::{Cancelled, Control};
use heapql_graph::object_graph::node;
use heapql_graph::{FullAnalysis, ObjectGraph};
use heapql_heap::{ClassMemo, FieldSlot, Heap, ObjIdx, ObjectKind, Value};

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use super::ctx::{ClassCache, ClassSlots, KindsSeen, LOADER, REFERENCE, THREAD};
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

/// The objects the report covers, those of the dominator tree (`FullAnalysis::in_tree`),
/// told by the graph alone (`ObjectGraph::in_tree`), so that the pass can run before the
/// dominators are known.
#[derive(Clone, Copy)]
pub struct Coverage<'a> {
    pub graph: &'a ObjectGraph,
    pub reachable_only: bool,
}

impl<'a> Coverage<'a> {
    /// The objects `a` covers.
    pub fn of(a: &'a FullAnalysis) -> Coverage<'a> {
        Coverage { graph: a.graph(), reachable_only: a.reachable_only() }
    }

    #[inline]
    fn is_reachable(&self, o: ObjIdx) -> bool {
        self.graph.is_reachable(node(o))
    }

    #[inline]
    pub fn covers(&self, o: ObjIdx) -> bool {
        self.graph.in_tree(node(o), self.reachable_only)
    }
}

/// The pass over every object (`flags`: `ctx::class_flags`), in two halves, one per core,
/// joined in object order; with `halves` false on this thread alone (beside other work).
pub fn scan(heap: &Heap, flags: &[u8], cover: Coverage, ctl: &Control, total_work: u64, halves: bool) -> Result<Scan, Cancelled> {
    let n = heap.object_count();
    let mid = if halves { n / 2 } else { n };
    let mut classes = ClassCache::zeroed(heap.class_count(), n as usize, heap.scratch());
    let (slots_low, slots_high) = classes.split_at_mut(mid as usize);
    let done = AtomicU64::new(0);
    let referent: Vec<Option<FieldSlot>> =
        (0..heap.class_count()).map(|c| if flags[c as usize] & REFERENCE != 0 { heap.field_slot(c, "referent") } else { None }).collect();
    let pass = Pass { heap, flags, cover, referent: &referent, ctl, done: &done, total_work };
    let (low, high) = if halves {
        heapql_graph::par::both(|| pass.range(0..mid, slots_low), || pass.range(mid..n, slots_high))
    } else {
        // `mid` is `n`: the upper half is empty.
        (pass.range(0..mid, slots_low), pass.range(mid..n, slots_high))
    };
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

/// What every range of the pass reads.
struct Pass<'a> {
    heap: &'a Heap,
    flags: &'a [u8],
    cover: Coverage<'a>,
    /// Where `referent` lies in each Reference class, resolved once.
    referent: &'a [Option<FieldSlot>],
    ctl: &'a Control,
    done: &'a AtomicU64,
    total_work: u64,
}

impl Pass<'_> {
    fn range(&self, range: Range<u32>, mut slots: ClassSlots) -> Result<Half, Cancelled> {
        let Pass { heap, flags, cover, referent, ctl, done, total_work } = *self;
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
            if !cover.is_reachable(o) {
                s.facts.unreachable_objects += 1;
                s.facts.unreachable_shallow += shallow;
            }
            if !cover.covers(o) {
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
            let f = flags[c as usize];
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
}
