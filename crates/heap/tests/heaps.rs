//! Android heaps (app, zygote, image) from HEAP DUMP INFO records (hprof-format.md §9): every
//! object's heap, the per-heap totals, a cached reopen, dumps without heaps, the ahat corpus dump.

mod common;

use std::collections::BTreeMap;

use heapql_cache::Cache;
use heapql_heap::{CacheUse, Heap, HeapStats, ObjectKind, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

const APP: u32 = 0x41;
const IMAGE: u32 = 0x49;
const ZYGOTE: u32 = 0x5A;

/// An ART-style dump with the three heaps and the expected heap of every object id.
///
/// * The kit's own classes are written before the first HEAP DUMP INFO: heap `default`.
/// * image: a class and instances; a new segment without a HEAP DUMP INFO keeps image.
/// * zygote: classes (dumped in place, as ART does in its heap walk), instances, arrays; a new
///   segment repeats the record, as ART does.
/// * app: instances with ids below every other (the object index, in id order, is not in
///   file order), arrays, a class; then zygote again, then app again under another heap id
///   with the same name.
fn three_heaps() -> (Vec<u8>, BTreeMap<u64, &'static str>) {
    let mut b = DumpBuilder::new(4);
    b.set_format("JAVA PROFILE 1.0.3");
    let mut want: BTreeMap<u64, &'static str> = BTreeMap::new();
    for c in [b.object_class, b.class_class, b.string_class, b.thread_class, b.byte_array_class, b.char_array_class, b.int_array_class, b.long_array_class, b.object_array_class] {
        want.insert(c, "default");
    }
    // The other primitive array classes and nothing else were defined by the kit.
    b.classes_in_place();

    b.heap_info(IMAGE, "image");
    let boxed = b.class("java.lang.Integer", Some(b.object_class), &[("value", BasicType::Int)]);
    b.set_instance_size(boxed, 12);
    want.insert(boxed, "image");
    for v in 0..5 {
        want.insert(b.instance(boxed, &[Val::Int(v)]), "image");
    }
    b.new_segment();
    for s in ["a", "bb"] {
        let value = b.byte_array(s.as_bytes());
        want.insert(value, "image");
        want.insert(b.string_over(value, 0), "image");
    }

    b.new_segment();
    b.heap_info(ZYGOTE, "zygote");
    let list = b.class("java.util.ArrayList", Some(b.object_class), &[("elementData", BasicType::Object), ("size", BasicType::Int)]);
    b.set_instance_size(list, 20);
    want.insert(list, "zygote");
    let mut elems = Vec::new();
    for v in 10..14 {
        let i = b.instance(boxed, &[Val::Int(v)]);
        want.insert(i, "zygote");
        elems.push(i);
    }
    let arr = b.object_array(b.object_array_class, &elems);
    want.insert(arr, "zygote");
    want.insert(b.instance(list, &[Val::Obj(arr), Val::Int(4)]), "zygote");
    b.new_segment();
    b.heap_info(ZYGOTE, "zygote");
    want.insert(b.primitive_array(BasicType::Int, &[Val::Int(1), Val::Int(2), Val::Int(3)]), "zygote");

    b.new_segment();
    b.heap_info(APP, "app");
    let activity = b.class("com.example.MainActivity", Some(b.object_class), &[("data", BasicType::Object)]);
    b.set_instance_size(activity, 16);
    want.insert(activity, "app");
    let big = b.byte_array(&[7u8; 1000]);
    want.insert(big, "app");
    for k in 0..6u64 {
        // Ids below the kit's first (0x1000): first in the object index, last in the file.
        let id = 0x100 + 16 * (6 - k);
        b.instance_with_id(id, activity, &[Val::Obj(big)]);
        want.insert(id, "app");
    }
    b.heap_info(ZYGOTE, "zygote");
    want.insert(b.instance(boxed, &[Val::Int(99)]), "zygote");
    // The same name under another heap id is the same heap (heaps are keyed by name).
    b.heap_info(0x61, "app");
    want.insert(b.long_array(&[1, 2]), "app");
    let app_obj = b.instance(activity, &[Val::Obj(0)]);
    want.insert(app_obj, "app");
    b.root_jni_global(app_obj);
    (b.build(), want)
}

trait LongArray {
    fn long_array(&mut self, v: &[i64]) -> u64;
}
impl LongArray for DumpBuilder {
    fn long_array(&mut self, v: &[i64]) -> u64 {
        let vals: Vec<Val> = v.iter().map(|&x| Val::Long(x)).collect();
        self.primitive_array(BasicType::Long, &vals)
    }
}

fn open(bytes: &[u8]) -> Heap {
    Heap::open_bytes(bytes, "heaps.hprof", OpenOptions::default()).unwrap()
}

/// Every object's heap and the per-heap totals against the dump as written.
fn check(h: &Heap, want: &BTreeMap<u64, &'static str>) {
    let mut totals: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for o in 0..h.object_count() {
        let id = h.object_id(o);
        // The kit's other primitive array classes (boolean[], ...) come before any info.
        let expect = match want.get(&id) {
            Some(&w) => w,
            None if h.object_kind(o) == ObjectKind::Class => "default",
            None => panic!("object {id:#x} was not written by the test"),
        };
        assert_eq!(h.heap_name_of(o), Some(expect), "object {id:#x}");
        let t = totals.entry(expect).or_default();
        t.0 += 1;
        t.1 += h.shallow_size(o);
    }
    let mut got: Vec<HeapStats> = h.heaps().to_vec();
    got.sort_by(|a, b| a.name.cmp(&b.name));
    let want_stats: Vec<HeapStats> = totals.iter().map(|(n, &(objects, shallow))| HeapStats { name: n.to_string(), objects, shallow }).collect();
    assert_eq!(got, want_stats);
    assert_eq!(h.heaps().iter().map(|s| s.objects).sum::<u64>(), h.object_count() as u64);
    assert_eq!(h.heaps().iter().map(|s| s.shallow).sum::<u64>(), h.summary().total_shallow);
}

#[test]
fn every_object_is_in_the_heap_its_last_heap_dump_info_names() {
    let (bytes, want) = three_heaps();
    let h = open(&bytes);
    check(&h, &want);
    // Heap numbers in the order the heaps first appear, `default` first.
    assert_eq!(h.heap_names().iter().map(|n| &**n).collect::<Vec<_>>(), ["default", "image", "zygote", "app"]);
    let names: Vec<&str> = h.heaps().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["default", "image", "zygote", "app"]);
    // Sizes as ART records them: the app heap holds six activities, one of 1,000 bytes' byte[],
    // one long[2] and one more activity.
    let app = h.heaps().iter().find(|s| s.name == "app").unwrap();
    assert_eq!(app.objects, 1 + 1 + 6 + 1 + 1);
}

