//! A chain of 2,000 classes: each class's instance layout is built from its superclass's and
//! shares its storage (the fields of the whole chain stored once, not once per class below
//! them), the JDK 15+ size model keeps a few occupied blocks per class instead of one per
//! inherited field, and the layouts, offsets and references read the same as a layout built
//! field by field. One test function: the block count is a process-wide counter.

use heapql_heap::{layout_blocks_kept, FieldType, Heap, OpenOptions, Value};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

const DEPTH: usize = 2000;
/// A level that declares no field of its own.
const EMPTY: usize = 1000;

/// Own fields of level `k` (none at `EMPTY`).
fn own(k: usize) -> Vec<(String, BasicType)> {
    if k == EMPTY {
        return Vec::new();
    }
    vec![(format!("r{k}"), BasicType::Object), (format!("v{k}"), BasicType::Int)]
}

/// Values of level `k`'s own fields in an instance (`target` in every 7th level's reference).
fn own_values(k: usize, target: u64, salt: i32) -> Vec<Val> {
    own(k).iter().map(|(_, t)| if *t == BasicType::Object { Val::Obj(if k % 7 == 0 { target } else { 0 }) } else { Val::Int(k as i32 * 10 + salt) }).collect()
}

#[test]
fn a_deep_chain_of_classes_shares_its_layouts_and_reads_the_same() {
    let mut b = DumpBuilder::new(8);
    b.set_format("JAVA PROFILE 1.0.2");
    let mut chain = Vec::new();
    let mut sup = b.object_class;
    for k in 0..DEPTH {
        let f = own(k);
        let fields: Vec<(&str, BasicType)> = f.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        sup = b.class(&format!("deep.C{k}"), Some(sup), &fields);
        chain.push(sup);
    }
    // A second subclass of the level above the empty one: its layout cannot share the chain's.
    let side = b.class("deep.Side", Some(chain[EMPTY - 1]), &[("side", BasicType::Long)]);
    let target = b.byte_array(&[1, 2, 3]);
    let values = |top: usize, salt: i32| -> Vec<Val> { (0..=top).rev().flat_map(|k| own_values(k, target, salt)).collect() };
    let leaf = b.instance(chain[DEPTH - 1], &values(DEPTH - 1, 1));
    let mid = b.instance(chain[EMPTY], &values(EMPTY, 2));
    let mut side_values = vec![Val::Long(-5)];
    side_values.extend(values(EMPTY - 1, 3));
    let side_obj = b.instance(side, &side_values);
    for o in [leaf, mid, side_obj] {
        b.root_jni_global(o);
    }
    let blocks_before = layout_blocks_kept();
    let h = Heap::open_bytes(&b.build(), "deep.hprof", OpenOptions::default()).expect("index");
    let blocks = layout_blocks_kept() - blocks_before;
    let warnings: Vec<&str> = h.warnings().iter().map(|w| w.message.as_str()).collect();
    assert!(warnings.iter().all(|w| !w.contains("field data of another length")), "{warnings:?}");

    // Every level's layout: own fields, then each super's, to the top.
    let classes: Vec<_> = (0..DEPTH).map(|k| h.classes_named(&format!("deep.C{k}"))[0]).collect();
    let mut expected: Vec<(String, BasicType)> = Vec::new();
    for k in 0..DEPTH {
        let mut e = own(k);
        e.extend(expected.iter().cloned());
        expected = e;
        let got: Vec<(&str, &str)> = h.instance_layout(classes[k]).iter().map(|f| (f.name.as_str(), if f.ty == FieldType::Object { "ref" } else { "int" })).collect();
        let want: Vec<(&str, &str)> = expected.iter().map(|(n, t)| (n.as_str(), if *t == BasicType::Object { "ref" } else { "int" })).collect();
        assert_eq!(got, want, "layout of deep.C{k}");
        // The super's layout is the end of this one's, in the same storage.
        if k > 0 {
            let l = h.instance_layout(classes[k]);
            let s = h.instance_layout(classes[k - 1]);
            assert!(std::ptr::eq(l[l.len() - s.len()..].as_ptr(), s.as_ptr()), "deep.C{k} does not share deep.C{}'s layout", k - 1);
        }
    }
    let side_c = h.classes_named("deep.Side")[0];
    let sl = h.instance_layout(side_c);
    assert_eq!(sl[0].name, "side");
    let names = |l: &[heapql_heap::FieldDef]| l.iter().map(|f| (f.name.clone(), f.ty)).collect::<Vec<_>>();
    assert_eq!(names(&sl[1..]), names(h.instance_layout(classes[EMPTY - 1])));
    // Stored: the chain's fields once, and the side class's copy of its super's layout (the
    // testkit's few JDK classes each declare their own fields, under java.lang.Object).
    let chain_fields = 2 * (DEPTH - 1);
    let others: usize = (0..h.class_count()).filter(|&c| !h.class(c).name.starts_with("deep.")).map(|c| h.class(c).fields.len()).sum();
    assert!(others < 20, "{others}");
    assert_eq!(h.layout_storage(), chain_fields + 1 + 2 * EMPTY + others, "field definitions stored");
    // The size model kept a few blocks per class (the header and the fields after it merge),
    // not one per inherited field (about DEPTH² of them).
    assert!(blocks >= DEPTH as u64, "the JDK 15+ model laid out the chain: {blocks} blocks");
    // (The model is chosen among a few candidates, each laying out every class.)
    assert!(blocks <= 16 * h.class_count() as u64, "{blocks} occupied blocks kept for {} classes", h.class_count());

    // Values by name and in layout order, and references with their layout slots.
    for (id, top, salt) in [(leaf, DEPTH - 1, 1), (mid, EMPTY, 2)] {
        let o = h.index_of(id).unwrap();
        let fields = h.fields(o);
        assert_eq!(fields.len(), h.instance_layout(classes[top]).len());
        let mut want_refs = Vec::new();
        for (slot, (name, v)) in fields.iter().enumerate() {
            let k: usize = name[1..].parse().unwrap();
            if name.starts_with('v') {
                assert_eq!(*v, Value::Int(k as i32 * 10 + salt), "{name}");
            } else if k % 7 == 0 {
                assert_eq!(*v, Value::Object(target), "{name}");
                want_refs.push((target, slot as u32));
            } else {
                assert_eq!(*v, Value::Null, "{name}");
            }
            assert_eq!(h.field(o, name), Some(*v));
        }
        let mut refs = Vec::new();
        h.for_each_reference(o, |r, slot| refs.push((r, slot)));
        assert_eq!(refs, want_refs);
    }
    let o = h.index_of(side_obj).unwrap();
    assert_eq!(h.field(o, "side"), Some(Value::Long(-5)));
    assert_eq!(h.field(o, "v0"), Some(Value::Int(3)));
    assert_eq!(h.field(o, &format!("v{}", EMPTY - 1)), Some(Value::Int((EMPTY as i32 - 1) * 10 + 3)));
    assert_eq!(h.field(o, &format!("v{}", EMPTY + 1)), None);
    // Sizes grow with the chain (one reference and one int per level with fields).
    assert!(h.instance_size(classes[DEPTH - 1]) > h.instance_size(classes[DEPTH / 2]));
}
