//! End-to-end tests over real dumps: the KnownHeap fixtures (facts written by the program that
//! made them, and the JVM's own histogram), the demo dump, and the AOSP ahat test dump of the
//! shared corpus (ignored where the corpus is not beside the repository).

mod common;
#[path = "../../graph/tests/support/class_mirrors.rs"]
mod class_mirrors;

use std::collections::HashMap;
use std::path::PathBuf;

use common::*;
use heapql_exec::{execute, ColumnData, ExecContext, Value};
use heapql_heap::Heap;
use serde_json::{json, Value as J};

fn known_heaps() -> Vec<(PathBuf, J)> {
    let dir = repo().join("fixtures/dumps");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).expect("fixtures/dumps") {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if let Some(stem) = name.strip_suffix(".facts.json") {
            let facts: J = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            out.push((dir.join(format!("{stem}.hprof")), facts));
        }
    }
    assert!(!out.is_empty(), "no KnownHeap fixtures in {}", dir.display());
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// classof → (count, shallow bytes) by class name, through the executor.
fn histogram_by_name(heap: &Heap, threads: usize, force_general: bool) -> HashMap<String, (i64, i64)> {
    let mut aggs = vec![count_star(), aggregate("sum", shallow(), None)];
    if force_general {
        aggs.push(aggregate("median", shallow(), None));
    }
    let q = select(
        instanceof("java.lang.Object"),
        json!({"groupBy": [classof_row()], "aggregates": aggs,
               "output": columns(&[("class", attr(key(0), "displayName")), ("count", agg(0)), ("bytes", agg(1))])}),
    );
    let b = execute(&ExecContext::new(heap).with_threads(threads), &plan(q)).unwrap();
    let names = strings(&b, 0);
    let counts = ints(&b, 1);
    let bytes = ints(&b, 2);
    let mut m: HashMap<String, (i64, i64)> = HashMap::new();
    for ((n, c), s) in names.into_iter().zip(counts).zip(bytes) {
        let e = m.entry(n.unwrap()).or_default();
        e.0 += c;
        e.1 += s;
    }
    m
}

#[test]
fn known_heap_class_counts_and_sizes() {
    for (path, facts) in known_heaps() {
        let heap = open(&path);
        let fast = histogram_by_name(&heap, 0, false);
        for c in facts["classes"].as_array().unwrap() {
            let name = c["name"].as_str().unwrap();
            let n = c["instances"].as_i64().unwrap();
            let s = c["shallow"].as_i64().unwrap();
            assert_eq!(fast.get(name).copied(), Some((n, n * s)), "{}: {name}", path.display());
            let count = single_int(&run(&heap, select(class(name), json!({"aggregates": [count_star()], "output": columns(&[("n", agg(0))])}))));
            assert_eq!(count, n, "{}: COUNT(*) FROM {name}", path.display());
        }
        // Every path of the grouping agrees with the heap's histogram, on one and two threads.
        let general = histogram_by_name(&heap, 1, true);
        assert_eq!(general, fast, "{}", path.display());
        assert_eq!(histogram_by_name(&heap, 2, true), fast, "{}", path.display());
        let total: i64 = fast.values().map(|v| v.0).sum();
        assert_eq!(total, heap.object_count() as i64);
    }
}

