//! Columnar result batches and the per-column typing rule of `docs/physical-plan.md`:
//! a column whose non-null values are all of one kind gets that type; a column mixing kinds is
//! a `list` column of JSON texts so nothing is lost; a column of NULLs only is `null`.

use crate::value::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    pub row_count: usize,
    pub columns: Vec<Column>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub data: ColumnData,
    /// One byte per row, 1 = NULL; empty when the column has no NULL.
    pub nulls: Vec<u8>,
}

/// Cells of a NULL row hold a placeholder (0, "", ...) and are flagged in `nulls`.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    /// Dense object indices.
    Objects(Vec<u32>),
    Numbers(Vec<f64>),
    Strings(Vec<String>),
    /// 0 or 1.
    Bools(Vec<u8>),
    /// Each cell is the JSON text of a Value (objects as `{"o": idx}`).
    Lists(Vec<String>),
    /// Every cell is NULL.
    Null,
}

impl ColumnData {
    /// The type name used on the TypeScript side.
    pub fn type_name(&self) -> &'static str {
        match self {
            ColumnData::Objects(_) => "object",
            ColumnData::Numbers(_) => "number",
            ColumnData::Strings(_) => "string",
            ColumnData::Bools(_) => "bool",
            ColumnData::Lists(_) => "list",
            ColumnData::Null => "null",
        }
    }
}

impl Column {
    pub fn is_null(&self, row: usize) -> bool {
        matches!(self.data, ColumnData::Null) || self.nulls.get(row).copied() == Some(1)
    }

    /// The cell as a Value (lists and mixed columns come back as parsed JSON values).
    pub fn value(&self, row: usize) -> Value {
        if self.is_null(row) {
            return Value::Null;
        }
        match &self.data {
            ColumnData::Objects(v) => Value::Obj(v[row]),
            ColumnData::Numbers(v) => Value::Float(v[row]),
            ColumnData::Strings(v) => Value::str(&v[row]),
            ColumnData::Bools(v) => Value::Bool(v[row] != 0),
            ColumnData::Lists(v) => Value::from_json(&serde_json::from_str(&v[row]).unwrap_or_default()),
            ColumnData::Null => Value::Null,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    None,
    Obj,
    Num,
    Str,
    Bool,
    List,
    Mixed,
}

fn kind_of(v: &Value) -> Kind {
    match v {
        Value::Null => Kind::None,
        Value::Bool(_) => Kind::Bool,
        Value::Int(_) | Value::Float(_) => Kind::Num,
        Value::Str(_) => Kind::Str,
        Value::Obj(_) => Kind::Obj,
        Value::List(_) => Kind::List,
    }
}

/// Builds one typed column from the cells of a column.
pub fn build_column<'a>(name: &str, cells: impl Iterator<Item = &'a Value> + Clone) -> Column {
    let mut kind = Kind::None;
    let mut any_null = false;
    for v in cells.clone() {
        let k = kind_of(v);
        if k == Kind::None {
            any_null = true;
        } else if kind == Kind::None {
            kind = k;
        } else if kind != k {
            kind = Kind::Mixed;
        }
    }
    let nulls: Vec<u8> = if any_null && kind != Kind::None {
        cells.clone().map(|v| v.is_null() as u8).collect()
    } else {
        Vec::new()
    };
    let data = match kind {
        Kind::None => ColumnData::Null,
        Kind::Obj => ColumnData::Objects(cells.map(|v| if let Value::Obj(o) = v { *o } else { 0 }).collect()),
        Kind::Num => ColumnData::Numbers(cells.map(|v| v.as_f64().unwrap_or(0.0)).collect()),
        Kind::Str => ColumnData::Strings(
            cells.map(|v| if let Value::Str(s) = v { s.to_string() } else { String::new() }).collect(),
        ),
        Kind::Bool => ColumnData::Bools(cells.map(|v| matches!(v, Value::Bool(true)) as u8).collect()),
        Kind::List | Kind::Mixed => ColumnData::Lists(
            cells.map(|v| if v.is_null() { String::new() } else { v.to_json().to_string() }).collect(),
        ),
    };
    Column { name: name.to_string(), data, nulls }
}

/// A column of object indices with no NULL (the `objects` output).
pub fn objects_column(name: &str, ids: Vec<u32>) -> Column {
    Column { name: name.to_string(), data: ColumnData::Objects(ids), nulls: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_rule() {
        let cells = [Value::Int(1), Value::Null, Value::Float(2.5)];
        let c = build_column("n", cells.iter());
        assert_eq!(c.data, ColumnData::Numbers(vec![1.0, 0.0, 2.5]));
        assert_eq!(c.nulls, vec![0, 1, 0]);

        let cells = [Value::Obj(3), Value::str("x")];
        let c = build_column("m", cells.iter());
        assert_eq!(c.data, ColumnData::Lists(vec!["{\"o\":3}".into(), "\"x\"".into()]));
        assert!(c.nulls.is_empty());

        let cells = [Value::Null, Value::Null];
        let c = build_column("z", cells.iter());
        assert_eq!(c.data, ColumnData::Null);
        assert!(c.is_null(1));

        let cells = [Value::Bool(true), Value::Bool(false)];
        assert_eq!(build_column("b", cells.iter()).data, ColumnData::Bools(vec![1, 0]));
        let cells = [Value::Obj(7)];
        assert_eq!(build_column("o", cells.iter()).data, ColumnData::Objects(vec![7]));
        let list = Value::List(vec![Value::Obj(1), Value::Int(2)].into());
        let c = build_column("l", std::iter::once(&list));
        assert_eq!(c.data, ColumnData::Lists(vec!["[{\"o\":1},2]".into()]));
        assert!(matches!(c.value(0), Value::List(_)));
    }
}
