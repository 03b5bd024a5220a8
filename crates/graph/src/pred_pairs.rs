//! The DFS's non-tree edges as `(target, source)` preorder pairs for the semidominator step,
//! without the pairs that cannot change a semidominator.
//!
//! The semidominator of `w` is the minimum, over its predecessors `v`, of `v` itself when
//! `v < w`, and otherwise of the semidominators of `v`'s tree ancestors above `w` (`v`
//! included). Say the DFS, at vertex `x`, met the edge `x -> w` (so `w` was numbered), then
//! went down from `x` and now, at `v`, meets `v -> w`. Every vertex on the tree path from `v`
//! up to `x` (`x` excluded) was entered since, so is numbered above `w`, and `v`'s candidates
//! include their semidominators. If `x > w`, `x`'s candidates are the semidominators of its
//! own ancestors above `w`, which are `v`'s too. If `x < w`, its candidate is `x`, and the
//! child of `x` on the path has a semidominator of at most its parent `x`. Either way `x`'s
//! pair can never give the minimum. So the last source of each recent target is held back,
//! and a new source of the same target drops it while it is still on the DFS path (else
//! writes it out). The DFS meets this all the time: an object's first successor is its class
//! object, which the first instance met numbers, and each instance further down a chain or a
//! tree of instances repeats the edge. On bench-1g.hprof the pairs, written to scratch files
//! and read back, fall from 9.8 M to 4.7 M, and the semidominator step's `eval`s with them.

use crate::buckets::Buckets;
use crate::NONE;
use fixedbitset::FixedBitSet;
use heapql_heap::Placement;

/// Targets whose last source is held back (a direct-mapped table: a target that meets
/// another one's slot writes the other's pair out). The heavy targets are few class objects.
const SLOTS: usize = 1 << 12;

pub(crate) struct PredPairs {
    pairs: Buckets,
    /// Preorder numbers of the vertices on the DFS path (the current vertex's ancestors).
    on_path: FixedBitSet,
    /// `(target, last source)` held back per slot; `NONE` target: empty.
    held: Vec<(u32, u32)>,
}

impl PredPairs {
    /// For preorder numbers `0..n`, the pairs bucketed as `Buckets::new` does.
    pub(crate) fn new(n: usize, place: &Placement) -> PredPairs {
        PredPairs { pairs: Buckets::new(0, n, place), on_path: FixedBitSet::with_capacity(n), held: vec![(NONE, 0); SLOTS] }
    }

    /// The DFS enters vertex `k` (numbered `k`).
    #[inline]
    pub(crate) fn enter(&mut self, k: usize) {
        self.on_path.insert(k);
    }

    /// The DFS leaves vertex `k` (its subtree is done).
    #[inline]
    pub(crate) fn leave(&mut self, k: usize) {
        self.on_path.set(k, false);
    }

    /// The non-tree edge `source -> target` (preorder numbers), met while `source` is the
    /// DFS's current vertex.
    #[inline]
    pub(crate) fn push(&mut self, target: u32, source: u32) {
        let slot = &mut self.held[(target.wrapping_mul(0x9E37_79B9) >> (32 - SLOTS.trailing_zeros())) as usize];
        let (t, x) = *slot;
        *slot = (target, source);
        if t == target {
            // `x` made this target's last pair; still on the path, it is an ancestor of
            // `source` (entered since), which makes that pair redundant.
            if !self.on_path.contains(x as usize) {
                self.pairs.push(target, x);
            }
        } else if t != NONE {
            self.pairs.push(t, x);
        }
    }

    /// The DFS is over: the pairs held back are written out, and the buckets flushed.
    pub(crate) fn finish(mut self) -> Buckets {
        for (t, x) in std::mem::take(&mut self.held) {
            if t != NONE {
                self.pairs.push(t, x);
            }
        }
        self.pairs.flush();
        self.pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs_of(b: &mut Buckets) -> Vec<(u32, u32)> {
        let mut all: Vec<(u32, u32)> =
            (0..b.count()).flat_map(|k| b.take(k)).collect::<Vec<u32>>().chunks(2).map(|p| (p[0], p[1])).collect();
        all.sort_unstable();
        all
    }

    /// What the DFS does, step by step.
    enum Step {
        Enter(usize),
        Leave(usize),
        /// `(target, source)`.
        Push(u32, u32),
    }

    /// The pairs written out after `steps`.
    fn pairs_after(steps: &[Step]) -> Vec<(u32, u32)> {
        let mut p = PredPairs::new(10, &Placement::Memory);
        for step in steps {
            match *step {
                Step::Enter(k) => p.enter(k),
                Step::Leave(k) => p.leave(k),
                Step::Push(t, x) => p.push(t, x),
            }
        }
        pairs_of(&mut p.finish())
    }

    /// A chain 1 -> 2 -> 3 -> 4 where each also points at vertex 1 (its "class", numbered
    /// first): only the deepest source is kept.
    #[test]
    fn an_ancestor_of_a_later_source_is_dropped() {
        use Step::*;
        let steps = [Enter(0), Enter(1), Enter(2), Push(1, 2), Enter(3), Push(1, 3), Enter(4), Push(1, 4)];
        assert_eq!(pairs_after(&steps), vec![(1, 4)]);
    }

    /// A source numbered before its target (a forward edge: its own number is its
    /// candidate) is dropped too when a later source lies below it.
    #[test]
    fn a_forward_source_above_a_later_source_is_dropped() {
        use Step::*;
        let steps = [Enter(0), Enter(1), Push(3, 1), Enter(4), Push(3, 4)];
        assert_eq!(pairs_after(&steps), vec![(3, 4)]);
    }

    /// Siblings (the first left before the second is met) and an ancestor of a source met
    /// after that source was left: all kept.
    #[test]
    fn sources_off_the_path_are_kept() {
        use Step::*;
        let steps = [Enter(0), Enter(1), Enter(2), Push(5, 2), Leave(2), Enter(3), Push(5, 3), Leave(3), Push(5, 1)];
        assert_eq!(pairs_after(&steps), vec![(5, 1), (5, 2), (5, 3)]);
    }

    /// Targets sharing a slot write each other out instead of losing a pair.
    #[test]
    fn a_slot_taken_by_another_target_writes_its_pair_out() {
        let mut p = PredPairs::new(1 << 20, &Placement::Memory);
        for k in 0..100u32 {
            p.enter(k as usize);
        }
        let targets: Vec<u32> = (0..(SLOTS as u32) * 4).map(|i| 200 + i * 7).collect();
        for &t in &targets {
            p.push(t, 99);
        }
        let got = pairs_of(&mut p.finish());
        assert_eq!(got, targets.iter().map(|&t| (t, 99)).collect::<Vec<_>>());
    }
}
