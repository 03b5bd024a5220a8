//! Query results between operators: a list of objects, or a table of values stored flat
//! (one Vec for all cells, no allocation per row).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::batch::{build_column, objects_column, Batch};
use crate::value::{row_hash, rows_key_eq, PassThrough, Value};

#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    pub names: Vec<String>,
    pub cells: Vec<Value>,
}

impl Table {
    pub fn new(names: Vec<String>) -> Table {
        Table { names, cells: Vec::new() }
    }
    pub fn width(&self) -> usize {
        self.names.len()
    }
    pub fn len(&self) -> usize {
        if self.width() == 0 {
            0
        } else {
            self.cells.len() / self.width()
        }
    }
    pub fn row(&self, i: usize) -> &[Value] {
        let w = self.width();
        &self.cells[i * w..(i + 1) * w]
    }
}

#[derive(Clone, Debug)]
pub(crate) enum RowSet {
    Objects { name: String, ids: Vec<u32> },
    Table(Table),
}

impl RowSet {
    pub fn len(&self) -> usize {
        match self {
            RowSet::Objects { ids, .. } => ids.len(),
            RowSet::Table(t) => t.len(),
        }
    }
    /// A list of objects (one `object` column, also without a row) rather than a table.
    pub fn is_objects(&self) -> bool {
        matches!(self, RowSet::Objects { .. })
    }
    pub fn names(&self) -> Vec<String> {
        match self {
            RowSet::Objects { name, .. } => vec![name.clone()],
            RowSet::Table(t) => t.names.clone(),
        }
    }
    pub fn width(&self) -> usize {
        match self {
            RowSet::Objects { .. } => 1,
            RowSet::Table(t) => t.width(),
        }
    }
    /// Row `i` as values (objects become a one-cell row).
    pub fn row_values(&self, i: usize) -> Vec<Value> {
        match self {
            RowSet::Objects { ids, .. } => vec![Value::Obj(ids[i])],
            RowSet::Table(t) => t.row(i).to_vec(),
        }
    }
    /// Appends the rows of `other` (same columns).
    pub fn append(&mut self, other: RowSet) {
        match (&mut *self, other) {
            (RowSet::Objects { ids, .. }, RowSet::Objects { ids: more, .. }) => ids.extend(more),
            (RowSet::Table(t), RowSet::Table(u)) => t.cells.extend(u.cells),
            (_, other) => {
                let mut t = std::mem::replace(self, RowSet::Table(Table::default())).into_table();
                t.cells.extend(other.into_table().cells);
                *self = RowSet::Table(t);
            }
        }
    }
    pub fn into_table(self) -> Table {
        match self {
            RowSet::Objects { name, ids } => Table { names: vec![name], cells: ids.into_iter().map(Value::Obj).collect() },
            RowSet::Table(t) => t,
        }
    }
    /// Keeps the rows at `order` (indices into self), in that order.
    pub fn select(self, order: &[usize]) -> RowSet {
        match self {
            RowSet::Objects { name, ids } => RowSet::Objects { name, ids: order.iter().map(|&i| ids[i]).collect() },
            RowSet::Table(t) => {
                let w = t.width();
                let mut cells = Vec::with_capacity(order.len() * w);
                for &i in order {
                    cells.extend_from_slice(&t.cells[i * w..(i + 1) * w]);
                }
                RowSet::Table(Table { names: t.names, cells })
            }
        }
    }
    pub fn truncate(&mut self, n: usize) {
        match self {
            RowSet::Objects { ids, .. } => ids.truncate(n),
            RowSet::Table(t) => {
                let w = t.width();
                t.cells.truncate(n.saturating_mul(w))
            }
        }
    }

    /// Rows `start..end` as a columnar batch; `fixed`: the type the query fixes for each
    /// column (`types.rs`), for a column whose values do not tell it.
    pub fn to_batch(&self, start: usize, end: usize, fixed: &[Option<&'static str>]) -> Batch {
        match self {
            RowSet::Objects { name, ids } => {
                Batch { row_count: end - start, columns: vec![objects_column(name, ids[start..end].to_vec())], notes: Vec::new(), total: None }
            }
            RowSet::Table(t) => {
                let w = t.width();
                let columns = (0..w)
                    .map(|c| build_column(&t.names[c], (start..end).map(move |r| &t.cells[r * w + c]), fixed.get(c).copied().flatten()))
                    .collect();
                Batch { row_count: end - start, columns, notes: Vec::new(), total: None }
            }
        }
    }
}

/// A hash index over rows of a table by whole-row value equality (`value::key_eq`).
#[derive(Default)]
pub(crate) struct RowIndex {
    buckets: HashMap<u64, Vec<usize>, BuildHasherDefault<PassThrough>>,
}

impl RowIndex {
    /// Adds row `i` unless an equal row is already indexed; true when added.
    pub fn insert(&mut self, t: &Table, i: usize) -> bool {
        let row = t.row(i);
        let bucket = self.buckets.entry(row_hash(row)).or_default();
        if bucket.iter().any(|&j| rows_key_eq(t.row(j), row)) {
            return false;
        }
        bucket.push(i);
        true
    }
}
