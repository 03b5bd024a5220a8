//! Columnar result batches and the per-column typing rule of `docs/physical-plan.md`:
//! a column whose non-null values are all of one kind gets that type; a column mixing kinds is
//! a `list` column of JSON texts so nothing is lost; a column of NULLs only is `null`.
//!
//! Numbers cross to JavaScript as `f64`. An integer that `f64` cannot hold exactly (a Java long
//! outside ±(2^53 − 1)) is kept beside them, exact, in the column's `wide` list, which is empty
//! in the common case; inside a list cell it is written `{"i": "<digits>"}`.
//!
//! Strings cross as Rust strings. A text that is no valid UTF-16 (a Java string with an unpaired
//! surrogate, `Value::Utf16`) is kept beside them, exact, in the column's `exact` list (empty in
//! the common case) for the door to make the very JavaScript string; inside a list cell it is a
//! JSON string with `\uXXXX` escapes for its unpaired surrogates, which `JSON.parse` reads back
//! exactly.

use std::sync::Arc;

use crate::value::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    pub row_count: usize,
    pub columns: Vec<Column>,
    /// Notes on the whole result (a SUM beyond a long, a field no object read had), each once;
    /// empty on the batches of a stream, whose notes come with its `StreamEnd`.
    pub notes: Vec<String>,
    /// On a stream's batches: how many rows the whole stream gives, when the executor knew it
    /// as it made this batch (`execute_stream`). A plan that has every row before it hands
    /// over its first one (ORDER BY, GROUP BY, DISTINCT, aggregates, set operations) knows it
    /// from the first batch on; a plain select, whose rows come as the scan goes, does not
    /// (None: its `StreamEnd::rows` says it). With a LIMIT it is the rows left after the LIMIT,
    /// never more than the limit. None on `execute`'s one batch, which is the whole result.
    pub total: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub data: ColumnData,
    /// One byte per row, 1 = NULL; empty when the column has no NULL.
    pub nulls: Vec<u8>,
    /// The type the query fixes for the column (`types.rs`; None where nothing tells): the
    /// column's type when no value tells it (no rows, NULLs only), which a part of its rows
    /// also takes (`firstRows` in TypeScript).
    pub fixed: Option<&'static str>,
}

/// Cells of a NULL row hold a placeholder (0, "", ...) and are flagged in `nulls`.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    /// Dense object indices.
    Objects(Vec<u32>),
    /// Every number as `f64`; `wide` holds the integers outside ±(2^53 − 1) exactly.
    Numbers { values: Vec<f64>, wide: WideInts },
    /// Every text as a Rust string (an unpaired surrogate as U+FFFD); `exact` holds the texts
    /// that are not valid UTF-16 with their units.
    Strings { values: Vec<String>, exact: ExactTexts },
    /// 0 or 1.
    Bools(Vec<u8>),
    /// Each cell is the JSON text of a Value (objects as `{"o": idx}`).
    Lists(Vec<String>),
    /// Every cell is NULL.
    Null,
}

