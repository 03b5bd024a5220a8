//! Java strings may hold unpaired UTF-16 surrogates. Their values keep the exact UTF-16 content:
//! strings that differ only in such units are not merged by GROUP BY, DISTINCT or `=`, and
//! ORDER BY tells them apart (UTF-16 unit order, Java's `compareTo`, a lone surrogate being its
//! unit as in every other string). Slices, concatenation and `@length` work on the exact units,
//! of a String object as of its text. Over a
//! small dump written with the HPROF test kit.

mod common;

use common::*;
use heapql_exec::Value;
use heapql_heap::Heap;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

const X: u16 = b'x' as u16;

struct Ids {
    /// `\ud800x` (byte[] UTF-16), `\ud800x` (char[]), `\udc00x`, `\ufffdx` (valid), `😀`, `\ude00\ud83d`.
    strings: [u64; 6],
}

fn build(name: &str) -> (Heap, Ids) {
    let mut b = DumpBuilder::new(8);
    // Made in an order that sorts differently from their code points.
    let c = b.utf16_string(&[0xFFFD, X]);
    let bb = b.utf16_string(&[0xDC00, X]);
    let a1 = b.utf16_string(&[0xD800, X]);
    let a2 = b.char_string(&[0xD800, X]);
    let d = b.utf16_string(&[0xD83D, 0xDE00]);
    let e = b.utf16_string(&[0xDE00, 0xD83D]);
    // Holders with a char field each: a lone high surrogate, a lone low one.
    let holder = b.class("com.example.C", Some(b.object_class), &[("c", BasicType::Char), ("s", BasicType::Object)]);
    b.instance(holder, &[Val::Char(0xD800), Val::Obj(a1)]);
    b.instance(holder, &[Val::Char(0xDC00), Val::Obj(bb)]);
    let path = temp_file(&format!("surrogates-{name}.hprof"), &b.build());
    (open(&path), Ids { strings: [a1, a2, bb, c, d, e] })
}

fn text() -> serde_json::Value {
    call("toString", vec![row()])
}

fn shown(v: &Value) -> String {
    format!("{v:?}")
}

#[test]
fn grouping_and_distinct_keep_strings_that_differ_in_unpaired_surrogates_apart() {
    let (heap, _) = build("group");
    // duplicate-strings: only the two copies of `\ud800x` are duplicates.
    let dup = run(
        &heap,
        select(
            class("java.lang.String"),
            json!({"groupBy": [text()], "aggregates": [count_star()], "having": bin(">", agg(0), lit(json!(1))),
                   "output": columns(&[("value", key(0)), ("count", agg(0))])}),
        ),
    );
    assert_eq!(ints(&dup, 1), vec![2], "{:?}", column(&dup, 0));
    assert_eq!(shown(&column(&dup, 0)[0]), "Utf16([55296, 120])");
    let groups = run(
        &heap,
        select(class("java.lang.String"), json!({"groupBy": [text()], "aggregates": [count_star()], "output": columns(&[("value", key(0)), ("count", agg(0))])})),
    );
    assert_eq!(groups.row_count, 5);
    assert_eq!(ints(&groups, 1), vec![1, 1, 2, 1, 1]);
    let distinct = run(&heap, select(class("java.lang.String"), json!({"output": columns(&[("t", text())]), "distinct": true})));
    assert_eq!(distinct.row_count, 5);
    // A char field holding a lone surrogate is that unit, not U+FFFD.
    let chars = run(
        &heap,
        select(class("com.example.C"), json!({"groupBy": [field(row(), "c")], "aggregates": [count_star()], "output": columns(&[("c", key(0))])})),
    );
    assert_eq!(chars.row_count, 2);
    assert_eq!(column(&chars, 0).iter().map(shown).collect::<Vec<_>>(), vec!["Utf16([55296])", "Utf16([56320])"]);
}

