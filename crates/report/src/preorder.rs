//! The dominator tree in preorder, computed once and shared by every walk of whole subtrees
//! (retained size by class, the suspects' class breakdowns): they then read arrays from
//! front to back instead of following child lists at random.
//!
//! No walk of the child lists: the analysis keeps the tree's nodes in an order where each
//! comes after its immediate dominator (the dominator phase's DFS preorder), with each one's
//! dominator named by its place in that order, so one reverse pass over the two sums the
//! subtree sizes and one forward pass gives every node its position — the next free one
//! inside its dominator's range, which then moves past the node's subtree — and writes, per
//! position `i`, the object and the size of its subtree side by side (the subtree of position
//! `i` is `i .. i + size(i)`). The top-level subtrees lie side by side in
//! `top_level_dominators()` order; below them siblings come in DFS order, which no reader
//! depends on (they sum over whole subtrees). One `u32` array indexed like the order (4
//! B/object of anonymous memory) serves both passes and is freed before the rest; only its
//! dominators' entries and the positions are met at random. A depth-first walk of
//! the child lists (`dominated`) writing every array in order was measured 3-4x slower in
//! processor time: each node's list is a chain of dependent random reads (bitmap, offset,
//! list), where these passes' reads are independent and overlap.
//!
//! Then one pass over the positions, split over both cores, adds the class of each from the
//! report's class cache (`describe`), and each half sums the retained size by class on the way
//! (`retained_by_class::ClassWalk`), so no walk of its own reads the arrays back. Shallow sizes
//! are worked out when asked for, without reading the dump or the index (`shallow`): an
//! instance's from its class; any other object's is its retained size minus its children's (a
//! leaf's, such as every primitive array, its retained size). Only the suspects' breakdowns
//! ask, for their subtrees, so storing them for every position (4 B/object of fresh pages, and
//! every non-instance's retained sizes read) cost more than it saved (bench-4g, beside the
//! waste pass: preorder 1.2-1.5 s against 1.8-2.4, the suspects' breakdown 0.17 s against
//! 0.05). The arrays go where the heap's `scratch` placement says (scratch files for the CLI's
//! full analysis: 10 B/object of page cache, classes written in order, then read in order), so
//! they add nothing to the process's anonymous memory.
//!
//! Measured on bench-4g (49 M objects), alternating with the node-numbered passes before:
//! subtree sizes 0.19-0.22 s of processor time against 0.36-0.43, positions 0.22-0.58 s
//! against 0.34-0.78 (their wall time follows how fast the machine hands out fresh pages).

use heapql_graph::control::{Cancelled, Control};
use heapql_heap::{BigArray, ClassIdx, Laps, ObjectKind, Pages};

use super::ctx::Ctx;
use super::retained_by_class::{ClassRetained, ClassWalk};
use heapql_graph::par::both;
use super::scan::TICK;

/// The class of every position, as `u16` while the class count allows.
pub enum PreClasses {
    Narrow(BigArray<u16>),
    Wide(BigArray<u32>),
}

impl PreClasses {
    #[inline]
    pub fn get(&self, i: usize) -> ClassIdx {
        match self {
            PreClasses::Narrow(v) => v[i] as ClassIdx,
            PreClasses::Wide(v) => v[i],
        }
    }

    fn pages(&self) -> Pages {
        match self {
            PreClasses::Narrow(v) => Pages::of(v),
            PreClasses::Wide(v) => Pages::of(v),
        }
    }
}

pub struct Preorder {
    /// Per position, the object of the dominator tree there and the number of objects in its
    /// subtree, itself included: written together, at random, so one page each.
    entries: BigArray<[u32; 2]>,
    pub classes: PreClasses,
    /// Position of each top-level dominator, in `top_level_dominators()` order.
    top_start: Vec<u32>,
    /// The retained size of every class's instances taken together, summed in the pass that
    /// gives each position its class.
    pub retained_by_class: ClassRetained,
}

