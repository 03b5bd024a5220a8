//! Hand-made dumps (testkit) checked field by field.

use heapql_heap::{FieldType, Heap, ObjectKind, OpenOptions, PrimType, RootKind, Value};
use heapql_hprof::testkit::{Body, DumpBuilder, Val, Writer};
use heapql_hprof::types::sub;
use heapql_hprof::BasicType;

fn open(bytes: &[u8]) -> Heap {
    Heap::open_bytes(bytes, "test.hprof", OpenOptions::default()).expect("index")
}

fn sample() -> (Vec<u8>, u64, u64, u64, u64) {
    let mut b = DumpBuilder::new(8);
    let node = b.class("com.example.Node", Some(b.object_class), &[("next", BasicType::Object), ("v", BasicType::Int)]);
    let sub = b.class("com.example.Sub", Some(node), &[("flag", BasicType::Boolean), ("v", BasicType::Long)]);
    let a = b.instance(node, &[Val::Obj(0), Val::Int(7)]);
    let c = b.instance(sub, &[Val::Bool(true), Val::Long(-5), Val::Obj(a), Val::Int(9)]);
    let arr = b.object_array(b.object_array_class, &[a, 0, c]);
    let ints = b.primitive_array(BasicType::Int, &[Val::Int(3), Val::Int(1), Val::Int(2), Val::Int(0)]);
    b.root_jni_global(arr);
    b.root_jni_global(0xdead_0000); // not an object of the dump
    b.root(sub::ROOT_MONITOR_USED, ints);
    (b.build(), a, c, arr, ints)
}

#[test]
fn objects_fields_and_references() {
    let (bytes, a, c, arr, ints) = sample();
    let h = open(&bytes);
    let (ia, ic, iarr, iints) = (h.index_of(a).unwrap(), h.index_of(c).unwrap(), h.index_of(arr).unwrap(), h.index_of(ints).unwrap());
    // Objects are numbered in id order.
    for o in 1..h.object_count() {
        assert!(h.object_id(o - 1) < h.object_id(o));
    }
    assert_eq!(h.object_kind(ia), ObjectKind::Instance);
    assert_eq!(h.object_kind(iarr), ObjectKind::ObjectArray);
    assert_eq!(h.object_kind(iints), ObjectKind::PrimitiveArray(PrimType::Int));
    assert_eq!(h.class(h.class_of(ic)).name, "com.example.Sub");
    assert_eq!(h.class(h.class_of(iints)).name, "int[]");
    // The most derived `v` wins; the super's is still in the layout.
    assert_eq!(h.field(ic, "v"), Some(Value::Long(-5)));
    let names: Vec<&str> = h.fields(ic).iter().map(|f| f.0).collect();
    assert_eq!(names, ["flag", "v", "next", "v"]);
    assert_eq!(h.fields(ic)[3].1, Value::Int(9));
    assert_eq!(h.field(ic, "next"), Some(Value::Object(a)));
    assert_eq!(h.field(ia, "next"), Some(Value::Null));
    assert_eq!(h.field(ia, "nope"), None);
    assert_eq!(h.instance_layout(h.class_of(ic))[2].ty, FieldType::Object);
    let mut refs = Vec::new();
    h.for_each_reference(ic, |id, slot| refs.push((id, slot)));
    assert_eq!(refs, vec![(a, 2)]);
    let mut refs = Vec::new();
    h.for_each_reference(iarr, |id, slot| refs.push((id, slot)));
    assert_eq!(refs, vec![(a, 0), (c, 2)]);
    assert_eq!(h.array_length(iarr), Some(3));
    assert_eq!(h.array_element(iarr, 1), Some(Value::Null));
    assert_eq!(h.array_element(iarr, 3), None);
    assert_eq!(h.array_element(iints, 0), Some(Value::Int(3)));
    assert_eq!(h.array_element(iints, 3), Some(Value::Int(0)));
    assert_eq!(h.primitive_array_bytes(iints).unwrap().len(), 16);
    // Roots: the dangling one is dropped with a warning. (The dump records no System Class
    // root: MAT's fallback adds one per boot class, mat-semantics.md §1.3.)
    assert_eq!(h.gc_roots().iter().filter(|r| r.kind != RootKind::StickyClass).count(), 2);
    assert!(h.gc_roots().iter().any(|r| r.kind == RootKind::JniGlobal && r.object == iarr));
    assert!(h.gc_roots().iter().any(|r| r.kind == RootKind::MonitorUsed && r.object == iints));
    assert!(h.warnings().iter().any(|w| w.message.contains("1 GC root record")));
    // Class objects: the class describes itself, its super is a reference.
    let sub_class = h.class_of(ic);
    let so = h.class(sub_class).object;
    assert_eq!(h.object_kind(so), ObjectKind::Class);
    assert_eq!(h.class_described_by(so), Some(sub_class));
    assert_eq!(h.class(h.class_of(so)).name, "java.lang.Class");
    let mut refs = Vec::new();
    h.for_each_reference(so, |id, slot| refs.push((id, slot)));
    let node_class = h.class(sub_class).super_class.unwrap();
    assert_eq!(refs, vec![(h.object_id(h.class(node_class).object), u32::MAX - 1)]);
    assert_eq!(h.subclasses(node_class), &[sub_class]);
    assert_eq!(h.classes_named("com.example.Node"), &[node_class]);
    assert!(h.classes_named("no.such.Class").is_empty());
    assert_eq!(h.index_of(a + 1), None);
}

