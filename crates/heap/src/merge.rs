//! Merging two id-sorted object lists into the index arrays, on both cores (the general path
//! of `builder::objects`, for a dump whose objects are not in address order):
//! the id range is cut at a pivot, each half is merged by its own thread into its own part of
//! the output. Duplicate ids (a corrupt dump) keep their first record.

use crate::ids::IndexBuilder;
use heapql_scratch::{BigArray, Placement};

pub(crate) struct Merged {
    pub index: IndexBuilder,
    pub duplicates: u64,
    /// The skipped record of the lowest repeated id: (id, packed), for the warning's example.
    pub first_duplicate: Option<(u64, u64)>,
    pub last_id: Option<u64>,
}

/// Merges `a` and `b` (each sorted by id) into `out_packed`/`out_lo`; returns how many were
/// written, the (high half, first index) runs, the duplicates skipped and the first of them.
fn merge_into(a: &[(u64, u64)], b: &[(u64, u64)], out_packed: &mut [u64], out_lo: &mut [u32]) -> (usize, Vec<(u32, u32)>, u64, Option<(u64, u64)>) {
    let mut n = 0usize;
    let mut runs: Vec<(u32, u32)> = Vec::new();
    let mut last: Option<u64> = None;
    let mut dups = 0u64;
    let mut first_dup = None;
    let mut emit = |id: u64, p: u64| {
        if last == Some(id) {
            dups += 1;
            first_dup.get_or_insert((id, p));
            return;
        }
        last = Some(id);
        let hi = (id >> 32) as u32;
        if runs.last().map(|r| r.0) != Some(hi) {
            runs.push((hi, n as u32));
        }
        out_lo[n] = id as u32;
        out_packed[n] = p;
        n += 1;
    };
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.0 <= y.0 {
            emit(x.0, x.1);
            i += 1;
        } else {
            emit(y.0, y.1);
            j += 1;
        }
    }
    for &(id, p) in &a[i..] {
        emit(id, p);
    }
    for &(id, p) in &b[j..] {
        emit(id, p);
    }
    (n, runs, dups, first_dup)
}

/// `extra` is room reserved for objects appended afterwards (synthetic classes); the output
/// arrays are placed by `place` (written once, in order: a scratch file costs no more). The
/// merge writes `packed` values, put in the index's 4-byte form at the end (`from_packed`).
pub(crate) fn merge(a: Vec<(u64, u64)>, b: Vec<(u64, u64)>, extra: usize, place: &Placement) -> Merged {
    let total = a.len() + b.len();
    let mut packed: BigArray<u64> = BigArray::zeroed(total + extra, place);
    let mut lo: BigArray<u32> = BigArray::zeroed(total + extra, place);
    // Cut both inputs at one pivot id so that equal ids stay on the same side.
    let pivot = if a.len() >= b.len() { a.get(a.len() / 2).map(|x| x.0) } else { b.get(b.len() / 2).map(|x| x.0) };
    let (ca, cb) = match pivot {
        Some(p) if total >= (1 << 20) => (a.partition_point(|x| x.0 < p), b.partition_point(|x| x.0 < p)),
        _ => (a.len(), b.len()),
    };
    let left_len = ca + cb;
    let (pl, pr) = packed[..total].split_at_mut(left_len);
    let (ll, lr) = lo[..total].split_at_mut(left_len);
    // An empty right half would silently drop objects: a panic there is passed on.
    let ((n1, mut runs, d1, f1), (n2, runs2, d2, f2)) = heapql_scratch::both(|| merge_into(&a[..ca], &b[..cb], pl, ll), || merge_into(&a[ca..], &b[cb..], pr, lr));
    if n1 < left_len {
        // Duplicates on the left: close the gap.
        packed.copy_within(left_len..left_len + n2, n1);
        lo.copy_within(left_len..left_len + n2, n1);
    }
    let mut len = n1 + n2;
    let mut dups = d1 + d2;
    let mut first_duplicate = f1.or(f2);
    // The right half's first id may equal the left half's last (a duplicate across the cut).
    let last_left = runs.last().map(|r| ((r.0 as u64) << 32) | lo[n1 - 1] as u64);
    let mut skip_first = false;
    if n1 > 0 && n2 > 0 {
        let first_right = ((runs2[0].0 as u64) << 32) | lo[n1] as u64;
        if Some(first_right) == last_left {
            skip_first = true;
        }
    }
    for (hi, start) in runs2 {
        if runs.last().map(|r| r.0) != Some(hi) {
            runs.push((hi, start + n1 as u32));
        }
    }
    if skip_first {
        // Lower than any of the right half's own, higher than the left's.
        if f1.is_none() {
            first_duplicate = Some((last_left.unwrap_or(0), packed[n1]));
        }
        packed.copy_within(n1 + 1..len, n1);
        lo.copy_within(n1 + 1..len, n1);
        len -= 1;
        dups += 1;
        for r in runs.iter_mut() {
            if r.1 as usize > n1 {
                r.1 -= 1;
            }
        }
    }
    let last_id = match (runs.last(), len.checked_sub(1)) {
        (Some(r), Some(l)) => Some(((r.0 as u64) << 32) | lo[l] as u64),
        _ => None,
    };
    Merged { index: IndexBuilder::from_packed(&packed, lo, len, runs, place), duplicates: dups, first_duplicate, last_id }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(a: Vec<(u64, u64)>, b: Vec<(u64, u64)>) {
        let mut want: Vec<(u64, u64)> = a.iter().chain(b.iter()).copied().collect();
        want.sort_by_key(|x| x.0);
        let lowest_repeated = want.windows(2).find(|w| w[0].0 == w[1].0).map(|w| w[0].0);
        let before = want.len();
        want.dedup_by_key(|x| x.0);
        let m = merge(a, b, 0, &Placement::Memory);
        let ix = m.index.finish();
        assert_eq!(m.duplicates as usize, before - want.len());
        assert_eq!(m.first_duplicate.map(|d| d.0), lowest_repeated, "the example is the lowest repeated id");
        assert_eq!(ix.len() as usize, want.len());
        for (k, &(id, _)) in want.iter().enumerate() {
            assert_eq!(ix.id(k as u32), id);
            assert_eq!(ix.index_of(id), Some(k as u32));
        }
        assert_eq!(m.last_id, want.last().map(|x| x.0));
    }

    #[test]
    fn merges_large_inputs_in_parallel_with_duplicates() {
        let a: Vec<(u64, u64)> = (0..1_500_000u64).map(|i| (0xF_FFF0_0000 + i * 24, i)).collect();
        let mut b: Vec<(u64, u64)> = (0..700_000u64).map(|i| (0xF_FFF0_0008 + i * 40, i)).collect();
        b.push((a[750_000].0, 0)); // duplicate near the pivot
        b.sort_by_key(|x| x.0);
        check(a, b);
    }

    #[test]
    fn merges_small_and_empty_inputs() {
        check(vec![], vec![]);
        check(vec![(5, 0)], vec![]);
        check(vec![(5, 0), (9, 0)], vec![(5, 1), (7, 1)]);
    }
}
