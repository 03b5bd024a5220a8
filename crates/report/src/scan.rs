//! One pass over every object (each core takes half, or one core beside the dominator phase:
//! `ScanBeside`): counts by kind, instances and shallow bytes per class, the
//! unreachable part, the threads and class loaders, `Reference.referent` edges (excluded from
//! leak-suspect paths).

use heapql_graph::control::{Cancelled, Control};
use heapql_graph::object_graph::node;
use heapql_graph::{FullAnalysis, ObjectGraph, PassBeside};
use heapql_heap::{ClassIdx, ClassMemo, FieldSlot, Heap, ObjIdx, ObjectKind, Value};

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use super::ctx::{ClassCache, ClassCacheAppender, ClassSlots, KindsSeen, LOADER, REFERENCE, THREAD};
use super::model::HeapFacts;
use crate::waste::{Objects, Roles};

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
    /// The waste checks' first step, when made beside the dominators (`ScanBeside`).
    pub waste: Option<Objects>,
    /// Android: covered objects and their shallow bytes per heap number (`Heap::heap_of`);
    /// empty for a dump that records no heaps.
    pub heaps: Vec<(u64, u64)>,
    /// Android: covered instances and their shallow bytes per class and heap, at
    /// `class * heaps.len() + heap`; empty for a dump that records no heaps.
    pub class_heaps: Vec<(u64, u64)>,
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
    pub fn is_reachable(&self, o: ObjIdx) -> bool {
        self.graph.is_reachable(node(o))
    }

    #[inline]
    pub fn covers(&self, o: ObjIdx) -> bool {
        self.graph.in_tree(node(o), self.reachable_only)
    }
}

/// The pass over every object (`flags`: `ctx::class_flags`), in two halves, one per core,
/// joined in object order.
pub fn scan(heap: &Heap, flags: &[u8], cover: Coverage, ctl: &Control, total_work: u64) -> Result<Scan, Cancelled> {
    let n = heap.object_count();
    let mid = n / 2;
    let mut classes = ClassCache::zeroed(heap);
    let (slots_low, slots_high) = classes.split_at_mut(mid as usize);
    let done = AtomicU64::new(0);
    let referent = referent_slots(heap, flags);
    let pass = Pass { heap, flags, cover, referent: &referent, ctl, done: &done, total_work };
    let (low, high) = heapql_graph::par::both(|| pass.range(0..mid, slots_low), || pass.range(mid..n, slots_high));
    let mut low = low?;
    low.absorb(high?);
    Ok(low.into_scan(classes))
}

/// Where `referent` lies in each Reference class, resolved once.
fn referent_slots(heap: &Heap, flags: &[u8]) -> Vec<Option<FieldSlot>> {
    (0..heap.class_count()).map(|c| if flags[c as usize] & REFERENCE != 0 { heap.field_slot(c, "referent") } else { None }).collect()
}

/// One range's sums, and the kinds of objects it saw per class.
struct Half {
    scan: Scan,
    kinds: KindsSeen,
    memo: ClassMemo,
}

impl Half {
    fn new(heap: &Heap) -> Half {
        let classes = heap.class_count() as usize;
        let scan = Scan {
            facts: HeapFacts::default(),
            class_instances: vec![0; classes],
            class_shallow: vec![0; classes],
            threads: Vec::new(),
            loaders: Vec::new(),
            referents: Vec::new(),
            classes: ClassCache::default(),
            waste: None,
            heaps: vec![(0, 0); heap.heap_names().len()],
            class_heaps: vec![(0, 0); classes * heap.heap_names().len()],
        };
        Half { scan, kinds: KindsSeen::new(heap.class_count()), memo: ClassMemo::default() }
    }