#[test]
fn shallow_sizes_follow_the_detected_model() {
    // ids 16 apart: an object of 16 bytes fits exactly with compressed references.
    let (bytes, a, _c, _arr, ints) = sample();
    let h = open(&bytes);
    let m = h.info();
    assert_eq!(m.id_size, 8);
    // Node {ref, int}: header + 4 or 8 + 4, aligned to 8 (the model depends on the spacing).
    let ia = h.index_of(a).unwrap();
    let s = h.shallow_size(ia);
    let al = m.object_alignment;
    let want = (m.object_header_size + m.reference_size + 4).div_ceil(al) * al;
    assert_eq!(s as u32, want, "{:?} {:?}", h.size_model(), h.class(h.class_of(ia)));
    assert_eq!(h.instance_size(h.class_of(ia)), s);
    let int4 = h.shallow_size(h.index_of(ints).unwrap());
    assert_eq!(int4 as u32, (h.info().array_header_size + 16).div_ceil(al) * al);
    let total: u64 = (0..h.object_count()).map(|o| h.shallow_size(o)).sum();
    for r in h.class_histogram() {
        let per: u64 = (0..h.object_count()).filter(|&o| h.class_of(o) == r.class).map(|o| h.shallow_size(o)).sum();
        assert_eq!(per, r.shallow, "{}", h.class(r.class).name);
    }
    assert_eq!(total, h.summary().total_shallow);
    let histo: u64 = h.class_histogram().iter().map(|r| r.shallow).sum();
    assert_eq!(histo, total);
    let count: u64 = h.class_histogram().iter().map(|r| r.count).sum();
    assert_eq!(count, h.object_count() as u64);
}

#[test]
fn strings_threads_and_properties() {
    let mut b = DumpBuilder::new(8);
    let latin = b.string("Fånark");
    let utf16 = b.string("Dumont-d’Urville");
    // JDK 8 style String in another class named the same? Use a char[] thread name instead.
    let props_class = b.class("java.util.Properties", Some(b.object_class), &[("table", BasicType::Object)]);
    let entry = b.class("java.util.Hashtable$Entry", Some(b.object_class), &[("key", BasicType::Object), ("value", BasicType::Object), ("next", BasicType::Object)]);
    let k1 = b.string("os.version");
    let v1 = b.string("4.13.0-26-generic");
    let k2 = b.string("java.version");
    let v2 = b.string("1.8.0_151");
    let e2 = b.instance(entry, &[Val::Obj(k2), Val::Obj(v2), Val::Obj(0)]);
    let e1 = b.instance(entry, &[Val::Obj(k1), Val::Obj(v1), Val::Obj(e2)]);
    let table = b.object_array(b.object_array_class, &[0, e1, 0]);
    let props = b.instance(props_class, &[Val::Obj(table)]);
    b.class_full("java.lang.System", Some(b.object_class), 0, &[], &[("props", Val::Obj(props))]);
    b.class("com.example.App", Some(b.object_class), &[]);
    let (t, serial) = b.thread("main", false, &[("run", "com.example.App", 42), ("main", "com.example.App", 7)]);
    let local = b.string("a local");
    b.root_java_frame(local, serial, 1);
    let (_t2, _) = b.thread("worker", true, &[]);
    let h = open(&b.build());
    assert_eq!(h.string_value(h.index_of(latin).unwrap()).as_deref(), Some("Fånark"));
    assert_eq!(h.string_value(h.index_of(utf16).unwrap()).as_deref(), Some("Dumont-d’Urville"));
    assert_eq!(h.string_value(h.index_of(table).unwrap()), None);
    let p = h.system_properties();
    assert_eq!(p, &[("java.version".to_string(), "1.8.0_151".to_string()), ("os.version".to_string(), "4.13.0-26-generic".to_string())]);
    assert_eq!(h.info().jvm_version.as_deref(), Some("1.8.0_151"));
    assert_eq!(h.info().jdk_feature, Some(8));
    let th = h.threads();
    assert_eq!(th.len(), 2);
    let main = th.iter().find(|x| x.serial == serial).unwrap();
    assert_eq!(main.name.as_deref(), Some("main"));
    assert_eq!(main.daemon, Some(false));
    assert_eq!(main.object, h.index_of(t));
    assert_eq!(main.frames.len(), 2);
    assert_eq!(main.frames[0].method, "run");
    assert_eq!(main.frames[0].class_name, "com.example.App");
    assert_eq!(main.frames[0].line, 42);
    assert_eq!(main.frames[1].locals, vec![h.index_of(local).unwrap()]);
    let worker = th.iter().find(|x| x.serial != serial).unwrap();
    assert_eq!(worker.daemon, Some(true));
    let r = h.gc_roots().iter().find(|r| r.kind == RootKind::JavaFrame).unwrap();
    assert_eq!((r.thread_serial, r.frame), (Some(serial), Some(1)));
}

