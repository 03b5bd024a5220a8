//! Android arrays dumped without their contents (PRIMITIVE ARRAY NODATA): a String over one has
//! no text (`toString` is NULL), but its length is known from its fields: `@length` (and
//! `length()`) read the `count` field, or without one the array's length (half of it for a
//! JDK 9+ UTF-16 `byte[]`). Over small dumps written with the HPROF test kit.

mod common;

use common::*;
use heapql_heap::Heap;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

/// Strings of the kit's JDK 9+ layout (`value`, `coder`, `hash`) with a value of each kind, in
/// this order: NODATA byte[5] Latin-1, NODATA byte[8] UTF-16, NODATA char[4], a null value, a
/// real "hello".
fn jdk9_layout(name: &str) -> Heap {
    let mut b = DumpBuilder::new(4);
    let latin1 = b.nodata_array(BasicType::Byte, 5);
    let utf16 = b.nodata_array(BasicType::Byte, 8);
    let chars = b.nodata_array(BasicType::Char, 4);
    for (value, coder) in [(latin1, 0), (utf16, 1), (chars, 0), (0, 0)] {
        b.string_over(value, coder);
    }
    b.string("hello");
    open(&temp_file(&format!("nodata-jdk9-{name}.hprof"), &b.build()))
}

/// Android's String layout (`count`, `hash`, `value`; no coder), as a second class of the name:
/// NODATA byte[5] with count 5, NODATA char[8] with count 3, real char[] "héllo" with count 5.
fn android_layout(name: &str) -> Heap {
    let mut b = DumpBuilder::new(4);
    let string = b.class(
        "java.lang.String",
        Some(b.object_class),
        &[("count", BasicType::Int), ("hash", BasicType::Int), ("value", BasicType::Object)],
    );
    let compressed = b.nodata_array(BasicType::Byte, 5);
    let chars = b.nodata_array(BasicType::Char, 8);
    let real: Vec<Val> = "héllo".encode_utf16().map(Val::Char).collect();
    let real = b.primitive_array(BasicType::Char, &real);
    for (count, value) in [(5, compressed), (3, chars), (5, real)] {
        b.instance(string, &[Val::Int(count), Val::Int(0), Val::Obj(value)]);
    }
    open(&temp_file(&format!("nodata-android-{name}.hprof"), &b.build()))
}

fn lengths(heap: &Heap, class_filter: Option<serde_json::Value>) -> (Vec<Option<i64>>, Vec<Option<String>>) {
    let mut mods = json!({"output": columns(&[("len", attr(row(), "length")), ("text", call("toString", vec![row()]))])});
    if let Some(f) = class_filter {
        mods["filter"] = f;
    }
    let b = run(heap, select(class("java.lang.String"), mods));
    let lens = column(&b, 0)
        .into_iter()
        .map(|v| match v {
            heapql_exec::Value::Null => None,
            heapql_exec::Value::Int(i) => Some(i),
            heapql_exec::Value::Float(f) => Some(f as i64),
            other => panic!("{other:?}"),
        })
        .collect();
    (lens, strings(&b, 1))
}

#[test]
fn length_of_a_string_without_contents_is_the_stated_length() {
    let heap = jdk9_layout("length");
    let (lens, texts) = lengths(&heap, None);
    assert_eq!(lens, vec![Some(5), Some(4), Some(4), None, Some(5)]);
    assert_eq!(texts, vec![None, None, None, None, Some("hello".into())]);
}

#[test]
fn android_strings_without_contents_take_their_count() {
    let heap = android_layout("count");
    let (lens, texts) = lengths(&heap, Some(bin("!=", field(row(), "count"), lit(json!(null)))));
    assert_eq!(lens, vec![Some(5), Some(3), Some(5)]);
    assert_eq!(texts, vec![None, None, Some("héllo".into())]);
    // `count` itself reads as it is; `toString(s).@length` stays NULL (there is no text).
    let b = run(
        &heap,
        select(class("java.lang.String"), json!({"filter": bin("!=", field(row(), "count"), lit(json!(null))),
            "output": columns(&[("count", field(row(), "count")), ("tlen", attr(call("toString", vec![row()]), "length"))])})),
    );
    assert_eq!(ints(&b, 0), vec![5, 3, 5]);
    assert!(column(&b, 1)[..2].iter().all(heapql_exec::Value::is_null));
}