impl Preorder {
    pub fn build(ctx: &Ctx, ctl: &Control, done_before: u64, total_work: u64) -> Result<Preorder, Cancelled> {
        let heap = ctx.heap;
        let a = ctx.analysis;
        let place = heap.scratch();
        let top = a.top_level_dominators();
        // The tree's nodes, the virtual root first, each after its immediate dominator, whose
        // position in this order `idoms` holds: both are read front to back.
        let (order, idoms) = (a.tree_order(), a.tree_order_idoms());
        let r = order.len();
        let n = r.saturating_sub(1);
        let mut entries: BigArray<[u32; 2]> = BigArray::zeroed(n, place);
        let mut classes = if heap.class_count() <= u16::MAX as u32 + 1 {
            PreClasses::Narrow(BigArray::zeroed(n, place))
        } else {
            PreClasses::Wide(BigArray::zeroed(n, place))
        };
        let tick = |k: usize| if k % TICK as usize == 0 { ctl.tick(done_before + k as u64 / 2, total_work) } else { Ok(()) };
        // Per entry of `order`, first the size of its subtree, then the next free position
        // inside it (4 B/object; read at random only at the dominators' entries).
        let mut laps = Laps::new("heapql-report");
        let mut at = vec![0u32; r];
        // While one core lays the tree out, the other faults in the pages of the arrays filled
        // from here on, in that order (a fresh page can cost more than a pass's work on it) —
        // unless memory is short (a cgroup's limit): there it would push out the pages the
        // layout reads. Measured on bench-1g in a cgroup of 0.35 × the dump: preorder
        // 0.49-0.76 s without, 0.73-0.89 s with.
        let fresh = [Pages::of(&entries), classes.pages()];
        let plenty = memory_is_plentiful(heap);
        let (laid_out, ()) = both(
            || lay_out(order, idoms, top, &mut at, &mut entries, &tick, &mut laps),
            move || {
                if plenty {
                    fresh.into_iter().for_each(|p| p.prefault_while(|| ctl.check().is_ok()))
                }
            },
        );
        let top_start = laid_out?;
        drop(at);
        laps.lap("preorder: positions");
        // Then the class of every position: reads independent of each other, which the
        // processor overlaps (a walk waits for each), each core taking half; each half sums
        // the retained size by class as it goes (`ClassWalk`), from its first position's
        // ancestors on.
        let e: &[[u32; 2]] = &entries;
        let mid = n / 2;
        let ancestors = |i: usize| ancestors(e, &top_start, i).into_iter().map(|p| (p, e[p][0], ctx.class_of(e[p][0]), e[p][1]));
        let (low_walk, high_walk) = (ClassWalk::inside(ctx, ancestors(0)), ClassWalk::inside(ctx, ancestors(mid)));
        let (low, high) = match &mut classes {
            PreClasses::Narrow(v) => {
                let (low, high) = v.split_at_mut(mid);
                both(|| describe(ctx, e, 0, low, low_walk, ctl, |c| c as u16), || describe(ctx, e, mid, high, high_walk, ctl, |c| c as u16))
            }
            PreClasses::Wide(v) => {
                let (low, high) = v.split_at_mut(mid);
                both(|| describe(ctx, e, 0, low, low_walk, ctl, |c| c), || describe(ctx, e, mid, high, high_walk, ctl, |c| c))
            }
        };
        let (low, high) = (low?, high?);
        laps.lap("preorder: classes and retained by class");
        Ok(Preorder { entries, classes, top_start, retained_by_class: low.add(high) })
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The object at position `i`.
    #[inline]
    pub fn object(&self, i: usize) -> u32 {
        self.entries[i][0]
    }

    /// The number of objects in the subtree at position `i` (positions `i .. i + size(i)`).
    #[inline]
    pub fn size(&self, i: usize) -> u32 {
        self.entries[i][1]
    }

    /// Shallow size of the object at position `i`, without reading the dump: an instance's is
    /// its class's (a stack chunk's follows its stack, read from the dump); any other object's is its retained size minus its children's (which
    /// follow it, each subtree in one piece), for a leaf its retained size. The index answers
    /// only for a class whose objects are of several kinds (a corrupt dump).
    pub fn shallow(&self, ctx: &Ctx, i: usize) -> u64 {
        let (heap, a) = (ctx.heap, ctx.analysis);
        let (o, c) = (self.object(i), self.classes.get(i));
        let kind = ctx.classes().kind_of_class(c).unwrap_or_else(|| heap.object_kind(o));
        if kind == ObjectKind::Instance {
            return heap.instance_shallow(o, c);
        }
        let mut s = a.retained_size(o);
        let (mut j, end) = (i + 1, i + self.size(i) as usize);
        while j < end {
            s -= a.retained_size(self.object(j));
            j += self.size(j) as usize;
        }
        s
    }

    /// Position of the child of position `i` that retains the most (the lowest object among
    /// equals: the first of `dominated`'s list), `None` for a leaf. The children lie one
    /// subtree after the other, so this reads one entry per child.
    pub fn biggest_child(&self, ctx: &Ctx, i: usize) -> Option<usize> {
        let a = ctx.analysis;
        let end = i + self.size(i) as usize;
        let mut best: Option<(u64, std::cmp::Reverse<u32>, usize)> = None;
        let mut j = i + 1;
        while j < end {
            let o = self.object(j);
            let key = (a.retained_size(o), std::cmp::Reverse(o), j);
            if best.is_none_or(|b| (key.0, key.1) > (b.0, b.1)) {
                best = Some(key);
            }
            j += self.size(j) as usize;
        }
        best.map(|(_, _, j)| j)
    }

    /// The positions whose subtrees hold position `i` (not `i` itself), outermost first: from
    /// its top-level subtree down, each step skipping the children that end before `i`.
    #[cfg(test)]
    pub fn ancestors(&self, i: usize) -> Vec<usize> {
        ancestors(&self.entries, &self.top_start, i)
    }

    /// Positions of the subtree of top-level dominator `k`.
    pub fn top_range(&self, k: usize) -> std::ops::Range<usize> {
        let i = self.top_start[k] as usize;
        i..i + self.size(i) as usize
    }
}

/// The positions whose subtrees hold position `i` (not `i` itself), outermost first
/// (`Preorder::ancestors`; `entries` and `top_start` as there).
fn ancestors(entries: &[[u32; 2]], top_start: &[u32], i: usize) -> Vec<usize> {
    let mut out = Vec::new();
    if i >= entries.len() {
        return out;
    }
    let k = top_start.partition_point(|&t| t as usize <= i);
    let mut at = top_start[k - 1] as usize;
    while at < i {
        out.push(at);
        let mut child = at + 1;
        while child + (entries[child][1] as usize) <= i {
            child += entries[child][1] as usize;
        }
        at = child;
    }
    out
}

/// Bytes of the arrays `Preorder::build` fills (10 or 12 per object in the tree, at most):
/// pages the kernel must hand out fresh.
fn fresh_bytes(heap: &heapql_heap::Heap) -> u64 {
    let class_width = if heap.class_count() <= u16::MAX as u32 + 1 { 2 } else { 4 };
    heap.object_count() as u64 * (8 + class_width)
}

/// Twice what the preorder fills to spare: the prefault of its arrays beside the layout then
/// costs no paging.
fn memory_is_plentiful(heap: &heapql_heap::Heap) -> bool {
    fresh_bytes(heap) * 2 < heapql_heap::memory_to_spare()
}

/// Lays the tree out: per entry of `order` (the virtual root first, each node after its
/// immediate dominator, whose entry `idoms` names) the object and its subtree's size at the
/// node's position in preorder; returns the position of each of `top` (the top-level
/// dominators). `at` (zeros, one per entry) holds first each entry's subtree size, then the
/// next free position inside its subtree.
fn lay_out(
    order: &[u32],
    idoms: &[u32],
    top: &[u32],
    at: &mut [u32],
    entries: &mut [[u32; 2]],
    tick: &dyn Fn(usize) -> Result<(), Cancelled>,
    laps: &mut Laps,
) -> Result<Vec<u32>, Cancelled> {
    let (r, n) = (order.len(), entries.len());
    // The top-level dominators' entries, (node, entry), to find them by node below.
    let mut tops: Vec<(u32, u32)> = Vec::with_capacity(top.len());
    // Sizes in one reverse pass: every node's subtree is complete before its dominator's.
    for k in (1..r).rev() {
        tick(r - 1 - k)?;
        at[k] += 1;
        let d = idoms[k] as usize;
        at[d] += at[k];
        if d == 0 {
            tops.push((order[k], k as u32));
        }
    }
    tops.sort_unstable();
    assert_eq!(tops.len(), top.len(), "the virtual root's children are the top-level dominators");
    // The top-level subtrees side by side in `top_level_dominators()` order.
    let mut top_start = Vec::with_capacity(top.len());
    let mut next = 0usize;
    for &t in top {
        let k = tops[tops.binary_search_by_key(&(t + 1), |&(v, _)| v).expect("a top-level dominator is in the order")].1 as usize;
        let sz = at[k];
        top_start.push(next as u32);
        entries[next] = [t, sz];
        at[k] = next as u32 + 1;
        next += sz as usize;
    }
    assert_eq!(next, n, "every object of the dominator tree is below a top-level dominator");
    laps.lap("preorder: subtree sizes");
    // Positions in one forward pass: a node takes the next free position of its dominator
    // (already placed), which moves past the node's subtree; the node's own next free
    // position is the one after it. Siblings come in `order`'s order.
    for k in 1..r {
        tick(n + k)?;
        let d = idoms[k] as usize;
        if d == 0 {
            continue;
        }
        let (i, sz) = (at[d], at[k]);
        at[d] = i + sz;
        entries[i as usize] = [order[k] - 1, sz];
        at[k] = i + 1;
    }
    Ok(top_start)
}

/// The class of positions `from..from + classes.len()` (`class` narrows a class index to the
/// array's type), from the report's class cache, each position also handed to `walk`.
fn describe<T>(ctx: &Ctx, entries: &[[u32; 2]], from: usize, classes: &mut [T], mut walk: ClassWalk, ctl: &Control, class: impl Fn(ClassIdx) -> T) -> Result<ClassRetained, Cancelled> {
    for (k, (cl, e)) in classes.iter_mut().zip(&entries[from..]).enumerate() {
        if k % TICK as usize == 0 {
            ctl.check()?;
        }
        let c = ctx.class_of(e[0]);
        *cl = class(c);
        walk.visit(from + k, e[0], c, e[1]);
    }
    Ok(walk.finish())
}

/// Splits `ranges` (disjoint, ascending) into two lists of about equal total length, cutting
/// inside a range when one range is most of the work.
pub fn halves(ranges: &[std::ops::Range<usize>]) -> [Vec<std::ops::Range<usize>>; 2] {
    let total: usize = ranges.iter().map(|r| r.len()).sum();
    let mut left = total / 2;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for r in ranges {
        if left >= r.len() {
            left -= r.len();
            a.push(r.clone());
        } else if left > 0 {
            a.push(r.start..r.start + left);
            b.push(r.start + left..r.end);
            left = 0;
        } else {
            b.push(r.clone());
        }
    }
    [a, b]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use heapql_graph::FullAnalysis;
    use heapql_heap::Heap;
    use std::ops::Range;

    /// Runs `check` on the preorder of two fixture dumps' analyses, with and without
    /// unreachable objects: (dump, heap, analysis, context, preorder). The context is the
    /// report's after the preorder: every object's class let go, each class's kind kept.
    pub(crate) fn each_preorder(check: impl Fn(&str, &Heap, &FullAnalysis, &Ctx, &Preorder)) {
        crate::testkit::each_analysis(|dump, heap, a| {
            let mut ctx = Ctx::new(heap, a, 1);
            let ctl = Control { phase: "report", progress: None, cancel: None };
            let mut scan = crate::scan::scan(heap, &ctx.flags, crate::scan::Coverage::of(a), &ctl, 1).unwrap();
            ctx.set_classes(std::mem::take(&mut scan.classes));
            let pre = Preorder::build(&ctx, &ctl, 0, 1).unwrap();
            ctx.forget_object_classes();
            check(dump, heap, a, &ctx, &pre);
        });
    }

    /// Cancelled at the layout's first progress report (on these dumps its only one: the
    /// end of its first pass), the build comes back cancelled from the step that gives each
    /// position its class, which looks at the flag as it starts.
    #[test]
    fn cancelled_in_the_layout_the_build_stops_before_the_classes() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        crate::testkit::each_analysis(|dump, heap, a| {
            let mut ctx = Ctx::new(heap, a, 1);
            let none = Control { phase: "report", progress: None, cancel: None };
            let mut scan = crate::scan::scan(heap, &ctx.flags, crate::scan::Coverage::of(a), &none, 1).unwrap();
            ctx.set_classes(std::mem::take(&mut scan.classes));
            let flag = Arc::new(AtomicBool::new(false));
            let set = flag.clone();
            let progress: heapql_heap::ProgressFn = Arc::new(move |_| set.store(true, Ordering::Relaxed));
            let ctl = Control { phase: "report", progress: Some(progress), cancel: Some(flag.clone()) };
            assert!(Preorder::build(&ctx, &ctl, 0, 1).is_err(), "{dump}, reachable only {}: cancelled", a.reachable_only());
            assert!(flag.load(Ordering::Relaxed), "{dump}: the layout reported progress");
        });
    }