/// JDK ≤ 6 kept a thread's name in a `char[]`: it reads the same for a thread in the thread
/// table (a stack trace) and for one only found as a `java.lang.Thread` instance.
#[test]
fn jdk6_char_array_thread_names_read_with_or_without_a_stack() {
    let mut b = DumpBuilder::new(8);
    let chars = |b: &mut DumpBuilder, s: &str| {
        let units: Vec<Val> = s.encode_utf16().map(Val::Char).collect();
        b.primitive_array(BasicType::Char, &units)
    };
    let (with_stack, serial) = b.thread("main", false, &[]);
    let stackless_name = chars(&mut b, "Low Memory Detector");
    let stackless = b.instance(b.thread_class, &[Val::Obj(stackless_name), Val::Bool(true)]);
    let nameless = b.instance(b.thread_class, &[Val::Obj(0), Val::Bool(true)]);
    let h = open(&b.build());
    let main = h.threads().iter().find(|t| t.serial == serial).unwrap();
    assert_eq!(main.name.as_deref(), Some("main"));
    assert_eq!(h.thread_name(h.index_of(with_stack).unwrap()).as_deref(), Some("main"));
    assert!(h.threads().iter().all(|t| t.object != h.index_of(stackless)));
    assert_eq!(h.thread_name(h.index_of(stackless).unwrap()).as_deref(), Some("Low Memory Detector"));
    assert_eq!(h.thread_name(h.index_of(nameless).unwrap()), None);
    // Not a thread name: a char[] that is not some object's `name`.
    assert_eq!(h.thread_name(h.index_of(stackless_name).unwrap()), None);
}

/// ART's `$classOverhead` static and its fake `byte[]` are recognised once per class, on
/// Android dumps only (4-byte ids with such statics here); a `$classOverhead` that is not a
/// byte[] is not one.
#[test]
fn art_class_overhead_arrays_are_known_per_class() {
    for id_size in [4, 8] {
        let mut b = DumpBuilder::new(id_size);
        let arr = b.byte_array(&[0u8; 40]);
        let ints = b.primitive_array(BasicType::Int, &[Val::Int(0)]);
        let a = b.class_full("app.A", Some(b.object_class), 0, &[], &[("$classOverhead", Val::Obj(arr))]);
        let odd = b.class_full("app.Odd", Some(b.object_class), 0, &[], &[("$classOverhead", Val::Obj(ints))]);
        let plain = b.class_full("app.Plain", Some(b.object_class), 0, &[], &[("other", Val::Obj(arr))]);
        let h = open(&b.build());
        let class = |id: u64| h.class_described_by(h.index_of(id).unwrap()).unwrap();
        let want = (id_size == 4).then(|| h.index_of(arr).unwrap());
        assert_eq!(h.class_overhead_array(class(a)), want, "id size {id_size}");
        assert_eq!(h.class_overhead_array(class(odd)), None);
        assert_eq!(h.class_overhead_array(class(plain)), None);
    }
}

