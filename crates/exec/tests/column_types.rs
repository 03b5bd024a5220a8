//! A result column whose values do not tell its type (no rows, NULLs only) has the type the
//! query fixes for it (`types.rs`): literals, aggregates, attributes, functions and operators of
//! one result type, a row field's declared type; `null` only where nothing tells. Over a dump
//! written with the test kit, whose classes and fields the test knows.

mod common;

use common::*;
use heapql_exec::execute_stream;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

fn types(b: &heapql_exec::Batch) -> Vec<(&str, &str)> {
    b.columns.iter().map(|c| (c.name.as_str(), c.data.type_name())).collect()
}

#[test]
fn types_the_query_fixes() {
    let mut b = DumpBuilder::new(8);
    let object = b.object_class;
    let item = b.class(
        "com.example.Item",
        Some(object),
        &[("n", BasicType::Int), ("on", BasicType::Boolean), ("c", BasicType::Char), ("d", BasicType::Double), ("next", BasicType::Object)],
    );
    // The same field name declared with another type by another class.
    let other = b.class("com.example.Other", Some(object), &[("n", BasicType::Object)]);
    for i in 0..4 {
        b.instance(item, &[Val::Int(i), Val::Bool(true), Val::Char(65), Val::Double(1.5), Val::Obj(0)]);
    }
    b.instance(other, &[Val::Obj(0)]);
    let heap = open(&temp_file("column-types.hprof", &b.build()));

    let none = bin("<", field(row(), "n"), lit(json!(0)));
    let cols = columns(&[
        ("n", field(row(), "n")),
        ("on", field(row(), "on")),
        ("c", field(row(), "c")),
        ("d", field(row(), "d")),
        ("next", field(row(), "next")),
        ("nested", field(field(row(), "next"), "n")),
        ("addr", attr(row(), "objectAddress")),
        ("name", attr(row(), "displayName")),
        ("roots", attr(row(), "GCRoots")),
        ("text", call("toString", vec![row()])),
        ("cls", call("classof", vec![row()])),
        ("lit", lit(json!("x"))),
        ("null", lit(json!(null))),
        ("cmp", bin(">", field(row(), "n"), lit(json!(1)))),
        ("sum", bin("+", field(row(), "n"), field(row(), "d"))),
        ("join", bin("+", lit(json!("#")), field(row(), "next"))),
    ]);
    let b = run(&heap, select(class("com.example.Item"), json!({"filter": none.clone(), "output": cols})));
    assert_eq!(b.row_count, 0);
    assert_eq!(
        types(&b),
        vec![
            ("n", "number"), ("on", "bool"), ("c", "string"), ("d", "number"), ("next", "object"), ("nested", "null"),
            ("addr", "number"), ("name", "string"), ("roots", "list"), ("text", "string"), ("cls", "object"), ("lit", "string"),
            ("null", "null"), ("cmp", "bool"), ("sum", "number"), ("join", "string"),
        ]
    );
    // NULLs only: the same type, every cell NULL (toString of a non-String; a null reference).
    let b = run(&heap, select(class("com.example.Item"), json!({"output": columns(&[("text", call("toString", vec![row()])), ("next", field(row(), "next"))])})));
    assert_eq!(b.row_count, 4);
    assert_eq!(types(&b), vec![("text", "string"), ("next", "object")]);
    assert!((0..4).all(|r| b.columns[0].is_null(r) && b.columns[1].is_null(r)));
    // Two classes declaring `n` differently: nothing tells.
    let b = run(&heap, select(json!({"kind": "regex", "pattern": "com\\.example\\..*"}), json!({"filter": bin("=", lit(json!(1)), lit(json!(2))), "output": columns(&[("n", field(row(), "n"))])})));
    assert_eq!(types(&b), vec![("n", "null")]);
    // Aggregates over no rows: COUNT 0, MAX NULL — both numbers (MAX of an int field).
    let b = run(
        &heap,
        select(class("com.example.Item"), json!({"filter": none.clone(), "aggregates": [count_star(), aggregate("max", field(row(), "n"), None)], "output": columns(&[("k", agg(0)), ("m", agg(1))])})),
    );
    assert_eq!(b.row_count, 1);
    assert_eq!(types(&b), vec![("k", "number"), ("m", "number")]);
    // A stream without a row says the same types at its end.
    let q = plan(select(class("com.example.Item"), json!({"filter": none.clone(), "output": columns(&[("n", field(row(), "n")), ("x", field(field(row(), "next"), "n"))])})));
    let end = execute_stream(&heapql_exec::ExecContext::new(&heap), &q, 10, &mut |_| true).unwrap();
    assert_eq!((end.rows, end.types), (0, vec![Some("number"), None]));
}
