//! Indexes a dump and prints what the index found, with timings:
//! `cargo run --release -p heapql-heap --example index -- <file.hprof> [--histo N] [--dump K]`.

use heapql_heap::{Heap, OpenOptions};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: index <file.hprof> [--histo N] [--dump K] [--lookups]");
        std::process::exit(2);
    };
    let arg = |k: &str| args.iter().position(|a| a == k).and_then(|i| args.get(i + 1)).and_then(|v| v.parse::<usize>().ok());
    let histo = arg("--histo").unwrap_or(20);
    let opts = OpenOptions { dump: arg("--dump").unwrap_or(0), ..Default::default() };
    let t = Instant::now();
    let h = match Heap::open(std::path::Path::new(path), opts) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("{}: {e}", e.code());
            std::process::exit(1);
        }
    };
    let secs = t.elapsed().as_secs_f64();
    let i = h.info();
    println!(
        "indexed {} ({} bytes uncompressed) in {:.3} s = {:.2} GB/s",
        i.path,
        i.uncompressed_size,
        secs,
        i.uncompressed_size as f64 / secs / 1e9
    );
    println!("format {} id_size {} dumps {} (indexing #{}) compression {}", i.format, i.id_size, i.dump_count, i.dump, i.compression);
    println!(
        "model: header {} refs {} array header {} align {} ({}) jvm {:?} jdk {:?}",
        i.object_header_size, i.reference_size, i.array_header_size, i.object_alignment, i.size_model_source, i.jvm_version, i.jdk_feature
    );
    let s = h.summary();
    println!(
        "objects {} (instances {}, object arrays {}, primitive arrays {}, class objects {}), classes {}, roots {} on {} objects, shallow {} bytes, index memory {} bytes ({:.2} B/object)",
        s.objects, s.instances, s.object_arrays, s.primitive_arrays, s.class_objects, s.classes, s.gc_roots, s.gc_root_objects, s.total_shallow,
        h.index_memory(), h.index_memory() as f64 / s.objects.max(1) as f64
    );
    for (k, n) in &s.roots_by_kind {
        println!("  root {:<18} {n}", k.label());
    }
    println!("threads {}", h.threads().len());
    for w in h.warnings().iter().take(20) {
        println!("warning @{}: {}", w.offset, w.message);
    }
    println!("{:>12} {:>14}  class", "count", "shallow");
    for r in h.class_histogram().iter().take(histo) {
        println!("{:>12} {:>14}  {}", r.count, r.shallow, h.class(r.class).name);
    }
    if let Some(i) = args.iter().position(|a| a == "--class") {
        for name in &args[i + 1..] {
            for &c in h.classes_named(name) {
                let ci = h.class(c);
                println!("class {} size {} dump_size {} super {:?}", ci.name, h.instance_size(c), ci.dump_instance_size, ci.super_class.map(|s| &h.class(s).name));
                for f in h.instance_layout(c) {
                    println!("    {:?} {}", f.ty, f.name);
                }
            }
        }
    }
    if let Some(n) = arg("--strings") {
        let mut shown = 0;
        for o in 0..h.object_count() {
            if h.class(h.class_of(o)).name == "java.lang.String" && h.object_kind(o) == heapql_heap::ObjectKind::Instance {
                let v = h.field(o, "value");
                let target = match v { Some(heapql_heap::Value::Object(id)) => h.index_of(id).map(|t| (t, h.object_kind(t))), _ => None };
                println!("{:#x} {:?} value={:?} -> {:?} text={:?}", h.object_id(o), h.fields(o), v, target, h.string_value(o));
                shown += 1;
                if shown >= n { break; }
            }
        }
    }
    if args.iter().any(|a| a == "--lookups") {
        let t = Instant::now();
        let n = h.object_count();
        let mut found = 0u64;
        let mut refs = 0u64;
        for o in 0..n {
            h.for_each_reference(o, |id, _| {
                refs += 1;
                if h.index_of(id).is_some() {
                    found += 1;
                }
            });
        }
        println!("{refs} references, {found} resolved, in {:.3} s", t.elapsed().as_secs_f64());
    }
}