    /// The two halves hold every position of the ranges once, in order, and about as many
    /// each, whether the cut falls between ranges or inside one.
    #[test]
    fn halves_split_the_positions_evenly() {
        let cases: [&[Range<usize>]; 5] = [&[], &[0..10], &[0..3, 5..9, 20..21], &[0..1, 1..100], &[2..4, 4..6, 10..12, 12..14]];
        for ranges in cases {
            let [a, b] = halves(ranges);
            let flat = |rs: &[Range<usize>]| rs.iter().flat_map(|r| r.clone()).collect::<Vec<usize>>();
            let (fa, fb) = (flat(&a), flat(&b));
            assert_eq!([fa.clone(), fb.clone()].concat(), flat(ranges), "{ranges:?}");
            assert!(fb.len() - fa.len() <= 1, "{ranges:?}: {a:?} | {b:?}");
            assert!(a.iter().chain(&b).all(|r| !r.is_empty()), "{ranges:?}: no empty range");
        }
    }

    /// The accumulation-point walk's step: the biggest child found in the preorder is the
    /// first of the analysis's `dominated` list, for every position, in both modes.
    #[test]
    fn biggest_child_is_the_first_dominated_object() {
        each_preorder(|dump, _, a, ctx, pre| {
            let mut parents = 0;
            for i in 0..pre.len() {
                let want = a.dominated(pre.object(i)).first().copied();
                assert_eq!(pre.biggest_child(ctx, i).map(|j| pre.object(j)), want, "{dump}: position {i}");
                parents += want.is_some() as usize;
            }
            assert!(parents > 100, "{dump}: {parents} objects dominate others");
        });
    }

