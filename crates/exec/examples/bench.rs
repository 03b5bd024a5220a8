//! Whole-heap query timings on a generated dump.
//!
//! `cargo run --release -p heapql-exec --example bench -- <dump.hprof> [objects]`
//! writes the dump with the HPROF test kit when the file does not exist (instances of a few
//! classes, strings, arrays), opens it, and times the whole-heap aggregates of the
//! performance budget (design.md §6: ≤ 0.2 s per 100 M objects) plus a few other shapes.
//! `BENCH_ONLY=<text>` runs only the queries whose label contains the text.
//!
//! Then a table of filters (`COUNT(*) ... WHERE <filter>`), each reported in ns per object
//! scanned: a scan visits every object of the heap, also for a class source, so the cost per
//! object is comparable between rows. The filters name classes and fields of the benchmark
//! dump (`fixtures/programs/BenchHeap.java`); on a dump without them a row says so.
//! `BENCH_FILTERS=0` skips the table, `BENCH_FILTERS=only` runs only it. A class source's scan
//! stops once it has met every instance; its `@objectId >= 0` row is the floor of that scan.
//! `BENCH_THREADS=1` runs on one worker (for profiles).

use std::path::PathBuf;
use std::time::Instant;

use heapql_exec::{execute_json, ExecContext};
use heapql_heap::{Heap, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

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

/// One row of the filter table: the best of three runs of `COUNT(*)` with the filter.
fn time_filter(ctx: &ExecContext, label: &str, source: &serde_json::Value, filter: &serde_json::Value, objects: u32) {
    if let Ok(only) = std::env::var("BENCH_ONLY") {
        if !label.contains(&only) {
            return;
        }
    }
    let plan = json!({"version": 1, "reachableOnly": false, "fullPath": false, "query": {
        "op": "select", "source": source, "alias": "x", "filter": filter,
        "output": {"kind": "columns", "columns": [{"name": "n", "expr": {"k": "agg", "i": 0}}]},
        "groupBy": [], "aggregates": [{"fn": "count", "arg": null, "p": null}], "having": null,
        "orderBy": [], "distinct": false, "limit": null, "retainedSet": false, "guards": []
    }})
    .to_string();
    let mut best = f64::MAX;
    let mut best_cpu = f64::MAX;
    let mut count = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        let cpu = thread_cpu();
        match execute_json(ctx, &plan) {
            Ok(b) => {
                best = best.min(t.elapsed().as_secs_f64());
                if let (Some(a), Some(b)) = (cpu, thread_cpu()) {
                    best_cpu = best_cpu.min(b - a);
                }
                count = format!("{:?}", b.columns[0].value(0));
            }
            Err(e) => {
                println!("{label:<58} skipped: {e}");
                return;
            }
        }
    }
    // On one worker the scan runs on this thread: its time on the processor, which other
    // processes on the machine do not stretch, is shown too.
    let cpu = if ctx.threads == 1 && best_cpu < f64::MAX {
        format!("  cpu {:>6.1} ns/object", best_cpu * 1e9 / objects as f64)
    } else {
        String::new()
    };
    println!("{label:<58} {:>8.1} ms  {:>6.1} ns/object{cpu}  {count}", best * 1e3, best * 1e9 / objects as f64);
}