#[test]
fn known_heap_strings_arrays_and_fields() {
    for (path, facts) in known_heaps() {
        let heap = open(&path);
        let ctx = path.display().to_string();
        // String fields of the Texts holder.
        for s in facts["strings"].as_array().unwrap() {
            let f = s["field"].as_str().unwrap();
            let b = run(&heap, select(class(s["holder"].as_str().unwrap()), json!({"output": columns(&[("t", call("toString", vec![field(row(), f)]))])})));
            assert_eq!(strings(&b, 0), vec![Some(s["value"].as_str().unwrap().to_string())], "{ctx}: {f}");
            // String equality against a literal: object vs string compares the text.
            let b = run(&heap, select(class("java.lang.String"), json!({"filter": bin("=", row(), lit(s["value"].clone()))})));
            assert!(b.row_count >= 1, "{ctx}: no String equals {}", s["value"]);
        }
        // The duplicate-strings named query.
        let dup = &facts["duplicate_strings"];
        let q = select(
            class("java.lang.String"),
            json!({"groupBy": [call("toString", vec![row()])], "aggregates": [count_star()],
                   "having": bin(">", agg(0), lit(json!(1))),
                   "output": columns(&[("value", key(0)), ("count", agg(0))]),
                   "orderBy": [{"expr": out(1), "desc": true}], "limit": 30}),
        );
        let b = run(&heap, q);
        let values = strings(&b, 0);
        let counts = ints(&b, 1);
        let at = values.iter().position(|v| v.as_deref() == dup["value"].as_str()).expect("duplicate-me is listed");
        assert_eq!(counts[at], dup["count"].as_i64().unwrap(), "{ctx}");
        assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{ctx}: counts descending");
        // LIKE on the text.
        let like = json!({"k": "like", "e": call("toString", vec![row()]), "pattern": "duplicate-m.", "negate": false});
        assert_eq!(run(&heap, select(class("java.lang.String"), json!({"filter": like}))).row_count as i64, dup["count"].as_i64().unwrap());

        // Arrays with known elements: every element by index, the whole slice, out of bounds.
        for a in facts["arrays"].as_array().unwrap() {
            let Some(elements) = a["elements"].as_array() else { continue };
            let f = a["field"].as_str().unwrap();
            let len = a["length"].as_i64().unwrap();
            let mut cols: Vec<(String, J)> = (0..len)
                .map(|i| (format!("e{i}"), json!({"k": "index", "e": field(row(), f), "i": lit(json!(i))})))
                .collect();
            cols.push(("oob".into(), json!({"k": "index", "e": field(row(), f), "i": lit(json!(len))})));
            cols.push(("len".into(), attr(field(row(), f), "length")));
            cols.push(("all".into(), json!({"k": "slice", "e": field(row(), f), "from": lit(json!(null)), "to": lit(json!(null))})));
            let refs: Vec<(&str, J)> = cols.iter().map(|(n, e)| (n.as_str(), e.clone())).collect();
            let b = run(&heap, select(class(a["holder"].as_str().unwrap()), json!({"output": columns(&refs)})));
            let ty = a["type"].as_str().unwrap();
            for (i, want) in elements.iter().enumerate() {
                let got = b.columns[i].value(0);
                let ok = match (ty, &got) {
                    ("boolean[]", Value::Bool(x)) => Some(*x) == want.as_bool(),
                    ("char[]", Value::Str(s)) => s.encode_utf16().next().map(|u| u as i64) == want.as_i64(),
                    (_, Value::Float(x)) => *x == want.as_f64().unwrap(),
                    _ => false,
                };
                assert!(ok, "{ctx}: {f}[{i}] = {got:?}, expected {want}");
            }
            assert!(b.columns[len as usize].is_null(0), "{ctx}: {f}[{len}] is out of bounds");
            assert_eq!(ints(&b, len as usize + 1), vec![len], "{ctx}: {f}.@length");
            match &b.columns[len as usize + 2].data {
                ColumnData::Lists(v) => {
                    let parsed: J = serde_json::from_str(&v[0]).unwrap();
                    assert_eq!(parsed.as_array().unwrap().len(), len as usize, "{ctx}: {f}[:]");
                }
                other => panic!("{ctx}: slice column {other:?}"),
            }
        }

        // System properties and a collection's size field.
        let b = run(&heap, select(class("KnownHeap$Texts"), json!({"output": columns(&[("p", attr(row(), "systemProperties"))])})));
        match &b.columns[0].data {
            ColumnData::Lists(v) => assert!(v[0].contains("heapql.fixture=yes"), "{ctx}: {}", v[0]),
            other => panic!("{ctx}: {other:?}"),
        }
        for c in facts["collections"].as_array().unwrap() {
            let q = select(class(c["holder"].as_str().unwrap()), json!({"output": columns(&[("size", field(field(row(), c["field"].as_str().unwrap()), "size"))])}));
            assert_eq!(ints(&run(&heap, q), 0), vec![c["size"].as_i64().unwrap()], "{ctx}: {}", c["field"]);
        }
        // AllPrims: sum of i over instances = 100000 * (0+1+...+9).
        let q = select(class("KnownHeap$AllPrims"), json!({"aggregates": [aggregate("sum", field(row(), "i"), None), aggregate("max", field(row(), "l"), None)],
            "output": columns(&[("s", agg(0)), ("m", agg(1))])}));
        let b = run(&heap, q);
        let n = facts["all_prims"].as_array().unwrap().len() as i64;
        assert_eq!(ints(&b, 0), vec![100000 * n * (n - 1) / 2], "{ctx}");
        assert_eq!(ints(&b, 1), vec![10_000_000_000 * (n - 1)], "{ctx}");
        // Unknown field on a real class lists its fields.
        let e = try_run(&heap, select(class("KnownHeap$Point"), json!({"filter": bin("=", field(row(), "z"), lit(json!(1)))}))).unwrap_err();
        assert_eq!(e.code, "ERR_UNKNOWN_FIELD");
        assert!(e.message.contains("x, y") || e.message.contains("y, x"), "{ctx}: {}", e.message);
        let e = try_run(&heap, select(class("Point"), json!({}))).unwrap_err();
        assert!(e.message.contains("KnownHeap$Point"), "{ctx}: {}", e.message);
    }
}

