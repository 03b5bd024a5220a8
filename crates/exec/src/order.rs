//! Produced rows with their hidden ORDER BY keys, and the tail of a query: DISTINCT, ORDER BY
//! (stable), LIMIT, with a bounded binary heap (top-k) instead of a full sort when a limit
//! applies.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::rows::{RowIndex, RowSet, Table};
use crate::value::{total_cmp, Value};

/// Rows as produced: for an objects output, `ids` plus `keys` order-key cells per row; for a
/// table, `width = outs + keys` cells per row (output cells first).
#[derive(Default)]
pub(crate) struct Produced {
    pub objects: bool,
    pub outs: usize,
    pub keys: usize,
    pub ids: Vec<u32>,
    pub cells: Vec<Value>,
}

impl Produced {
    pub fn new(objects: bool, outs: usize, keys: usize) -> Produced {
        Produced { objects, outs, keys, ids: Vec::new(), cells: Vec::new() }
    }
    fn width(&self) -> usize {
        self.outs + self.keys
    }
    pub fn len(&self) -> usize {
        if self.objects {
            self.ids.len()
        } else if self.width() == 0 {
            0
        } else {
            self.cells.len() / self.width()
        }
    }
    fn row(&self, i: usize) -> &[Value] {
        let w = self.width();
        &self.cells[i * w..(i + 1) * w]
    }
    fn sort_keys(&self, i: usize) -> &[Value] {
        &self.row(i)[self.outs..]
    }
    pub fn append(&mut self, other: Produced) {
        self.ids.extend(other.ids);
        self.cells.extend(other.cells);
    }

    /// DISTINCT (on the output cells, first occurrence kept), ORDER BY, LIMIT; drops the keys.
    pub fn finish(self, names: Vec<String>, desc: &[bool], distinct: bool, limit: Option<u64>) -> RowSet {
        let n = self.len();
        let mut idx: Vec<usize> = if distinct {
            if self.objects {
                let mut seen = std::collections::HashSet::with_capacity(n);
                (0..n).filter(|&i| seen.insert(self.ids[i])).collect()
            } else {
                let outs = Table { names: vec![String::new(); self.outs], cells: self.out_cells() };
                let mut index = RowIndex::default();
                (0..n).filter(|&i| index.insert(&outs, i)).collect()
            }
        } else {
            (0..n).collect()
        };
        if !desc.is_empty() {
            idx.sort_by(|&a, &b| cmp_keys(self.sort_keys(a), self.sort_keys(b), desc));
        }
        if let Some(l) = limit {
            idx.truncate(l.min(usize::MAX as u64) as usize);
        }
        self.take(names, &idx)
    }

    fn out_cells(&self) -> Vec<Value> {
        let w = self.width();
        if self.keys == 0 {
            return self.cells.clone();
        }
        (0..self.len()).flat_map(|i| self.cells[i * w..i * w + self.outs].iter().cloned()).collect()
    }

    fn take(self, names: Vec<String>, idx: &[usize]) -> RowSet {
        if self.objects {
            let name = names.into_iter().next().unwrap_or_else(|| "*".into());
            let identity = idx.len() == self.ids.len() && idx.iter().enumerate().all(|(a, &b)| a == b);
            let ids = if identity { self.ids } else { idx.iter().map(|&i| self.ids[i]).collect() };
            return RowSet::Objects { name, ids };
        }
        let (w, outs) = (self.width(), self.outs);
        let mut cells = Vec::with_capacity(idx.len() * outs);
        for &i in idx {
            cells.extend_from_slice(&self.cells[i * w..i * w + outs]);
        }
        RowSet::Table(Table { names, cells })
    }
}

/// Compares ORDER BY key tuples; `desc[k]` flips key k.
pub(crate) fn cmp_keys(a: &[Value], b: &[Value], desc: &[bool]) -> Ordering {
    for (k, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        let c = total_cmp(x, y);
        let c = if desc.get(k).copied().unwrap_or(false) { c.reverse() } else { c };
        if c != Ordering::Equal {
            return c;
        }
    }
    Ordering::Equal
}

struct Entry<'d> {
    /// Output cells then sort keys (tables), or sort keys only (objects).
    row: Vec<Value>,
    id: u32,
    seq: usize,
    key_off: usize,
    desc: &'d [bool],
}

impl Entry<'_> {
    fn cmp_order(&self, other: &Self) -> Ordering {
        cmp_keys(&self.row[self.key_off..], &other.row[other.key_off..], self.desc).then(self.seq.cmp(&other.seq))
    }
}
impl PartialEq for Entry<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp_order(other) == Ordering::Equal
    }
}
impl Eq for Entry<'_> {}
impl PartialOrd for Entry<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_order(other)
    }
}