#[test]
fn a_cached_index_knows_the_same_heaps() {
    let (bytes, want) = three_heaps();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("heaps.hprof");
    std::fs::write(&path, &bytes).unwrap();
    let cache = Cache::new(dir.path().join("cache"), None);
    let entry = cache.entry(&path, 0, "test").unwrap();
    for expect in [CacheUse::Written, CacheUse::Hit] {
        let mut notes = Vec::new();
        let (h, used) = Heap::open_with_cache(&path, OpenOptions::default(), &entry, &mut notes).unwrap();
        assert_eq!(used, expect, "{notes:?}");
        check(&h, &want);
        assert_eq!(h.heap_names().len(), 4);
    }
}

/// A HotSpot-style dump (no HEAP DUMP INFO): no heaps at all, not one `default` heap.
#[test]
fn a_dump_without_heap_dump_info_has_no_heaps() {
    let mut b = DumpBuilder::new(8);
    let s = b.string("x");
    b.root_jni_global(s);
    let h = open(&b.build());
    assert!(h.object_count() > 0);
    for o in 0..h.object_count() {
        assert_eq!(h.heap_of(o), None);
        assert_eq!(h.heap_name_of(o), None);
    }
    assert!(h.heap_names().is_empty());
    assert!(h.heaps().is_empty());
}

/// A heap named by a HEAP DUMP INFO whose objects are none (another record follows at once)
/// is not among `heaps`; a name id the dump has no string for is named from ART's heap id.
#[test]
fn a_heap_without_objects_is_not_listed_and_an_unnamed_one_takes_arts_name() {
    let mut b = DumpBuilder::new(4);
    b.set_format("JAVA PROFILE 1.0.3");
    b.heap_info(IMAGE, "image");
    b.raw_heap().u1(0xFE).u4(ZYGOTE).id(0x5555_5555);
    let s = b.string("z");
    let h = open(&b.build());
    let o = h.index_of(s).unwrap();
    assert_eq!(h.heap_name_of(o), Some("zygote"));
    // The kit's classes are written before the first record.
    assert_eq!(h.heap_name_of(h.class(h.class_of(o)).object), Some("default"));
    let names: Vec<&str> = h.heaps().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["default", "zygote"]);
}

/// A large dump is read by two threads, the second starting at a segment boundary with no
/// HEAP DUMP INFO of its own: its objects are still in the heap the first thread's last
/// record named.
#[test]
fn the_heap_carries_over_into_the_second_half_of_a_large_dump() {
    let mut b = DumpBuilder::new(4);
    b.set_format("JAVA PROFILE 1.0.3");
    b.heap_info(ZYGOTE, "zygote");
    let mut zygote = Vec::new();
    for _ in 0..20 {
        zygote.push(b.byte_array(&vec![1u8; 1 << 20]));
        b.new_segment();
    }
    b.heap_info(APP, "app");
    let mut app = Vec::new();
    for _ in 0..20 {
        app.push(b.byte_array(&vec![2u8; 1 << 20]));
        b.new_segment();
    }
    b.heap_info(ZYGOTE, "zygote");
    for _ in 0..4 {
        zygote.push(b.byte_array(&[3u8; 16]));
        b.new_segment();
    }
    let h = open(&b.build());
    for id in &zygote {
        assert_eq!(h.heap_name_of(h.index_of(*id).unwrap()), Some("zygote"), "{id:#x}");
    }
    for id in &app {
        assert_eq!(h.heap_name_of(h.index_of(*id).unwrap()), Some("app"), "{id:#x}");
    }
    let app_stats = h.heaps().iter().find(|s| s.name == "app").unwrap();
    assert_eq!(app_stats.objects, 20);
    assert_eq!(app_stats.shallow, 20 * (12 + (1 << 20)));
}

/// ahat's test dump (ART) records the app heap only: every object is in it.
#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn the_ahat_dump_is_all_app_heap() {
    let h = Heap::open(&common::corpus().join("ahat-test-dump.hprof"), OpenOptions::default()).unwrap();
    assert_eq!(h.heaps(), [HeapStats { name: "app".into(), objects: 25_919, shallow: 1_768_960 }]);
    assert_eq!(h.heap_name_of(0), Some("app"));
}
