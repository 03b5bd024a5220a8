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
}

impl ClassRetained {
    /// The sums of two runs of positions together.
    pub fn add(mut self, other: ClassRetained) -> ClassRetained {
        for (x, y) in self.by_class.iter_mut().zip(&other.by_class) {
            *x += y;
        }
        assert_eq!(self.loader_ids, other.loader_ids, "both runs number the loaders alike");
        for (x, y) in self.by_loader.iter_mut().zip(&other.by_loader) {
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
}

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
        let mut w = ClassWalk {
            ctx,
            sums: ClassRetained { by_class: vec![0; classes], loader_ids, by_loader: vec![0; loaders] },
            open: vec![0; classes],
            loader_of,
            open_by_loader: vec![0; loaders],
            path: Vec::new(),
        };
        for (p, o, c, size) in ancestors {
            let loader = w.defining_loader(o, c);
            w.enter(p, c, loader, size);
        }
        w
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
    /// defining loader's place, `size` positions) on the path.
    fn enter(&mut self, i: usize, c: ClassIdx, loader: Option<u32>, size: u32) {
        self.open[c as usize] += 1;
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
        if first || first_of_loader {
            let retained = self.ctx.analysis.retained_size(o);
            if first {
                self.sums.by_class[c as usize] += retained;
            }
            if let (Some(l), true) = (loader, first_of_loader) {
                self.sums.by_loader[l as usize] += retained;
            }
        }
        // A leaf (most objects) would leave the path at the next position: it opens nothing.
        if size > 1 {
            self.enter(i, c, loader, size);
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
}