#[test]
fn equality_is_exact() {
    let (heap, ids) = build("eq");
    let count = |filter: serde_json::Value| run(&heap, select(class("java.lang.String"), json!({"filter": filter}))).row_count;
    // `\ud800x` equals itself in both forms, and nothing else.
    let a1 = heap.index_of(ids.strings[0]).unwrap();
    let a1_text = json!({"k": "in", "e": text(), "query": select(class("java.lang.String"), json!({
        "output": columns(&[("t", text())]), "filter": bin("=", attr(row(), "objectId"), lit(json!(a1)))}))});
    assert_eq!(count(a1_text), 2);
    // An object compared with a string value compares its exact text; a String object with the
    // text of another one likewise.
    let c = run(&heap, select(class("com.example.C"), json!({"output": columns(&[
        ("s = toString(s)", bin("=", field(row(), "s"), call("toString", vec![field(row(), "s")]))),
        ("toString(s) = c + 'x'", bin("=", call("toString", vec![field(row(), "s")]), bin("+", field(row(), "c"), lit(json!("x"))))),
        ("c = toString(s)[0]", bin("=", field(row(), "c"), json!({"k": "index", "e": call("toString", vec![field(row(), "s")]), "i": lit(json!(0))}))),
        ("c = '\u{fffd}'", bin("=", field(row(), "c"), lit(json!("\u{fffd}")))),
    ])})));
    for col in 0..3 {
        assert!(column(&c, col).iter().all(|v| matches!(v, Value::Bool(true))), "column {col}: {:?}", column(&c, col));
    }
    assert!(column(&c, 3).iter().all(|v| matches!(v, Value::Bool(false))), "{:?}", column(&c, 3));
}

#[test]
fn ordering_tells_them_apart_in_utf16_unit_order() {
    let (heap, ids) = build("order");
    let b = run(&heap, select(class("java.lang.String"), json!({"orderBy": [{"expr": text(), "desc": false}]})));
    let got: Vec<u64> = objects(&b, 0).into_iter().map(|o| heap.object_id(o)).collect();
    let [a1, a2, bb, c, d, e] = ids.strings;
    // By unit, as Java's compareTo: \ud800x (twice, in arrival order: a1 was made first)
    // < 😀 (\ud83d\ude00) < \udc00x < \ude00\ud83d < \ufffdx.
    assert_eq!(got, vec![a1, a2, d, bb, e, c]);
    // MIN and MAX follow the same order.
    let mm = run(
        &heap,
        select(class("java.lang.String"), json!({"aggregates": [aggregate("min", text(), None), aggregate("max", text(), None)],
            "output": columns(&[("min", agg(0)), ("max", agg(1))])})),
    );
    assert_eq!(shown(&column(&mm, 0)[0]), "Utf16([55296, 120])");
    assert_eq!(strings(&mm, 1), vec![Some("\u{fffd}x".to_string())]);
}

