//! Retained size of all instances of a class taken together, for every class in one walk of the
//! dominator tree: MAT's "minimum retained size" (mat-semantics.md §2.6) — the sum of the
//! retained sizes of the instances that no other instance of the same class dominates. It
//! never counts an object twice and equals the exact retained set of the instances whenever
//! no object is kept alive only by several instances together (then it is a lower bound).
//! The same walk gives each defining class loader's share: the class objects of the classes
//! it defined, taken together — the same minimum retained size of that set (the retained
//! sizes of its class objects that no other class object of the same loader dominates: what
//! its classes' statics, and what only they, hold). One loader's figure never counts an
//! object twice; two loaders' figures overlap only where a class object of one dominates a
//! class object of the other.
//!
//! On an Android dump the same walk gives each class's instances in each heap their own figure:
//! the retained sizes of the class's instances in that heap that no other instance of the class
//! in that heap dominates (the minimum retained size of that set).
//!
//! The walk runs inside the preorder's pass that gives each position its class
//! (`Preorder::build`), in its two halves on two threads whose sums are added, so it reads no
//! array of the preorder back (inside 0.35 × bench-1g those pages had been written out, and a
//! walk of its own read them from disk again). The cut falls at the middle position, inside a
//! subtree as a rule (one top-level dominator often holds most of the heap): the upper half
//! starts from the path of the cut's ancestors, all the state the walk carries, found by one
//! descent through their siblings (bench-4g: 0.14 s against 0.26 when the cut had to fall
//! between top-level subtrees).

use heapql_heap::{ClassIdx, ObjIdx, ObjectKind};

use super::ctx::Ctx;

pub struct ClassRetained {
    /// Per class (class objects under java.lang.Class).
    pub by_class: Vec<u64>,
    /// Every loader that defines a class, by id (0: the bootstrap loader), ascending.
    pub loader_ids: Vec<u64>,
    /// Per loader of `loader_ids`: the class objects of the classes it defined, taken
    /// together (the sum of the retained sizes of those no other of them dominates).
    pub by_loader: Vec<u64>,
    /// Android: per class and heap, at `class * heaps + heap` (`Heap::heap_of`), the class's
    /// instances in that heap taken together; empty for a dump that records no heaps.
    pub by_class_heap: Vec<u64>,
}

impl ClassRetained {
    /// The sums of two runs of positions together.
    pub fn add(mut self, other: ClassRetained) -> ClassRetained {
        for (x, y) in self.by_class.iter_mut().zip(&other.by_class) {
            *x += y;
        }
        assert_eq!(self.loader_ids, other.loader_ids, "both runs number the loaders alike");
        for (x, y) in self.by_loader.iter_mut().zip(&other.by_loader).chain(self.by_class_heap.iter_mut().zip(&other.by_class_heap)) {
            *x += y;
        }
        self
    }

    /// The classes loader `id` defined, taken together; 0 for a loader that defines none.
    pub fn of_loader(&self, id: u64) -> u64 {
        self.loader_ids.binary_search(&id).map_or(0, |k| self.by_loader[k])
    }
}

/// The walk over one run of positions, fed one position at a time in order by the pass that
/// gives each position its class (`preorder::Preorder::build`): it then reads no array of
/// the preorder back.
pub struct ClassWalk<'a> {
    ctx: &'a Ctx<'a>,
    sums: ClassRetained,
    /// Open instances of each class on the current tree path.
    open: Vec<u32>,
    /// Per class, the place of its defining loader in `sums.loader_ids`.
    loader_of: Vec<u32>,
    /// Open class objects on the current tree path, per defining loader (`loader_of`).
    open_by_loader: Vec<u32>,
    /// The current path: (end of the subtree, its class — or, for a class object, whose
    /// class is always java.lang.Class, CLASS_OBJECT | the place of its defining loader).
    /// 8 bytes a level: paths can be millions deep.
    path: Vec<(u32, u32)>,
    /// Android: the dump's heap count (0 without heaps); open instances of each class on the
    /// current path per heap (`class * heaps + heap`), and the heap of each level of `path`
    /// (`NO_HEAP` for an object in none). Empty without heaps.
    heaps: usize,
    open_heap: Vec<u32>,
    path_heap: Vec<u32>,
}

/// The heap of a path level whose object is in none (a class object the index made up).
const NO_HEAP: u32 = u32::MAX;

const CLASS_OBJECT: u32 = 1 << 31;

