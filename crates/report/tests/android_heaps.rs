//! Android heaps in the report: the overview's per-heap objects and shallow bytes (of the
//! objects the report covers), each leak suspect's heaps; nothing of the kind for a dump that
//! records no heaps.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::types::sub;
use heapql_hprof::BasicType;
use heapql_report::{build, HeapShare, ReportData, ReportOptions};

/// ART-style: a zygote class whose static holds 6 KB of byte arrays (the biggest suspect), an
/// app class whose static holds 4 KB, 2 KB of unreachable app garbage, a few image strings.
/// Returns the dump and the ids of the zygote holder class, the app holder class and the garbage.
fn android_dump() -> (Vec<u8>, u64, u64, u64) {
    let mut b = DumpBuilder::new(4);
    b.set_format("JAVA PROFILE 1.0.3");
    b.classes_in_place();
    b.heap_info(0x49, "image");
    for s in ["android", "java"] {
        let s = b.string(s);
        b.root(sub::ROOT_VM_INTERNAL, s);
    }
    b.new_segment();
    b.heap_info(0x5A, "zygote");
    let zygote_holder = b.class_full("android.app.SharedCache", Some(b.object_class), 0, &[], &[]);
    let blocks: Vec<u64> = (0..6).map(|i| b.byte_array(&vec![i as u8; 1000])).collect();
    let arr = b.object_array(b.object_array_class, &blocks);
    b.set_statics(zygote_holder, &[("blocks", Val::Obj(arr))]);
    b.root_sticky_class(zygote_holder);
    b.new_segment();
    b.heap_info(0x41, "app");
    let app_holder = b.class_full("com.example.Leak", Some(b.object_class), 0, &[], &[]);
    let list = b.class("com.example.Node", Some(b.object_class), &[("data", BasicType::Object)]);
    let nodes: Vec<u64> = (0..4).map(|i| {
        let data = b.byte_array(&vec![i as u8; 1000]);
        b.instance(list, &[Val::Obj(data)])
    }).collect();
    let arr = b.object_array(b.object_array_class, &nodes);
    b.set_statics(app_holder, &[("nodes", Val::Obj(arr))]);
    b.root_sticky_class(app_holder);
    let garbage = b.byte_array(&[9u8; 2000]);
    (b.build(), zygote_holder, app_holder, garbage)
}

fn report(bytes: &[u8], reachable_only: bool) -> (Heap, ReportData) {
    let heap = Heap::open_bytes(bytes, "android.hprof", OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
    let data = build(&heap, &a, &ReportOptions::default()).unwrap();
    (heap, data)
}

#[test]
fn the_overview_splits_the_covered_objects_by_heap() {
    let (bytes, _, _, garbage) = android_dump();
    let (heap, data) = report(&bytes, false);
    let heaps = data.overview.heaps.as_ref().expect("an Android dump has heaps");
    let names: Vec<&str> = heaps.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["default", "image", "zygote", "app"]);
    // Every object is covered: the index's own per-heap figures.
    for (h, s) in heaps.iter().zip(heap.heaps()) {
        assert_eq!((h.name.as_str(), h.objects, h.shallow), (s.name.as_str(), s.objects, s.shallow));
    }
    let f = &data.overview.heap;
    assert_eq!(heaps.iter().map(|h| h.objects).sum::<u64>(), f.objects);
    assert_eq!(heaps.iter().map(|h| h.shallow).sum::<u64>(), f.used_heap);
    let percent: f64 = heaps.iter().map(|h| h.shallow_percent).sum();
    assert!((percent - 100.0).abs() < 1e-6, "{percent}");

    // Reachable only: the unreachable byte[2000] leaves the app heap's figures.
    let (heap, only) = report(&bytes, true);
    let app = |d: &ReportData| -> HeapShare { d.overview.heaps.as_ref().unwrap().iter().find(|h| h.name == "app").unwrap().clone() };
    let g = heap.shallow_size(heap.index_of(garbage).unwrap());
    assert_eq!(app(&only).objects, app(&data).objects - 1);
    assert_eq!(app(&only).shallow, app(&data).shallow - g);
}

