//! Android (ART, Dalvik) particulars on hand-made dumps: the older `$staticOverhead` arrays,
//! arrays dumped without their data (PRIMITIVE ARRAY NODATA), Dalvik's UNREACHABLE root
//! records, array classes that record no header size, and the wording of dropped roots.

use heapql_heap::{describe, Heap, ObjectKind, OpenOptions, PrimType, RootKind, Value};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::types::sub;
use heapql_hprof::BasicType;

fn open(bytes: &[u8]) -> Heap {
    Heap::open_bytes(bytes, "test.hprof", OpenOptions::default()).unwrap()
}


/// Dalvik and early ART call ART's `$classOverhead` static `$staticOverhead` (hprof-format.md
/// §8.1): its `byte[]` is the class's stand-in all the same.
#[test]
fn dalvik_static_overhead_arrays_are_known_per_class() {
    let mut b = DumpBuilder::new(4);
    let old = b.byte_array(&[0u8; 40]);
    let new = b.byte_array(&[0u8; 24]);
    let a = b.class_full("app.Old", Some(b.object_class), 0, &[], &[("$staticOverhead", Val::Obj(old))]);
    let c = b.class_full("app.New", Some(b.object_class), 0, &[], &[("$classOverhead", Val::Obj(new))]);
    let h = open(&b.build());
    let class = |id: u64| h.class_described_by(h.index_of(id).unwrap()).unwrap();
    assert_eq!(h.class_overhead_array(class(a)), h.index_of(old));
    assert_eq!(h.class_overhead_array(class(c)), h.index_of(new));
}

/// A NODATA array keeps its stated length and size, but has no contents: no bytes, no
/// elements; a String whose value is one has no text (as a String whose value is null), not
/// the empty string, whether its value is a `byte[]` or a `char[]`.
#[test]
fn arrays_dumped_without_data_have_no_contents_and_their_strings_no_text() {
    let mut b = DumpBuilder::new(4);
    let bytes = b.nodata_array(BasicType::Byte, 5);
    let chars = b.nodata_array(BasicType::Char, 5);
    let s_bytes = b.string_over(bytes, 0);
    let s_chars = b.string_over(chars, 0);
    let s_null = b.string_over(0, 0);
    let empty = b.string("");
    let h = open(&b.build());
    let o = |id: u64| h.index_of(id).unwrap();
    assert_eq!(h.object_kind(o(bytes)), ObjectKind::PrimitiveArray(PrimType::Byte));
    assert_eq!(h.array_length(o(bytes)), Some(5));
    assert_eq!(h.primitive_array_bytes(o(bytes)), None);
    assert_eq!(h.primitive_array_at(h.primitive_array_record(o(chars)).unwrap()), None);
    assert_eq!(h.array_element(o(chars), 0), None);
    for s in [s_bytes, s_chars, s_null] {
        assert_eq!(h.string_value(o(s)), None, "String {s:#x}");
        let (_, _, label) = describe(&h, o(s));
        assert!(!label.contains('"'), "{label}");
    }
    assert_eq!(h.string_value(o(empty)).as_deref(), Some(""));
    assert_eq!(h.field(o(s_chars), "value"), Some(Value::Object(chars)));
}

/// Dalvik's UNREACHABLE root record (0x90) is a root of its own kind, not the analysis's
/// pseudo-root of garbage (`RootKind::Unreachable`), with a name of its own.
#[test]
fn dalvik_unreachable_roots_have_a_kind_of_their_own() {
    let mut b = DumpBuilder::new(4);
    let marked = b.byte_array(&[1, 2, 3]);
    b.root(sub::UNREACHABLE, marked);
    let h = open(&b.build());
    let o = h.index_of(marked).unwrap();
    let kinds: Vec<RootKind> = h.gc_roots().iter().filter(|r| r.object == o).map(|r| r.kind).collect();
    assert_eq!(kinds, vec![RootKind::VmUnreachable]);
    assert_eq!(RootKind::VmUnreachable.label(), "Unreachable (Dalvik)");
    assert_ne!(RootKind::VmUnreachable.label(), RootKind::Unreachable.label());
    // Beside the System Class roots of MAT's fallback: the builder's classes are boot classes
    // and the dump records no System Class root (mat-semantics.md §1.3).
    let own: Vec<(RootKind, u64)> = h.summary().roots_by_kind.iter().copied().filter(|k| k.0 != RootKind::StickyClass).collect();
    assert_eq!(own, vec![(RootKind::VmUnreachable, 1)]);
    assert!(h.summary().fallback_system_class_roots > 0);
}