    /// Counts `o` (the objects of a range come in order); gives its class, kind and shallow
    /// size.
    #[inline]
    fn see(&mut self, heap: &Heap, flags: &[u8], referent: &[Option<FieldSlot>], cover: Coverage, o: ObjIdx) -> (ClassIdx, ObjectKind, u64) {
        let s = &mut self.scan;
        let kind = heap.object_kind(o);
        let c = heap.class_of_memo(o, &mut self.memo);
        self.kinds.see(c, kind);
        let shallow = heap.shallow_size_of_class(o, c);
        if !cover.is_reachable(o) {
            s.facts.unreachable_objects += 1;
            s.facts.unreachable_shallow += shallow;
        }
        if !cover.covers(o) {
            return (c, kind, shallow);
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
        if let Some(k) = heap.heap_of(o) {
            let h = &mut s.heaps[k as usize];
            h.0 += 1;
            h.1 += shallow;
            let h = &mut s.class_heaps[c as usize * s.heaps.len() + k as usize];
            h.0 += 1;
            h.1 += shallow;
        }
        let f = flags[c as usize];
        if kind != ObjectKind::Instance || f == 0 {
            return (c, kind, shallow);
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
        (c, kind, shallow)
    }

    /// Adds the next range's sums to this one's.
    fn absorb(&mut self, high: Half) {
        self.kinds.absorb(&high.kinds);
        let (s, h) = (&mut self.scan, high.scan);
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
        for (x, y) in s.heaps.iter_mut().zip(&h.heaps).chain(s.class_heaps.iter_mut().zip(&h.class_heaps)) {
            x.0 += y.0;
            x.1 += y.1;
        }
        s.threads.extend(h.threads);
        s.loaders.extend(h.loaders);
        s.referents.extend(h.referents);
    }

    /// The sums of every object, with `classes` (filled as the objects were seen).
    fn into_scan(self, mut classes: ClassCache) -> Scan {
        classes.set_kinds(self.kinds);
        let mut s = self.scan;
        s.referents.sort_unstable();
        s.classes = classes;
        s
    }
}

/// What every range of the pass reads.
struct Pass<'a> {
    heap: &'a Heap,
    flags: &'a [u8],
    cover: Coverage<'a>,
    referent: &'a [Option<FieldSlot>],
    ctl: &'a Control,
    done: &'a AtomicU64,
    total_work: u64,
}

impl Pass<'_> {
    fn range(&self, range: Range<u32>, mut slots: ClassSlots) -> Result<Half, Cancelled> {
        let Pass { heap, flags, cover, referent, ctl, done, total_work } = *self;
        let mut half = Half::new(heap);
        let first = range.start;
        for o in range {
            if (o - first) % TICK == 0 {
                let d = done.fetch_add(TICK as u64, Ordering::Relaxed);
                ctl.tick(d.min(heap.object_count() as u64), total_work)?;
            }
            let (c, _, _) = half.see(heap, flags, referent, cover, o);
            slots.set((o - first) as usize, c);
        }
        Ok(half)
    }
}

/// The pass made object by object as the analysis reads the own sizes beside its dominator
/// phase (`heapql_graph::PassBeside`): one read of the dump and its index for both, and for
/// the waste checks' first step (`crate::waste::Objects`).
pub struct ScanBeside<'h> {
    heap: &'h Heap,
    flags: Vec<u8>,
    referent: Vec<Option<FieldSlot>>,
    reachable_only: bool,
    half: Half,
    /// Made at the first object: an analysis read from the cache sees none (its scratch
    /// files, the waste step's among them, are never made then).
    classes: Option<ClassCacheAppender>,
    roles: Roles,
    waste: Option<Objects>,
    /// The analysis's cancel flag, for the sort that ends the waste checks' step (`finish`).
    ctl: Control,
}

impl<'h> ScanBeside<'h> {
    /// The pass over `heap`'s objects, covering those of an analysis of `reachable_only`;
    /// The analysis looks at its cancel flag between objects (`FullAnalysis::build_beside`),
    /// the sort that ends the waste checks' step at `cancel` (a cancelled sort leaves that
    /// step out: the analysis stops at its next look at the flag).
    pub fn new(heap: &'h Heap, flags: Vec<u8>, reachable_only: bool, cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>) -> ScanBeside<'h> {
        let referent = referent_slots(heap, &flags);
        let ctl = Control { phase: "graph", progress: None, cancel };
        ScanBeside { heap, flags, referent, reachable_only, half: Half::new(heap), classes: None, roles: Roles::new(heap), waste: None, ctl }
    }
}

impl PassBeside for ScanBeside<'_> {
    type Out = Scan;

    #[inline]
    fn object(&mut self, graph: &ObjectGraph, o: ObjIdx) -> Result<u64, Cancelled> {
        let heap = self.heap;
        let cover = Coverage { graph, reachable_only: self.reachable_only };
        let (c, kind, shallow) = self.half.see(heap, &self.flags, &self.referent, cover, o);
        let classes = self.classes.get_or_insert_with(|| ClassCache::appending(heap));
        assert_eq!(classes.len(), o as usize, "the pass beside sees the objects in order, from the first");
        classes.push(c);
        if cover.covers(o) {
            let waste = self.waste.get_or_insert_with(|| crate::waste::objects_beside(heap));
            waste.see(heap, &self.roles, cover, o, c, kind);
            if waste.has_heaps() && cover.is_reachable(o) {
                waste.reachable(heap, o, shallow);
            }
        }
        Ok(shallow)
    }

    fn finish(self) -> Scan {
        let heap = self.heap;
        // A dump without objects: no first object made them.
        let classes = self.classes.map_or_else(|| ClassCache::zeroed(heap), |c| c.finished());
        let mut scan = self.half.into_scan(classes);
        // None when no object was covered: the waste pass then makes the step itself.
        let ctl = self.ctl;
        scan.waste = self.waste.and_then(|mut waste| waste.seal(&ctl).ok().map(|()| waste));
        scan
    }
}
