//! Progress reporting and cancellation for the long phases, in the heap crate's style.

use heapql_heap::{Progress, ProgressFn};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The caller set the cancel flag; the phase stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

/// One phase's progress callback and cancel flag. `Control::none()` for neither.
#[derive(Clone, Default)]
pub struct Control {
    pub phase: &'static str,
    pub progress: Option<ProgressFn>,
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Control {
    pub fn none() -> Control {
        Control::default()
    }

    /// The same callback and flag under another phase name.
    pub fn phase(&self, phase: &'static str) -> Control {
        Control { phase, progress: self.progress.clone(), cancel: self.cancel.clone() }
    }

    /// Checks the cancel flag only (for loops between two progress reports: one atomic load).
    #[inline]
    pub fn check(&self) -> Result<(), Cancelled> {
        match &self.cancel {
            Some(c) if c.load(Ordering::Relaxed) => Err(Cancelled),
            _ => Ok(()),
        }
    }

    /// Reports progress and checks the cancel flag (call every few tens of thousands of items).
    pub fn tick(&self, done: u64, total: u64) -> Result<(), Cancelled> {
        if let Some(c) = &self.cancel {
            if c.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
        }
        if let Some(p) = &self.progress {
            p(Progress { phase: self.phase, done: done.min(total), total });
        }
        Ok(())
    }
}

/// Elements sorted in one piece by the standard library's sort, between two looks at the
/// cancel flag (`sort_or_stop`): about 10 ms of work.
const SORT_PIECE: usize = 1 << 18;
/// Elements of a partition between two looks at the cancel flag.
const PARTITION_STEP: usize = 1 << 16;

/// `v.sort_unstable_by(compare)`, looking at `ctl`'s cancel flag as it goes: a long slice is
/// split around the median of 31 of its elements (the quicksort's top levels, the work the
/// standard sort would do there, 65 536 elements between two looks), down to pieces of 262 144
/// elements, each sorted by `sort_unstable_by` after a look. The same order as
/// `sort_unstable_by` wherever elements that compare equal are equal (a key that is unique, or
/// the whole element); cancelled, `v` is left in some order of its elements.
pub fn sort_or_stop<T: Copy>(v: &mut [T], compare: impl Fn(&T, &T) -> std::cmp::Ordering, ctl: &Control) -> Result<(), Cancelled> {
    // Splits past this depth sort the rest whole (a slice the pivots never halve).
    sort_pieces(v, &compare, ctl, 48)
}

/// `sort_or_stop` by a key (`sort_unstable_by_key`).
pub fn sort_by_key_or_stop<T: Copy, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K, ctl: &Control) -> Result<(), Cancelled> {
    sort_or_stop(v, |a, b| key(a).cmp(&key(b)), ctl)
}

fn sort_pieces<T: Copy>(v: &mut [T], compare: &impl Fn(&T, &T) -> std::cmp::Ordering, ctl: &Control, depth: u32) -> Result<(), Cancelled> {
    ctl.check()?;
    let n = v.len();
    if n <= SORT_PIECE || depth == 0 {
        v.sort_unstable_by(compare);
        return Ok(());
    }
    let mut sample: [T; 31] = std::array::from_fn(|i| v[i * (n - 1) / 30]);
    sample.sort_unstable_by(compare);
    let pivot = sample[15];
    // Branchless: every element swapped to the end of the part below the pivot, which grows
    // by one when the element belongs there.
    let mut below = 0;
    for (k, from) in (0..n).step_by(PARTITION_STEP).enumerate() {
        if k > 0 {
            ctl.check()?;
        }
        for i in from..n.min(from + PARTITION_STEP) {
            let less = compare(&v[i], &pivot) == std::cmp::Ordering::Less;
            v.swap(i, below);
            below += less as usize;
        }
    }
    if below == 0 {
        // The pivot is the least element (many equal to it): no split.
        v.sort_unstable_by(compare);
        return Ok(());
    }
    let (low, high) = v.split_at_mut(below);
    sort_pieces(low, compare, ctl, depth - 1)?;
    sort_pieces(high, compare, ctl, depth - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Pseudo-random pairs (a 32-bit hash, then the index): unique, as the waste checks' keys.
    fn pairs(n: u32, seed: u64) -> Vec<[u32; 2]> {
        let mut x = seed | 1;
        (0..n)
            .map(|o| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                [(x >> 32) as u32, o]
            })
            .collect()
    }

    /// The order of `sort_unstable`: unique keys, whole elements with repeats (few distinct,
    /// many alike, already sorted, reversed), below and above the piece size.
    #[test]
    fn sorts_as_the_standard_sort() {
        let key = |&[h, o]: &[u32; 2]| (h as u64) << 32 | o as u64;
        for n in [0, 1, 31, 1000, SORT_PIECE as u32 + 1, 3 * SORT_PIECE as u32 + 17] {
            let v = pairs(n, n as u64 + 7);
            let (mut want, mut got) = (v.clone(), v.clone());
            want.sort_unstable_by_key(key);
            sort_by_key_or_stop(&mut got, key, &Control::none()).unwrap();
            assert!(got == want, "unique keys, {n} elements");
            for distinct in [1u32, 3, 1000] {
                let mut v: Vec<(u32, u8)> = v.iter().map(|p| (p[0] % distinct, (p[1] % 2) as u8)).collect();
                let mut want = v.clone();
                want.sort_unstable();
                sort_or_stop(&mut v, |a, b| a.cmp(b), &Control::none()).unwrap();
                assert!(v == want, "{distinct} distinct values, {n} elements");
                let mut again = want.clone();
                sort_or_stop(&mut again, |a, b| a.cmp(b), &Control::none()).unwrap();
                assert!(again == want, "sorted already, {distinct} distinct values, {n} elements");
                let mut reversed: Vec<(u32, u8)> = want.iter().rev().copied().collect();
                sort_or_stop(&mut reversed, |a, b| a.cmp(b), &Control::none()).unwrap();
                assert!(reversed == want, "reversed, {distinct} distinct values, {n} elements");
            }
        }
    }

    /// The flag set by a comparison in the first split of 4 M elements: the sort stops at its
    /// next look, 65 536 elements later, where the whole sort makes some 90 M comparisons.
    #[test]
    fn a_sort_stops_when_cancelled() {
        let n = 16 * SORT_PIECE as u32;
        let flag = Arc::new(AtomicBool::new(false));
        let ctl = Control { cancel: Some(flag.clone()), ..Control::none() };
        let (compares, at) = (Cell::new(0u64), 1000u64);
        let compare = |a: &[u32; 2], b: &[u32; 2]| {
            compares.set(compares.get() + 1);
            if compares.get() == at {
                flag.store(true, Ordering::Relaxed);
            }
            a.cmp(b)
        };
        let mut v = pairs(n, 3);
        assert_eq!(sort_or_stop(&mut v, compare, &ctl), Err(Cancelled));
        let after = compares.get() - at;
        assert!(after <= PARTITION_STEP as u64, "{after} comparisons after the flag was set");
        // Uncancelled, the same sort compares far more.
        let (flag_off, whole) = (Control::none(), Cell::new(0u64));
        sort_or_stop(&mut pairs(n, 3), |a, b| {
            whole.set(whole.get() + 1);
            a.cmp(b)
        }, &flag_off).unwrap();
        assert!(whole.get() > 100 * PARTITION_STEP as u64, "{} comparisons in all", whole.get());
    }
}
