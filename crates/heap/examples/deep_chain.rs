//! Writes a dump with one class chain `depth` levels deep (each level declares an int and a
//! reference) and `n` instances of the bottom class, then times indexing it:
//! `cargo run --release -p heapql-heap --example deep_chain -- 5000 100 /tmp/deep.hprof`.
use heapql_heap::{Heap, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let depth: usize = a.get(1).map_or(5000, |s| s.parse().unwrap());
    let n: usize = a.get(2).map_or(100, |s| s.parse().unwrap());
    let mut b = DumpBuilder::new(8);
    let mut class = b.class("deep.C0", Some(b.object_class), &[("r0", BasicType::Object), ("v0", BasicType::Int)]);
    for level in 1..depth {
        class = b.class(&format!("deep.C{level}"), Some(class), &[(&format!("r{level}"), BasicType::Object), (&format!("v{level}"), BasicType::Int)]);
    }
    let target = b.byte_array(&[1, 2, 3]);
    for k in 0..n {
        let mut values = Vec::new();
        for level in (0..depth).rev() {
            values.push(Val::Obj(if level % 7 == 0 { target } else { 0 }));
            values.push(Val::Int((level + k) as i32));
        }
        let o = b.instance(class, &values);
        b.root_jni_global(o);
    }
    let bytes = b.build();
    if let Some(p) = a.get(3) {
        std::fs::write(p, &bytes).unwrap();
    }
    let t = std::time::Instant::now();
    let h = Heap::open_bytes(&bytes, "deep.hprof", OpenOptions::default()).expect("index");
    eprintln!("depth {depth}: indexed in {:?}, {} objects, {} occupied blocks kept", t.elapsed(), h.object_count(), heapql_heap::layout_blocks_kept());
}
