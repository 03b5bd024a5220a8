//! End-to-end tests over a small dump written with the HPROF test kit, whose contents the test
//! knows exactly.

mod common;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use common::*;
use heapql_exec::{execute, execute_stream, ColumnData, ExecContext, Value};
use heapql_heap::Heap;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

const NODES: usize = 100;
const SUBS: usize = 10;
const NUMS: i64 = 200;

struct Facts {
    path: PathBuf,
    /// Node.v of the plain nodes, in creation order.
    v: Vec<i32>,
}

fn lcg(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *state >> 33
}

fn build() -> Facts {
    let mut b = DumpBuilder::new(8);
    let object = b.object_class;
    let node = b.class("com.example.Node", Some(object), &[("next", BasicType::Object), ("v", BasicType::Int), ("name", BasicType::Object)]);
    let sub = b.class("com.example.Sub", Some(node), &[("w", BasicType::Long)]);
    let num = b.class("com.example.Num", Some(object), &[("x", BasicType::Int)]);
    let holder = b.class_full(
        "com.example.Holder",
        Some(object),
        0,
        &[("items", BasicType::Object), ("bytes", BasicType::Object), ("ints", BasicType::Object), ("chars", BasicType::Object)],
        &[("COUNT", Val::Int(7))],
    );
    let names: Vec<u64> = (0..5).map(|i| b.string(&format!("n{i}"))).collect();
    let mut seed = 7u64;
    let mut prev = 0u64;
    let mut v = Vec::new();
    let mut node_ids = Vec::new();
    for i in 0..NODES {
        let val = (lcg(&mut seed) % 50) as i32;
        v.push(val);
        prev = b.instance(node, &[Val::Obj(prev), Val::Int(val), Val::Obj(names[i % 5])]);
        node_ids.push(prev);
    }
    for i in 0..SUBS {
        b.instance(sub, &[Val::Long(i as i64 * 1000), Val::Obj(0), Val::Int(1000 + i as i32), Val::Obj(names[0])]);
    }
    // Num.x = 1..=NUMS in a scrambled order.
    let mut xs: Vec<i64> = (1..=NUMS).collect();
    for i in (1..xs.len()).rev() {
        let j = (lcg(&mut seed) % (i as u64 + 1)) as usize;
        xs.swap(i, j);
    }
    for x in xs {
        b.instance(num, &[Val::Int(x as i32)]);
    }
    let bytes = b.byte_array(&[0, 1, 2, 3, 4, 5]);
    let ints = b.primitive_array(BasicType::Int, &[Val::Int(3), Val::Int(1), Val::Int(2), Val::Int(0)]);
    let chars: Vec<Val> = "char thing".encode_utf16().map(Val::Char).collect();
    let chars = b.primitive_array(BasicType::Char, &chars);
    let items = b.object_array(b.object_array_class, &[node_ids[0], node_ids[1], node_ids[2], 0]);
    let h = b.instance(holder, &[Val::Obj(items), Val::Obj(bytes), Val::Obj(ints), Val::Obj(chars)]);
    b.root_jni_global(h);
    b.root_sticky_class(holder);
    b.thread("main", false, &[("run", "com.example.Main", 10)]);
    let path = temp_file(&format!("synthetic-{}.hprof", std::thread::current().name().unwrap_or("t").replace("::", "-")), &b.build());
    Facts { path, v }
}