#[test]
fn demo_dump_class_counts() {
    let dir = repo().join("fixtures/demo");
    let facts: J = serde_json::from_str(&std::fs::read_to_string(dir.join("demo.facts.json")).unwrap()).unwrap();
    let heap = open(&dir.join("demo.hprof"));
    for c in facts["classes"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let count = single_int(&run(&heap, select(class(name), json!({"aggregates": [count_star()], "output": columns(&[("n", agg(0))])}))));
        assert_eq!(count, c["instances"].as_i64().unwrap(), "{name}");
    }
    for c in facts["collections"].as_array().unwrap() {
        // Static of the holder class, read through the class object, then its size field.
        let holder = select(
            class("java.lang.Class"),
            json!({"filter": bin("=", attr(row(), "displayName"), lit(c["static_class"].clone())),
                   "output": columns(&[("size", field(field(row(), c["static_field"].as_str().unwrap()), "size"))])}),
        );
        assert_eq!(ints(&run(&heap, holder), 0), vec![c["size"].as_i64().unwrap()], "{}", c["static_field"]);
    }
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn ahat_corpus_arrays() {
    let path = corpus_dump("ahat-test-dump.hprof");
    let heap = open(&path);
    let idx = |i: i64| json!({"k": "index", "e": row(), "i": lit(json!(i))});
    let all = json!({"k": "slice", "e": row(), "from": lit(json!(null)), "to": lit(json!(null))});
    let lists = |b: &heapql_exec::Batch| -> Vec<String> {
        match &b.columns[0].data {
            ColumnData::Lists(v) => v.clone(),
            ColumnData::Null => vec![],
            other => panic!("{other:?}"),
        }
    };
    // byte[6] holding 0..5
    let q = select(class("byte[]"), json!({"filter": bin("and", bin("=", attr(row(), "length"), lit(json!(6))), bin("=", idx(5), lit(json!(5)))),
        "output": columns(&[("all", all.clone())])}));
    assert!(lists(&run(&heap, q)).contains(&"[0,1,2,3,4,5]".to_string()));
    // int[4] {3,1,2,0}
    let q = select(class("int[]"), json!({"filter": bin("=", attr(row(), "length"), lit(json!(4))), "output": columns(&[("all", all.clone())])}));
    assert!(lists(&run(&heap, q)).contains(&"[3,1,2,0]".to_string()));
    // char[10] "char thing"
    let q = select(class("char[]"), json!({"filter": bin("=", attr(row(), "length"), lit(json!(10))), "output": columns(&[("all", all.clone())])}));
    let want = serde_json::to_string(&"char thing".chars().map(|c| c.to_string()).collect::<Vec<_>>()).unwrap();
    assert!(lists(&run(&heap, q)).contains(&want));
    // Ten largest shallow sizes (corpus README).
    let q = select(all_src(), json!({"output": columns(&[("s", shallow())]), "orderBy": [{"expr": out(0), "desc": true}], "limit": 10}));
    assert_eq!(ints(&run(&heap, q), 0), vec![1_000_012, 16_396, 8_204, 3_300, 2_388, 1_444, 1_412, 1_264, 1_248, 1_248]);
}

fn all_src() -> J {
    json!({"kind": "all"})
}

#[test]
fn known_heap_retained_sizes_through_the_full_analysis() {
    use heapql_exec::AnalysisView;
    use heapql_graph::analysis::{FullAnalysis, GraphOptions};
    for (path, facts) in known_heaps() {
        let heap = open(&path);
        let analysis = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
        let view = AnalysisView::new(&heap, &analysis);
        let ctx = ExecContext::new(&heap).with_graph(&view);
        for r in facts["retained"].as_array().unwrap().iter().filter(|r| r["root"] == "static") {
            // The static is read through the class object of its holder.
            let q = select(
                class("java.lang.Class"),
                json!({"filter": bin("=", attr(row(), "displayName"), lit(r["class"].clone())),
                       "output": columns(&[("r", attr(field(row(), r["static_field"].as_str().unwrap()), "retainedHeapSize")),
                                           ("dom", call("dominatorof", vec![field(row(), r["static_field"].as_str().unwrap())])),
                                           ("in", attr(field(row(), r["static_field"].as_str().unwrap()), "inbounds"))])}),
            );
            let b = execute(&ctx, &plan_with(q, false, true)).unwrap();
            // Held by the static: dominated by the class object, which is one of its referrers.
            let holder = objects(&b, 1)[0];
            let c = heap.classes_named(r["class"].as_str().unwrap())[0];
            let Some(heapql_heap::Value::Object(id)) =
                heap.class(c).statics.iter().find(|f| f.name == r["static_field"]).map(|f| f.value)
            else {
                panic!("{}: no static {}", path.display(), r["static_field"])
            };
            let target = heap.index_of(id).unwrap();
            let want = r["retained"].as_i64().unwrap() + class_mirrors::private_class_mirrors(&heap, &analysis, target) as i64;
            assert_eq!(ints(&b, 0), vec![want], "{}: {}", path.display(), r["static_field"]);
            let inbounds = b.columns[2].value(0).to_json();
            assert!(inbounds.as_array().unwrap().contains(&json!({"o": holder})), "{}: {} {inbounds}", path.display(), r["static_field"]);
        }
        // The biggest retained sizes by class, whole heap, ordered: top-k equals the full sort.
        let order = json!([{"expr": out(1), "desc": true}]);
        let q = |limit: J| select(all(), json!({"groupBy": [classof_row()], "aggregates": [aggregate("sum", attr(row(), "retainedHeapSize"), None)],
            "output": columns(&[("class", key(0)), ("retained", agg(0))]), "orderBy": order, "limit": limit}));
        let full = execute(&ctx, &plan_with(q(json!(null)), false, true)).unwrap();
        let top = execute(&ctx, &plan_with(q(json!(5)), false, true)).unwrap();
        assert_eq!(objects(&top, 0), objects(&full, 0)[..5].to_vec());
        // AS RETAINED SET of the CYCLE static's target: its three nodes.
        let cycle = select(class("KnownHeap$CycleNode"), json!({"retainedSet": true, "aggregates": [count_star()], "output": columns(&[("n", agg(0))])}));
        assert_eq!(single_int(&execute(&ctx, &plan_with(cycle, false, true)).unwrap()), 3);
    }
}

/// Rule 12 follows the dump: a JDK 6 String has `count` and `offset` (its text is
/// `value[offset .. offset+count]`), read as the real field values; a JDK 9+ one has neither,
/// and the error lists its real fields.
#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn string_count_and_offset_follow_the_dumps_layout() {
    let path = corpus_dump("sun_jdk6_30_x64_compressedOops.hprof");
    let heap = open(&path);
    let text_len = attr(call("toString", vec![row()]), "length");
    let q = select(class("java.lang.String"), json!({"output": columns(&[
        ("count", field(row(), "count")), ("offset", field(row(), "offset")),
        ("len", text_len), ("array", attr(field(row(), "value"), "length"))])}));
    let b = run(&heap, q);
    assert_eq!(b.row_count, 876, "the JVM's histogram: 876 strings");
    let (count, offset, len, array) = (ints(&b, 0), ints(&b, 1), ints(&b, 2), ints(&b, 3));
    for i in 0..b.row_count {
        assert_eq!(count[i], len[i], "string {i}: count is the text's length");
        assert!(offset[i] >= 0 && offset[i] + count[i] <= array[i], "string {i}: {} + {} in {}", offset[i], count[i], array[i]);
    }
    assert!(offset.iter().any(|&o| o > 0), "some strings share a longer array");
    // A JDK 17 String: no count; the message lists its own fields and where the text is.
    let heap = open(&repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof"));
    let e = try_run(&heap, select(class("java.lang.String"), json!({"output": columns(&[("c", field(row(), "count"))])}))).unwrap_err();
    assert_eq!(e.code, "ERR_UNKNOWN_FIELD");
    assert!(e.message.starts_with("java.lang.String has no field 'count' (its fields: hashIsZero, hash, coder, value)"), "{}", e.message);
    assert!(e.message.ends_with("use toString(s) for the text, @length for its length"), "{}", e.message);
}