#[test]
fn each_leak_suspect_says_its_heap() {
    let (bytes, zygote_holder, app_holder, _) = android_dump();
    let (heap, data) = report(&bytes, false);
    let s = &data.leak_suspects.suspects;
    let of = |id: u64| s.iter().find(|x| x.object.as_ref().map(|r| r.object_id) == heap.index_of(id)).unwrap_or_else(|| panic!("{:#?}", s.iter().map(|x| &x.title).collect::<Vec<_>>()));
    assert_eq!(of(zygote_holder).heaps.as_deref(), Some(&["zygote".to_string()][..]));
    assert_eq!(of(app_holder).heaps.as_deref(), Some(&["app".to_string()][..]));
    assert_eq!(s[0].title, "android.app.SharedCache.blocks");
}

#[test]
fn a_dump_without_heap_dump_info_has_no_heaps_in_the_report() {
    let mut b = DumpBuilder::new(8);
    let holder = b.class_full("app.Holder", Some(b.object_class), 0, &[], &[]);
    let big = b.byte_array(&[1u8; 5000]);
    b.set_statics(holder, &[("big", Val::Obj(big))]);
    b.root_sticky_class(holder);
    let (_, data) = report(&b.build(), false);
    assert!(data.overview.heaps.is_none());
    assert!(!data.leak_suspects.suspects.is_empty());
    assert!(data.leak_suspects.suspects.iter().all(|x| x.heaps.is_none()));
    assert!(data.overview.class_histogram.rows.iter().all(|r| r.heaps.is_none()));
    let json = serde_json::to_value(&data).unwrap();
    assert!(json["overview"].get("heaps").is_none());
    assert!(json["overview"]["classHistogram"]["rows"][0].get("heaps").is_none());
    assert!(json["leakSuspects"]["suspects"][0].get("heaps").is_none());
}

/// One class, `com.example.Node` (a `next` and a `data` field), with instances in two heaps:
/// zygote `z1` (a JNI global) holds its byte[1000] and the app's `a1`, which nothing else
/// holds, with its byte[500]; app `a2` (a JNI global) holds `a3`, each with a byte[200] and
/// byte[300]; an unreachable app `a4` with its byte[50].
fn nodes_dump() -> Vec<u8> {
    let mut b = DumpBuilder::new(4);
    b.set_format("JAVA PROFILE 1.0.3");
    b.classes_in_place();
    let node = b.class("com.example.Node", Some(b.object_class), &[("next", BasicType::Object), ("data", BasicType::Object)]);
    let a1 = b.alloc_id();
    b.new_segment();
    b.heap_info(0x5A, "zygote");
    let z1_data = b.byte_array(&[1u8; 1000]);
    let z1 = b.instance(node, &[Val::Obj(a1), Val::Obj(z1_data)]);
    b.root_jni_global(z1);
    b.new_segment();
    b.heap_info(0x41, "app");
    let a1_data = b.byte_array(&[2u8; 500]);
    b.instance_with_id(a1, node, &[Val::Obj(0), Val::Obj(a1_data)]);
    let a3_data = b.byte_array(&[3u8; 300]);
    let a3 = b.instance(node, &[Val::Obj(0), Val::Obj(a3_data)]);
    let a2_data = b.byte_array(&[4u8; 200]);
    let a2 = b.instance(node, &[Val::Obj(a3), Val::Obj(a2_data)]);
    b.root_jni_global(a2);
    let a4_data = b.byte_array(&[5u8; 50]);
    b.instance(node, &[Val::Obj(0), Val::Obj(a4_data)]);
    b.build()
}

