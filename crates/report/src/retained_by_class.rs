//! Retained size of all instances of a class taken together, for every class in one walk of the
//! dominator tree: MAT's "minimum retained size" (mat-semantics.md §2.6) — the sum of the
//! retained sizes of the instances that no other instance of the same class dominates. It
//! never counts an object twice and equals the exact retained set of the instances whenever
//! no object is kept alive only by several instances together (then it is a lower bound).
//! The same walk gives the bootstrap loader's share: the classes it defined, taken together.
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
    /// Class objects of classes the bootstrap loader defined, taken together.
    pub bootstrap_classes: u64,
}

impl ClassRetained {
    /// The sums of two runs of positions together.
    pub fn add(mut self, other: ClassRetained) -> ClassRetained {
        for (x, y) in self.by_class.iter_mut().zip(&other.by_class) {
            *x += y;
        }
        self.bootstrap_classes += other.bootstrap_classes;
        self
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
    open_bootstrap: u32,
    /// The current path: (end of the subtree, class with BOOT set for a bootstrap class
    /// object). 8 bytes a level: paths can be millions deep.
    path: Vec<(u32, u32)>,
}

const BOOT: u32 = 1 << 31;

impl<'a> ClassWalk<'a> {
    /// A walk whose first position lies inside the subtrees of `ancestors` (position,
    /// object, class, subtree size; outermost first), counted by the walk before it: open
    /// here.
    pub fn inside(ctx: &'a Ctx<'a>, ancestors: impl IntoIterator<Item = (usize, ObjIdx, ClassIdx, u32)>) -> ClassWalk<'a> {
        let classes = ctx.heap.class_count() as usize;
        let mut w = ClassWalk {
            ctx,
            sums: ClassRetained { by_class: vec![0; classes], bootstrap_classes: 0 },
            open: vec![0; classes],
            open_bootstrap: 0,
            path: Vec::new(),
        };
        for (p, o, c, size) in ancestors {
            let boot = w.is_bootstrap_class(o, c);
            w.enter(p, c, boot, size);
        }
        w
    }

    /// Class objects are instances of java.lang.Class: the class answers first, so the index
    /// is read only for them.
    #[inline]
    fn is_bootstrap_class(&self, o: ObjIdx, c: ClassIdx) -> bool {
        let heap = self.ctx.heap;
        c == heap.class_class()
            && heap.object_kind(o) == ObjectKind::Class
            && heap.class_described_by(o).is_some_and(|c| heap.class(c).loader_id == 0)
    }

    /// Opens the subtree of position `i` (class `c`, `boot` for a bootstrap class object,
    /// `size` positions) on the path.
    fn enter(&mut self, i: usize, c: ClassIdx, boot: bool, size: u32) {
        self.open[c as usize] += 1;
        self.open_bootstrap += boot as u32;
        self.path.push(((i + size as usize) as u32, c | if boot { BOOT } else { 0 }));
    }

    /// Position `i` (the one after the last visited), its object, class and subtree size.
    #[inline]
    pub fn visit(&mut self, i: usize, o: ObjIdx, c: ClassIdx, size: u32) {
        while let Some(&(end, c)) = self.path.last() {
            if end as usize > i {
                break;
            }
            self.path.pop();
            self.open[(c & !BOOT) as usize] -= 1;
            self.open_bootstrap -= (c & BOOT != 0) as u32;
        }
        let first = self.open[c as usize] == 0;
        let boot = self.is_bootstrap_class(o, c);
        if first || boot && self.open_bootstrap == 0 {
            let retained = self.ctx.analysis.retained_size(o);
            if first {
                self.sums.by_class[c as usize] += retained;
            }
            if boot && self.open_bootstrap == 0 {
                self.sums.bootstrap_classes += retained;
            }
        }
        // A leaf (most objects) would leave the path at the next position: it opens nothing.
        if size > 1 {
            self.enter(i, c, boot, size);
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

    /// A walk of positions `range` of the finished preorder.
    fn walk(ctx: &Ctx, pre: &Preorder, range: std::ops::Range<usize>) -> ClassRetained {
        let ancestors = pre.ancestors(range.start).into_iter().map(|p| (p, pre.object(p), pre.classes.get(p), pre.size(p)));
        let mut w = ClassWalk::inside(ctx, ancestors);
        for i in range {
            w.visit(i, pre.object(i), pre.classes.get(i), pre.size(i));
        }
        w.finish()
    }

    /// Cut at any position (inside subtrees, between them, at the ends), the two halves' sums
    /// add up to one walk over every position, and to the sums the preorder's pass made.
    #[test]
    fn halves_cut_anywhere_add_up_to_one_walk() {
        each_preorder(|dump, _, _, ctx, pre| {
            let n = pre.len();
            let whole = walk(ctx, pre, 0..n);
            assert!(whole.by_class.iter().filter(|&&s| s > 0).count() > 10, "{dump}: classes retain something");
            assert_eq!(pre.retained_by_class.by_class, whole.by_class, "{dump}: the preorder's pass");
            assert_eq!(pre.retained_by_class.bootstrap_classes, whole.bootstrap_classes, "{dump}: the preorder's pass");
            assert!(whole.bootstrap_classes > 0, "{dump}: the bootstrap loader's classes retain something");
            let mut inside = 0;
            for cut in (0..=n).step_by(n / 97 + 1).chain([1, n - 1, n]) {
                let sum = walk(ctx, pre, 0..cut).add(walk(ctx, pre, cut..n));
                assert_eq!(sum.by_class, whole.by_class, "{dump}: cut at {cut}");
                assert_eq!(sum.bootstrap_classes, whole.bootstrap_classes, "{dump}: cut at {cut}");
                inside += !pre.ancestors(cut).is_empty() as usize;
            }
            assert!(inside > 50, "{dump}: most cuts fall inside a subtree ({inside})");
        });
    }
}
