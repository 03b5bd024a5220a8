//! A Java `float` reads as its shortest decimal: `0.1f` is 0.1 (the double nearest to it), not
//! `0.10000000149011612` (the float widened), in fields, statics, `float[]` elements and slices,
//! and comparisons follow that value (`x.f = 0.1`). Over a small dump written with the HPROF
//! test kit.

mod common;

use common::*;
use heapql_exec::{ColumnData, Value};
use heapql_heap::Heap;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

fn build(name: &str) -> Heap {
    let mut b = DumpBuilder::new(8);
    let floats = [0.1f32, 1.1, 3.4028235e38, f32::MIN_POSITIVE, 1e-45, -0.0, 16777217.0, 0.3];
    let vals: Vec<Val> = floats.iter().map(|&f| Val::Float(f)).collect();
    let array = b.primitive_array(BasicType::Float, &vals);
    let c = b.class_full(
        "com.example.F",
        Some(b.object_class),
        0,
        &[("f", BasicType::Float), ("d", BasicType::Double), ("a", BasicType::Object)],
        &[("SF", Val::Float(0.1))],
    );
    for f in floats {
        b.instance(c, &[Val::Float(f), Val::Double(f as f64), Val::Obj(array)]);
    }
    b.instance(c, &[Val::Float(f32::NAN), Val::Double(0.0), Val::Obj(0)]);
    b.instance(c, &[Val::Float(f32::NEG_INFINITY), Val::Double(0.0), Val::Obj(0)]);
    open(&temp_file(&format!("floats-{name}.hprof"), &b.build()))
}

fn floats(b: &heapql_exec::Batch, c: usize) -> Vec<f64> {
    column(b, c)
        .into_iter()
        .map(|v| match v {
            Value::Float(f) => f,
            Value::Int(i) => i as f64,
            other => panic!("not a number: {other:?}"),
        })
        .collect()
}

#[test]
fn float_fields_read_as_their_shortest_decimal() {
    let heap = build("fields");
    let b = run(&heap, select(class("com.example.F"), json!({"output": columns(&[("f", field(row(), "f"))])})));
    let got = floats(&b, 0);
    assert_eq!(&got[..8], &[0.1, 1.1, 3.4028235e38, 1.1754944e-38, 1e-45, -0.0, 16777216.0, 0.3]);
    assert!(got[6] == 16777216.0 && got[5].is_sign_negative());
    assert!(got[8].is_nan());
    assert_eq!(got[9], f64::NEG_INFINITY);
    // The batch carries the same numbers JavaScript gets.
    let ColumnData::Numbers { values, .. } = &b.columns[0].data else { panic!("{:?}", b.columns[0].data) };
    assert_eq!(values[0], 0.1);
    // Comparisons follow that value; a double field keeps its own (widened) value.
    let eq = |e: serde_json::Value| run(&heap, select(class("com.example.F"), json!({"filter": e}))).row_count;
    assert_eq!(eq(bin("=", field(row(), "f"), lit(json!(0.1)))), 1);
    assert_eq!(eq(bin("=", field(row(), "f"), lit(json!(1.1)))), 1);
    assert_eq!(eq(bin("=", field(row(), "d"), lit(json!(0.1)))), 0);
    // -0.0, 1e-45, MIN_POSITIVE and -Infinity (NaN is not ordered).
    assert_eq!(eq(bin("<", field(row(), "f"), lit(json!(0.1)))), 4);
}

#[test]
fn float_statics_array_elements_and_slices_likewise() {
    let heap = build("arrays");
    let idx = |i: i64| json!({"k": "index", "e": field(row(), "a"), "i": lit(json!(i))});
    let b = run(
        &heap,
        select(class("com.example.F"), json!({"limit": 1, "output": columns(&[
            ("SF", field(classof_row(), "SF")),
            ("a[0]", idx(0)),
            ("a[1]", idx(1)),
            ("a[7] * 10", bin("*", idx(7), lit(json!(10)))),
            ("a[0:2]", json!({"k": "slice", "e": field(row(), "a"), "from": lit(json!(0)), "to": lit(json!(2))})),
        ])})),
    );
    assert_eq!(floats(&b, 0), vec![0.1]);
    assert_eq!(floats(&b, 1), vec![0.1]);
    assert_eq!(floats(&b, 2), vec![1.1]);
    assert_eq!(floats(&b, 3), vec![0.3 * 10.0]);
    assert_eq!(b.columns[4].data, ColumnData::Lists(vec!["[0.1,1.1]".into()]));
    // Grouping meets the literal too.
    let g = run(
        &heap,
        select(class("com.example.F"), json!({"filter": {"k": "in", "e": field(row(), "f"), "query": select(class("com.example.F"), json!({
            "output": columns(&[("x", lit(json!(0.3)))]), "limit": 1}))}})),
    );
    assert_eq!(g.row_count, 1);
}
