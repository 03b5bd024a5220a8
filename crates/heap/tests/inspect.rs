//! Point look-ups on a hand-made dump: fields with types and declaring classes, references
//! with their fields, and a class's description.

use heapql_heap::inspect::{describe_class, object_fields, references, type_label};
use heapql_heap::{FieldType, Heap, OpenOptions, PrimType, Value};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

#[test]
fn fields_references_and_classes() {
    let mut b = DumpBuilder::new(8);
    let node = b.class("com.example.Node", Some(b.object_class), &[("next", BasicType::Object), ("v", BasicType::Int)]);
    let sub = b.class("com.example.Sub", Some(node), &[("flag", BasicType::Boolean), ("w", BasicType::Long)]);
    let a = b.instance(node, &[Val::Obj(0), Val::Int(7)]);
    let c = b.instance(sub, &[Val::Bool(true), Val::Long(-5), Val::Obj(a), Val::Int(9)]);
    let d = b.instance(sub, &[Val::Bool(false), Val::Long(1), Val::Obj(0xdead_0000), Val::Int(1)]);
    let arr = b.object_array(b.object_array_class, &[a, 0, c]);
    let bytes = b.build();
    let h = Heap::open_bytes(&bytes, "t.hprof", OpenOptions::default()).unwrap();
    let (ia, ic, id, iarr) = (h.index_of(a).unwrap(), h.index_of(c).unwrap(), h.index_of(d).unwrap(), h.index_of(arr).unwrap());
    let sub_class = h.class_of(ic);
    let node_class = h.class_of(ia);

    let f = object_fields(&h, ic, 0, 100);
    assert_eq!(f.total, 4);
    let shown: Vec<(&str, &str, Option<u32>, Value)> = f.entries.iter().map(|e| (e.name.as_str(), e.ty, e.declared_by, e.value)).collect();
    assert_eq!(
        shown,
        vec![
            ("flag", "boolean", Some(sub_class), Value::Boolean(true)),
            ("w", "long", Some(sub_class), Value::Long(-5)),
            ("next", "object", Some(node_class), Value::Object(a)),
            ("v", "int", Some(node_class), Value::Int(9)),
        ]
    );
    // A window.
    let w = object_fields(&h, ic, 1, 2);
    assert_eq!(w.entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["w", "next"]);
    assert_eq!(w.total, 4);
    assert!(object_fields(&h, ic, 9, 2).entries.is_empty());
    // Array elements.
    let e = object_fields(&h, iarr, 1, 5);
    assert_eq!(e.total, 3);
    assert_eq!(e.entries.iter().map(|x| (x.name.as_str(), x.value)).collect::<Vec<_>>(), [("[1]", Value::Null), ("[2]", Value::Object(c))]);

    // References: the class object, then fields in order; a dangling one keeps its id.
    let (refs, total) = references(&h, ic, 10);
    assert_eq!(total, 2);
    assert_eq!(refs[0].label, "<class>");
    assert_eq!(refs[0].object, Some(h.class(sub_class).object));
    assert_eq!((refs[1].label.as_str(), refs[1].object), ("next", Some(ia)));
    let (refs, _) = references(&h, id, 10);
    assert_eq!((refs[1].label.as_str(), refs[1].object, refs[1].id), ("next", None, 0xdead_0000));
    let (refs, total) = references(&h, iarr, 1);
    assert_eq!((refs.len(), total), (1, 3));

    // The class: chain, fields with declaring classes, counts with subclasses.
    let dc = describe_class(&h, node_class);
    assert_eq!(dc.super_chain.iter().map(|&s| h.class(s).name.as_str()).collect::<Vec<_>>(), ["java.lang.Object"]);
    assert_eq!(dc.instances, 1);
    assert_eq!(dc.instances_with_subclasses, 3);
    assert_eq!(dc.subclasses, 1);
    let ds = describe_class(&h, sub_class);
    assert_eq!(ds.super_chain.len(), 2);
    assert_eq!(ds.fields.iter().map(|f| (f.name.as_str(), f.ty)).collect::<Vec<_>>(), [("flag", "boolean"), ("w", "long"), ("next", "object"), ("v", "int")]);
    assert_eq!(ds.instances, 2);
    assert_eq!(ds.instance_bytes, 2 * h.instance_size(sub_class));
    assert_eq!(type_label(FieldType::Prim(PrimType::Char)), "char");
}
