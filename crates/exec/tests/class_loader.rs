//! `@classLoader`: a class object's defining loader as its CLASS DUMP names it (NULL for the
//! bootstrap loader and for objects that are no class objects). Checked on a written dump, and
//! on a HotSpot fixture and ahat's ART dump against the loader ids of the raw CLASS DUMP
//! records, read with the HPROF reader alone (no heap index).

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;
use heapql_exec::Value;
use heapql_heap::Heap;
use heapql_hprof::records::walk;
use heapql_hprof::subrecords::scan_segment;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::{BasicType, Control, Cursor, Record, Sub, SubVisitor};
use serde_json::json;

fn loader_attr(base: serde_json::Value) -> serde_json::Value {
    attr(base, "classLoader")
}

/// Column `c` as loaders: an object, or None for NULL.
fn loaders(b: &heapql_exec::Batch, c: usize) -> Vec<Option<u32>> {
    column(b, c)
        .into_iter()
        .map(|v| match v {
            Value::Obj(o) => Some(o),
            Value::Null => None,
            other => panic!("a loader is an object or NULL, not {other:?}"),
        })
        .collect()
}

/// Classes per loader id (0 = bootstrap) over every CLASS DUMP of the file.
fn raw_classes_per_loader(path: &Path) -> BTreeMap<u64, i64> {
    struct Loaders(BTreeMap<u64, i64>);
    impl SubVisitor for Loaders {
        fn sub(&mut self, s: Sub) {
            if let Sub::Class(cd) = s {
                *self.0.entry(cd.loader_id).or_default() += 1;
            }
        }
    }
    let (src, header) = heapql_hprof::open(path, Control::none()).unwrap();
    let layout = walk(&src, &header, Control::none(), &mut |_r: Record<'_>| {}).unwrap();
    let mut cur = Cursor::new(&src);
    let ctl = Control::none();
    let mut tick = ctl.ticker("test", 1);
    let mut v = Loaders(BTreeMap::new());
    for s in layout.dumps.iter().flat_map(|d| &d.segments) {
        scan_segment(&mut cur, s, header.id_size, &mut v, &mut tick).unwrap();
    }
    v.0
}

/// The named query's filter: a class object (its display name is the class it describes, and
/// java.lang.Class's own is its own class), not an instance of java.lang.Class that describes
/// no class (HotSpot's primitive type mirrors).
fn class_objects_only() -> serde_json::Value {
    bin("or", bin("!=", attr(row(), "displayName"), lit(json!("java.lang.Class"))), bin("=", classof_row(), row()))
}

/// The instances of java.lang.Class the filter leaves out.
fn mirrors(heap: &Heap) -> i64 {
    let q = select(class("java.lang.Class"), json!({"alias": "c", "filter": {"k": "not", "e": class_objects_only()},
        "aggregates": [count_star()], "output": columns(&[("n", agg(0))])}));
    single_int(&run(heap, q))
}

/// The named query `classes-per-loader`: `SELECT c.@classLoader, COUNT(*) FROM java.lang.Class
/// c WHERE <class objects only> GROUP BY c.@classLoader`, keyed by the loader's id (0 for the
/// NULL group).
fn classes_per_loader(heap: &Heap) -> BTreeMap<u64, i64> {
    let q = select(
        class("java.lang.Class"),
        json!({"alias": "c", "filter": class_objects_only(), "groupBy": [loader_attr(row())], "aggregates": [count_star()],
               "output": columns(&[("loader", key(0)), ("classes", agg(0))])}),
    );
    let b = run(heap, q);
    loaders(&b, 0).into_iter().map(|l| l.map_or(0, |o| heap.object_id(o))).zip(ints(&b, 1)).collect()
}

#[test]
fn a_class_objects_loader_is_its_defining_loader_and_null_elsewhere() {
    let mut b = DumpBuilder::new(8);
    let loader_class = b.class("com.example.PluginLoader", Some(b.object_class), &[("n", BasicType::Int)]);
    let (one, two) = (b.instance(loader_class, &[Val::Int(1)]), b.instance(loader_class, &[Val::Int(2)]));
    let a = b.class_full("com.example.A", Some(b.object_class), one, &[("x", BasicType::Int)], &[]);
    b.class_full("com.example.B", Some(b.object_class), one, &[], &[]);
    b.class_full("com.example.C", Some(b.object_class), two, &[], &[]);
    let instance = b.instance(a, &[Val::Int(7)]);
    let heap = open(&temp_file("class-loader.hprof", &b.build()));

    let q = select(
        class("java.lang.Class"),
        json!({"alias": "c", "output": columns(&[("name", attr(row(), "displayName")), ("loader", loader_attr(row()))])}),
    );
    let r = run(&heap, q);
    let by_name: BTreeMap<String, Option<u32>> = strings(&r, 0).into_iter().map(Option::unwrap).zip(loaders(&r, 1)).collect();
    let obj = |id: u64| heap.index_of(id);
    assert_eq!(by_name["com.example.A"], obj(one));
    assert_eq!(by_name["com.example.B"], obj(one));
    assert_eq!(by_name["com.example.C"], obj(two));
    assert_eq!(by_name["java.lang.Object"], None, "the bootstrap loader");
    assert_eq!(by_name["com.example.PluginLoader"], None, "the bootstrap loader");

    // An instance has no loader of its own; its class's is one step away.
    let q = select(
        class("com.example.A"),
        json!({"alias": "x", "output": columns(&[("own", loader_attr(row())), ("class", loader_attr(classof_row()))])}),
    );
    let r = run(&heap, q);
    assert_eq!(r.row_count, 1);
    assert_eq!((loaders(&r, 0), loaders(&r, 1)), (vec![None], vec![obj(one)]));
    assert_eq!(heap.index_of(instance).map(|o| heap.class_of(o)), heap.class_described_by(heap.index_of(a).unwrap()));
}

#[test]
fn classes_per_loader_match_the_class_dump_records_of_a_hotspot_dump() {
    let path = repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof");
    let heap = open(&path);
    let raw = raw_classes_per_loader(&path);
    assert_eq!(classes_per_loader(&heap), raw);
    // The boot loader's and the application loader's (KnownHeap's own classes).
    assert!(raw.len() == 2 && raw[&0] > 700 && raw.values().all(|&n| n >= 20), "{raw:?}");
    // HotSpot dumps the mirrors of the 9 primitive types (int.class, void.class, …) as plain
    // instances of java.lang.Class: in the source, with no loader, but no class record.
    assert_eq!(mirrors(&heap), 9);
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn classes_per_loader_match_the_class_dump_records_of_ahats_art_dump() {
    let path = corpus_dump("ahat-test-dump.hprof");
    let heap = open(&path);
    let raw = raw_classes_per_loader(&path);
    assert_eq!(classes_per_loader(&heap), raw);
    assert!(raw.len() >= 2, "boot classes and the app's: {raw:?}");
    assert_eq!(mirrors(&heap), 0, "ART dumps every class, the primitive types' too, as a class record");
}
