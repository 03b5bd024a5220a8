//! Android heaps in the waste checks: a row's objects are in one heap, which it names, so the
//! app's waste is never summed with the system's shared zygote and image waste under one
//! holder; the per-heap totals add up to the whole. Nothing of it for a dump without heaps.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use heapql_report::waste::{analyze, Check, Waste, WasteOptions};

/// One holder class, `com.example.Holder.data`; two instances in the zygote heap and three in
/// the app heap, each (a JNI global) holding its own byte[1000] of one non-zero byte and 999
/// zeros: five zero tails of 999 bytes, no two arrays alike.
fn android_dump() -> Vec<u8> {
    let mut b = DumpBuilder::new(4);
    b.set_format("JAVA PROFILE 1.0.3");
    b.classes_in_place();
    b.heap_info(0x49, "image");
    let holder = b.class("com.example.Holder", Some(b.object_class), &[("data", BasicType::Object)]);
    let held = |b: &mut DumpBuilder, first: u8| {
        let mut bytes = vec![0u8; 1000];
        bytes[0] = first;
        let data = b.byte_array(&bytes);
        let h = b.instance(holder, &[Val::Obj(data)]);
        b.root_jni_global(h);
    };
    b.new_segment();
    b.heap_info(0x5A, "zygote");
    for first in 1..=2 {
        held(&mut b, first);
    }
    b.new_segment();
    b.heap_info(0x41, "app");
    for first in 3..=5 {
        held(&mut b, first);
    }
    b.build()
}