impl Batch {
    /// ERR_TOO_LARGE naming the column and row of the first cell (a text, a list's JSON) longer
    /// than `max_units` UTF-16 units, the most one JavaScript string holds: the executor bounds
    /// each cell as it makes it, this is the last word for what it could not foresee (a
    /// concatenation). `first_row` numbers the batch's first row in the whole result. A text is
    /// measured as a JSON string (`text_cell_units`: quotes and escapes counted) whatever
    /// column it is in: in a column that mixes kinds it crosses so, and a text then fails or
    /// fits alike in every batch, and in a count, which makes no batch.
    pub fn check_cell_lengths(&self, first_row: u64, max_units: usize) -> Result<(), crate::ExecError> {
        for c in &self.columns {
            match &c.data {
                ColumnData::Strings { values, exact } => {
                    for (i, cell) in values.iter().enumerate() {
                        let over = match exact.get(i) {
                            Some(units) => units_over(units, max_units),
                            None => text_over(cell, max_units),
                        };
                        if let Some(units) = over {
                            let at = format!("column \"{}\", row {}", c.name, first_row + i as u64 + 1);
                            return Err(cell_too_long(&at, "text", units, max_units, TEXT_FIX));
                        }
                    }
                }
                ColumnData::Lists(cells) => {
                    if let Some(i) = cells.iter().position(|cell| heapql_heap::too_long_for_js(cell, max_units)) {
                        let units = cells[i].encode_utf16().count() as u64;
                        let at = format!("column \"{}\", row {}", c.name, first_row + i as u64 + 1);
                        return Err(cell_too_long(&at, "list", units, max_units, LIST_FIX));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The UTF-16 units of a text written as a JSON string (`write_cell_json`): its two quotes,
/// two for `"`, `\` and the short escapes `\b \t \n \f \r`, six for any other control below
/// U+0020 and for an unpaired surrogate (`\uXXXX`), every other character its own units.
/// The measure of a text cell against the cell limit: a text crosses to JavaScript so in a
/// column that mixes kinds (a list column), and measuring it so in every column makes a text
/// fail or fit whatever rows share its batch, and alike in a count, which makes no batch.
pub(crate) fn text_cell_units(units: impl Iterator<Item = u16>) -> u64 {
    let mut n = 2u64;
    for c in char::decode_utf16(units) {
        n += match c {
            Ok(c) => char_json_units(c),
            Err(_) => 6,
        };
    }
    n
}

#[inline]
fn char_json_units(c: char) -> u64 {
    match c {
        '"' | '\\' | '\u{8}' | '\t' | '\n' | '\u{c}' | '\r' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf16() as u64,
    }
}

/// `text_cell_units` of a text over `max_units`, or None when it fits; a text of at most
/// (max − 2) / 6 bytes fits unread (a byte is at most six units once escaped).
pub(crate) fn text_over(s: &str, max_units: usize) -> Option<u64> {
    if (s.len() as u64).saturating_mul(6).saturating_add(2) <= max_units as u64 {
        return None;
    }
    let n = 2 + s.chars().map(char_json_units).sum::<u64>();
    (n > max_units as u64).then_some(n)
}

/// `text_over` of a text given by its UTF-16 units.
pub(crate) fn units_over(units: &[u16], max_units: usize) -> Option<u64> {
    if (units.len() as u64).saturating_mul(6).saturating_add(2) <= max_units as u64 {
        return None;
    }
    let n = text_cell_units(units.iter().copied());
    (n > max_units as u64).then_some(n)
}

const TEXT_FIX: &str = "select the object itself (its label shows how it starts), its length (`s.@length`), or test it with LIKE";
const LIST_FIX: &str = "take a shorter slice (`a[0:1000]`) or read it in pages, count with `@length`, or LIMIT the rows";

fn cell_too_long(at: &str, what: &str, units: u64, max_units: usize, fix: &str) -> crate::ExecError {
    too_long(at, what, units, what == "text", max_units, fix)
}

/// `cell_too_long`, saying (`json`) that a text is measured as a JSON string.
fn too_long(at: &str, what: &str, units: u64, json: bool, max_units: usize, fix: &str) -> crate::ExecError {
    let measure = if json { " written as a JSON string (its quotes and escapes counted, as a column that mixes kinds carries it)" } else { "" };
    crate::ExecError::new(
        crate::error::ERR_TOO_LARGE,
        format!(
            "{at}: the {what} is {units} UTF-16 units{measure}, more than one JavaScript string holds ({max_units}); \
             no output format can show this cell (csv and json alike); {fix}"
        ),
    )
}

/// ERR_TOO_LARGE of a text of `units` UTF-16 units (its own, not its JSON form) that would be
/// made somewhere else than a cell (a concatenation): `at` says where.
pub(crate) fn text_too_long(at: &str, units: u64, max_units: usize) -> crate::ExecError {
    too_long(at, "text", units, false, max_units, TEXT_FIX)
}

/// `check_cell_lengths` of one value of column `name`, as the cell of its own type: a text as
/// a text cell (`text_cell_units`, as in every column), a list as its JSON (a count checks
/// each cell so, without making batches).
pub(crate) fn check_value_length(name: &str, v: &Value, max_units: usize) -> Result<(), crate::ExecError> {
    let (units, what, fix) = match v {
        Value::Str(s) => match text_over(s, max_units) {
            Some(n) => (n, "text", TEXT_FIX),
            None => return Ok(()),
        },
        Value::Utf16(u) => match units_over(u, max_units) {
            Some(n) => (n, "text", TEXT_FIX),
            None => return Ok(()),
        },
        Value::List(_) => {
            let mut json = String::new();
            write_cell_json(v, &mut json);
            if !heapql_heap::too_long_for_js(&json, max_units) {
                return Ok(());
            }
            (json.encode_utf16().count() as u64, "list", LIST_FIX)
        }
        _ => return Ok(()),
    };
    Err(cell_too_long(&format!("column \"{name}\", a row"), what, units, max_units, fix))
}

impl ColumnData {
    /// The type name used on the TypeScript side.
    pub fn type_name(&self) -> &'static str {
        match self {
            ColumnData::Objects(_) => "object",
            ColumnData::Numbers { .. } => "number",
            ColumnData::Strings { .. } => "string",
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

/// The texts of a string column that are not valid UTF-16: their rows (ascending) and units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExactTexts {
    pub rows: Vec<u32>,
    pub units: Vec<Arc<[u16]>>,
}

impl ExactTexts {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, row: usize) -> Option<&Arc<[u16]>> {
        let row = u32::try_from(row).ok()?;
        self.rows.binary_search(&row).ok().map(|k| &self.units[k])
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
            ColumnData::Strings { values, exact } => match exact.get(row) {
                Some(units) => Value::Utf16(units.clone()),
                None => Value::str(&values[row]),
            },
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
        Value::Str(_) | Value::Utf16(_) => Kind::Str,
        Value::Obj(_) => Kind::Obj,
        Value::List(_) => Kind::List,
    }
}

/// Builds one typed column from the cells of a column: typed by its values; where none tells
/// (no cell, NULLs only), by `fixed`, the type the query fixes for it (`types.rs`), its cells
/// all NULL; else `null`.
pub fn build_column<'a>(name: &str, cells: impl Iterator<Item = &'a Value> + Clone, fixed: Option<&'static str>) -> Column {
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
    if kind == Kind::None {
        let rows = cells.clone().count();
        if let Some(data) = fixed.and_then(|t| all_null_data(t, rows)) {
            return Column { name: name.to_string(), data, nulls: vec![1; rows], fixed };
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
        Kind::Str => {
            let mut exact = ExactTexts::default();
            let values = cells
                .enumerate()
                .map(|(row, v)| match v {
                    Value::Str(s) => s.to_string(),
                    Value::Utf16(u) => {
                        exact.rows.push(row as u32);
                        exact.units.push(u.clone());
                        String::from_utf16_lossy(u)
                    }
                    _ => String::new(),
                })
                .collect();
            ColumnData::Strings { values, exact }
        }
        Kind::Bool => ColumnData::Bools(cells.map(|v| matches!(v, Value::Bool(true)) as u8).collect()),
        Kind::List | Kind::Mixed => ColumnData::Lists(
            cells
                .map(|v| {
                    let mut text = String::new();
                    if !v.is_null() {
                        write_cell_json(v, &mut text);
                    }
                    text
                })
                .collect(),
        ),
    };
    Column { name: name.to_string(), data, nulls, fixed }
}

/// The cells of a column of `rows` NULLs typed `type_name` (their placeholders); None for a
/// name no column data has.
fn all_null_data(type_name: &str, rows: usize) -> Option<ColumnData> {
    Some(match type_name {
        "object" => ColumnData::Objects(vec![0; rows]),
        "number" => ColumnData::Numbers { values: vec![0.0; rows], wide: WideInts::default() },
        "string" => ColumnData::Strings { values: vec![String::new(); rows], exact: ExactTexts::default() },
        "bool" => ColumnData::Bools(vec![0; rows]),
        "list" => ColumnData::Lists(vec![String::new(); rows]),
        _ => return None,
    })
}

/// The JSON text of a list cell, written as `Value::to_json` would be, but a wide integer is
/// `{"i": "<digits>"}` (a JavaScript reader would round it as a JSON number; objects are
/// `{"o": <idx>}` likewise), and a text keeps its unpaired surrogates as `\uXXXX` escapes
/// (serde_json's strings cannot hold them).
fn write_cell_json(v: &Value, out: &mut String) {
    use std::fmt::Write;
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) if !is_safe_integer(*i) => {
            let _ = write!(out, "{{\"i\":\"{i}\"}}");
        }
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(_) => {
            let _ = write!(out, "{}", v.to_json());
        }
        Value::Obj(o) => {
            let _ = write!(out, "{{\"o\":{o}}}");
        }
        Value::Str(s) => {
            out.push('"');
            push_json_escaped(s, out);
            out.push('"');
        }
        Value::Utf16(units) => {
            out.push('"');
            for c in char::decode_utf16(units.iter().copied()) {
                match c {
                    Ok(c) => push_json_escaped(c.encode_utf8(&mut [0; 4]), out),
                    Err(e) => {
                        let _ = write!(out, "\\u{:04x}", e.unpaired_surrogate());
                    }
                }
            }
            out.push('"');
        }
        Value::List(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write_cell_json(item, out);
            }
            out.push(']');
        }
    }
}

/// `s` escaped as the inside of a JSON string, as serde_json escapes it: `"` and `\`, the
/// short escapes `\b \t \n \f \r`, other controls below U+0020 as `\u00xx`.
fn push_json_escaped(s: &str, out: &mut String) {
    use std::fmt::Write;
    let mut rest = s;
    while let Some(at) = rest.find(|c: char| c < ' ' || c == '"' || c == '\\') {
        out.push_str(&rest[..at]);
        let c = rest.as_bytes()[at];
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x09 => out.push_str("\\t"),
            0x0a => out.push_str("\\n"),
            0x0c => out.push_str("\\f"),
            0x0d => out.push_str("\\r"),
            c => {
                let _ = write!(out, "\\u{c:04x}");
            }
        }
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// The Value of a list cell's JSON (the inverse of `write_cell_json`, but for unpaired
/// surrogates, which serde_json does not read: such a cell reads as NULL).
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
    Column { name: name.to_string(), data: ColumnData::Objects(ids), nulls: Vec::new(), fixed: Some("object") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_longer_than_a_javascript_string_is_named_by_column_and_row() {
        let text = |cells: Vec<String>| Column { name: "t".into(), data: ColumnData::Strings { values: cells, exact: ExactTexts::default() }, nulls: vec![], fixed: None };
        let list = |cells: Vec<String>| Column { name: "l".into(), data: ColumnData::Lists(cells), nulls: vec![], fixed: None };
        let batch = |c: Column| Batch { row_count: 3, columns: vec![c], notes: vec![], total: None };
        // A text is measured as a JSON string: its quotes and escapes count.
        let ok = batch(text(vec!["a".into(), "é".repeat(8), "b".into()]));
        assert!(ok.check_cell_lengths(0, 10).is_ok(), "eight two-byte characters are eight units, ten quoted");
        let e = batch(text(vec!["a".into(), "b".into(), "x".repeat(9)])).check_cell_lengths(100, 10).unwrap_err();
        assert_eq!(e.code, crate::error::ERR_TOO_LARGE);
        assert!(e.message.starts_with("column \"t\", row 103: the text is 11 UTF-16 units written as a JSON string"), "{}", e.message);
        let e = batch(text(vec!["a\"b\\c\n\u{1}".into(), "b".into(), "c".into()])).check_cell_lengths(0, 16).unwrap_err();
        assert!(e.message.starts_with("column \"t\", row 1: the text is 17 UTF-16 units"), "{}", e.message);
        // An unpaired surrogate is six units (`\ud800`), as its exact units say, not its U+FFFD.
        let lone = Column {
            name: "t".into(),
            data: ColumnData::Strings { values: vec!["\u{fffd}".into(); 3], exact: ExactTexts { rows: vec![1], units: vec![Arc::from([0xd800u16].as_slice())] } },
            nulls: vec![],
            fixed: None,
        };
        assert!(batch(lone.clone()).check_cell_lengths(0, 8).is_ok());
        assert!(batch(lone).check_cell_lengths(0, 7).unwrap_err().message.starts_with("column \"t\", row 2: the text is 8 UTF-16 units"));
        let e = batch(list(vec!["[]".into(), format!("[{}]", "1,".repeat(6)), "[]".into()])).check_cell_lengths(0, 10).unwrap_err();
        assert!(e.message.starts_with("column \"l\", row 2: the list is 14 UTF-16 units"), "{}", e.message);
    }

    #[test]
    fn typing_rule() {
        let cells = [Value::Int(1), Value::Null, Value::Float(2.5)];
        let c = build_column("n", cells.iter(), None);
        assert_eq!(c.data, ColumnData::Numbers { values: vec![1.0, 0.0, 2.5], wide: WideInts::default() });
        assert_eq!(c.nulls, vec![0, 1, 0]);

        let cells = [Value::Obj(3), Value::str("x")];
        let c = build_column("m", cells.iter(), None);
        assert_eq!(c.data, ColumnData::Lists(vec!["{\"o\":3}".into(), "\"x\"".into()]));
        assert!(c.nulls.is_empty());

        let cells = [Value::Null, Value::Null];
        let c = build_column("z", cells.iter(), None);
        assert_eq!(c.data, ColumnData::Null);
        assert!(c.is_null(1));
        // NULLs only, or no cell, of a type the query fixes: that type, every cell NULL.
        let c = build_column("z", cells.iter(), Some("number"));
        assert_eq!((c.data.type_name(), c.nulls.as_slice(), c.is_null(0)), ("number", &[1u8, 1][..], true));
        assert_eq!(build_column("e", [].iter(), Some("string")).data.type_name(), "string");
        assert_eq!(build_column("e", [].iter(), Some("object")).data, ColumnData::Objects(vec![]));
        // Values tell the type, whatever is fixed.
        assert_eq!(build_column("v", [Value::Null, Value::Int(1)].iter(), Some("string")).data.type_name(), "number");

        let cells = [Value::Bool(true), Value::Bool(false)];
        assert_eq!(build_column("b", cells.iter(), None).data, ColumnData::Bools(vec![1, 0]));
        let cells = [Value::Obj(7)];
        assert_eq!(build_column("o", cells.iter(), None).data, ColumnData::Objects(vec![7]));
        let list = Value::List(vec![Value::Obj(1), Value::Int(2)].into());
        let c = build_column("l", std::iter::once(&list), None);
        assert_eq!(c.data, ColumnData::Lists(vec!["[{\"o\":1},2]".into()]));
        assert!(matches!(c.value(0), Value::List(_)));
    }

    /// List cells are written as serde_json writes `Value::to_json`, but for wide integers and
    /// unpaired surrogates, which keep their exact form.
    #[test]
    fn list_cells_are_serde_json_but_exact() {
        let text = "q\"b\\s/\u{0}\u{1f}\u{8}\t\n\u{c}\r\u{7f}é😀\u{2028}";
        let cells = [
            Value::Null,
            Value::Bool(true),
            Value::Int(-3),
            Value::Float(0.1),
            Value::Float(2.0),
            Value::Float(f64::NAN),
            Value::Float(-0.0),
            Value::str(text),
            Value::Obj(7),
            Value::List(vec![Value::str("a"), Value::List(vec![Value::Int(1)].into()), Value::Null].into()),
        ];
        for v in &cells {
            let mut out = String::new();
            write_cell_json(v, &mut out);
            assert_eq!(out, v.to_json().to_string(), "{v:?}");
        }
        let mixed = [Value::Int(1), Value::text_of_units(&[0x22, 0xD800, 0x5C, 0xDE00, 0xD83D]), Value::List(vec![Value::text_of_units(&[0xDFFF])].into())];
        let c = build_column("m", mixed.iter(), None);
        assert_eq!(c.data, ColumnData::Lists(vec!["1".into(), r#""\"\ud800\\\ude00\ud83d""#.into(), r#"["\udfff"]"#.into()]));
    }

    /// Texts that are no valid UTF-16 cross beside the column's strings, exact.
    #[test]
    fn string_columns_keep_unpaired_surrogates_beside() {
        let lone = Value::text_of_units(&[0xD800, 0x78]);
        let cells = [Value::str("a"), lone.clone(), Value::Null, Value::text_of_units(&[0xDC00])];
        let c = build_column("s", cells.iter(), None);
        let ColumnData::Strings { values, exact } = &c.data else { panic!("{:?}", c.data) };
        assert_eq!(values, &["a", "\u{fffd}x", "", "\u{fffd}"]);
        assert_eq!(exact.rows, vec![1, 3]);
        assert_eq!(&*exact.units[0], &[0xD800, 0x78]);
        assert!(matches!(c.value(1), Value::Utf16(ref u) if **u == [0xD800, 0x78]));
        assert!(matches!(c.value(0), Value::Str(ref s) if &**s == "a"));
        assert!(c.value(2).is_null());
        let plain = build_column("p", [Value::str("a")].iter(), None);
        assert_eq!(plain.data, ColumnData::Strings { values: vec!["a".into()], exact: ExactTexts::default() });
    }

    /// Java longs beyond 2^53 stay exact: f64 would print -6849794470754667710 as
    /// -6849794470754668000 and 17001712275677445 as 17001712275677444.
    #[test]
    fn wide_integers_stay_exact() {
        let big = -6849794470754667710_i64;
        let cells = [Value::Int(1), Value::Int(big), Value::Null, Value::Float(2.5), Value::Int(17001712275677445)];
        let c = build_column("n", cells.iter(), None);
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
        let ColumnData::Numbers { wide, .. } = build_column("e", edge.iter(), None).data else { panic!() };
        assert_eq!(wide.rows, vec![2, 3]);
        assert_eq!(wide.values, vec![MAX_SAFE_INTEGER + 1, i64::MIN]);

        // Inside lists and mixed columns: {"i": "<digits>"}, read back as the same Int.
        let list = Value::List(vec![Value::Int(big), Value::Int(5)].into());
        let c = build_column("l", std::iter::once(&list), None);
        assert_eq!(c.data, ColumnData::Lists(vec![format!("[{{\"i\":\"{big}\"}},5]")]));
        let Value::List(items) = c.value(0) else { panic!() };
        assert!(matches!(items[0], Value::Int(i) if i == big));
        let mixed = [Value::str("x"), Value::Int(i64::MAX)];
        let c = build_column("m", mixed.iter(), None);
        assert_eq!(c.data, ColumnData::Lists(vec!["\"x\"".into(), format!("{{\"i\":\"{}\"}}", i64::MAX)]));
        assert!(matches!(c.value(1), Value::Int(i64::MAX)));
    }
}