#[test]
fn slices_concatenation_and_length_work_on_the_exact_units() {
    let (heap, ids) = build("units");
    let d = heap.index_of(ids.strings[4]).unwrap();
    let idx = |e: serde_json::Value, i: i64| json!({"k": "index", "e": e, "i": lit(json!(i))});
    let slice = |e: serde_json::Value, a: i64, b: i64| json!({"k": "slice", "e": e, "from": lit(json!(a)), "to": lit(json!(b))});
    let b = run(
        &heap,
        select(class("java.lang.String"), json!({"filter": bin("=", attr(row(), "objectId"), lit(json!(d))), "output": columns(&[
            ("len", attr(text(), "length")),
            ("olen", attr(row(), "length")),
            ("halves", bin("+", idx(text(), 0), idx(text(), 1))),
            ("rejoined", bin("=", bin("+", slice(text(), 0, 1), slice(text(), 1, 2)), row())),
            ("first", slice(text(), 0, 1)),
            ("swapped", bin("+", idx(text(), 1), idx(text(), 0))),
        ])})),
    );
    assert_eq!(ints(&b, 0), vec![2]);
    assert_eq!(ints(&b, 1), vec![2]);
    // Two halves cut apart and joined again are the character again.
    assert_eq!(strings(&b, 2), vec![Some("😀".to_string())]);
    assert!(matches!(column(&b, 3)[0], Value::Bool(true)), "{:?}", column(&b, 3));
    assert_eq!(shown(&column(&b, 4)[0]), "Utf16([55357])");
    // Joined the other way they stay two unpaired surrogates: the text of `\ude00\ud83d`.
    assert_eq!(shown(&column(&b, 5)[0]), "Utf16([56832, 55357])");
    let e = heap.index_of(ids.strings[5]).unwrap();
    let same = run(&heap, select(class("java.lang.String"), json!({"filter": bin("and",
        bin("=", attr(row(), "objectId"), lit(json!(e))),
        bin("=", text(), bin("+", idx(lit(json!("😀")), 1), idx(lit(json!("😀")), 0))))})));
    assert_eq!(same.row_count, 1);
    // LIKE matches the text with each unpaired surrogate read as U+FFFD.
    let like = run(&heap, select(class("java.lang.String"), json!({"filter": {"k": "like", "e": text(), "pattern": "\u{fffd}x", "negate": false}})));
    assert_eq!(like.row_count, 4);
}

/// A java.lang.String object is indexed and sliced as its text is (`s[0]`, `s[0:1]`, not only
/// `toString(s)[0]`): the same units, a negative bound from the end; NULL past the end.
#[test]
fn string_objects_index_and_slice_as_their_text() {
    let (heap, ids) = build("objects");
    let d = heap.index_of(ids.strings[4]).unwrap();
    let idx = |e: serde_json::Value, i: i64| json!({"k": "index", "e": e, "i": lit(json!(i))});
    let slice = |e: serde_json::Value, a: serde_json::Value, b: serde_json::Value| json!({"k": "slice", "e": e, "from": a, "to": b});
    let b = run(
        &heap,
        select(class("java.lang.String"), json!({"filter": bin("=", attr(row(), "objectId"), lit(json!(d))), "output": columns(&[
            ("same_unit", bin("=", idx(row(), 1), idx(text(), 1))),
            ("same_slice", bin("=", slice(row(), lit(json!(0)), lit(json!(1))), slice(text(), lit(json!(0)), lit(json!(1))))),
            ("whole", bin("=", slice(row(), lit(json!(0)), lit(json!(null))), row())),
            ("last", slice(row(), lit(json!(-1)), lit(json!(null)))),
            ("past", idx(row(), 2)),
        ])})),
    );
    assert_eq!(b.row_count, 1);
    assert!(matches!(column(&b, 0)[0], Value::Bool(true)), "{:?}", column(&b, 0));
    assert!(matches!(column(&b, 1)[0], Value::Bool(true)), "{:?}", column(&b, 1));
    assert!(matches!(column(&b, 2)[0], Value::Bool(true)), "{:?}", column(&b, 2));
    assert_eq!(shown(&column(&b, 3)[0]), "Utf16([56832])");
    assert!(matches!(column(&b, 4)[0], Value::Null), "{:?}", column(&b, 4));
}

#[test]
fn list_cells_carry_the_exact_units_as_json_escapes() {
    let (heap, ids) = build("lists");
    // The first two chars of the char[] behind `\ud800x`: a lone surrogate and `x`.
    let chars = run(
        &heap,
        select(class("java.lang.String"), json!({"filter": bin("=", attr(row(), "objectId"), lit(json!(heap.index_of(ids.strings[1]).unwrap()))),
            "output": columns(&[("v", json!({"k": "slice", "e": field(row(), "value"), "from": lit(json!(0)), "to": lit(json!(2))}))])})),
    );
    assert_eq!(format!("{:?}", chars.columns[0].data), r#"Lists(["[\"\\ud800\",\"x\"]"])"#);
}
