//! `@heap`: the Android heap (`app`, `zygote`, `image`) an object is in, from the dump's HEAP
//! DUMP INFO records; NULL on a dump without them. A filter on it and a GROUP BY over it, on a
//! small ART-style dump written with the HPROF test kit and on ahat's test dump.

mod common;

use std::collections::BTreeMap;

use common::*;
use heapql_heap::Heap;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

/// Kit classes before any HEAP DUMP INFO (`default`), then image, zygote (over two segments,
/// the second without a record of its own), app (ids below all others: the index is not in
/// file order), and zygote again. Returns the heap and the objects written per heap name.
fn three_heaps(name: &str) -> (Heap, BTreeMap<&'static str, Vec<u64>>) {
    let mut b = DumpBuilder::new(4);
    b.set_format("JAVA PROFILE 1.0.3");
    b.classes_in_place();
    let mut ids: BTreeMap<&'static str, Vec<u64>> = BTreeMap::new();
    b.heap_info(0x49, "image");
    let boxed = b.class("java.lang.Integer", Some(b.object_class), &[("value", BasicType::Int)]);
    b.set_instance_size(boxed, 12);
    ids.entry("image").or_default().push(boxed);
    for v in 0..3 {
        ids.entry("image").or_default().push(b.instance(boxed, &[Val::Int(v)]));
    }
    b.new_segment();
    b.heap_info(0x5A, "zygote");
    for v in 0..4 {
        ids.entry("zygote").or_default().push(b.instance(boxed, &[Val::Int(v)]));
    }
    b.new_segment();
    ids.entry("zygote").or_default().push(b.byte_array(&[0u8; 100]));
    b.heap_info(0x41, "app");
    let activity = b.class("com.example.MainActivity", Some(b.object_class), &[("n", BasicType::Int)]);
    b.set_instance_size(activity, 16);
    ids.entry("app").or_default().push(activity);
    for k in 0..5u64 {
        let id = 0x100 + 16 * k;
        b.instance_with_id(id, activity, &[Val::Int(k as i32)]);
        ids.entry("app").or_default().push(id);
    }
    ids.entry("app").or_default().push(b.byte_array(&[1u8; 1000]));
    b.heap_info(0x5A, "zygote");
    ids.entry("zygote").or_default().push(b.instance(boxed, &[Val::Int(42)]));
    (open(&temp_file(&format!("heaps-{name}.hprof"), &b.build())), ids)
}

fn heap_attr() -> serde_json::Value {
    attr(row(), "heap")
}

#[test]
fn a_filter_on_the_heap_counts_that_heaps_objects() {
    let (heap, ids) = three_heaps("filter");
    let app_bytes: u64 = ids["app"].iter().map(|&id| heap.shallow_size(heap.index_of(id).unwrap())).sum();
    let q = select(
        instanceof("java.lang.Object"),
        json!({"alias": "x", "filter": bin("=", heap_attr(), lit(json!("app"))),
               "aggregates": [count_star(), aggregate("sum", shallow(), None)],
               "output": columns(&[("n", agg(0)), ("bytes", agg(1))])}),
    );
    let b = run(&heap, q);
    assert_eq!(ints(&b, 0), vec![ids["app"].len() as i64]);
    assert_eq!(ints(&b, 1), vec![app_bytes as i64]);
    // 5 activities of 16 bytes, the class object, a byte[1000] (12-byte header).
    assert_eq!(app_bytes, 5 * 16 + heap.shallow_size(heap.index_of(ids["app"][0]).unwrap()) + 1012);
}

#[test]
fn group_by_heap_gives_every_heaps_totals() {
    let (heap, ids) = three_heaps("group");
    let q = select(
        instanceof("java.lang.Object"),
        json!({"alias": "x", "groupBy": [heap_attr()], "aggregates": [count_star(), aggregate("sum", shallow(), None)],
               "output": columns(&[("heap", key(0)), ("n", agg(0)), ("bytes", agg(1))]),
               "orderBy": [{"expr": out(0), "desc": false}]}),
    );
    let b = run(&heap, q);
    let names: Vec<String> = strings(&b, 0).into_iter().map(|s| s.expect("every object has a heap")).collect();
    assert_eq!(names, ["app", "default", "image", "zygote"]);
    let counts = ints(&b, 1);
    let bytes = ints(&b, 2);
    for (i, name) in names.iter().enumerate() {
        let stats = heap.heaps().iter().find(|s| &s.name == name).unwrap();
        assert_eq!((counts[i] as u64, bytes[i] as u64), (stats.objects, stats.shallow), "{name}");
        if let Some(written) = ids.get(name.as_str()) {
            assert_eq!(counts[i] as usize, written.len(), "{name}");
        }
    }
    assert_eq!(counts.iter().sum::<i64>(), heap.object_count() as i64);
}

#[test]
fn heap_is_null_on_a_dump_without_heap_dump_info() {
    let mut b = DumpBuilder::new(8);
    b.string("hotspot");
    let heap = open(&temp_file("heaps-none.hprof", &b.build()));
    let q = select(all(), json!({"alias": "x", "output": columns(&[("heap", heap_attr())])}));
    let b = run(&heap, q);
    assert_eq!(b.row_count as u32, heap.object_count());
    assert!(strings(&b, 0).iter().all(Option::is_none));
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn ahat_dump_objects_are_all_in_the_app_heap() {
    let heap = open(&corpus_dump("ahat-test-dump.hprof"));
    let q = select(
        instanceof("java.lang.Object"),
        json!({"alias": "x", "groupBy": [heap_attr()], "aggregates": [count_star(), aggregate("sum", shallow(), None)],
               "output": columns(&[("heap", key(0)), ("n", agg(0)), ("bytes", agg(1))])}),
    );
    let b = run(&heap, q);
    assert_eq!(strings(&b, 0), vec![Some("app".to_string())]);
    assert_eq!((ints(&b, 1), ints(&b, 2)), (vec![25_919], vec![1_768_960]));
}