/// Per (class name, heap), computed apart from the report: every object of the tree counted
/// in its class and heap, and the retained sizes of those with no dominator above them of the
/// same class in the same heap (found by climbing the immediate dominators).
fn naive_class_heaps(heap: &Heap, a: &FullAnalysis) -> std::collections::BTreeMap<(String, String), (u64, u64, u64)> {
    let mut out = std::collections::BTreeMap::new();
    for o in (0..heap.object_count()).filter(|&o| a.in_tree(o)) {
        let Some(k) = heap.heap_of(o) else { continue };
        let c = heap.class_of(o);
        let mut up = a.immediate_dominator(o);
        let mut nested = false;
        while let Some(d) = up {
            if heap.class_of(d) == c && heap.heap_of(d) == Some(k) {
                nested = true;
                break;
            }
            up = a.immediate_dominator(d);
        }
        let e = out.entry((heap.class(c).name.clone(), heap.heap_names()[k as usize].to_string())).or_insert((0, 0, 0));
        e.0 += 1;
        e.1 += heap.shallow_size(o);
        if !nested {
            e.2 += a.retained_size(o);
        }
    }
    out
}

#[test]
fn the_class_histogram_splits_each_class_by_heap() {
    let bytes = nodes_dump();
    for reachable_only in [false, true] {
        let heap = Heap::open_bytes(&bytes, "nodes.hprof", OpenOptions::default()).unwrap();
        let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
        let data = build(&heap, &a, &ReportOptions { limit: 10_000, ..Default::default() }).unwrap();
        let rows = &data.overview.class_histogram.rows;
        let mut split = std::collections::BTreeMap::new();
        for r in rows {
            let heaps = r.heaps.as_ref().expect("a dump with heaps splits every row");
            assert_eq!(heaps.iter().map(|h| h.instances).sum::<u64>(), r.instances, "{}: instances add up", r.class_name);
            assert_eq!(heaps.iter().map(|h| h.shallow).sum::<u64>(), r.shallow, "{}: shallow adds up", r.class_name);
            assert!(heaps.iter().map(|h| h.retained).sum::<u64>() >= r.retained, "{}: heaps retain no less than the class", r.class_name);
            for h in heaps {
                assert!(split.insert((r.class_name.clone(), h.name.clone()), (h.instances, h.shallow, h.retained)).is_none());
            }
        }
        assert_eq!(split, naive_class_heaps(&heap, &a), "reachable_only {reachable_only}");

        // By construction: byte[n] is n + 12 bytes; a Node is the instance size its class states.
        let node = rows.iter().find(|r| r.class_name == "com.example.Node").unwrap();
        let s = heap.shallow_size(heap.index_of(nodes_first_instance(&heap)).unwrap());
        let names: Vec<(&str, u64)> = node.heaps.as_ref().unwrap().iter().map(|h| (h.name.as_str(), h.instances)).collect();
        let app_nodes = if reachable_only { 3 } else { 4 };
        assert_eq!(names, [("zygote", 1), ("app", app_nodes)]);
        let zygote = &node.heaps.as_ref().unwrap()[0];
        let app = &node.heaps.as_ref().unwrap()[1];
        // z1 keeps its array, a1 and a1's array; in the app heap a1 (under z1) counts too, a3
        // is under a2, and the garbage a4 is its own top.
        assert_eq!(zygote.retained, 2 * s + 1012 + 512);
        let garbage = if reachable_only { 0 } else { s + 62 };
        assert_eq!(app.retained, (s + 512) + (2 * s + 312 + 212) + garbage);
        assert_eq!(node.retained, (2 * s + 1012 + 512) + (2 * s + 312 + 212) + garbage, "the class as a whole counts a1 once");
    }
}

/// Some instance of com.example.Node (its size is its class's).
fn nodes_first_instance(heap: &Heap) -> u64 {
    let c = heap.classes_named("com.example.Node")[0];
    let o = (0..heap.object_count()).find(|&o| heap.object_kind(o) == heapql_heap::ObjectKind::Instance && heap.class_of(o) == c).unwrap();
    heap.object_id(o)
}