fn setup() -> (Heap, Facts) {
    let f = build();
    (open(&f.path), f)
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

#[test]
fn counts_per_class_equal_the_histogram() {
    let (heap, _) = setup();
    let hist: std::collections::HashMap<u32, (i64, i64)> = heap
        .class_histogram()
        .into_iter()
        .filter(|r| r.count > 0)
        .map(|r| (heap.class(r.class).object, (r.count as i64, r.shallow as i64)))
        .collect();
    let by_class = |mods: serde_json::Value, threads: usize| {
        let q = select(all(), mods);
        let b = execute(&ExecContext::new(&heap).with_threads(threads), &plan(q)).unwrap();
        let classes = objects(&b, 0);
        let counts = ints(&b, 1);
        let sums = ints(&b, 2);
        classes.into_iter().zip(counts.into_iter().zip(sums)).collect::<std::collections::HashMap<_, _>>()
    };
    let out = columns(&[("class", key(0)), ("count", agg(0)), ("bytes", agg(1))]);
    let aggs = json!([count_star(), aggregate("sum", shallow(), None)]);
    // Fast path (histogram), fast path with a filter, general hash grouping (MEDIAN forces it).
    let fast = by_class(json!({"groupBy": [classof_row()], "aggregates": aggs, "output": out}), 0);
    assert_eq!(fast, hist);
    let filtered = by_class(
        json!({"groupBy": [classof_row()], "aggregates": aggs, "output": out,
               "filter": bin(">=", shallow(), lit(json!(0)))}),
        2,
    );
    assert_eq!(filtered, hist);
    let mut aggs3 = aggs.clone();
    aggs3.as_array_mut().unwrap().push(aggregate("median", shallow(), None));
    for threads in [1, 2] {
        let general = by_class(json!({"groupBy": [classof_row()], "aggregates": aggs3, "output": out}), threads);
        assert_eq!(general, hist);
    }

    let count = |src| single_int(&run(&heap, select(src, json!({"aggregates": [count_star()], "output": columns(&[("n", agg(0))])}))));
    assert_eq!(count(class("com.example.Node")), NODES as i64);
    assert_eq!(count(instanceof("com.example.Node")), (NODES + SUBS) as i64);
    assert_eq!(count(class("com.example.Sub")), SUBS as i64);
    assert_eq!(count(all()), heap.object_count() as i64);
    assert_eq!(count(instanceof("java.lang.Object")), heap.object_count() as i64);
    assert_eq!(count(json!({"kind": "regex", "pattern": "com\\.example\\.(Node|Sub)"})), (NODES + SUBS) as i64);
}

#[test]
fn string_equality_and_like() {
    let (heap, _) = setup();
    let n = |filter| run(&heap, select(class("com.example.Node"), json!({"filter": filter}))).row_count;
    assert_eq!(n(bin("=", field(row(), "name"), lit(json!("n3")))), NODES / 5);
    assert_eq!(n(bin("=", lit(json!("n3")), field(row(), "name"))), NODES / 5);
    assert_eq!(n(bin("!=", field(row(), "name"), lit(json!("n3")))), NODES - NODES / 5);
    let like = |p: &str, negate: bool| json!({"k": "like", "e": call("toString", vec![field(row(), "name")]), "pattern": p, "negate": negate});
    assert_eq!(n(like("n[12]", false)), 2 * NODES / 5);
    assert_eq!(n(like("n[12]", true)), 3 * NODES / 5);
    // Whole-string match: "n" alone matches nothing.
    assert_eq!(n(like("n", false)), 0);
    // An object compared with a string uses its text; a non-string object has none.
    assert_eq!(n(bin("=", field(row(), "next"), lit(json!("n3")))), 0);
    let b = run(&heap, select(class("java.lang.String"), json!({"output": columns(&[("t", call("toString", vec![row()]))]), "orderBy": [{"expr": out(0), "desc": false}]})));
    // The thread's name "main" is a string too.
    let want: Vec<Option<String>> = std::iter::once("main".to_string()).chain((0..5).map(|i| format!("n{i}"))).map(Some).collect();
    assert_eq!(strings(&b, 0), want);
}

#[test]
fn grouping_by_text() {
    let (heap, _) = setup();
    let b = run(
        &heap,
        select(
            instanceof("com.example.Node"),
            json!({"groupBy": [call("toString", vec![field(row(), "name")])], "aggregates": [count_star()],
                   "output": columns(&[("name", key(0)), ("count", agg(0))]),
                   "orderBy": [{"expr": out(0), "desc": false}]}),
        ),
    );
    assert_eq!(strings(&b, 0), (0..5).map(|i| Some(format!("n{i}"))).collect::<Vec<_>>());
    assert_eq!(ints(&b, 1), vec![20 + SUBS as i64, 20, 20, 20, 20]);
    // HAVING on an aggregate.
    let b = run(
        &heap,
        select(
            instanceof("com.example.Node"),
            json!({"groupBy": [call("toString", vec![field(row(), "name")])], "aggregates": [count_star()],
                   "having": bin(">", agg(0), lit(json!(20))), "output": columns(&[("name", key(0)), ("count", agg(0))])}),
        ),
    );
    assert_eq!(strings(&b, 0), vec![Some("n0".to_string())]);
    // No GROUP BY: one row even on empty input; COUNT 0, SUM 0, AVG NULL.
    let b = run(
        &heap,
        select(
            class("com.example.Node"),
            json!({"filter": lit(json!(false)), "aggregates": [count_star(), aggregate("sum", field(row(), "v"), None), aggregate("avg", field(row(), "v"), None)],
                   "output": columns(&[("c", agg(0)), ("s", agg(1)), ("a", agg(2))])}),
        ),
    );
    assert_eq!(b.row_count, 1);
    assert_eq!(ints(&b, 0), vec![0]);
    assert_eq!(ints(&b, 1), vec![0]);
    assert!(b.columns[2].is_null(0));
}

#[test]
fn percentiles_on_known_values() {
    let (heap, _) = setup();
    let x = field(row(), "x");
    let b = run(
        &heap,
        select(
            class("com.example.Num"),
            json!({"aggregates": [aggregate("percentile", x.clone(), Some(90)), aggregate("median", x.clone(), None),
                                  aggregate("percentile", x.clone(), Some(95)), aggregate("percentile", x.clone(), Some(0)),
                                  aggregate("min", x.clone(), None), aggregate("max", x.clone(), None),
                                  aggregate("sum", x.clone(), None), aggregate("avg", x.clone(), None), aggregate("count", x.clone(), None)],
                   "output": columns(&[("p90", agg(0)), ("med", agg(1)), ("p95", agg(2)), ("p0", agg(3)), ("min", agg(4)),
                                       ("max", agg(5)), ("sum", agg(6)), ("avg", agg(7)), ("n", agg(8))])}),
        ),
    );
    let got: Vec<i64> = (0..9).map(|c| ints(&b, c)[0]).collect();
    assert_eq!(got, vec![180, 100, 190, 1, 1, 200, 200 * 201 / 2, 100, 200]);
    match b.columns[7].value(0) {
        Value::Float(f) => assert_eq!(f, 100.5),
        v => panic!("{v:?}"),
    }
}

#[test]
fn top_k_equals_full_sort_plus_limit() {
    let (heap, f) = setup();
    let v = field(row(), "v");
    for (desc, k) in [(true, 7), (false, 13), (true, 0), (false, 1000)] {
        let order = json!([{"expr": v.clone(), "desc": desc}]);
        let full = run(&heap, select(class("com.example.Node"), json!({"orderBy": order})));
        let top = run(&heap, select(class("com.example.Node"), json!({"orderBy": order, "limit": k})));
        let mut want = objects(&full, 0);
        want.truncate(k);
        assert_eq!(objects(&top, 0), want, "desc={desc} k={k}");
        // Table output, order by an output column.
        let cols = columns(&[("n", row()), ("v", v.clone())]);
        let order_out = json!([{"expr": out(1), "desc": desc}]);
        let full = run(&heap, select(class("com.example.Node"), json!({"output": cols, "orderBy": order_out})));
        let top = run(&heap, select(class("com.example.Node"), json!({"output": cols, "orderBy": order_out, "limit": k})));
        let mut want = objects(&full, 0);
        want.truncate(k);
        assert_eq!(objects(&top, 0), want);
        // The sort is right and stable: values ordered, ties in scan order.
        let vals = ints(&full, 1);
        let mut expected: Vec<(i64, usize)> = f.v.iter().enumerate().map(|(i, &x)| (x as i64, i)).collect();
        expected.sort_by(|a, b| if desc { b.0.cmp(&a.0).then(a.1.cmp(&b.1)) } else { a.cmp(b) });
        assert_eq!(vals, expected.iter().map(|e| e.0).collect::<Vec<_>>());
        let ids = objects(&full, 0);
        let scan_order = objects(&run(&heap, select(class("com.example.Node"), json!({}))), 0);
        assert_eq!(ids, expected.iter().map(|e| scan_order[e.1]).collect::<Vec<_>>());
    }
}

#[test]
fn set_operations() {
    let (heap, f) = setup();
    let v = field(row(), "v");
    let low = select(class("com.example.Node"), json!({"filter": bin("<", v.clone(), lit(json!(20)))}));
    let mid = select(class("com.example.Node"), json!({"filter": bin("<", v.clone(), lit(json!(30)))}));
    let n_low = f.v.iter().filter(|&&x| x < 20).count();
    let n_mid = f.v.iter().filter(|&&x| x < 30).count();
    let count = |q| run(&heap, q).row_count;
    assert_eq!(count(setop("union", low.clone(), mid.clone(), json!({}))), n_low + n_mid);
    assert_eq!(count(setop("union", low.clone(), mid.clone(), json!({"distinct": true}))), n_mid);
    assert_eq!(count(setop("intersect", mid.clone(), low.clone(), json!({}))), n_low);
    assert_eq!(count(setop("except", mid.clone(), low.clone(), json!({}))), n_mid - n_low);
    assert_eq!(count(setop("except", mid.clone(), low.clone(), json!({"limit": 3}))), 3.min(n_mid - n_low));
    // Value rows compare by value.
    let vals = |src| select(src, json!({"output": columns(&[("v", field(row(), "v"))])}));
    let distinct_v: std::collections::BTreeSet<i32> = f.v.iter().copied().collect();
    let b = run(&heap, setop("union", vals(class("com.example.Node")), vals(class("com.example.Node")),
        json!({"distinct": true, "orderBy": [{"expr": out(0), "desc": false}]})));
    assert_eq!(ints(&b, 0), distinct_v.iter().map(|&x| x as i64).collect::<Vec<_>>());
    let b = run(&heap, setop("intersect", vals(class("com.example.Node")), vals(class("com.example.Sub")), json!({})));
    assert_eq!(b.row_count, 0);
    let e = try_run(&heap, setop("union", vals(class("com.example.Node")), select(class("com.example.Node"), json!({"output": columns(&[("a", row()), ("b", row())])})), json!({}))).unwrap_err();
    assert_eq!(e.code, "ERR_QUERY");
}

#[test]
fn array_index_and_slice() {
    let (heap, _) = setup();
    let h = |name: &str| field(row(), name);
    let idx = |e, i: i64| json!({"k": "index", "e": e, "i": lit(json!(i))});
    let slice = |e, a: serde_json::Value, b: serde_json::Value| json!({"k": "slice", "e": e, "from": lit(a), "to": lit(b)});
    let b = run(
        &heap,
        select(
            class("com.example.Holder"),
            json!({"output": columns(&[
                ("b0", idx(h("bytes"), 0)), ("b5", idx(h("bytes"), 5)), ("b6", idx(h("bytes"), 6)), ("bneg", idx(h("bytes"), -1)),
                ("i0", idx(h("ints"), 0)), ("c5", idx(h("chars"), 5)),
                ("bs", slice(h("bytes"), json!(1), json!(4))), ("is", slice(h("ints"), json!(null), json!(-1))),
                ("cs", slice(h("chars"), json!(0), json!(4))), ("obj", idx(h("items"), 1)), ("objnull", idx(h("items"), 3)),
                ("len", attr(h("bytes"), "length")), ("notarray", attr(row(), "length"))])}),
        ),
    );
    assert_eq!(b.row_count, 1);
    assert_eq!(ints(&b, 0), vec![0]);
    assert_eq!(ints(&b, 1), vec![5]);
    assert!(b.columns[2].is_null(0), "out of bounds is NULL");
    assert!(b.columns[3].is_null(0), "negative index is NULL");
    assert_eq!(ints(&b, 4), vec![3]);
    assert_eq!(strings(&b, 5), vec![Some("t".into())]);
    assert_eq!(b.columns[6].data, ColumnData::Lists(vec!["[1,2,3]".into()]));
    assert_eq!(b.columns[7].data, ColumnData::Lists(vec!["[3,1,2]".into()]));
    assert_eq!(b.columns[8].data, ColumnData::Lists(vec!["[\"c\",\"h\",\"a\",\"r\"]".into()]));
    assert!(matches!(b.columns[9].data, ColumnData::Objects(_)));
    assert!(b.columns[10].is_null(0));
    assert_eq!(ints(&b, 11), vec![6]);
    assert!(b.columns[12].is_null(0));
}

#[test]
fn reads_statics_attributes_and_functions() {
    let (heap, _) = setup();
    let b = run(
        &heap,
        select(
            class("com.example.Holder"),
            json!({"output": columns(&[
                ("static", field(classof_row(), "COUNT")),
                ("name", attr(classof_row(), "displayName")),
                ("dn", attr(row(), "displayName")),
                ("roots", attr(row(), "GCRoots")),
                ("coalesce", call("coalesce", vec![lit(json!(null)), lit(json!(3))])),
                ("nullif", call("nullif", vec![lit(json!(3)), lit(json!(3))])),
                ("case", json!({"k": "case", "whens": [{"when": lit(json!(false)), "then": lit(json!("a"))}, {"when": lit(json!(true)), "then": lit(json!("b"))}], "else": null})),
                ("div0", bin("/", lit(json!(7)), lit(json!(0)))),
                ("concat", bin("+", lit(json!("x=")), lit(json!(2)))),
                ("props", attr(row(), "systemProperties")),
            ])}),
        ),
    );
    assert_eq!(ints(&b, 0), vec![7]);
    assert_eq!(strings(&b, 1), vec![Some("com.example.Holder".into())]);
    assert_eq!(strings(&b, 2), vec![Some("com.example.Holder".into())]);
    assert_eq!(b.columns[3].data, ColumnData::Lists(vec!["[\"JNI Global\"]".into()]));
    assert_eq!(ints(&b, 4), vec![3]);
    assert!(b.columns[5].is_null(0));
    assert_eq!(strings(&b, 6), vec![Some("b".into())]);
    assert!(b.columns[7].is_null(0));
    assert_eq!(strings(&b, 8), vec![Some("x=2".into())]);
    // Reference chains: Node.next.next.v
    let b = run(&heap, select(class("com.example.Node"), json!({"output": columns(&[("v", field(field(field(row(), "next"), "next"), "v")), ("id", attr(row(), "objectId"))]), "limit": 3})));
    let v = column(&b, 0);
    assert!(v[0].is_null() && v[1].is_null(), "the first nodes have no next.next");
    assert!(matches!(v[2], Value::Float(_)));
}

#[test]
fn in_subquery_and_exists_guard() {
    let (heap, f) = setup();
    // Strings that are a node's name: the five names.
    let names = select(class("com.example.Node"), json!({"output": columns(&[("name", field(row(), "name"))])}));
    let b = run(&heap, select(class("java.lang.String"), json!({"filter": {"k": "in", "e": row(), "query": names}})));
    assert_eq!(b.row_count, 5);
    // IN over values.
    let small = select(class("com.example.Num"), json!({"filter": bin("<=", field(row(), "x"), lit(json!(3))), "output": columns(&[("x", field(row(), "x"))])}));
    let b = run(&heap, select(class("com.example.Node"), json!({"filter": {"k": "in", "e": field(row(), "v"), "query": small}})));
    assert_eq!(b.row_count, f.v.iter().filter(|&&x| (1..=3).contains(&x)).count());
    // EXISTS guard: empty inner query empties the result; a non-empty one keeps every row.
    let none = select(class("com.example.Node"), json!({"filter": lit(json!(false))}));
    let some = select(class("com.example.Sub"), json!({}));
    assert_eq!(run(&heap, select(class("com.example.Node"), json!({"guards": [none]}))).row_count, 0);
    assert_eq!(run(&heap, select(class("com.example.Node"), json!({"guards": [some]}))).row_count, NODES);
    // A guard that admits nothing leaves aggregates without GROUP BY their one row over no
    // input (as `WHERE false` does: COUNT 0, SUM 0, MIN NULL), also where the class histogram
    // would answer COUNT(*) without a scan; grouped, there is no group.
    let aggs = json!([count_star(), aggregate("sum", field(row(), "v"), None), aggregate("min", field(row(), "v"), None)]);
    let cols = columns(&[("n", agg(0)), ("sum", agg(1)), ("min", agg(2))]);
    for q in [json!({"guards": [none.clone()]}), json!({"filter": lit(json!(false))})] {
        let mut m = q.as_object().unwrap().clone();
        m.insert("aggregates".into(), aggs.clone());
        m.insert("output".into(), cols.clone());
        let b = run(&heap, select(class("com.example.Node"), serde_json::Value::Object(m.clone())));
        assert_eq!(column(&b, 0).len(), 1, "{q}");
        assert_eq!((ints(&b, 0), ints(&b, 1), b.columns[2].is_null(0)), (vec![0], vec![0], true), "{q}");
        m.insert("groupBy".into(), json!([field(row(), "v")]));
        assert_eq!(run(&heap, select(class("com.example.Node"), serde_json::Value::Object(m))).row_count, 0, "{q}");
    }
    let counted = select(class("com.example.Node"), json!({"guards": [none], "aggregates": [count_star()], "output": columns(&[("n", agg(0))])}));
    assert_eq!(single_int(&run(&heap, counted)), 0);
    // Subquery source with columns.
    let inner = select(class("com.example.Node"), json!({"output": columns(&[("v", field(row(), "v")), ("n", row())])}));
    let b = run(&heap, select(json!({"kind": "subquery", "query": inner}), json!({"filter": bin(">=", col("v"), lit(json!(25))), "output": columns(&[("n", col("n"))])})));
    assert_eq!(b.row_count, f.v.iter().filter(|&&x| x >= 25).count());
}

/// Without the full analysis `@outbounds` reads the heap: the class object first, then each
/// referenced object once, in element order (an array repeating its elements lists them once).
#[test]
fn outbounds_from_the_heap_list_each_object_once_in_field_order() {
    let mut b = DumpBuilder::new(8);
    let object = b.object_class;
    let item = b.class("com.example.Item", Some(object), &[("x", BasicType::Int)]);
    let (x, y) = (b.instance(item, &[Val::Int(1)]), b.instance(item, &[Val::Int(2)]));
    let array = b.object_array(b.object_array_class, &[y, x, y, 0, x, y]);
    b.root_jni_global(array);
    let heap = open(&temp_file("outbounds-repeated.hprof", &b.build()));
    let index = |id: u64| heap.index_of(id).expect("an object of the dump") as i64;
    let mirror = heap.class(heap.class_of(index(array) as u32)).object as i64;
    let out = run(&heap, select(class("java.lang.Object[]"), json!({"output": columns(&[("out", attr(row(), "outbounds"))])})));
    let Value::List(cells) = &column(&out, 0)[0] else { panic!("not a list: {:?}", column(&out, 0)) };
    let listed: Vec<i64> = cells.iter().map(|v| if let Value::Obj(o) = v { *o as i64 } else { panic!("not an object: {v:?}") }).collect();
    assert_eq!(listed, [mirror, index(y), index(x)]);
}

/// An object meets a number by its address, on either side and in IN (issue 12: `x IN (SELECT
/// @objectAddress …)` used to match nothing).
#[test]
fn objects_compare_with_numbers_by_address() {
    let (heap, _) = setup();
    let addresses = select(class("com.example.Node"), json!({"output": columns(&[("a", attr(row(), "objectAddress"))])}));
    let objects_q = select(class("com.example.Node"), json!({}));
    // Left an object, right addresses: every node, nothing else.
    let b = run(&heap, select(all(), json!({"filter": {"k": "in", "e": row(), "query": addresses.clone()}})));
    assert_eq!(b.row_count, NODES);
    let b = run(&heap, select(class("java.lang.String"), json!({"filter": {"k": "in", "e": row(), "query": addresses}})));
    assert_eq!(b.row_count, 0);
    // Left an address, right objects.
    let b = run(&heap, select(all(), json!({"filter": {"k": "in", "e": attr(row(), "objectAddress"), "query": objects_q}})));
    assert_eq!(b.row_count, NODES);
    // =, <>, <, >= between an object and its address.
    let first = run(&heap, select(class("com.example.Node"), json!({"output": columns(&[("a", attr(row(), "objectAddress"))]), "limit": 1})));
    let a = ints(&first, 0)[0];
    let count = |filter: serde_json::Value| run(&heap, select(class("com.example.Node"), json!({"filter": filter}))).row_count;
    assert_eq!(count(bin("=", row(), lit(json!(a)))), 1);
    assert_eq!(count(bin("=", lit(json!(a)), row())), 1);
    assert_eq!(count(bin("!=", row(), lit(json!(a)))), NODES - 1);
    assert_eq!(count(bin(">=", row(), lit(json!(a)))), NODES);
    assert_eq!(count(bin("<", row(), lit(json!(a)))), 0);
    assert_eq!(count(bin("=", row(), attr(row(), "objectAddress"))), NODES);
    assert_eq!(count(bin("=", row(), lit(json!(a as f64 + 0.5)))), 0);
}

/// Two objects are ordered by their addresses, as ORDER BY orders them: `<`, `<=`, `>`, `>=`
/// (and BETWEEN, made of them) between two objects were always false, so `x <= x` matched
/// nothing while `x = x` matched everything.
#[test]
fn objects_compare_with_objects_by_address() {
    let (heap, _) = setup();
    let count = |filter: serde_json::Value| run(&heap, select(class("com.example.Node"), json!({"filter": filter}))).row_count;
    assert_eq!(count(bin("<=", row(), row())), NODES);
    assert_eq!(count(bin(">=", row(), row())), NODES);
    assert_eq!(count(bin("<", row(), row())), 0);
    // Each node's `next` is the node made just before it, at a lower address (the first one's
    // is null); its `name`, a String made before every node.
    let next = || field(row(), "next");
    assert_eq!(count(bin("<", next(), row())), NODES - 1);
    assert_eq!(count(bin(">", row(), next())), NODES - 1);
    assert_eq!(count(bin(">=", next(), row())), 0);
    assert_eq!(count(bin("<", field(row(), "name"), next())), NODES - 1);
}

/// A subquery column of lists (a slice, `@outbounds`, `outbounds(x)`, `dominators(x)`) stands
/// for its elements in IN: compared whole, no object was ever in it, and NOT IN kept everything.
#[test]
fn in_takes_a_list_column_element_by_element() {
    let (heap, _) = setup();
    let slice = |array: &str, to: i64| json!({"k": "slice", "e": field(row(), array), "from": lit(json!(0)), "to": lit(json!(to))});
    let items = select(class("com.example.Holder"), json!({"output": columns(&[("l", slice("items", 3))])}));
    let listed = run(&heap, select(class("com.example.Node"), json!({"filter": {"k": "in", "e": row(), "query": items.clone()}})));
    assert_eq!(listed.row_count, 3);
    let not = json!({"k": "not", "e": {"k": "in", "e": row(), "query": items}});
    assert_eq!(run(&heap, select(class("com.example.Node"), json!({"filter": not}))).row_count, NODES - 3);
    // Lists of numbers: Num.x runs 1..=200; the int[] holds 3, 1, 2, 0.
    let ints = select(class("com.example.Holder"), json!({"output": columns(&[("l", slice("ints", 4))])}));
    let b = run(&heap, select(class("com.example.Num"), json!({"filter": {"k": "in", "e": field(row(), "x"), "query": ints}})));
    assert_eq!(b.row_count, 3);
    // h.@outbounds: the Holder's class and its four arrays.
    let out = select(class("com.example.Holder"), json!({"output": columns(&[("o", attr(row(), "outbounds"))])}));
    let b = run(&heap, select(all(), json!({"filter": {"k": "in", "e": row(), "query": out}})));
    assert_eq!(b.row_count, 5);
}

/// A name the dump lacks carries the name and what the message lists as data, for the fronts
/// (they place the error by the name), and the message again with every name JSON-quoted
/// (`quotedMessage`, what the MCP server says).
#[test]
fn name_errors_carry_their_data() {
    let (heap, _) = setup();
    let data = |plan| {
        let e = try_run(&heap, plan).unwrap_err();
        let unknown = e.unknown.clone().unwrap_or_else(|| panic!("no data: {e}"));
        (e, serde_json::from_str::<serde_json::Value>(&unknown.to_json()).unwrap())
    };
    let (e, d) = data(select(class("com.example.Nod"), json!({})));
    assert_eq!(e.code, "ERR_UNKNOWN_CLASS");
    let guesses = ["com.example.Node", "com.example.Num", "com.example.Sub"];
    let quoted = r#"class "com.example.Nod" is not in this dump; did you mean "com.example.Node", "com.example.Num", "com.example.Sub"?"#;
    assert_eq!(d, json!({"kind": "class", "name": "com.example.Nod", "suggestions": guesses, "quotedMessage": quoted}));
    assert_eq!(e.message, format!("class com.example.Nod is not in this dump; did you mean {}?", guesses.join(", ")));
    let (_, d) = data(select(class("no.such.Thing"), json!({})));
    assert_eq!(
        d,
        json!({"kind": "class", "name": "no.such.Thing", "suggestions": [], "note": "class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner",
            "quotedMessage": r#"class "no.such.Thing" is not in this dump (class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner)"#})
    );
    let (e, d) = data(select(class("com.example.Node"), json!({"filter": bin("=", field(row(), "vv"), lit(json!(1)))})));
    assert_eq!(e.code, "ERR_UNKNOWN_FIELD");
    assert_eq!(e.message, "com.example.Node has no field 'vv' (its fields: next, v, name)");
    let quoted = r#""com.example.Node" has no field "vv" (its fields: "next", "v", "name")"#;
    assert_eq!(d, json!({"kind": "field", "name": "vv", "className": "com.example.Node", "classCount": 1, "fields": ["next", "v", "name"], "quotedMessage": quoted}));
    // INSTANCEOF: the source's classes counted, the first one's fields listed.
    let (e, d) = data(select(instanceof("com.example.Node"), json!({"output": columns(&[("x", field(row(), "vv"))])})));
    assert!(e.message.starts_with("none of the 2 classes"), "{}", e.message);
    assert_eq!(d["classCount"], json!(2));
    // An array: no fields, and what it has instead.
    let (e, d) = data(select(class("int[]"), json!({"output": columns(&[("x", field(row(), "size"))])})));
    assert!(e.message.ends_with("(its fields: none; arrays have @length and [i])"), "{}", e.message);
    let quoted = r#""int[]" has no field "size" (its fields: none; arrays have @length and [i])"#;
    assert_eq!(d, json!({"kind": "field", "name": "size", "className": "int[]", "classCount": 1, "note": "arrays have @length and [i]", "quotedMessage": quoted}));
    // A static on class objects no class has.
    let (e, d) = data(select(class("java.lang.Class"), json!({"output": columns(&[("x", field(row(), "COUNTT"))])})));
    assert_eq!(e.code, "ERR_UNKNOWN_FIELD");
    assert_eq!(
        d,
        json!({"kind": "static", "name": "COUNTT", "suggestions": ["COUNT"], "note": "the fields of a class object are its class's statics",
            "quotedMessage": r#"no class of this dump has a static field "COUNTT" (the fields of a class object are its class's statics); did you mean "COUNT"?"#})
    );
    // Other errors carry none.
    let e = try_run(&heap, select(json!({"kind": "regex", "pattern": "("}), json!({}))).unwrap_err();
    assert!(e.unknown.is_none());
}

#[test]
fn errors_have_stable_codes() {
    let (heap, _) = setup();
    let e = try_run(&heap, select(class("Node"), json!({}))).unwrap_err();
    assert_eq!(e.code, "ERR_UNKNOWN_CLASS");
    assert!(e.message.contains("com.example.Node"), "{}", e.message);
    let e = try_run(&heap, select(class("com.example.Nod"), json!({}))).unwrap_err();
    assert!(e.message.contains("did you mean com.example.Node"), "{}", e.message);
    let e = try_run(&heap, select(class("com.example.Node"), json!({"filter": bin("=", field(row(), "vv"), lit(json!(1)))}))).unwrap_err();
    assert_eq!(e.code, "ERR_UNKNOWN_FIELD");
    assert!(e.message.contains("com.example.Node") && e.message.contains("next, v, name"), "{}", e.message);
    // Rule 12: count/offset on java.lang.String.
    let e = try_run(&heap, select(class("java.lang.String"), json!({"output": columns(&[("c", field(row(), "count"))])}))).unwrap_err();
    assert_eq!(e.code, "ERR_UNKNOWN_FIELD");
    let e = try_run(&heap, select(class("com.example.Node"), json!({"output": columns(&[("c", field(field(row(), "name"), "offset"))])}))).unwrap_err();
    assert_eq!(e.code, "ERR_UNKNOWN_FIELD");
    // Full-path features without a graph.
    for expr in [attr(row(), "retainedHeapSize"), call("dominatorof", vec![row()]), attr(row(), "inbounds")] {
        let e = try_run(&heap, select(class("com.example.Node"), json!({"output": columns(&[("x", expr)])}))).unwrap_err();
        assert_eq!(e.code, "ERR_NEEDS_ANALYSIS");
    }
    let e = execute(&ExecContext::new(&heap), &plan_with(select(class("com.example.Node"), json!({})), false, true)).unwrap_err();
    assert_eq!(e.code, "ERR_NEEDS_ANALYSIS");
    let e = execute(&ExecContext::new(&heap), &plan_with(select(class("com.example.Node"), json!({})), true, false)).unwrap_err();
    assert_eq!(e.code, "ERR_NEEDS_ANALYSIS");
    let e = try_run(&heap, select(json!({"kind": "address", "address": "0x1"}), json!({}))).unwrap_err();
    assert_eq!(e.code, "ERR_QUERY");
    let e = try_run(&heap, select(json!({"kind": "regex", "pattern": "("}), json!({}))).unwrap_err();
    assert_eq!(e.code, "ERR_QUERY");
    let e = try_run(&heap, select(class("com.example.Node"), json!({"aggregates": [aggregate("sum", field(row(), "name"), None)], "output": columns(&[("s", agg(0))])}))).unwrap_err();
    assert_eq!(e.code, "ERR_QUERY");
    // Cancellation.
    let cancel = Arc::new(AtomicBool::new(true));
    let e = execute(&ExecContext::new(&heap).with_cancel(cancel), &plan(select(all(), json!({})))).unwrap_err();
    assert_eq!(e.code, "ERR_CANCELLED");
}

#[test]
fn address_source_and_reachable_bitmap() {
    let (heap, _) = setup();
    let some = objects(&run(&heap, select(class("com.example.Holder"), json!({}))), 0)[0];
    let addr = format!("0x{:x}", heap.object_id(some));
    let b = run(&heap, select(json!({"kind": "address", "address": addr}), json!({})));
    assert_eq!(objects(&b, 0), vec![some]);
    // Reachability comes from the caller: only the Holder marked reachable.
    let mut bits = vec![0u64; (heap.object_count() as usize).div_ceil(64)];
    bits[some as usize / 64] |= 1 << (some % 64);
    let ctx = ExecContext::new(&heap).with_reachable(&bits);
    let b = execute(&ctx, &plan_with(select(all(), json!({})), true, false)).unwrap();
    assert_eq!(objects(&b, 0), vec![some]);
    let b = execute(&ctx, &plan_with(select(all(), json!({"aggregates": [count_star()], "output": columns(&[("n", agg(0))])})), true, false)).unwrap();
    assert_eq!(single_int(&b), 1);
}

#[test]
fn streaming_equals_one_shot() {
    let (heap, _) = setup();
    let ctx = ExecContext::new(&heap);
    for q in [
        select(all(), json!({})),
        select(all(), json!({"limit": 17})),
        select(class("com.example.Node"), json!({"output": columns(&[("v", field(row(), "v"))])})),
        select(class("com.example.Node"), json!({"orderBy": [{"expr": field(row(), "v"), "desc": true}]})),
        select(all(), json!({"groupBy": [classof_row()], "aggregates": [count_star()], "output": columns(&[("c", key(0)), ("n", agg(0))])})),
    ] {
        let p = plan(q);
        let whole = execute(&ctx, &p).unwrap();
        let mut got: Vec<Value> = Vec::new();
        let mut sizes = Vec::new();
        let end = execute_stream(&ctx, &p, 16, &mut |b| {
            sizes.push(b.row_count);
            got.extend(column(&b, 0));
            true
        })
        .unwrap();
        assert_eq!(end.rows as usize, whole.row_count);
        assert!(sizes.iter().rev().skip(1).all(|&s| s == 16), "{sizes:?}");
        let want = column(&whole, 0);
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
    }
    // Stopping early.
    let mut batches = 0;
    let end = execute_stream(&ctx, &plan(select(all(), json!({}))), 10, &mut |_| {
        batches += 1;
        batches < 2
    })
    .unwrap();
    assert!(end.stopped);
    assert_eq!(end.rows, 20);
    // Without a row the end still tells how the result is typed: a list of objects or a table.
    let none = json!({"filter": lit(json!(false))});
    let end = execute_stream(&ctx, &plan(select(all(), none.clone())), 10, &mut |_| true).unwrap();
    assert_eq!((end.rows, end.object_rows), (0, true));
    let mut table = none;
    table["output"] = columns(&[("v", field(row(), "v"))]);
    let end = execute_stream(&ctx, &plan(select(class("com.example.Node"), table)), 10, &mut |_| true).unwrap();
    assert_eq!((end.rows, end.object_rows, end.columns), (0, false, vec!["v".to_string()]));
}

#[test]
fn distinct_rows() {
    let (heap, f) = setup();
    let b = run(&heap, select(class("com.example.Node"), json!({"output": columns(&[("v", field(row(), "v"))]), "distinct": true})));
    let want: Vec<i64> = {
        let mut seen = std::collections::HashSet::new();
        f.v.iter().filter(|x| seen.insert(**x)).map(|&x| x as i64).collect()
    };
    assert_eq!(ints(&b, 0), want);
    assert_eq!(sorted(ints(&b, 0)), sorted(want));
}

/// A graph stand-in with simple, checkable answers: retained size = 10 × shallow size,
/// the dominator of an object is the previous index, inbounds/outbounds from the heap.
struct FakeGraph<'h> {
    heap: &'h Heap,
}

impl heapql_exec::GraphView for FakeGraph<'_> {
    fn retained_size(&self, o: u32) -> Option<u64> {
        Some(10 * self.heap.shallow_size(o))
    }
    fn immediate_dominator(&self, o: u32) -> Option<u32> {
        o.checked_sub(1)
    }
    fn dominated(&self, o: u32) -> Option<Vec<u32>> {
        Some(if o + 1 < self.heap.object_count() { vec![o + 1] } else { vec![] })
    }
    fn inbounds(&self, _o: u32) -> Vec<u32> {
        vec![]
    }
    fn outbounds(&self, o: u32) -> Vec<u32> {
        let mut v = Vec::new();
        self.heap.for_each_reference(o, |id, _| v.extend(self.heap.index_of(id)));
        v
    }
    fn is_reachable(&self, o: u32) -> bool {
        o % 2 == 0
    }
    fn retained_set(&self, objects: &[u32], _cancel: &AtomicBool) -> Option<Vec<u32>> {
        // Each object and the one after it.
        let mut v: Vec<u32> = objects.iter().flat_map(|&o| [o, o + 1]).collect();
        v.sort_unstable();
        v.dedup();
        Some(v)
    }
}

#[test]
fn full_path_features_go_through_the_graph_view() {
    let (heap, _) = setup();
    let g = FakeGraph { heap: &heap };
    let ctx = ExecContext::new(&heap).with_graph(&g);
    let run_full = |q| execute(&ctx, &plan_with(q, false, true)).unwrap();
    let b = run_full(select(class("com.example.Node"), json!({"output": columns(&[
        ("n", row()), ("r", attr(row(), "retainedHeapSize")), ("s", shallow()),
        ("dom", call("dominatorof", vec![row()])), ("doms", call("dominators", vec![row()])),
        ("path", call("path", vec![row(), field(row(), "next")]))])})));
    let ids = objects(&b, 0);
    assert_eq!(ints(&b, 1), ints(&b, 2).iter().map(|s| s * 10).collect::<Vec<_>>());
    assert_eq!(objects(&b, 3), ids.iter().map(|o| o - 1).collect::<Vec<_>>());
    let ColumnData::Lists(doms) = &b.columns[4].data else { panic!() };
    assert_eq!(doms[0], format!("[{{\"o\":{}}}]", ids[0] + 1));
    // path(n, n.next): NULL for the first node (no next), else [n, next].
    assert!(b.columns[5].is_null(0));
    let ColumnData::Lists(paths) = &b.columns[5].data else { panic!() };
    assert_eq!(paths[1], format!("[{{\"o\":{}}},{{\"o\":{}}}]", ids[1], ids[0]));
    // AS RETAINED SET of the Holder: itself and the next object.
    let b = run_full(select(class("com.example.Holder"), json!({"retainedSet": true})));
    let h = objects(&run(&heap, select(class("com.example.Holder"), json!({}))), 0)[0];
    assert_eq!(objects(&b, 0), vec![h, h + 1]);
    // `SELECT n.next AS RETAINED SET FROM Node n`: the retained set of the objects the column
    // yields (NULLs skipped, each once), not the column read on each retained object.
    let nexts = select(class("com.example.Node"), json!({"output": columns(&[("n.next", field(row(), "next"))])}));
    let of_column = |inner: serde_json::Value| select(json!({"kind": "subquery", "query": inner}), json!({"retainedSet": true}));
    let b = run_full(of_column(nexts.clone()));
    let nexts = nexts.clone();
    assert_eq!(b.columns[0].name, "n.next");
    let read = column(&run(&heap, nexts), 0);
    assert!(read.iter().any(Value::is_null), "the first node has no next");
    let mut targets: Vec<u32> = read.iter().filter_map(|v| if let Value::Obj(o) = v { Some(*o) } else { None }).flat_map(|o| [o, o + 1]).collect();
    targets.sort_unstable();
    targets.dedup();
    assert_eq!(objects(&b, 0), targets);
    // A column of numbers is refused, naming it.
    let values = select(class("com.example.Node"), json!({"output": columns(&[("n.v", field(row(), "v"))])}));
    let e = execute(&ctx, &plan_with(of_column(values), false, true)).unwrap_err();
    assert_eq!(e.code, "ERR_QUERY");
    assert!(e.message.starts_with("AS RETAINED SET needs objects, but n.v yields a number ("), "{}", e.message);
    // Reachable-only through the graph: even indices.
    let b = execute(&ctx, &plan_with(select(all(), json!({"aggregates": [count_star()], "output": columns(&[("n", agg(0))])})), true, false)).unwrap();
    assert_eq!(single_int(&b), heap.object_count().div_ceil(2) as i64);
    // ORDER BY retained size DESC LIMIT 3 equals the full sort's head.
    let order = json!([{"expr": attr(row(), "retainedHeapSize"), "desc": true}]);
    let full = objects(&run_full(select(all(), json!({"orderBy": order}))), 0);
    let top = objects(&run_full(select(all(), json!({"orderBy": order, "limit": 3}))), 0);
    assert_eq!(top, full[..3].to_vec());
}

#[test]
fn describe_labels_and_progress() {
    let (heap, _) = setup();
    let first = |src| objects(&run(&heap, select(src, json!({"limit": 1}))), 0)[0];
    let s = objects(&run(&heap, select(class("java.lang.String"), json!({"filter": bin("=", row(), lit(json!("n2")))}))), 0)[0];
    let (addr, cls, label) = heapql_exec::describe(&heap, s);
    assert_eq!(addr, format!("0x{:x}", heap.object_id(s)));
    assert_eq!(cls, "java.lang.String");
    assert_eq!(label, format!("java.lang.String @ {addr}  \"n2\""));
    let (addr, cls, label) = heapql_exec::describe(&heap, first(class("char[]")));
    assert_eq!((cls.as_str(), label), ("char[]", format!("char[10] @ {addr}")));
    let holder_class = objects(&run(&heap, select(class("com.example.Holder"), json!({"output": columns(&[("c", classof_row())])}))), 0)[0];
    let (addr, cls, label) = heapql_exec::describe(&heap, holder_class);
    assert_eq!((cls.as_str(), label), ("com.example.Holder", format!("class com.example.Holder @ {addr}")));

    // Progress: phase "query", done never above total, reaching the object count.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let ctx = ExecContext::new(&heap).with_progress(Arc::new(move |p: heapql_heap::Progress| sink.lock().unwrap().push(p)));
    execute(&ctx, &plan(select(all(), json!({"filter": bin(">", shallow(), lit(json!(0)))})))).unwrap();
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty());
    assert!(seen.iter().all(|p| p.phase == "query" && p.done <= p.total));
    assert_eq!(seen.iter().map(|p| p.done).max(), Some(heap.object_count() as u64));
}

/// Strings are indexed and sliced in UTF-16 units, as `@length` counts them (Java's `charAt`,
/// `substring`, `length()`); half a surrogate pair reads as U+FFFD.
#[test]
fn string_index_and_slice_count_utf16_units() {
    let (heap, _) = setup();
    let text = lit(json!("emoji \u{1F600}!"));
    let idx = |i: i64| json!({"k": "index", "e": text.clone(), "i": lit(json!(i))});
    let sl = |a: serde_json::Value, b: serde_json::Value| json!({"k": "slice", "e": text.clone(), "from": a, "to": b});
    let q = select(class("com.example.Holder"), json!({"output": columns(&[
        ("len", attr(text.clone(), "length")),
        ("pair", sl(lit(json!(6)), lit(json!(8)))),
        ("bang", idx(8)),
        ("high", idx(6)),
        ("low", idx(7)),
        ("cut", sl(lit(json!(5)), lit(json!(7)))),
        ("tail", sl(lit(json!(-3)), lit(json!(null)))),
        ("past", idx(9)),
    ])}));
    let b = run(&heap, q);
    assert_eq!(ints(&b, 0), vec![9]);
    // A surrogate half cut from its pair is that very unit (Java's `charAt` and `substring`),
    // a text that is no valid UTF-16: `Value::Utf16`.
    let cells: Vec<String> = (1..8).map(|c| format!("{:?}", column(&b, c)[0])).collect();
    let want = ["Str(\"\u{1F600}\")", "Str(\"!\")", "Utf16([55357])", "Utf16([56832])", "Utf16([32, 55357])", "Str(\"\u{1F600}!\")", "Null"];
    assert_eq!(cells, want);
}
