//! Writes the fuzzer's seed dumps (small, hand-made with the testkit) into `fuzz/corpus/index`:
//! `cargo run -p heapql-heap --example fuzz_seeds`.

use heapql_hprof::testkit::{Body, DumpBuilder, Val, Writer};
use heapql_hprof::types::{sub, tag};
use heapql_hprof::BasicType;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/index");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in seeds() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

/// Seeds covering ids of 4 and 8 bytes, strings, threads, properties, Android records, several
/// dumps, an unknown record, and a cut file.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, ids) in [("hotspot-8.hprof", 8u32), ("hotspot-4.hprof", 4)] {
        let mut b = DumpBuilder::new(ids);
        let node = b.class("a.Node", Some(b.object_class), &[("next", BasicType::Object), ("v", BasicType::Int), ("l", BasicType::Long)]);
        let mut prev = 0;
        for i in 0..6 {
            prev = b.instance(node, &[Val::Obj(prev), Val::Int(i), Val::Long(-1)]);
        }
        let s = b.string("hé→");
        let arr = b.object_array(b.object_array_class, &[prev, s, 0]);
        b.primitive_array(BasicType::Double, &[Val::Double(1.5)]);
        b.class_full("java.lang.System", Some(b.object_class), 0, &[], &[("props", Val::Obj(arr)), ("n", Val::Int(3))]);
        b.class("a.App", Some(b.object_class), &[]);
        let (_t, serial) = b.thread("main", false, &[("run", "a.App", 3)]);
        b.root_java_frame(prev, serial, 0);
        b.root_jni_global(arr);
        b.root(sub::ROOT_STICKY_CLASS, b.object_class);
        out.push((name, b.build()));
    }
    // Android-flavoured: 1.0.3, heap info, interned string / VM internal roots, NODATA array.
    let mut w = Writer::new("JAVA PROFILE 1.0.3", 4, 0);
    w.utf8(1, "java.lang.Object").utf8(2, "byte[]").utf8(3, "app");
    w.load_class(1, 0x100, 1).load_class(2, 0x110, 2);
    w.heap_dump_segment(&Body::new(4));
    let mut seg = Body::new(4);
    seg.u1(sub::HEAP_DUMP_INFO).u4(0x41).id(3);
    seg.class_dump(0x100, 0, 0, 8, &[], &[]);
    seg.class_dump(0x110, 0x100, 0, 12, &[], &[]);
    seg.prim_array(0x200, BasicType::Byte, 3, &[1, 2, 3]);
    seg.u1(sub::PRIM_ARRAY_NODATA).id(0x210).u4(0).u4(9).u1(BasicType::Int.code());
    seg.root(sub::ROOT_INTERNED_STRING, 0x200).root(sub::ROOT_VM_INTERNAL, 0x100);
    seg.root_frame(sub::ROOT_JNI_MONITOR, 0x200, 1, -1);
    w.heap_dump_segment(&seg).heap_dump_end();
    out.push(("android.hprof", w.finish()));
    // Two 1.0.1 dumps and an unknown top-level record.
    let mut w = Writer::new("JAVA PROFILE 1.0.1", 4, 0);
    w.record(0x55, &[1, 2, 3]);
    for k in 0..2u64 {
        let mut seg = Body::new(4);
        seg.class_dump(0x100, 0, 0, 0, &[], &[]);
        seg.instance(0x300 + 8 * k, 0x100, &[]);
        w.heap_dump(&seg);
    }
    out.push(("two-dumps.hprof", w.finish()));
    // A cut file: the last segment claims more than remains.
    let mut full = out[0].1.clone();
    full.truncate(full.len() - 40);
    out.push(("cut.hprof", full));
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.record_with_len(tag::HEAP_DUMP_SEGMENT, 0, &[]);
    out.push(("zero-length.hprof", w.finish()));
    out
}