/// Dalvik and early ART write 0 as every array class's instance size: the array header heapql
/// adds (12 bytes, 16 for 8-byte elements) is not in the dump, so the size model says it is
/// estimated. An ART dump whose array classes record it uses it, and is not estimated.
#[test]
fn android_array_headers_the_dump_does_not_record_are_estimated() {
    for recorded in [false, true] {
        // 4-byte ids and a `$classOverhead` static: read as an Android dump.
        let mut b = DumpBuilder::new(4);
        let overhead = b.byte_array(&[0u8; 16]);
        b.class_full("app.A", Some(b.object_class), 0, &[], &[("$classOverhead", Val::Obj(overhead))]);
        let chars = b.primitive_array(BasicType::Char, &[Val::Char(1); 11]);
        let longs = b.primitive_array(BasicType::Long, &[Val::Long(1); 2]);
        let objects = b.object_array(b.object_array_class, &[0, 0, 0]);
        if recorded {
            for c in [b.byte_array_class, b.char_array_class, b.object_array_class] {
                b.set_instance_size(c, 12);
            }
            b.set_instance_size(b.long_array_class, 16);
        }
        let h = open(&b.build());
        let size = |id: u64| h.shallow_size(h.index_of(id).unwrap());
        assert_eq!([size(overhead), size(chars), size(longs), size(objects)], [12 + 16, 12 + 22, 16 + 16, 12 + 12]);
        let source = &h.info().size_model_source;
        if recorded {
            assert_eq!(source, "Android (sizes recorded in the dump)");
            assert!(!h.summary().sizes_estimated);
        } else {
            assert!(source.starts_with("assumed: Android array headers of 12 bytes (16 for long[] and double[])"), "{source}");
            assert!(source.contains("do not record"), "{source}");
            assert!(h.summary().sizes_estimated, "{source}");
        }
    }
}

/// The warning on dropped root records names the first one's kind with the right article.
#[test]
fn dropped_roots_are_named_with_the_right_article() {
    for (tag, want) in [(sub::ROOT_INTERNED_STRING, "(e.g. an Interned String root naming 0x7777000)"), (sub::ROOT_DEBUGGER, "(e.g. a Debugger root naming 0x7777000)")] {
        let mut b = DumpBuilder::new(4);
        b.root(tag, 0x7777000);
        let h = open(&b.build());
        assert!(h.warnings().iter().any(|w| w.message.contains(want)), "{:?}", h.warnings());
    }
}

/// A point look-up lists no elements for an array dumped without its contents (not a NULL per
/// element), whatever the window asked; `array_contents_missing` tells why.
#[test]
fn look_ups_list_no_elements_of_an_array_without_contents() {
    let mut b = DumpBuilder::new(4);
    let missing = b.nodata_array(BasicType::Int, 9);
    let h = open(&b.build());
    let o = h.index_of(missing).unwrap();
    assert!(h.array_contents_missing(o));
    assert_eq!(h.array_length(o), Some(9));
    for (offset, limit) in [(0, 100), (3, 2), (20, 5)] {
        let f = heapql_heap::inspect::object_fields(&h, o, offset, limit);
        assert_eq!((f.entries.len(), f.total), (0, 0), "{offset} {limit}");
    }
}