impl<'a> ClassWalk<'a> {
    /// A walk whose first position lies inside the subtrees of `ancestors` (position,
    /// object, class, subtree size; outermost first), counted by the walk before it: open
    /// here.
    pub fn inside(ctx: &'a Ctx<'a>, ancestors: impl IntoIterator<Item = (usize, ObjIdx, ClassIdx, u32)>) -> ClassWalk<'a> {
        let heap = ctx.heap;
        let classes = heap.class_count() as usize;
        assert!(classes < CLASS_OBJECT as usize, "class indexes leave the path's flag free");
        // Per class, not per object: a few thousand classes as a rule.
        let mut loader_ids: Vec<u64> = (0..heap.class_count()).map(|c| heap.class(c).loader_id).collect();
        loader_ids.sort_unstable();
        loader_ids.dedup();
        let loader_of = (0..heap.class_count())
            .map(|c| loader_ids.binary_search(&heap.class(c).loader_id).expect("every class's loader is listed") as u32)
            .collect();
        let loaders = loader_ids.len();
        let heaps = heap.heap_names().len();
        let mut w = ClassWalk {
            ctx,
            sums: ClassRetained { by_class: vec![0; classes], loader_ids, by_loader: vec![0; loaders], by_class_heap: vec![0; classes * heaps] },
            open: vec![0; classes],
            loader_of,
            open_by_loader: vec![0; loaders],
            path: Vec::new(),
            heaps,
            open_heap: vec![0; classes * heaps],
            path_heap: Vec::new(),
        };
        for (p, o, c, size) in ancestors {
            let loader = w.defining_loader(o, c);
            let slot = w.heap_slot(o, c);
            w.enter(p, c, loader, size, slot);
        }
        w
    }

    /// Android: the place of (`o`'s class `c`, `o`'s heap) in `open_heap` and
    /// `by_class_heap`; `NO_HEAP` without heaps or for an object in none.
    #[inline]
    fn heap_slot(&self, o: ObjIdx, c: ClassIdx) -> u32 {
        if self.heaps == 0 {
            return NO_HEAP;
        }
        match self.ctx.heap.heap_of(o) {
            Some(k) => (c as usize * self.heaps + k as usize) as u32,
            None => NO_HEAP,
        }
    }

    /// For a class object, the place of the loader that defined its class. Class objects are
    /// instances of java.lang.Class: the class answers first, so the index is read only for
    /// them (one look-up per class object, none per other object).
    #[inline]
    fn defining_loader(&self, o: ObjIdx, c: ClassIdx) -> Option<u32> {
        let heap = self.ctx.heap;
        if c != heap.class_class() || heap.object_kind(o) != ObjectKind::Class {
            return None;
        }
        heap.class_described_by(o).map(|d| self.loader_of[d as usize])
    }

    /// Opens the subtree of position `i` (class `c`, `loader` for a class object: its
    /// defining loader's place, `size` positions; `slot`: `heap_slot`) on the path.
    fn enter(&mut self, i: usize, c: ClassIdx, loader: Option<u32>, size: u32, slot: u32) {
        self.open[c as usize] += 1;
        if self.heaps > 0 {
            if slot != NO_HEAP {
                self.open_heap[slot as usize] += 1;
            }
            self.path_heap.push(slot);
        }
        let tag = match loader {
            Some(l) => {
                self.open_by_loader[l as usize] += 1;
                CLASS_OBJECT | l
            }
            None => c,
        };
        self.path.push(((i + size as usize) as u32, tag));
    }

    /// Position `i` (the one after the last visited), its object, class and subtree size.
    #[inline]
    pub fn visit(&mut self, i: usize, o: ObjIdx, c: ClassIdx, size: u32) {
        while let Some(&(end, tag)) = self.path.last() {
            if end as usize > i {
                break;
            }
            self.path.pop();
            if self.heaps > 0 {
                let slot = self.path_heap.pop().expect("a heap slot per level");
                if slot != NO_HEAP {
                    self.open_heap[slot as usize] -= 1;
                }
            }
            if tag & CLASS_OBJECT != 0 {
                self.open[self.ctx.heap.class_class() as usize] -= 1;
                self.open_by_loader[(tag & !CLASS_OBJECT) as usize] -= 1;
            } else {
                self.open[tag as usize] -= 1;
            }
        }
        let first = self.open[c as usize] == 0;
        let loader = self.defining_loader(o, c);
        let first_of_loader = loader.is_some_and(|l| self.open_by_loader[l as usize] == 0);
        let slot = self.heap_slot(o, c);
        let first_in_heap = slot != NO_HEAP && self.open_heap[slot as usize] == 0;
        if first || first_of_loader || first_in_heap {
            let retained = self.ctx.analysis.retained_size(o);
            if first {
                self.sums.by_class[c as usize] += retained;
            }
            if let (Some(l), true) = (loader, first_of_loader) {
                self.sums.by_loader[l as usize] += retained;
            }
            if first_in_heap {
                self.sums.by_class_heap[slot as usize] += retained;
            }
        }
        // A leaf (most objects) would leave the path at the next position: it opens nothing.
        if size > 1 {
            self.enter(i, c, loader, size, slot);
        }
    }

    pub fn finish(self) -> ClassRetained {
        self.sums
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preorder::tests::each_preorder;
    use crate::preorder::Preorder;
    use heapql_graph::FullAnalysis;
    use heapql_heap::Heap;
    use std::collections::BTreeMap;

    /// A walk of positions `range` of the finished preorder.
    fn walk(ctx: &Ctx, pre: &Preorder, range: std::ops::Range<usize>) -> ClassRetained {
        let ancestors = pre.ancestors(range.start).into_iter().map(|p| (p, pre.object(p), pre.classes.get(p), pre.size(p)));
        let mut w = ClassWalk::inside(ctx, ancestors);
        for i in range {
            w.visit(i, pre.object(i), pre.classes.get(i), pre.size(i));
        }
        w.finish()
    }

    /// Per defining loader, computed apart from the walk: the retained sizes of its class
    /// objects (in the tree) that no other class object of the same loader dominates, each
    /// found by climbing its immediate dominators.
    pub(crate) fn naive_by_loader(heap: &Heap, a: &FullAnalysis) -> BTreeMap<u64, u64> {
        let loader_of_class_object = |o: ObjIdx| {
            (heap.object_kind(o) == ObjectKind::Class).then(|| heap.class_described_by(o)).flatten().map(|c| heap.class(c).loader_id)
        };
        let mut out = BTreeMap::new();
        for o in (0..heap.object_count()).filter(|&o| a.in_tree(o)) {
            let Some(loader) = loader_of_class_object(o) else { continue };
            let mut up = a.immediate_dominator(o);
            let mut dominated = false;
            while let Some(d) = up {
                if loader_of_class_object(d) == Some(loader) {
                    dominated = true;
                    break;
                }
                up = a.immediate_dominator(d);
            }
            if !dominated {
                *out.entry(loader).or_insert(0) += a.retained_size(o);
            }
        }
        out.retain(|_, s| *s > 0);
        out
    }

    /// The walk's per-loader sums as a map of the loaders whose classes retain something.
    fn by_loader(r: &ClassRetained) -> BTreeMap<u64, u64> {
        r.loader_ids.iter().zip(&r.by_loader).filter(|(_, &s)| s > 0).map(|(&id, &s)| (id, s)).collect()
    }

    /// Cut at any position (inside subtrees, between them, at the ends), the two halves' sums
    /// add up to one walk over every position, and to the sums the preorder's pass made; the
    /// per-loader sums are those computed apart from the walk, from the immediate dominators.
    #[test]
    fn halves_cut_anywhere_add_up_to_one_walk() {
        each_preorder(|dump, heap, a, ctx, pre| {
            let n = pre.len();
            let whole = walk(ctx, pre, 0..n);
            assert!(whole.by_class.iter().filter(|&&s| s > 0).count() > 10, "{dump}: classes retain something");
            assert_eq!(pre.retained_by_class.by_class, whole.by_class, "{dump}: the preorder's pass");
            assert_eq!(pre.retained_by_class.loader_ids, whole.loader_ids, "{dump}: the preorder's pass");
            assert_eq!(pre.retained_by_class.by_loader, whole.by_loader, "{dump}: the preorder's pass");
            assert!(whole.of_loader(0) > 0, "{dump}: the bootstrap loader's classes retain something");
            let other = whole.loader_ids.iter().any(|&id| id != 0 && whole.of_loader(id) > 0);
            assert!(other, "{dump}: another loader's classes retain something");
            assert_eq!(by_loader(&whole), naive_by_loader(heap, a), "{dump}: per loader, from the immediate dominators");
            let mut inside = 0;
            for cut in (0..=n).step_by(n / 97 + 1).chain([1, n - 1, n]) {
                let sum = walk(ctx, pre, 0..cut).add(walk(ctx, pre, cut..n));
                assert_eq!(sum.by_class, whole.by_class, "{dump}: cut at {cut}");
                assert_eq!(sum.by_loader, whole.by_loader, "{dump}: cut at {cut}");
                inside += !pre.ancestors(cut).is_empty() as usize;
            }
            assert!(inside > 50, "{dump}: most cuts fall inside a subtree ({inside})");
        });
    }

    /// Android: a chain of 60 `Node`s alternating between the zygote and app heaps (each also
    /// holding a byte[] of its own heap), under one JNI global, and three app `Node`s beside
    /// it: cut at every position, most of them inside the chain, the two halves' per-heap sums
    /// add up to one walk's and to those climbing the immediate dominators gives.
    #[test]
    fn halves_cut_anywhere_add_up_per_heap() {
        use heapql_graph::GraphOptions;
        use heapql_heap::OpenOptions;
        use heapql_hprof::testkit::{DumpBuilder, Val};
        use heapql_hprof::BasicType;
        let mut b = DumpBuilder::new(4);
        b.set_format("JAVA PROFILE 1.0.3");
        b.classes_in_place();
        let node = b.class("com.example.Node", Some(b.object_class), &[("next", BasicType::Object), ("data", BasicType::Object)]);
        let ids: Vec<u64> = (0..60).map(|_| b.alloc_id()).collect();
        for (heap_id, name, parity) in [(0x5A, "zygote", 0), (0x41, "app", 1)] {
            b.new_segment();
            b.heap_info(heap_id, name);
            for i in (parity..60).step_by(2) {
                let data = b.byte_array(&vec![1u8; 10 + i]);
                let next = ids.get(i + 1).copied().unwrap_or(0);
                b.instance_with_id(ids[i], node, &[Val::Obj(next), Val::Obj(data)]);
            }
            if name == "app" {
                for _ in 0..3 {
                    let data = b.byte_array(&[2u8; 7]);
                    let n = b.instance(node, &[Val::Obj(0), Val::Obj(data)]);
                    b.root_jni_global(n);
                }
            }
        }
        b.root_jni_global(ids[0]);
        let bytes = b.build();
        let heap = Heap::open_bytes(&bytes, "chain.hprof", OpenOptions::default()).unwrap();
        let heaps = heap.heap_names().len();
        for reachable_only in [false, true] {
            let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
            let mut ctx = Ctx::new(&heap, &a, 1);
            let ctl = heapql_graph::control::Control { phase: "report", progress: None, cancel: None };
            let mut scan = crate::scan::scan(&heap, &ctx.flags, crate::scan::Coverage::of(&a), &ctl, 1).unwrap();
            ctx.set_classes(std::mem::take(&mut scan.classes));
            let pre = Preorder::build(&ctx, &ctl, 0, 1).unwrap();
            ctx.forget_object_classes();
            let n = pre.len();
            let whole = walk(&ctx, &pre, 0..n);
            assert_eq!(pre.retained_by_class.by_class_heap, whole.by_class_heap, "the preorder's pass");
            // Apart from the walk: per (class, heap), the retained sizes of the objects with no
            // dominator of the same class in the same heap above them.
            let mut naive = vec![0u64; heap.class_count() as usize * heaps];
            for o in (0..heap.object_count()).filter(|&o| a.in_tree(o)) {
                let Some(k) = heap.heap_of(o) else { continue };
                let c = ctx.class_of(o);
                let mut up = a.immediate_dominator(o);
                let mut nested = false;
                while let Some(d) = up {
                    nested |= ctx.class_of(d) == c && heap.heap_of(d) == Some(k);
                    up = a.immediate_dominator(d);
                }
                if !nested {
                    naive[c as usize * heaps + k as usize] += a.retained_size(o);
                }
            }
            assert_eq!(whole.by_class_heap, naive, "reachable_only {reachable_only}");
            let c = heap.classes_named("com.example.Node")[0] as usize;
            let app = heap.heap_names().iter().position(|h| &**h == "app").unwrap();
            let zygote = heap.heap_names().iter().position(|h| &**h == "zygote").unwrap();
            assert_eq!(whole.by_class_heap[c * heaps + zygote], a.retained_size(heap.index_of(ids[0]).unwrap()), "the chain's head");
            assert_eq!(
                whole.by_class_heap[c * heaps + app],
                a.retained_size(heap.index_of(ids[1]).unwrap()) + 3 * (heap.instance_size(c as u32) + 19),
                "the chain below its head, and the three beside it"
            );
            let mut inside = 0;
            for cut in 0..=n {
                let sum = walk(&ctx, &pre, 0..cut).add(walk(&ctx, &pre, cut..n));
                assert_eq!(sum.by_class_heap, whole.by_class_heap, "cut at {cut}");
                inside += !pre.ancestors(cut).is_empty() as usize;
            }
            assert!(inside > 100, "most cuts fall inside the chain ({inside})");
        }
    }
}