/// Android names no Java version (libcore's `java.version` and `sun.misc.Version.java_version`
/// are "0"): the version is ART's, from the `java.vm.version` property `System.props` inherits
/// from its `defaults` (`unchangeableProps`), with the release and API level of the framework's
/// `android.os.Build$VERSION` when the dump holds it.
#[test]
fn android_dumps_name_the_runtime_not_java_0() {
    for framework in [false, true] {
        // 4-byte ids and a `$classOverhead` static: read as an Android dump.
        let mut b = DumpBuilder::new(4);
        let obj = b.object_class;
        let overhead = b.byte_array(&[0u8; 16]);
        let props_class = b.class("java.util.Properties", Some(obj), &[("defaults", BasicType::Object), ("table", BasicType::Object)]);
        let entry = b.class("java.util.Hashtable$Entry", Some(obj), &[("key", BasicType::Object), ("value", BasicType::Object), ("next", BasicType::Object)]);
        let props = |b: &mut DumpBuilder, defaults: u64, kv: &[(&str, &str)]| {
            let mut next = 0;
            for (k, v) in kv {
                let (k, v) = (b.string(k), b.string(v));
                next = b.instance(entry, &[Val::Obj(k), Val::Obj(v), Val::Obj(next)]);
            }
            let table = b.object_array(b.object_array_class, &[next]);
            b.instance(props_class, &[Val::Obj(defaults), Val::Obj(table)])
        };
        let unchangeable = props(&mut b, 0, &[("java.version", "0"), ("java.vm.version", "2.1.0"), ("java.vm.name", "Dalvik")]);
        let system_props = props(&mut b, unchangeable, &[("java.io.tmpdir", "/tmp")]);
        b.class_full("java.lang.System", Some(obj), 0, &[], &[("$classOverhead", Val::Obj(overhead)), ("props", Val::Obj(system_props))]);
        let zero = b.string("0");
        b.class_full("sun.misc.Version", Some(obj), 0, &[], &[("java_version", Val::Obj(zero))]);
        if framework {
            let release = b.string("14");
            b.class_full("android.os.Build$VERSION", Some(obj), 0, &[], &[("RELEASE", Val::Obj(release)), ("SDK_INT", Val::Int(34))]);
        }
        // Array classes that record their header, as ART writes them since about 2025.
        for c in [b.byte_array_class, b.object_array_class] {
            b.set_instance_size(c, 12);
        }
        let h = open(&b.build());
        assert_eq!(h.info().size_model_source, "Android (sizes recorded in the dump)");
        // `props` alone: the list is the process's own properties, as before.
        assert_eq!(h.system_properties(), &[("java.io.tmpdir".to_string(), "/tmp".to_string())]);
        let want = if framework { "Android 14 (API 34, ART 2.1.0)" } else { "Android (ART 2.1.0)" };
        assert_eq!(h.info().jvm_version.as_deref(), Some(want));
        assert_eq!(h.info().jdk_feature, None);
    }
}

#[test]
fn four_byte_ids_and_several_dumps() {
    let mut w = Writer::new("JAVA PROFILE 1.0.1", 4, 1_700_000_000_000);
    w.utf8(1, "java/lang/Object").utf8(2, "[I");
    w.load_class(1, 0x100, 1).load_class(2, 0x110, 2);
    let mut records = Vec::new();
    for k in 0..2u32 {
        records.push(w.buf.len());
        let mut seg = Body::new(4);
        seg.class_dump(0x100, 0, 0, 0, &[], &[]);
        seg.class_dump(0x110, 0x100, 0, 0, &[], &[]);
        for i in 0..=k {
            seg.instance(0x200 + 16 * i as u64, 0x100, &[]);
        }
        seg.prim_array(0x300, BasicType::Int, 1, &[0, 0, 0, 5]);
        w.heap_dump(&seg);
    }
    // Each HEAP DUMP record's time field: microseconds after the header's time.
    for (at, micros) in records.into_iter().zip([1_500u32, 2_750_000]) {
        w.buf[at + 1..at + 5].copy_from_slice(&micros.to_be_bytes());
    }
    let bytes = w.finish();
    let h0 = open(&bytes);
    assert_eq!(h0.info().dump_count, 2);
    assert_eq!(h0.info().timestamp_ms, 1_700_000_000_001);
    assert_eq!(h0.summary().instances, 1);
    let h1 = Heap::open_bytes(&bytes, "t", OpenOptions { dump: 1, ..Default::default() }).unwrap();
    assert_eq!(h1.summary().instances, 2);
    assert_eq!(h1.info().timestamp_ms, 1_700_000_002_750, "the second dump at its own time");
    let e = Heap::open_bytes(&bytes, "t", OpenOptions { dump: 2, ..Default::default() }).err().unwrap();
    assert_eq!(e.code(), "ERR_NO_SUCH_DUMP");
    assert_eq!(h0.array_element(h0.index_of(0x300).unwrap(), 0), Some(Value::Int(5)));
}

