//! The executor's fixes for the OQL tester's report: `+` concatenates a java.lang.String object
//! (D5), a field name no class of the source has is refused also for class objects, statics read
//! through `classof(x)` and `FROM OBJECTS 0x…`, and noted for FROM subquery rows (D6), and SUM
//! is exact, never wrapped around (N2). Over a small dump written with the HPROF test kit.

mod common;

use common::*;
use heapql_exec::{NameKind, Value, ERR_UNKNOWN_FIELD};
use heapql_heap::Heap;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

struct Ids {
    item_class: u64,
    first_item: u64,
}

fn build(name: &str) -> (Heap, Ids) {
    let mut b = DumpBuilder::new(8);
    let object = b.object_class;
    let item = b.class_full(
        "com.example.Item",
        Some(object),
        0,
        &[("tag", BasicType::Object), ("lv", BasicType::Long), ("iv", BasicType::Int), ("other", BasicType::Object)],
        &[("SHARED_HOLDER", Val::Int(7))],
    );
    let sub = b.class_full("com.example.SubItem", Some(item), 0, &[], &[("OWN", Val::Int(8))]);
    let odd = b.string("odd");
    let even = b.string("even");
    let plain = b.instance(object, &[]);
    let mut first = 0;
    // lv: 0..=8 and Long.MAX_VALUE; iv: 0..=9; tag: "even" / "odd", NULL for the last.
    for i in 0..10i64 {
        let tag = if i == 9 { 0 } else if i % 2 == 0 { even } else { odd };
        let lv = if i == 9 { i64::MAX } else { i };
        let id = b.instance(item, &[Val::Obj(tag), Val::Long(lv), Val::Int(i as i32), Val::Obj(plain)]);
        if i == 0 {
            first = id;
        }
    }
    b.instance(sub, &[Val::Obj(odd), Val::Long(1), Val::Int(1), Val::Obj(0)]);
    let path = temp_file(&format!("report-fixes-{name}.hprof"), &b.build());
    (open(&path), Ids { item_class: item, first_item: first })
}

fn error_of(heap: &Heap, q: serde_json::Value) -> heapql_exec::ExecError {
    match try_run(heap, q) {
        Ok(b) => panic!("expected an error, got {} rows", b.row_count),
        Err(e) => e,
    }
}

#[test]
fn plus_concatenates_string_objects() {
    let (heap, _) = build("concat");
    let tag = || field(row(), "tag");
    let out = columns(&[
        ("tag+tag", bin("+", tag(), tag())),
        ("tag+1", bin("+", tag(), lit(json!(1)))),
        ("1+tag", bin("+", lit(json!(1)), tag())),
        ("tag+x", bin("+", tag(), lit(json!("x")))),
        ("tag+other", bin("+", tag(), field(row(), "other"))),
        ("other+1", bin("+", field(row(), "other"), lit(json!(1)))),
    ]);
    let b = run(&heap, select(class("com.example.Item"), json!({"output": out, "filter": bin("<", field(row(), "iv"), lit(json!(2)))})));
    assert_eq!(strings(&b, 0), vec![Some("eveneven".into()), Some("oddodd".into())]);
    assert_eq!(strings(&b, 1), vec![Some("even1".into()), Some("odd1".into())]);
    assert_eq!(strings(&b, 2), vec![Some("1even".into()), Some("1odd".into())]);
    assert_eq!(strings(&b, 3), vec![Some("evenx".into()), Some("oddx".into())]);
    // An object that is no String has no text here (as toString(x) is NULL): NULL, as before.
    assert!(column(&b, 4).iter().all(Value::is_null));
    assert!(column(&b, 5).iter().all(Value::is_null));
    // A NULL String stays NULL, as arithmetic on NULL is.
    let last = run(&heap, select(class("com.example.Item"), json!({"output": columns(&[("t", bin("+", tag(), tag()))]), "filter": bin("=", field(row(), "iv"), lit(json!(9)))})));
    assert!(column(&last, 0)[0].is_null());
}

#[test]
fn statics_of_class_objects_are_checked() {
    let (heap, ids) = build("statics");
    let one_class = bin("=", attr(row(), "displayName"), lit(json!("com.example.Item")));
    let read = |name: &str| select(class("java.lang.Class"), json!({"filter": one_class, "output": columns(&[("v", field(row(), name))])}));
    assert_eq!(single_int(&run(&heap, read("SHARED_HOLDER"))), 7);
    let e = error_of(&heap, read("SHARED_HOLDR"));
    assert_eq!(e.code, ERR_UNKNOWN_FIELD);
    assert!(e.message.contains("static field 'SHARED_HOLDR'"), "{}", e.message);
    assert!(e.message.contains("did you mean SHARED_HOLDER"), "{}", e.message);

    // classof(x).NAME: a static of the row's class or of a superclass.
    let via_classof = |src, name: &str| select(src, json!({"output": columns(&[("v", field(classof_row(), name))]), "limit": 1}));
    assert_eq!(single_int(&run(&heap, via_classof(class("com.example.Item"), "SHARED_HOLDER"))), 7);
    assert_eq!(single_int(&run(&heap, via_classof(class("com.example.SubItem"), "SHARED_HOLDER"))), 7);
    let e = error_of(&heap, via_classof(class("com.example.Item"), "NOPE"));
    assert_eq!(e.code, ERR_UNKNOWN_FIELD);
    assert!(e.message.contains("com.example.Item has no static field 'NOPE'") && e.message.contains("SHARED_HOLDER"), "{}", e.message);
    // The same as data: the name, the class, its statics.
    let unknown = e.unknown.as_deref().expect("the refused static as data");
    assert_eq!((unknown.kind, unknown.name.as_str(), unknown.class_name.as_deref()), (NameKind::Static, "NOPE", Some("com.example.Item")));
    assert!(unknown.fields.as_ref().is_some_and(|f| f.iter().any(|n| n == "SHARED_HOLDER")), "{unknown:?}");
    let clazz = select(class("com.example.Item"), json!({"output": columns(&[("v", field(attr(row(), "clazz"), "NOPE"))])}));
    assert_eq!(error_of(&heap, clazz).code, ERR_UNKNOWN_FIELD);

    // FROM OBJECTS 0x… of a class object: the statics of the class it describes.
    let class_obj = heap.class(heap.classes_named("com.example.Item")[0]).object;
    let address = format!("{:#x}", heap.object_id(class_obj));
    assert_eq!(address, format!("{:#x}", ids.item_class));
    let at = |name: &str| select(json!({"kind": "address", "address": address}), json!({"output": columns(&[("v", field(row(), name))])}));
    assert_eq!(single_int(&run(&heap, at("SHARED_HOLDER"))), 7);
    let e = error_of(&heap, at("OWN"));
    assert!(e.message.contains("com.example.Item has no static field 'OWN'"), "{}", e.message);
}