/// Seconds this thread has spent on a processor (Linux: `/proc/thread-self/schedstat`).
fn thread_cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// Filters over every object and over the instances of the benchmark dump's classes.
fn filter_table(ctx: &ExecContext, objects: u32) {
    let row = || json!({"k": "row"});
    let lit = |v: serde_json::Value| json!({"k": "lit", "v": v});
    let field = |base: serde_json::Value, name: &str| json!({"k": "field", "base": base, "name": name});
    let attr = |base: serde_json::Value, name: &str| json!({"k": "attr", "base": base, "name": name});
    let bin = |op: &str, l: serde_json::Value, r: serde_json::Value| json!({"k": "bin", "op": op, "l": l, "r": r});
    let f = |name: &str| field(row(), name);
    let null = || lit(serde_json::Value::Null);
    let all = json!({"kind": "all"});
    let class = |name: &str| json!({"kind": "class", "name": name, "subclasses": false});
    let rows: Vec<(&str, serde_json::Value, serde_json::Value)> = vec![
        ("all: @objectId >= 0 (scan floor)", all.clone(), bin(">=", attr(row(), "objectId"), lit(json!(0)))),
        ("all: @usedHeapSize > 0 (attribute fast path)", all.clone(), bin(">", attr(row(), "usedHeapSize"), lit(json!(0)))),
        ("all: @usedHeapSize + 0 > 0 (general attribute)", all.clone(), bin(">", bin("+", attr(row(), "usedHeapSize"), lit(json!(0))), lit(json!(0)))),
        ("all: x IS NULL", all.clone(), bin("=", row(), null())),
        ("all: x IS NOT NULL", all.clone(), bin("!=", row(), null())),
        ("all: @length = 0 OR @usedHeapSize > 100", all.clone(),
            bin("or", bin("=", attr(row(), "length"), lit(json!(0))), bin(">", attr(row(), "usedHeapSize"), lit(json!(100))))),
        ("all: @length = 0 AND @usedHeapSize > 100", all.clone(),
            bin("and", bin("=", attr(row(), "length"), lit(json!(0))), bin(">", attr(row(), "usedHeapSize"), lit(json!(100))))),
        ("all: NOT (@usedHeapSize > 24)", all.clone(), json!({"k": "not", "e": bin(">", attr(row(), "usedHeapSize"), lit(json!(24)))})),
        ("all: @usedHeapSize * 2 > 100", all.clone(), bin(">", bin("*", attr(row(), "usedHeapSize"), lit(json!(2))), lit(json!(100)))),
        ("all: x.next IS NULL (most objects lack it)", all.clone(), bin("=", f("next"), null())),
        ("all: x.hash = 0", all.clone(), bin("=", f("hash"), lit(json!(0)))),
        ("all: x INSTANCEOF java.util.Map", all.clone(), json!({"k": "instanceof", "e": row(), "class": "java.util.Map"})),
        ("ChainNode: @objectId >= 0 (scan floor of a class)", class("BenchHeap$ChainNode"), bin(">=", attr(row(), "objectId"), lit(json!(0)))),
        ("ChainNode: x.value > 3 (int)", class("BenchHeap$ChainNode"), bin(">", f("value"), lit(json!(3)))),
        ("ChainNode: x.next IS NULL", class("BenchHeap$ChainNode"), bin("=", f("next"), null())),
        ("ChainNode: x.next != null AND x.value > 100", class("BenchHeap$ChainNode"),
            bin("and", bin("!=", f("next"), null()), bin(">", f("value"), lit(json!(100))))),
        ("ChainNode: x.next.value = x.value + 1", class("BenchHeap$ChainNode"),
            bin("=", field(f("next"), "value"), bin("+", f("value"), lit(json!(1))))),
        ("Record: @objectId >= 0 (scan floor of a class)", class("BenchHeap$Record"), bin(">=", attr(row(), "objectId"), lit(json!(0)))),
        ("Record: x.score > 0.5 (double)", class("BenchHeap$Record"), bin(">", f("score"), lit(json!(0.5)))),
        ("Record: x.id < 0 (long)", class("BenchHeap$Record"), bin("<", f("id"), lit(json!(0)))),
        ("Record: x.name = null OR x.flags = 3", class("BenchHeap$Record"),
            bin("or", bin("=", f("name"), null()), bin("=", f("flags"), lit(json!(3))))),
        ("Record: x.flags >= 1.5 (int against a float)", class("BenchHeap$Record"), bin(">=", f("flags"), lit(json!(1.5)))),
        ("TreeNode: x.left = x.right (objects)", class("BenchHeap$TreeNode"), bin("=", f("left"), f("right"))),
        ("HashMap$Node: x.hash > 0 AND x.value != null", class("java.util.HashMap$Node"),
            bin("and", bin(">", f("hash"), lit(json!(0))), bin("!=", f("value"), null()))),
        ("String: @objectId >= 0 (scan floor of a class)", class("java.lang.String"), bin(">=", attr(row(), "objectId"), lit(json!(0)))),
        ("String: x.coder = 1 (byte)", class("java.lang.String"), bin("=", f("coder"), lit(json!(1)))),
        ("String: x.value.@length > 10", class("java.lang.String"), bin(">", attr(f("value"), "length"), lit(json!(10)))),
        ("String: toString(x) = 'abc' (text)", class("java.lang.String"),
            bin("=", json!({"k": "call", "fn": "toString", "args": [row()]}), lit(json!("abc")))),
        ("String: toString(x) LIKE 'ab.*' (text)", class("java.lang.String"),
            json!({"k": "like", "e": json!({"k": "call", "fn": "toString", "args": [row()]}), "pattern": "ab.*", "negate": false})),
    ];
    println!("filters (COUNT(*) WHERE ..., best of 3; ns per object of the heap scanned):");
    for (label, source, filter) in rows {
        time_filter(ctx, label, &source, &filter, objects);
    }
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
    // `BENCH_THREADS=1`: one worker (for profiles); default: every core.
    let threads = std::env::var("BENCH_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(0);
    let ctx = ExecContext::new(&heap).with_threads(threads);
    let filters = std::env::var("BENCH_FILTERS").unwrap_or_default();
    if filters == "only" {
        filter_table(&ctx, n);
        return;
    }
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
    if filters != "0" {
        filter_table(&ctx, n);
    }
}