/// The k first rows in (keys, arrival) order, kept in a max-heap whose top is the worst kept
/// row; equal keys keep arrival order, so the result equals a stable full sort plus LIMIT.
pub(crate) struct TopK<'d> {
    k: usize,
    objects: bool,
    outs: usize,
    desc: &'d [bool],
    heap: BinaryHeap<Entry<'d>>,
}

impl<'d> TopK<'d> {
    pub fn new(k: usize, objects: bool, outs: usize, desc: &'d [bool]) -> TopK<'d> {
        TopK { k, objects, outs, desc, heap: BinaryHeap::with_capacity(k.min(1 << 16) + 1) }
    }

    /// Offers a row; `row` is moved in when kept and handed back (for reuse) otherwise.
    pub fn offer(&mut self, row: Vec<Value>, id: u32, seq: usize) -> Option<Vec<Value>> {
        if self.k == 0 {
            return Some(row);
        }
        let key_off = if self.objects { 0 } else { self.outs };
        let e = Entry { row, id, seq, key_off, desc: self.desc };
        if self.heap.len() < self.k {
            self.heap.push(e);
            return None;
        }
        let worst = self.heap.peek().expect("k > 0");
        if e < *worst {
            let old = self.heap.pop().expect("k > 0");
            self.heap.push(e);
            Some(old.row)
        } else {
            Some(e.row)
        }
    }

    pub fn merge(&mut self, other: TopK<'d>) {
        for e in other.heap {
            self.offer(e.row, e.id, e.seq);
        }
    }

    /// The parts of a parallel scan (one at least) merged into one.
    pub fn merged(parts: impl IntoIterator<Item = TopK<'d>>) -> TopK<'d> {
        let mut it = parts.into_iter();
        let mut top = it.next().expect("one part at least");
        for t in it {
            top.merge(t);
        }
        top
    }

    /// The ids of the kept rows, in order.
    pub fn into_ids(self) -> Vec<u32> {
        self.heap.into_sorted_vec().into_iter().map(|e| e.id).collect()
    }

    pub fn into_rowset(self, names: Vec<String>) -> RowSet {
        let (objects, outs) = (self.objects, self.outs);
        let sorted = self.heap.into_sorted_vec();
        if objects {
            let name = names.into_iter().next().unwrap_or_else(|| "*".into());
            return RowSet::Objects { name, ids: sorted.into_iter().map(|e| e.id).collect() };
        }
        let mut cells = Vec::with_capacity(sorted.len() * outs);
        for mut e in sorted {
            e.row.truncate(outs);
            cells.extend(e.row);
        }
        RowSet::Table(Table { names, cells })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator so the test needs no seed handling.
    fn lcg(state: &mut u64) -> u64 {
        *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *state >> 33
    }

    #[test]
    fn topk_equals_stable_sort_plus_limit() {
        let mut s = 42u64;
        for round in 0..50 {
            let n = (lcg(&mut s) % 500) as usize;
            let k = (lcg(&mut s) % 40) as usize;
            let desc = [round % 2 == 0, false];
            // Few distinct keys so ties are frequent; the second cell is the payload.
            let rows: Vec<(i64, i64)> = (0..n).map(|i| ((lcg(&mut s) % 7) as i64, i as i64)).collect();

            let mut top = TopK::new(k, false, 1, &desc);
            let mut top2 = TopK::new(k, false, 1, &desc);
            for (i, &(key, payload)) in rows.iter().enumerate() {
                let row = vec![Value::Int(payload), Value::Int(key)];
                if i < n / 2 { top.offer(row, 0, i) } else { top2.offer(row, 0, i) };
            }
            top.merge(top2);
            let got = top.into_rowset(vec!["p".into()]);

            let mut p = Produced::new(false, 1, 1);
            for &(key, payload) in &rows {
                p.cells.push(Value::Int(payload));
                p.cells.push(Value::Int(key));
            }
            let want = p.finish(vec!["p".into()], &desc[..1], false, Some(k as u64));
            let a: Vec<String> = (0..got.len()).map(|i| format!("{:?}", got.row_values(i))).collect();
            let b: Vec<String> = (0..want.len()).map(|i| format!("{:?}", want.row_values(i))).collect();
            assert_eq!(a, b, "n={n} k={k}");
        }
    }

    #[test]
    fn distinct_keeps_first_and_sorts_stably() {
        let mut p = Produced::new(false, 1, 1);
        for (v, key) in [(1, 3), (2, 1), (1, 0), (3, 1)] {
            p.cells.push(Value::Int(v));
            p.cells.push(Value::Int(key));
        }
        let r = p.finish(vec!["v".into()], &[false], true, None);
        let got: Vec<String> = (0..r.len()).map(|i| format!("{:?}", r.row_values(i))).collect();
        assert_eq!(got, vec!["[Int(2)]", "[Int(3)]", "[Int(1)]"]);
    }
}
