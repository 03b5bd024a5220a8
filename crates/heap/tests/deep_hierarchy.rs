//! A class hierarchy hundreds of levels deep (a JVM defines chains of a few thousand): every
//! level's fields are in the instance layout, so a field declared at the top is read, its
//! reference followed, and the instances' data length agrees with the class's fields.

use heapql_heap::{exercise, Heap, OpenOptions, Value};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

#[test]
fn fields_declared_hundreds_of_superclasses_up_are_read() {
    const DEPTH: usize = 600;
    let mut b = DumpBuilder::new(8);
    // deep.C0 (declares `ref`) <- deep.C1 (declares `v1`) <- ... <- deep.C599.
    let mut class = b.class("deep.C0", Some(b.object_class), &[("ref", BasicType::Object)]);
    for level in 1..DEPTH {
        class = b.class(&format!("deep.C{level}"), Some(class), &[(&format!("v{level}"), BasicType::Int)]);
    }
    let target = b.byte_array(&[1, 2, 3]);
    // Values in layout order: the leaf's own field first, then each super's, `ref` last.
    let mut values: Vec<Val> = (1..DEPTH).rev().map(|level| Val::Int(level as i32)).collect();
    values.push(Val::Obj(target));
    let leaf = b.instance(class, &values);
    b.root_jni_global(leaf);
    let h = Heap::open_bytes(&b.build(), "deep.hprof", OpenOptions::default()).expect("index");

    let warnings: Vec<&str> = h.warnings().iter().map(|w| w.message.as_str()).collect();
    assert!(warnings.iter().all(|w| !w.contains("field data of another length")), "{warnings:?}");
    let c = h.classes_named(&format!("deep.C{}", DEPTH - 1))[0];
    assert_eq!(h.instance_layout(c).len(), DEPTH);
    let o = h.index_of(leaf).unwrap();
    let t = h.index_of(target).unwrap();
    assert_eq!(h.field(o, "ref"), Some(Value::Object(target)));
    assert!(t < h.object_count());
    assert_eq!(h.field(o, "v1"), Some(Value::Int(1)));
    assert_eq!(h.field(o, &format!("v{}", DEPTH - 1)), Some(Value::Int(DEPTH as i32 - 1)));
    let mut refs = Vec::new();
    h.for_each_reference(o, |id, _| refs.push(id));
    assert_eq!(refs, [target]);
    exercise(&h);
}