#[test]
fn fields_of_an_address_are_checked() {
    let (heap, ids) = build("address");
    let address = format!("{:#x}", ids.first_item);
    let at = |name: &str| select(json!({"kind": "address", "address": address}), json!({"output": columns(&[("v", field(row(), name))])}));
    assert_eq!(single_int(&run(&heap, at("iv"))), 0);
    let e = error_of(&heap, at("nosuch"));
    assert_eq!(e.code, ERR_UNKNOWN_FIELD);
    assert!(e.message.contains("com.example.Item has no field 'nosuch' (its fields: "), "{}", e.message);
    // INSTANCEOF java.lang.Object: not checked (a query over every object may read fields only
    // some dumps have, as the collection named queries do); no note either.
    let whole = |name: &str| select(instanceof("java.lang.Object"), json!({"output": columns(&[("v", field(row(), name))]), "filter": bin("=", field(row(), "iv"), lit(json!(3)))}));
    assert_eq!(single_int(&run(&heap, whole("iv"))), 3);
    let none = run(&heap, whole("nosuch"));
    assert!(column(&none, 0)[0].is_null());
    assert!(none.notes.is_empty(), "{:?}", none.notes);
}

#[test]
fn a_field_no_subquery_row_has_is_noted() {
    let (heap, _) = build("subquery");
    let sub = || json!({"kind": "subquery", "query": select(class("com.example.Item"), json!({}))});
    let read = |name: &str| select(sub(), json!({"alias": "x", "output": columns(&[("v", field(row(), name))])}));
    let b = run(&heap, read("nosuch"));
    assert_eq!(b.row_count, 10);
    assert!(column(&b, 0).iter().all(Value::is_null));
    assert_eq!(b.notes.len(), 1, "{:?}", b.notes);
    assert!(b.notes[0].contains("no object read had a field 'nosuch'"), "{:?}", b.notes);
    // A field some row has: no note.
    let ok = run(&heap, read("iv"));
    assert_eq!(ints(&ok, 0), (0..10).collect::<Vec<_>>());
    assert!(ok.notes.is_empty(), "{:?}", ok.notes);
    // A column of a value subquery read as an object.
    let inner = select(class("com.example.Item"), json!({"output": columns(&[("t", field(row(), "tag"))])}));
    let cols = select(json!({"kind": "subquery", "query": inner}), json!({"alias": "x", "output": columns(&[("v", field(col("t"), "nope"))])}));
    let b = run(&heap, cols);
    assert!(b.notes.iter().any(|n| n.contains("field 'nope'")), "{:?}", b.notes);
}

#[test]
fn sum_of_longs_is_exact_and_never_wraps() {
    let (heap, _) = build("sum");
    let q = |arg: serde_json::Value, f: &str| {
        select(
            class("com.example.Item"),
            json!({"aggregates": [aggregate(f, arg, None)], "output": columns(&[("s", agg(0))])}),
        )
    };
    // {0..8, Long.MAX_VALUE}: wrapped it was -9223372036854775773.
    let b = run(&heap, q(field(row(), "lv"), "sum"));
    match column(&b, 0)[0] {
        Value::Float(f) => assert_eq!(f, (i64::MAX as i128 + 36) as f64),
        ref v => panic!("{v:?}"),
    }
    assert_eq!(b.notes.len(), 1, "{:?}", b.notes);
    assert!(b.notes[0].contains("beyond a Java long"), "{:?}", b.notes);
    // AVG agrees with it.
    match column(&run(&heap, q(field(row(), "lv"), "avg")), 0)[0] {
        Value::Float(f) => assert_eq!(f, (i64::MAX as i128 + 36) as f64 / 10.0),
        ref v => panic!("{v:?}"),
    }
    // Within a long: an exact integer, no note.
    let small = run(&heap, q(field(row(), "iv"), "sum"));
    assert_eq!(single_int(&small), 45);
    assert!(small.notes.is_empty());
    // Grouped: each group its own exact sum.
    let grouped = select(
        class("com.example.Item"),
        json!({"groupBy": [bin("=", field(row(), "iv"), lit(json!(9)))], "aggregates": [aggregate("sum", field(row(), "lv"), None)],
               "output": columns(&[("k", key(0)), ("s", agg(0))])}),
    );
    let b = run(&heap, grouped);
    assert_eq!(ints(&b, 1), vec![36, i64::MAX]);
    assert!(b.notes.is_empty());
}
