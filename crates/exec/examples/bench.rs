//! Whole-heap query timings on a generated dump.
//!
//! `cargo run --release -p heapql-exec --example bench -- <dump.hprof> [objects]`
//! writes the dump with the HPROF test kit when the file does not exist (instances of a few
//! classes, strings, arrays), opens it, and times the whole-heap aggregates of the
//! performance budget (design.md §6: ≤ 0.2 s per 100 M objects) plus a few other shapes.
//! `BENCH_ONLY=<text>` runs only the queries whose label contains the text.

use std::path::PathBuf;
use std::time::Instant;

use heapql_exec::{execute_json, ExecContext};
use heapql_heap::{Heap, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

fn generate(path: &PathBuf, objects: usize) {
    let mut b = DumpBuilder::new(8);
    let object = b.object_class;
    let node = b.class("bench.Node", Some(object), &[("next", BasicType::Object), ("v", BasicType::Int)]);
    let leaf = b.class("bench.Leaf", Some(object), &[("v", BasicType::Long)]);
    let mut prev = 0;
    let mut made = 0;
    while made < objects {
        match made % 10 {
            0 => {
                b.string(&format!("s{}", made % 1000));
                made += 2;
            }
            1 => {
                b.byte_array(&[1, 2, 3, (made % 250) as u8]);
                made += 1;
            }
            2..=5 => {
                prev = b.instance(node, &[Val::Obj(prev), Val::Int(made as i32)]);
                made += 1;
            }
            _ => {
                b.instance(leaf, &[Val::Long(made as i64)]);
                made += 1;
            }
        }
    }
    std::fs::write(path, b.build()).expect("write dump");
}

fn time(ctx: &ExecContext, label: &str, plan: &str, objects: u32) {
    if let Ok(only) = std::env::var("BENCH_ONLY") {
        if !label.contains(&only) {
            return;
        }
    }
    let mut best = f64::MAX;
    let mut rows = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let b = execute_json(ctx, plan).unwrap_or_else(|e| panic!("{label}: {e}"));
        best = best.min(t.elapsed().as_secs_f64());
        rows = b.row_count;
    }
    println!(
        "{label:<58} {:>9.1} ms  {:>7.3} s/100M objects  ({rows} rows)",
        best * 1e3,
        best * 1e8 / objects as f64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = PathBuf::from(args.get(1).expect("usage: bench <dump.hprof> [objects]"));
    let objects: usize = args.get(2).map(|s| s.parse().expect("objects")).unwrap_or(20_000_000);
    if !path.exists() {
        let t = Instant::now();
        generate(&path, objects);
        println!("generated {} in {:.1} s", path.display(), t.elapsed().as_secs_f64());
    }
    let t = Instant::now();
    let heap = Heap::open(&path, OpenOptions::default()).expect("open");
    let n = heap.object_count();
    println!("indexed {n} objects in {:.2} s", t.elapsed().as_secs_f64());
    let ctx = ExecContext::new(&heap);
    let q = |query: &str| format!(r#"{{"version":1,"reachableOnly":false,"fullPath":false,"query":{query}}}"#);
    let sel = |source: &str, rest: &str| {
        q(&format!(
            r#"{{"op":"select","source":{source},"alias":"x","filter":null,"output":{{"kind":"objects"}},"groupBy":[],"aggregates":[],"having":null,"orderBy":[],"distinct":false,"limit":null,"retainedSet":false,"guards":[]{rest}}}"#
        ))
    };
    let classof = r#"{"k":"call","fn":"classof","args":[{"k":"row"}]}"#;
    let size = r#"{"k":"attr","base":{"k":"row"},"name":"usedHeapSize"}"#;
    let group_out = r#"{"kind":"columns","columns":[{"name":"class","expr":{"k":"key","i":0}},{"name":"n","expr":{"k":"agg","i":0}}]}"#;
    time(&ctx, "SELECT COUNT(*) FROM java.lang.String", &sel(r#"{"kind":"class","name":"java.lang.String","subclasses":false}"#,
        r#","aggregates":[{"fn":"count","arg":null,"p":null}],"output":{"kind":"columns","columns":[{"name":"n","expr":{"k":"agg","i":0}}]}"#), n);
    time(&ctx, "classof(x), COUNT(*) GROUP BY classof(x) (all objects)", &sel(r#"{"kind":"all"}"#,
        &format!(r#","groupBy":[{classof}],"aggregates":[{{"fn":"count","arg":null,"p":null}}],"output":{group_out}"#)), n);
    time(&ctx, "  same + MIN(@usedHeapSize) (per-object scan, no hash)", &sel(r#"{"kind":"all"}"#,
        &format!(r#","groupBy":[{classof}],"aggregates":[{{"fn":"count","arg":null,"p":null}},{{"fn":"min","arg":{size},"p":null}}],"output":{group_out}"#)), n);
    time(&ctx, "  same + WHERE @usedHeapSize > 0 (filter per object)", &sel(r#"{"kind":"all"}"#,
        &format!(r#","filter":{{"k":"bin","op":">","l":{size},"r":{{"k":"lit","v":0}}}},"groupBy":[{classof}],"aggregates":[{{"fn":"count","arg":null,"p":null}}],"output":{group_out}"#)), n);
    time(&ctx, "  general hash grouping (MEDIAN(@usedHeapSize))", &sel(r#"{"kind":"all"}"#,
        &format!(r#","groupBy":[{classof}],"aggregates":[{{"fn":"count","arg":null,"p":null}},{{"fn":"median","arg":{size},"p":null}}],"output":{group_out}"#)), n);
    time(&ctx, "SELECT * FROM bench.Node ORDER BY v DESC LIMIT 10 (top-k)", &sel(r#"{"kind":"class","name":"bench.Node","subclasses":false}"#,
        r#","orderBy":[{"expr":{"k":"field","base":{"k":"row"},"name":"v"},"desc":true}],"limit":10"#), n);
}
