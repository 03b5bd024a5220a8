//! Android: an object's retained size split by the heaps of the objects it retains
//! (`lookup::retained_by_heap`), checked against sums made apart, by climbing every object's
//! immediate dominators; nested objects, an object outside the tree, a dump without heaps.

use heapql_graph::lookup::retained_by_heap;
use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, ObjIdx, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

/// A zygote `Cache` (a JNI global) holding a zygote list whose array holds app entries, each
/// with an app byte[]; an app `Cache` (a JNI global) holding a zygote byte[] that nothing else
/// holds; unreachable app garbage. Returns the dump and the ids of the two caches, the list
/// and the garbage.
fn dump() -> (Vec<u8>, [u64; 4]) {
    let mut b = DumpBuilder::new(4);
    b.set_format("JAVA PROFILE 1.0.3");
    b.classes_in_place();
    let cache = b.class("com.example.Cache", Some(b.object_class), &[("items", BasicType::Object)]);
    let entry = b.class("com.example.Entry", Some(b.object_class), &[("data", BasicType::Object)]);
    let entries: Vec<u64> = (0..3).map(|_| b.alloc_id()).collect();
    let orphan = b.alloc_id();
    b.new_segment();
    b.heap_info(0x5A, "zygote");
    let array = b.object_array(b.object_array_class, &entries);
    let list = b.instance(cache, &[Val::Obj(array)]);
    let zygote_cache = b.instance(cache, &[Val::Obj(list)]);
    b.root_jni_global(zygote_cache);
    let orphan_data = b.byte_array(&[7u8; 400]);
    b.instance_with_id(orphan, entry, &[Val::Obj(orphan_data)]);
    b.new_segment();
    b.heap_info(0x41, "app");
    for (i, &e) in entries.iter().enumerate() {
        let data = b.byte_array(&vec![i as u8; 100 * (i + 1)]);
        b.instance_with_id(e, entry, &[Val::Obj(data)]);
    }
    let app_cache = b.instance(cache, &[Val::Obj(orphan)]);
    b.root_jni_global(app_cache);
    let garbage = b.byte_array(&[9u8; 2000]);
    (b.build(), [zygote_cache, app_cache, list, garbage])
}

/// Per object of `of`, per heap number: the shallow sizes of the objects of the tree whose
/// immediate-dominator chain passes through it (itself included).
fn naive(heap: &Heap, a: &FullAnalysis, of: &[ObjIdx]) -> Vec<Vec<u64>> {
    let mut out = vec![vec![0u64; heap.heap_names().len()]; of.len()];
    for o in (0..heap.object_count()).filter(|&o| a.in_tree(o)) {
        let Some(k) = heap.heap_of(o) else { continue };
        let mut up = Some(o);
        while let Some(d) = up {
            for (i, &x) in of.iter().enumerate() {
                if x == d {
                    out[i][k as usize] += heap.shallow_size(o);
                }
            }
            up = a.immediate_dominator(d);
        }
    }
    out
}

#[test]
fn retained_sizes_split_by_heap_match_the_dominator_chains() {
    let (bytes, ids) = dump();
    for reachable_only in [false, true] {
        let heap = Heap::open_bytes(&bytes, "android.hprof", OpenOptions::default()).unwrap();
        let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
        let [zygote_cache, app_cache, list, garbage] = ids.map(|id| heap.index_of(id).unwrap());
        // Nested (the list under the zygote cache), given twice, and every object of the dump.
        let mut asked = vec![list, zygote_cache, app_cache, garbage, list];
        asked.extend(0..heap.object_count());
        let got = retained_by_heap(&a, &heap, &asked);
        assert_eq!(got, naive(&heap, &a, &asked), "reachable_only {reachable_only}");
        for (i, &o) in asked.iter().enumerate() {
            if a.in_tree(o) {
                assert_eq!(got[i].iter().sum::<u64>(), a.retained_size(o), "object {o}: the heaps add up to its retained size");
            }
        }
        // By construction: the zygote cache retains zygote objects (itself, the list, its
        // array) and the app's three entries with their byte[100], [200], [300]; the app
        // cache its zygote entry and byte[400].
        let names = heap.heap_names();
        let at = |name: &str| names.iter().position(|n| &**n == name).unwrap();
        let entry = heap.instance_size(heap.classes_named("com.example.Entry")[0]);
        assert_eq!(got[1][at("app")], 3 * entry + 112 + 212 + 312);
        assert_eq!(got[2][at("zygote")], entry + 412);
        assert_eq!(got[2][at("app")], heap.shallow_size(app_cache));
        assert_eq!(got[0], got[4], "the same object asked twice");
        // The garbage: its own bytes, or nothing when the analysis left it out.
        assert_eq!(got[3][at("app")], if reachable_only { 0 } else { 2012 });
    }
}

#[test]
fn a_dump_without_heaps_splits_nothing() {
    let mut b = DumpBuilder::new(8);
    let holder = b.class("app.Holder", Some(b.object_class), &[("data", BasicType::Object)]);
    let data = b.byte_array(&[1u8; 100]);
    let h = b.instance(holder, &[Val::Obj(data)]);
    b.root_jni_global(h);
    let bytes = b.build();
    let heap = Heap::open_bytes(&bytes, "plain.hprof", OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let o = heap.index_of(h).unwrap();
    assert_eq!(retained_by_heap(&a, &heap, &[o, o]), vec![Vec::<u64>::new(), Vec::new()]);
}
