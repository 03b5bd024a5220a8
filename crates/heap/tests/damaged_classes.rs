//! Class records a damaged dump gets wrong: superclass links that form a cycle or name no
//! class, and instances whose field data is not as long as their class's fields. Each is
//! answered with a warning naming it and where it is, and nothing walks a class chain forever.

use heapql_heap::{exercise, Heap, OpenOptions, Value};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

fn open(bytes: &[u8]) -> Heap {
    Heap::open_bytes(bytes, "damaged.hprof", OpenOptions::default()).expect("index")
}

fn warnings(h: &Heap) -> Vec<String> {
    h.warnings().iter().map(|w| w.message.clone()).collect()
}

#[test]
fn a_cycle_of_superclasses_is_cut_where_the_instance_sizes_fit_and_named() {
    let mut b = DumpBuilder::new(8);
    // Ids come in steps of 16: `Later` will be the class made right after `Early`.
    let probe = b.alloc_id();
    let early = b.class("com.example.Early", Some(probe + 32), &[("x", BasicType::Int)]);
    let later = b.class("com.example.Later", Some(early), &[("y", BasicType::Long)]);
    assert_eq!((early, later), (probe + 16, probe + 32), "the cycle Early → Later → Early");
    let o = b.instance(later, &[Val::Long(-7), Val::Int(5)]);
    let e = b.instance(early, &[Val::Int(3)]);
    b.root_jni_global(o);
    b.root_jni_global(e);
    let h = open(&b.build());
    let (ce, cl) = (h.classes_named("com.example.Early")[0], h.classes_named("com.example.Later")[0]);
    // Early's dumped instance size (4) fits its own field alone, Later's (12) its own and
    // Early's: Early's link goes, Later keeps its super.
    assert_eq!(h.class(ce).super_class, None);
    assert_eq!(h.class(cl).super_class, Some(ce));
    let w = warnings(&h);
    let cycle = w.iter().find(|m| m.contains("form a cycle")).unwrap_or_else(|| panic!("no cycle warning in {w:?}"));
    assert!(cycle.contains("com.example.Early → com.example.Later → com.example.Early"), "{cycle}");
    assert!(cycle.contains("the link from com.example.Early (class dump at byte offset "), "{cycle}");
    let io = h.index_of(o).unwrap();
    assert_eq!(h.field(io, "y"), Some(Value::Long(-7)));
    assert_eq!(h.field(io, "x"), Some(Value::Int(5)));
    assert_eq!(h.instance_layout(cl).len(), 2);
    // Every walk over classes, objects and their fields ends.
    exercise(&h);
}

#[test]
fn a_superclass_that_is_no_class_in_the_dump_is_named() {
    let mut b = DumpBuilder::new(8);
    let lost = b.class("com.example.Orphan", Some(0xdead_0000), &[("v", BasicType::Int)]);
    let kept = b.class("com.example.Fine", Some(b.object_class), &[("v", BasicType::Int)]);
    let o = b.instance(lost, &[Val::Int(1)]);
    let f = b.instance(kept, &[Val::Int(2)]);
    b.root_jni_global(o);
    b.root_jni_global(f);
    let h = open(&b.build());
    let w = warnings(&h);
    let m = w.iter().find(|m| m.contains("superclass that is no class")).unwrap_or_else(|| panic!("no warning in {w:?}"));
    assert!(m.starts_with("1 class(es)"), "{m}");
    assert!(m.contains("com.example.Orphan (class dump at byte offset "), "{m}");
    assert!(m.contains("superclass id 0xdead0000"), "{m}");
    assert!(!w.iter().any(|m| m.contains("field data")), "the instances fit their classes: {w:?}");
}

#[test]
fn instances_shorter_or_longer_than_their_class_are_named_with_an_offset() {
    let mut b = DumpBuilder::new(8);
    let pair = b.class("com.example.Pair", Some(b.object_class), &[("a", BasicType::Object), ("b", BasicType::Int)]);
    let wide = b.class("com.example.Wide", Some(b.object_class), &[("n", BasicType::Short)]);
    let good = b.instance(pair, &[Val::Obj(0), Val::Int(1)]);
    let short = b.instance(pair, &[Val::Obj(0)]);
    let long = b.instance(wide, &[Val::Short(1), Val::Short(2)]);
    for o in [good, short, long] {
        b.root_jni_global(o);
    }
    let h = open(&b.build());
    let w = warnings(&h);
    let m = w.iter().find(|m| m.contains("field data")).unwrap_or_else(|| panic!("no warning in {w:?}"));
    assert!(m.starts_with("instances of 2 class(es) hold field data of another length"), "{m}");
    // Pair's short instance comes first in the file.
    assert!(m.contains("(12 bytes for com.example.Pair, e.g. the instance at byte offset "), "{m}");
    assert!(m.contains("also com.example.Wide"), "{m}");
    let at = h.warnings().iter().find(|x| x.message == *m).unwrap().offset;
    assert!(m.contains(&format!("byte offset {at})")), "the warning's offset is the instance's: {m}");
    exercise(&h);
}

#[test]
fn a_sound_dump_gets_none_of_these_warnings() {
    let mut b = DumpBuilder::new(4);
    let node = b.class("com.example.Node", Some(b.object_class), &[("next", BasicType::Object)]);
    let sub = b.class("com.example.Sub", Some(node), &[("v", BasicType::Long)]);
    let n = b.instance(node, &[Val::Obj(0)]);
    let s = b.instance(sub, &[Val::Long(1), Val::Obj(n)]);
    b.root_jni_global(s);
    let h = open(&b.build());
    let w = warnings(&h);
    assert!(!w.iter().any(|m| m.contains("cycle") || m.contains("superclass") || m.contains("field data")), "{w:?}");
}
