//! Columnar result batches and the per-column typing rule of `docs/physical-plan.md`:
//! a column whose non-null values are all of one kind gets that type; a column mixing kinds is
//! a `list` column of JSON texts so nothing is lost; a column of NULLs only is `null`.
//!
//! Numbers cross to JavaScript as `f64`. An integer that `f64` cannot hold exactly (a Java long
//! outside ±(2^53 − 1)) is kept beside them, exact, in the column's `wide` list, which is empty
//! in the common case; inside a list cell it is written `{"i": "<digits>"}`.

use crate::value::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    pub row_count: usize,
    pub columns: Vec<Column>,
    /// Notes on the whole result (a SUM beyond a long, a field no object read had), each once;
    /// empty on the batches of a stream, whose notes come with its `StreamEnd`.
    pub notes: Vec<String>,
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
    /// Every number as `f64`; `wide` holds the integers outside ±(2^53 − 1) exactly.
    Numbers { values: Vec<f64>, wide: WideInts },
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
            ColumnData::Numbers { .. } => "number",
            ColumnData::Strings(_) => "string",
            ColumnData::Bools(_) => "bool",
            ColumnData::Lists(_) => "list",
            ColumnData::Null => "null",
        }
    }
}

/// The largest integer magnitude an `f64` (a JavaScript number) holds exactly, with its
/// neighbours distinguishable: `Number.MAX_SAFE_INTEGER`.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Whether an integer crosses as a plain number (else it is wide: kept exact beside).
pub fn is_safe_integer(i: i64) -> bool {
    (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i)
}

/// The integers of a number column that `f64` cannot hold: their rows (ascending) and values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WideInts {
    pub rows: Vec<u32>,
    pub values: Vec<i64>,
}

impl WideInts {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, row: usize) -> Option<i64> {
        let row = u32::try_from(row).ok()?;
        self.rows.binary_search(&row).ok().map(|k| self.values[k])
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
            ColumnData::Numbers { values, wide } => match wide.get(row) {
                Some(i) => Value::Int(i),
                None => Value::Float(values[row]),
            },
            ColumnData::Strings(v) => Value::str(&v[row]),
            ColumnData::Bools(v) => Value::Bool(v[row] != 0),
            ColumnData::Lists(v) => cell_value(&serde_json::from_str(&v[row]).unwrap_or_default()),
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
        Kind::Num => {
            let mut wide = WideInts::default();
            let values = cells
                .enumerate()
                .map(|(row, v)| {
                    if let Value::Int(i) = v {
                        if !is_safe_integer(*i) {
                            wide.rows.push(row as u32);
                            wide.values.push(*i);
                        }
                    }
                    v.as_f64().unwrap_or(0.0)
                })
                .collect();
            ColumnData::Numbers { values, wide }
        }
        Kind::Str => ColumnData::Strings(
            cells.map(|v| if let Value::Str(s) = v { s.to_string() } else { String::new() }).collect(),
        ),
        Kind::Bool => ColumnData::Bools(cells.map(|v| matches!(v, Value::Bool(true)) as u8).collect()),
        Kind::List | Kind::Mixed => ColumnData::Lists(
            cells.map(|v| if v.is_null() { String::new() } else { cell_json(v).to_string() }).collect(),
        ),
    };
    Column { name: name.to_string(), data, nulls }
}

/// The JSON of a list cell: `Value::to_json`, but a wide integer is `{"i": "<digits>"}` (a
/// JavaScript reader would round it as a JSON number; objects are `{"o": <idx>}` likewise).
fn cell_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Int(i) if !is_safe_integer(*i) => serde_json::json!({ "i": i.to_string() }),
        Value::List(items) => serde_json::Value::Array(items.iter().map(cell_json).collect()),
        other => other.to_json(),
    }
}

/// The Value of a list cell's JSON (the inverse of `cell_json`).
fn cell_value(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Array(a) => Value::List(a.iter().map(cell_value).collect()),
        serde_json::Value::Object(m) => match m.get("i").and_then(|i| i.as_str()).and_then(|i| i.parse().ok()) {
            Some(i) => Value::Int(i),
            None => Value::from_json(j),
        },
        other => Value::from_json(other),
    }
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
        assert_eq!(c.data, ColumnData::Numbers { values: vec![1.0, 0.0, 2.5], wide: WideInts::default() });
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

    /// Java longs beyond 2^53 stay exact: f64 would print -6849794470754667710 as
    /// -6849794470754668000 and 17001712275677445 as 17001712275677444.
    #[test]
    fn wide_integers_stay_exact() {
        let big = -6849794470754667710_i64;
        let cells = [Value::Int(1), Value::Int(big), Value::Null, Value::Float(2.5), Value::Int(17001712275677445)];
        let c = build_column("n", cells.iter());
        let ColumnData::Numbers { values, wide } = &c.data else { panic!("{:?}", c.data) };
        assert_eq!(values.len(), 5);
        assert_eq!(wide.rows, vec![1, 4]);
        assert_eq!(wide.values, vec![big, 17001712275677445]);
        assert!(matches!(c.value(1), Value::Int(i) if i == big));
        assert!(matches!(c.value(4), Value::Int(17001712275677445)));
        assert!(matches!(c.value(0), Value::Float(f) if f == 1.0));
        assert!(c.is_null(2));

        // The edges: ±(2^53 - 1) are plain numbers, one beyond is wide.
        let edge = [Value::Int(MAX_SAFE_INTEGER), Value::Int(-MAX_SAFE_INTEGER), Value::Int(MAX_SAFE_INTEGER + 1), Value::Int(i64::MIN)];
        let ColumnData::Numbers { wide, .. } = build_column("e", edge.iter()).data else { panic!() };
        assert_eq!(wide.rows, vec![2, 3]);
        assert_eq!(wide.values, vec![MAX_SAFE_INTEGER + 1, i64::MIN]);

        // Inside lists and mixed columns: {"i": "<digits>"}, read back as the same Int.
        let list = Value::List(vec![Value::Int(big), Value::Int(5)].into());
        let c = build_column("l", std::iter::once(&list));
        assert_eq!(c.data, ColumnData::Lists(vec![format!("[{{\"i\":\"{big}\"}},5]")]));
        let Value::List(items) = c.value(0) else { panic!() };
        assert!(matches!(items[0], Value::Int(i) if i == big));
        let mixed = [Value::str("x"), Value::Int(i64::MAX)];
        let c = build_column("m", mixed.iter());
        assert_eq!(c.data, ColumnData::Lists(vec!["\"x\"".into(), format!("{{\"i\":\"{}\"}}", i64::MAX)]));
        assert!(matches!(c.value(1), Value::Int(i64::MAX)));
    }
}
