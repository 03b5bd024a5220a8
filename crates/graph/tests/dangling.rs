//! References to ids that are no object of the dump: dropped from the graph (they read as
//! null), counted as the graph is built, and said in one warning naming the first — the same
//! from a cached analysis.

use heapql_cache::Cache;
use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{CacheUse, Heap, ObjectKind, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

const GONE: u64 = 0xdead_0000;

/// `demo.Sub extends demo.Base`: Sub's layout is its own `n` then Base's `ref`. With `all`,
/// dangling ids also in an object array element, a class's loader and a static.
fn dump(all: bool) -> Vec<u8> {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let base = b.class("demo.Base", Some(obj), &[("ref", BasicType::Object)]);
    let sub = b.class("demo.Sub", Some(base), &[("n", BasicType::Int)]);
    let fine = b.instance(base, &[Val::Obj(0)]);
    let s = b.instance(sub, &[Val::Int(1), Val::Obj(GONE)]);
    b.root_jni_global(s);
    b.root_jni_global(fine);
    if all {
        let arr = b.object_array(b.object_array_class, &[fine, GONE + 8, 0]);
        b.root_jni_global(arr);
        let app = b.class_full("demo.App", Some(obj), GONE + 16, &[], &[("X", Val::Obj(GONE + 24)), ("Y", Val::Obj(fine))]);
        b.root_sticky_class(app);
    }
    b.build()
}

/// The first object (not a class object) of the class named `name`.
fn first_of(heap: &Heap, name: &str) -> u32 {
    (0..heap.object_count()).find(|&o| heap.object_kind(o) != ObjectKind::Class && heap.class(heap.class_of(o)).name == name).unwrap()
}

fn warnings(heap: &Heap, a: &FullAnalysis) -> Vec<(u64, String)> {
    a.warnings(heap)
}

#[test]
fn a_dangling_field_is_one_warning_naming_the_field_its_holder_and_record() {
    let heap = Heap::open_bytes(&dump(false), "d.hprof", OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let s = first_of(&heap, "demo.Sub");
    let w = warnings(&heap, &a);
    assert_eq!(w.len(), 1, "{w:?}");
    let at = heap.record_offset(s).unwrap();
    assert_eq!(w[0].0, at);
    let want = format!(
        "1 reference points to ids that are no object in the dump (they read as null), e.g. field demo.Base.ref of demo.Sub @ 0x{:x} = 0x{GONE:x}, record at byte offset {at}. A JVM may leave objects out",
        heap.object_id(s)
    );
    assert!(w[0].1.starts_with(&want), "{}", w[0].1);
    // The answer itself is unchanged: no edge, the field reads as the id it holds.
    assert!(a.outbound(s).all(|o| heap.object_id(o) != GONE));
}

#[test]
fn every_kind_of_reference_is_counted_and_a_cached_analysis_says_the_same() {
    let bytes = dump(true);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.hprof");
    std::fs::write(&path, &bytes).unwrap();
    let fresh = Heap::open(&path, OpenOptions::default()).unwrap();
    let built = FullAnalysis::build(&fresh, GraphOptions::default()).unwrap();
    let want = warnings(&fresh, &built);
    assert_eq!(built.graph().dangling().count, 4, "field, element, loader, static: {want:?}");
    assert_eq!(want.len(), 1);
    assert!(want[0].1.starts_with("4 references point to ids that are no object in the dump (they read as null), e.g. "), "{want:?}");
    // Reachable-only analyses count the same references.
    let only = FullAnalysis::build(&fresh, GraphOptions { reachable_only: true, ..Default::default() }).unwrap();
    assert_eq!(warnings(&fresh, &only), want);

    let cache = Cache::new(dir.path().join("cache"), None);
    let entry = cache.entry(&path, 0, "test").unwrap();
    for expect in [CacheUse::Written, CacheUse::Hit] {
        let mut notes = Vec::new();
        let (heap, _) = Heap::open_with_cache(&path, OpenOptions::default(), &entry, &mut notes).unwrap();
        let (a, used) = FullAnalysis::build_with_cache(&heap, GraphOptions::default(), &entry, &mut notes).unwrap();
        assert_eq!(used, expect, "{notes:?}");
        assert_eq!(warnings(&heap, &a), want, "{expect:?}");
    }
}

/// The examples name each kind of holder.
#[test]
fn the_example_names_an_array_element_a_class_loader_and_a_static() {
    use heapql_graph::{dangling_warning, Dangling, DanglingRef};
    let heap = Heap::open_bytes(&dump(true), "d.hprof", OpenOptions::default()).unwrap();
    let arr = first_of(&heap, "java.lang.Object[]");
    let app = heap.class(heap.classes_named("demo.App")[0]).object;
    let say = |from, slot, id| dangling_warning(&heap, &Dangling { count: 2, first: Some(DanglingRef { from, slot, id }) }).unwrap().1;
    assert!(say(arr, 1, GONE + 8).contains(&format!("e.g. element [1] of java.lang.Object[3] @ 0x{:x} = 0x{:x}", heap.object_id(arr), GONE + 8)));
    assert!(say(app, u32::MAX - 2, GONE + 16).contains(&format!("e.g. the class loader of class demo.App @ 0x{:x} = 0x{:x}", heap.object_id(app), GONE + 16)));
    assert!(say(app, 0, GONE + 24).contains(&format!("e.g. static field demo.App.X of class demo.App @ 0x{:x}", heap.object_id(app))));
    assert!(dangling_warning(&heap, &Dangling::default()).is_none());
}
