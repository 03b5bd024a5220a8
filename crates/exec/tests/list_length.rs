//! `@length` of a list (`x.@outbounds`, `x.@GCRoots`, a slice, `dominators(x)`) is its number of
//! elements, as MAT gives the length of the id array `outbounds(x)` is; it was NULL for every
//! list. Checked object for object against the lists themselves, in an output column and in a
//! filter (the two ways the executor evaluates an attribute).

mod common;

use common::*;
use heapql_exec::{execute, ExecContext, Value};
use heapql_heap::Heap;
use serde_json::json;

#[test]
fn the_length_of_a_list_is_its_number_of_elements() {
    let heap: Heap = open(&repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof"));
    let ctx = ExecContext::new(&heap);
    for list in ["outbounds", "GCRoots"] {
        let cols = columns(&[("x", row()), ("l", attr(row(), list)), ("n", attr(attr(row(), list), "length"))]);
        let b = execute(&ctx, &plan(select(all(), json!({ "output": cols })))).unwrap();
        let xs = objects(&b, 0);
        let lists = column(&b, 1);
        let lengths = column(&b, 2);
        let mut with_three = Vec::new();
        let mut lists_seen = 0;
        for ((x, l), n) in xs.iter().zip(&lists).zip(&lengths) {
            match l {
                Value::List(items) => {
                    lists_seen += 1;
                    assert_eq!(number(n), Some(items.len() as f64), "@{list}.@length of object {x}: {n:?}");
                    if items.len() == 3 {
                        with_three.push(*x);
                    }
                }
                _ => assert!(matches!(n, Value::Null), "@{list}.@length of object {x} without a list: {n:?}"),
            }
        }
        assert!(lists_seen > 100, "@{list}: {lists_seen} lists");
        // The same length in a filter.
        let filter = bin("=", attr(attr(row(), list), "length"), lit(json!(3)));
        let b = execute(&ctx, &plan(select(all(), json!({ "filter": filter })))).unwrap();
        assert_eq!(objects(&b, 0), with_three, "@{list}.@length = 3");
    }
}

/// A number cell as a double (a column of numbers may hold its integers either way).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}
