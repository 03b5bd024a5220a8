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
    let json = serde_json::to_value(&data).unwrap();
    assert!(json["overview"].get("heaps").is_none());
    assert!(json["leakSuspects"]["suspects"][0].get("heaps").is_none());
}