#[test]
fn cancel_stops_open() {
    let (bytes, ..) = sample();
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let e = Heap::open_bytes(&bytes, "t", OpenOptions { cancel: Some(cancel), ..Default::default() }).err().unwrap();
    assert_eq!(e.code(), "ERR_CANCELLED");
}

#[test]
fn progress_is_reported() {
    let (bytes, ..) = sample();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let opts = OpenOptions { progress: Some(std::sync::Arc::new(move |p: heapql_heap::Progress| s2.lock().unwrap().push(p.phase))), ..Default::default() };
    Heap::open_bytes(&bytes, "t", opts).unwrap();
    let v = seen.lock().unwrap();
    assert!(v.contains(&"records") && v.contains(&"index"), "{v:?}");
}

#[test]
fn heap_is_shareable_across_threads() {
    fn check<T: Send + Sync>() {}
    check::<Heap>();
    let (bytes, a, ..) = sample();
    let h = open(&bytes);
    let n = std::thread::scope(|s| {
        let t = s.spawn(|| h.index_of(a));
        t.join().unwrap()
    });
    assert!(n.is_some());
}

/// A primitive array read again from where its record lies (`primitive_array_record`, then
/// `primitive_array_at`, as the waste checks do once the index may be out of the page cache)
/// gives what the index gives: its length and data; nothing for an Android array dumped
/// without its data (0xC3), whose contents are unknown (its length stays known); other kinds
/// have no such record.
#[test]
fn primitive_arrays_read_back_from_their_records() {
    let mut b = DumpBuilder::new(8);
    let bytes = b.byte_array(b"abc\0\0");
    let chars = b.primitive_array(BasicType::Char, &[Val::Char('h' as u16), Val::Char('i' as u16)]);
    let longs = b.primitive_array(BasicType::Long, &[Val::Long(-1), Val::Long(7)]);
    let empty = b.byte_array(b"");
    let nodata = b.alloc_id();
    b.raw_heap().u1(sub::PRIM_ARRAY_NODATA).id(nodata).u4(0).u4(9).u1(BasicType::Int as u8);
    let list = b.object_array(b.object_array_class, &[bytes, chars, longs, empty, nodata]);
    b.root_jni_global(list);
    let h = open(&b.build());
    let want: [(u64, u32, &[u8]); 4] =
        [(bytes, 5, b"abc\0\0"), (chars, 2, &[0, b'h', 0, b'i']), (longs, 2, &[255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 7]), (empty, 0, b"")];
    let o = h.index_of(nodata).unwrap();
    assert_eq!((h.array_length(o), h.primitive_array_bytes(o)), (Some(9), None));
    assert_eq!(h.primitive_array_at(h.primitive_array_record(o).unwrap()), None);
    for (id, len, data) in want {
        let o = h.index_of(id).unwrap();
        let (n, got) = h.primitive_array_at(h.primitive_array_record(o).unwrap()).unwrap();
        assert_eq!((n, &got[..]), (len, data), "array {id:#x}");
        assert_eq!((Some(n), h.primitive_array_bytes(o).as_deref()), (h.array_length(o), Some(data)), "array {id:#x}");
    }
    let o = h.index_of(list).unwrap();
    assert_eq!(h.primitive_array_record(o), None, "an object array");
    assert_eq!(h.primitive_array_record(h.class(h.class_of(o)).object), None, "a class object");
}

#[test]
fn names_outside_the_basic_plane_read_as_the_jvm_wrote_them() {
    // HotSpot writes `Sup𝔘` and the field `𝑥` in modified UTF-8 (each character as two
    // three-byte surrogates); read as standard UTF-8 each became six replacement characters.
    let mut b = DumpBuilder::new(8);
    let c = b.class("pkg.Sup𝔘", Some(b.object_class), &[("𝑥", BasicType::Int), ("a\0b", BasicType::Int)]);
    let o = b.instance(c, &[Val::Int(11), Val::Int(12)]);
    b.root_jni_global(o);
    let h = open(&b.build());
    let io = h.index_of(o).unwrap();
    assert_eq!(h.class(h.class_of(io)).name, "pkg.Sup𝔘");
    assert_eq!(h.classes_named("pkg.Sup𝔘").len(), 1);
    let names: Vec<&str> = h.fields(io).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["𝑥", "a\0b"]);
}