    /// Every object of the tree once; the nearest enclosing range of each position is its
    /// immediate dominator's (so each range is exactly a subtree), and `ancestors` lists those
    /// ranges; the top-level subtrees at `top_start` in order; shallow sizes read back — with
    /// and without unreachable objects.
    #[test]
    fn positions_hold_whole_dominator_subtrees() {
        each_preorder(|dump, heap, a, ctx, pre| {
            let in_tree = (0..heap.object_count()).filter(|&o| a.in_tree(o)).count();
            assert_eq!(pre.len(), in_tree, "{dump}");
            let mut seen = vec![false; heap.object_count() as usize];
            // Enclosing positions: (end of the range, object, position).
            let mut path: Vec<(usize, u32, usize)> = Vec::new();
            for i in 0..pre.len() {
                let o = pre.object(i);
                assert!(!std::mem::replace(&mut seen[o as usize], true), "{dump}: #{o} twice");
                while path.last().is_some_and(|&(end, _, _)| end <= i) {
                    path.pop();
                }
                let end = i + pre.size(i) as usize;
                assert_eq!(a.immediate_dominator(o), path.last().map(|&(_, p, _)| p), "{dump}: dominator of #{o}");
                assert!(path.last().is_none_or(|&(e, _, _)| end <= e), "{dump}: range of #{o} nested");
                // (a sample: each call descends through siblings)
                if i % 31 == 0 || i + 1 == pre.len() {
                    assert_eq!(pre.ancestors(i), path.iter().map(|&(_, _, p)| p).collect::<Vec<_>>(), "{dump}: ancestors of position {i}");
                }
                assert_eq!(pre.classes.get(i), heap.class_of(o));
                assert_eq!(pre.shallow(ctx, i), heap.shallow_size(o), "{dump}: shallow of #{o}");
                path.push((end, o, i));
            }
            let top = a.top_level_dominators();
            assert_eq!(pre.top_start.len(), top.len());
            for (k, &t) in top.iter().enumerate() {
                assert_eq!(pre.object(pre.top_start[k] as usize), t);
                assert!(k == 0 || pre.top_start[k - 1] < pre.top_start[k], "{dump}: top-level subtrees in order");
            }
        });
    }
}