fn waste(bytes: &[u8]) -> Waste {
    let heap = Heap::open_bytes(bytes, "android.hprof", OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    analyze(&heap, &a, &WasteOptions { limit: 100, ..Default::default() }).unwrap()
}

#[test]
fn one_holder_in_two_heaps_gives_a_row_per_heap_and_per_heap_totals() {
    let w = waste(&android_dump());
    let tails = w.categories.iter().find(|c| c.check == Check::ZeroTailArrays).unwrap();
    let rows: Vec<(&str, Option<&str>, u64, u64)> =
        tails.rows.iter().map(|r| (r.holder.label.as_str(), r.heap.as_deref(), r.objects, r.overhead)).collect();
    assert_eq!(
        rows,
        [
            ("com.example.Holder.data → byte[]", Some("app"), 3, 3 * 999),
            ("com.example.Holder.data → byte[]", Some("zygote"), 2, 2 * 999),
        ]
    );
    assert_eq!((tails.objects, tails.overhead, tails.holders), (5, 5 * 999, 2));

    let heaps = w.heaps.as_ref().expect("an Android dump has heaps");
    let figures: Vec<(&str, u64, u64, u64)> = heaps.iter().map(|h| (h.name.as_str(), h.objects, h.overhead, h.reachable_overhead)).collect();
    // Every heap with objects, wasting or not: the kit's classes are in `default`.
    assert_eq!(figures, [("default", 0, 0, 0), ("image", 0, 0, 0), ("zygote", 2, 2 * 999, 2 * 999), ("app", 3, 3 * 999, 3 * 999)]);
    assert_eq!(heaps.iter().map(|h| h.overhead).sum::<u64>(), w.overhead);
    let app = heaps.iter().find(|h| h.name == "app").unwrap();
    assert!((app.overhead_percent - 3.0 * 999.0 * 100.0 / w.used_heap as f64).abs() < 1e-9);
}

#[test]
fn a_dump_without_heaps_has_no_heap_in_its_waste() {
    let mut b = DumpBuilder::new(8);
    let holder = b.class("app.Holder", Some(b.object_class), &[("data", BasicType::Object)]);
    let mut bytes = vec![0u8; 1000];
    bytes[0] = 1;
    let data = b.byte_array(&bytes);
    let h = b.instance(holder, &[Val::Obj(data)]);
    b.root_jni_global(h);
    let w = waste(&b.build());
    assert!(w.heaps.is_none());
    let tails = w.categories.iter().find(|c| c.check == Check::ZeroTailArrays).unwrap();
    assert_eq!(tails.rows.len(), 1);
    assert!(tails.rows[0].heap.is_none());
    let json = serde_json::to_value(&w).unwrap();
    assert!(json.get("heaps").is_none());
    let row = &json["categories"].as_array().unwrap().iter().find(|c| c["check"] == "zeroTailArrays").unwrap()["rows"][0];
    assert!(row.get("heap").is_none() && row.get("holder").is_some());
}

/// `android_dump` with 3 KB of unreachable app garbage (a byte[3000] of ones, no waste) and an
/// unreachable zygote holder with its zero-tailed byte[1000].
fn android_dump_with_garbage() -> Vec<u8> {
    let mut b = DumpBuilder::new(4);
    b.set_format("JAVA PROFILE 1.0.3");
    b.classes_in_place();
    let holder = b.class("com.example.Holder", Some(b.object_class), &[("data", BasicType::Object)]);
    let held = |b: &mut DumpBuilder, first: u8, rooted: bool| {
        let mut bytes = vec![0u8; 1000];
        bytes[0] = first;
        let data = b.byte_array(&bytes);
        let h = b.instance(holder, &[Val::Obj(data)]);
        if rooted {
            b.root_jni_global(h);
        }
    };
    b.new_segment();
    b.heap_info(0x5A, "zygote");
    held(&mut b, 1, true);
    held(&mut b, 2, false);
    b.new_segment();
    b.heap_info(0x41, "app");
    for first in 3..=5 {
        held(&mut b, first, true);
    }
    b.byte_array(&[1u8; 3000]);
    b.build()
}

/// Per heap name, the shallow sizes of the reachable objects, summed apart from the waste pass.
fn naive_reachable(heap: &Heap, a: &FullAnalysis) -> Vec<(String, u64)> {
    let mut sums = vec![0u64; heap.heap_names().len()];
    for o in 0..heap.object_count() {
        if let (true, Some(k)) = (a.is_reachable(o), heap.heap_of(o)) {
            sums[k as usize] += heap.shallow_size(o);
        }
    }
    heap.heap_names().iter().map(|n| n.to_string()).zip(sums).collect()
}

#[test]
fn each_heap_has_its_reachable_bytes_and_the_share_of_them_wasted() {
    let bytes = android_dump_with_garbage();
    for reachable_only in [false, true] {
        let heap = Heap::open_bytes(&bytes, "android.hprof", OpenOptions::default()).unwrap();
        let options = GraphOptions { reachable_only, ..Default::default() };
        // The waste pass alone (its object step made in two halves), and within the report
        // (its object step made beside the dominator phase): the same figures.
        let a = FullAnalysis::build(&heap, options.clone()).unwrap();
        let alone = analyze(&heap, &a, &WasteOptions { limit: 100, ..Default::default() }).unwrap();
        let mut warnings = Vec::new();
        let (a2, _, pass) = heapql_report::analyze(&heap, options, true, None, &mut warnings).unwrap();
        assert!(pass.is_some(), "the report's pass was made beside the dominators");
        let report = heapql_report::build_after(&heap, &a2, &heapql_report::ReportOptions { limit: 100, ..Default::default() }, pass).unwrap();
        let naive = naive_reachable(&heap, &a);
        for w in [&alone, &report.waste] {
            let heaps = w.heaps.as_ref().unwrap();
            let live: Vec<(String, u64)> = heaps.iter().map(|h| (h.name.clone(), h.reachable_shallow)).collect();
            assert_eq!(live, naive, "reachable_only {reachable_only}");
            for h in heaps {
                let want = if h.reachable_shallow == 0 { 0.0 } else { h.reachable_overhead as f64 * 100.0 / h.reachable_shallow as f64 };
                assert!((h.percent_of_reachable - want).abs() < 1e-9, "{}: {} against {want}", h.name, h.percent_of_reachable);
            }
        }
        // By construction: the app's reachable bytes are three holders and three byte[1000]
        // (1012 B each, Android's 12-byte array header), its garbage byte[3000] left out; its
        // reachable waste is the three zero tails.
        let app = alone.heaps.as_ref().unwrap().iter().find(|h| h.name == "app").unwrap();
        let holder = heap.instance_size(heap.classes_named("com.example.Holder")[0]);
        assert_eq!(app.reachable_shallow, 3 * (holder + 1012));
        assert_eq!(app.reachable_overhead, 3 * 999);
        assert!((app.percent_of_reachable - 3.0 * 999.0 * 100.0 / (3 * (holder + 1012)) as f64).abs() < 1e-9);
        let zygote = alone.heaps.as_ref().unwrap().iter().find(|h| h.name == "zygote").unwrap();
        assert_eq!(zygote.reachable_shallow, holder + 1012, "the unreachable holder and its array left out");
        assert_eq!((zygote.overhead, zygote.reachable_overhead), (if reachable_only { 999 } else { 2 * 999 }, 999));
    }
}
