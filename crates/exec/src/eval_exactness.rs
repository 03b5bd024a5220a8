//! The scalar paths of the evaluator (`CExpr::scalar`: field reads through per-class slots,
//! IS NULL, comparisons, logic and arithmetic without building values, the row's class read
//! once) must answer exactly as the general code of each node, the evaluator as it was before
//! them (`CExpr::eval_reference`). Checked object for object on real dumps (the fixtures, and
//! the third-party corpus where it is beside the repository), for expressions over fields of
//! every type the dump has (instance fields, and statics through class objects), references
//! and their targets, NULLs, a field no class has, arrays, IS NULL / IS NOT NULL, AND / OR /
//! NOT, comparisons with numbers, floats, texts, booleans, objects and addresses, mixed kinds,
//! arithmetic, CASE, COALESCE, INSTANCEOF and IN; then whole scans of a few filters against
//! the reference object for object; then value rows (a subquery's columns).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use heapql_heap::{ClassMemo, FieldType, Heap, OpenOptions, Value as HeapValue};
use serde_json::{json, Value as J};

use crate::compile::{compile, CExpr, Scope};
use crate::env::{Env, ExecContext};
use crate::eval::{Ctx, RowClass};
use crate::plan::{Expr, Source};
use crate::value::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn row() -> J {
    json!({"k": "row"})
}
fn lit(v: J) -> J {
    json!({"k": "lit", "v": v})
}
fn field(base: J, name: &str) -> J {
    json!({"k": "field", "base": base, "name": name})
}
fn attr(base: J, name: &str) -> J {
    json!({"k": "attr", "base": base, "name": name})
}
fn bin(op: &str, l: J, r: J) -> J {
    json!({"k": "bin", "op": op, "l": l, "r": r})
}
fn not(e: J) -> J {
    json!({"k": "not", "e": e})
}
fn call(f: &str, args: Vec<J>) -> J {
    json!({"k": "call", "fn": f, "args": args})
}
fn is_null(e: J) -> J {
    bin("=", e, lit(J::Null))
}
fn is_not_null(e: J) -> J {
    bin("!=", e, lit(J::Null))
}

/// The same value: the same kind and content, floats by their bits (NaN included).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Utf16(x), Value::Utf16(y)) => x == y,
        (Value::Obj(x), Value::Obj(y)) => x == y,
        (Value::List(x), Value::List(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q)),
        _ => false,
    }
}

fn type_label(t: FieldType) -> String {
    format!("{t:?}")
}

/// Up to `per_type` field names of each type, the most instances first: instance fields (by
/// the instances of the classes that have them) and statics (read on class objects).
fn chosen_fields(heap: &Heap, per_type: usize) -> Vec<(String, String)> {
    let mut weight: std::collections::HashMap<(String, String), u64> = Default::default();
    for row in heap.class_histogram() {
        for f in heap.instance_layout(row.class) {
            *weight.entry((type_label(f.ty), f.name.clone())).or_default() += row.count;
        }
    }
    for c in 0..heap.class_count() {
        for s in &heap.class(c).statics {
            let t = match s.value {
                HeapValue::Object(_) | HeapValue::Null => "static Object",
                HeapValue::Boolean(_) => "static boolean",
                HeapValue::Char(_) => "static char",
                HeapValue::Float(_) => "static float",
                HeapValue::Double(_) => "static double",
                HeapValue::Byte(_) | HeapValue::Short(_) | HeapValue::Int(_) => "static int",
                HeapValue::Long(_) => "static long",
            }
            .to_string();
            *weight.entry((t, s.name.clone())).or_default() += 1;
        }
    }
    let mut all: Vec<((String, String), u64)> = weight.into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut per: std::collections::HashMap<String, usize> = Default::default();
    let mut names = BTreeSet::new();
    let mut out = Vec::new();
    for ((t, name), _) in all {
        let n = per.entry(t.clone()).or_default();
        if *n < per_type && !name.starts_with('<') && names.insert(name.clone()) {
            *n += 1;
            out.push((t, name));
        }
    }
    out
}

/// The objects to evaluate on: a spread over the whole dump (instances, arrays, class
/// objects), and instances of the classes that have the chosen fields.
fn sample(heap: &Heap, fields: &[(String, String)], spread: u32, per_class: usize) -> Vec<u32> {
    let n = heap.object_count();
    let mut set: BTreeSet<u32> = (0..n).step_by((n / spread).max(1) as usize).collect();
    let mut wanted = vec![false; heap.class_count() as usize];
    for c in 0..heap.class_count() {
        wanted[c as usize] = heap.instance_layout(c).iter().any(|f| fields.iter().any(|(_, name)| *name == f.name));
    }
    // Class objects: their fields are the statics of the class they describe.
    for c in 0..heap.class_count() {
        if heap.class(c).statics.iter().any(|s| fields.iter().any(|(_, name)| *name == s.name)) && set.len() < spread as usize * 2 {
            set.insert(heap.class(c).object);
        }
    }
    let mut taken = vec![0usize; heap.class_count() as usize];
    for o in 0..n {
        let c = heap.class_of(o) as usize;
        if wanted[c] && taken[c] < per_class {
            taken[c] += 1;
            set.insert(o);
        }
    }
    set.into_iter().collect()
}

/// Expressions over the row and over each chosen field (`addr`: an object's address, as an
/// integer literal).
fn expressions(fields: &[(String, String)], addr: i64) -> Vec<J> {
    let lits = [json!(0), json!(1), json!(-1), json!(65), json!(0.5), json!(-0.25), json!(0.1), json!("A"), json!("z"), json!(""), json!(true), json!(addr)];
    let mut out = vec![
        row(),
        is_null(row()),
        is_not_null(row()),
        bin("=", lit(J::Null), row()),
        bin("!=", lit(J::Null), row()),
        bin("=", lit(J::Null), lit(J::Null)),
        bin("!=", lit(J::Null), lit(J::Null)),
        bin("=", row(), row()),
        bin("<", row(), lit(json!(addr))),
        bin("=", row(), lit(json!(addr))),
        bin("=", row(), lit(json!("main"))),
        attr(row(), "usedHeapSize"),
        bin("+", attr(row(), "usedHeapSize"), lit(json!(0))),
        bin(">", bin("*", attr(row(), "usedHeapSize"), lit(json!(2))), lit(json!(100))),
        bin("=", attr(row(), "length"), lit(json!(0))),
        bin("or", bin("=", attr(row(), "length"), lit(json!(0))), bin(">", attr(row(), "usedHeapSize"), lit(json!(100)))),
        bin("and", bin(">=", attr(row(), "length"), lit(json!(1))), bin("<", attr(row(), "objectId"), lit(json!(1000)))),
        not(bin(">", attr(row(), "usedHeapSize"), lit(json!(24)))),
        attr(row(), "objectAddress"),
        call("classof", vec![row()]),
        attr(row(), "clazz"),
        bin("=", call("classof", vec![row()]), attr(row(), "clazz")),
        json!({"k": "instanceof", "e": row(), "class": "java.lang.String"}),
        json!({"k": "instanceof", "e": row(), "class": "java.lang.Object"}),
        call("toString", vec![row()]),
        is_null(call("toString", vec![row()])),
        is_not_null(call("toString", vec![row()])),
        bin("=", call("toString", vec![row()]), lit(json!("main"))),
        bin(">", attr(call("toString", vec![row()]), "length"), lit(json!(3))),
        json!({"k": "like", "e": row(), "pattern": "java.*", "negate": false}),
        json!({"k": "like", "e": call("toString", vec![row()]), "pattern": "m.*", "negate": false}),
        json!({"k": "like", "e": call("toString", vec![row()]), "pattern": ".*a.*", "negate": true}),
        json!({"k": "index", "e": row(), "i": lit(json!(0))}),
        bin("=", json!({"k": "index", "e": row(), "i": lit(json!(0))}), json!({"k": "index", "e": row(), "i": lit(json!(1))})),
        is_null(json!({"k": "index", "e": row(), "i": lit(json!(0))})),
        bin("+", row(), lit(json!("!"))),
        bin("+", lit(json!(1)), row()),
        json!({"k": "neg", "e": attr(row(), "length")}),
        // A field no class has: NULL everywhere.
        field(row(), "noSuchFieldAnywhere"),
        is_null(field(row(), "noSuchFieldAnywhere")),
        // IN over the objects of a subquery, and over its values (lengths: numbers met by
        // address).
        json!({"k": "in", "e": row(), "query": {"op": "select", "source": {"kind": "class", "name": "java.lang.String", "subclasses": false},
            "alias": "s", "filter": null, "output": {"kind": "objects"}, "groupBy": [], "aggregates": [], "having": null,
            "orderBy": [], "distinct": false, "limit": null, "retainedSet": false, "guards": []}}),
        json!({"k": "in", "e": attr(row(), "length"), "query": {"op": "select", "source": {"kind": "class", "name": "java.lang.String", "subclasses": false},
            "alias": "s", "filter": null, "output": {"kind": "columns", "columns": [{"name": "n", "expr": attr(row(), "length")}]}, "groupBy": [], "aggregates": [], "having": null,
            "orderBy": [], "distinct": false, "limit": null, "retainedSet": false, "guards": []}}),
    ];
    for (i, (_, name)) in fields.iter().enumerate() {
        let f = || field(row(), name);
        let (_, other) = &fields[(i * 7 + 3) % fields.len()];
        let g = || field(row(), other);
        out.extend([
            f(),
            is_null(f()),
            is_not_null(f()),
            bin("=", lit(J::Null), f()),
            bin("!=", lit(J::Null), f()),
            not(f()),
            json!({"k": "neg", "e": f()}),
            call("classof", vec![f()]),
            attr(f(), "length"),
            attr(f(), "usedHeapSize"),
            attr(f(), "objectId"),
            json!({"k": "instanceof", "e": f(), "class": "java.lang.String"}),
            call("toString", vec![f()]),
            is_null(call("toString", vec![f()])),
            json!({"k": "like", "e": call("toString", vec![f()]), "pattern": "[A-Za-z1-].*", "negate": false}),
            json!({"k": "like", "e": f(), "pattern": ".*5", "negate": true}),
            bin("+", f(), lit(json!(1))),
            bin("+", f(), lit(json!("a"))),
            bin("-", f(), lit(json!(1))),
            bin("*", f(), lit(json!(2.5))),
            bin("/", f(), lit(json!(0))),
            bin("/", f(), lit(json!(2))),
            bin("%", f(), lit(json!(3))),
            bin("=", f(), row()),
            bin("<", f(), row()),
            bin("and", f(), attr(row(), "length")),
            bin("or", not(f()), is_null(f())),
            // Another field: the same object's, and one read through this one.
            bin("=", f(), g()),
            bin("!=", f(), g()),
            bin("<", f(), g()),
            bin(">=", f(), g()),
            bin("+", f(), g()),
            bin("and", f(), g()),
            bin("or", is_null(f()), bin(">", g(), lit(json!(0)))),
            field(f(), other),
            is_null(field(f(), other)),
            bin("=", field(f(), other), f()),
            json!({"k": "case", "whens": [{"when": is_null(f()), "then": lit(json!(1))}, {"when": g(), "then": f()}], "else": g()}),
            call("coalesce", vec![f(), g(), lit(json!(0))]),
            call("nullif", vec![f(), lit(json!(0))]),
        ]);
        for (k, l) in lits.iter().enumerate() {
            // Each literal with two operators (all six over the literals), and on the left.
            for op in [["=", "<"], ["!=", ">="], ["<=", ">"]][k % 3] {
                out.push(bin(op, f(), lit(l.clone())));
            }
            out.push(bin([">", "=", "!="][k % 3], lit(l.clone()), f()));
        }
    }
    out
}

/// A list of differences between the fast and the reference evaluation of `e` on `cx`.
fn compare(env: &Env, e: &CExpr, cx: &Ctx, class: Option<u32>, memo: &RefCell<ClassMemo>, what: &dyn Fn() -> String, bad: &mut Vec<String>) {
    let fast = e.eval(env, cx);
    let reference = e.eval_reference(env, cx);
    let differ = match (&fast, &reference) {
        (Ok(a), Ok(b)) => !same(a, b),
        (Err(a), Err(b)) => a.code != b.code || a.message != b.message,
        _ => true,
    };
    let truth = e.test(env, cx).map_err(|e| e.message.clone());
    // As a scan asks: the row's class given (a class source), the scan's memo of classes.
    let truth_known_class = e.test_row(env, cx, RowClass { class, memo: Some(memo) }).map_err(|e| e.message.clone());
    let want_truth = reference.as_ref().map(|v| v.truthy()).map_err(|e| e.message.clone());
    if differ || truth != want_truth || truth_known_class != want_truth {
        bad.push(format!("{}: fast {fast:?} / {truth:?} / {truth_known_class:?}, reference {reference:?}", what()));
    }
}

fn check_dump(path: &Path) {
    let heap = Heap::open(path, OpenOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    check_heap(&heap, path);
}

fn check_heap(heap: &Heap, path: &Path) {
    let ctx = ExecContext::new(heap).with_threads(1);
    let env = Env::new(&ctx);
    let fields = chosen_fields(heap, 2);
    let types: BTreeSet<&str> = fields.iter().map(|(t, _)| t.as_str()).collect();
    let objects = sample(heap, &fields, 600, 15);
    let addr = heap.object_id(objects[objects.len() / 2]) as i64;
    let exprs: Vec<(String, CExpr)> = expressions(&fields, addr)
        .into_iter()
        .map(|j| {
            let e: Expr = serde_json::from_value(j.clone()).unwrap_or_else(|e| panic!("{e}: {j}"));
            (j.to_string(), compile(&env, &e, &Scope::default()).unwrap_or_else(|e| panic!("{}: {j}", e.message)))
        })
        .collect();
    let mut bad = Vec::new();
    let memo = RefCell::new(ClassMemo::default());
    for &o in &objects {
        let cx = Ctx::object(o);
        let class = Some(heap.class_of(o));
        for (text, e) in &exprs {
            compare(&env, e, &cx, class, &memo, &|| format!("object {o} ({}), {text}", heap.class(heap.class_of(o)).name), &mut bad);
        }
    }
    assert!(bad.is_empty(), "{}: {} differences, the first:\n{}", path.display(), bad.len(), bad[..bad.len().min(20)].join("\n"));

    // Whole scans (the scan reads a class source's classes through its memo and hands the
    // row's class to the filter): the objects that pass, against the reference.
    let scans = fields.iter().take(6).flat_map(|(_, name)| {
        [is_null(field(row(), name)), bin(">", field(row(), name), lit(json!(0))), bin("and", is_not_null(field(row(), name)), bin("<", attr(row(), "usedHeapSize"), lit(json!(64))))]
    });
    let holder = |name: &str| (0..heap.class_count()).find(|&c| heap.instance_layout(c).iter().any(|f| f.name == name));
    for (filter, name) in scans.zip(fields.iter().take(6).flat_map(|(_, n)| [n, n, n])) {
        let e: Expr = serde_json::from_value(filter.clone()).unwrap();
        let f = compile(&env, &e, &Scope::default()).unwrap();
        let mut sources = vec![Source::All];
        if let Some(c) = holder(name) {
            sources.push(Source::Class { name: heap.class(c).name.clone(), subclasses: true });
        }
        for source in sources {
            let input = crate::source::resolve(&env, &source).unwrap();
            let got = crate::scan::collect_ids(&env, &input, Some(&f)).unwrap();
            let crate::source::Input::Objects(set) = &input else { unreachable!() };
            let members: Vec<u32> = match set {
                crate::source::ObjSet::All => (0..heap.object_count()).collect(),
                crate::source::ObjSet::Classes { by_class, .. } => (0..heap.object_count()).filter(|&o| by_class[heap.class_of(o) as usize]).collect(),
                crate::source::ObjSet::List(v) => v.clone(),
            };
            let want: Vec<u32> = members.into_iter().filter(|&o| f.eval_reference(&env, &Ctx::object(o)).unwrap().truthy()).collect();
            assert_eq!(got, want, "{}: scan of {source:?} with {filter}", path.display());
        }
    }
    eprintln!("{}: {} objects x {} expressions ({} fields; types {types:?}): the same", path.display(), objects.len(), exprs.len(), fields.len());
}

/// A dump made here with the values a real dump seldom holds: references to objects not in
/// the dump (NULL), lone surrogates in chars, NaN, -0.0, infinities, the extremes of each
/// type, texts with and without surrogates, an empty text, arrays, statics of each type.
#[test]
fn scalar_paths_answer_as_the_reference_on_edge_values() {
    use heapql_hprof::testkit::{DumpBuilder, Val};
    use heapql_hprof::BasicType as T;
    let mut b = DumpBuilder::new(8);
    let object = b.object_class;
    let prims: &[(&str, T)] = &[
        ("z", T::Boolean), ("b", T::Byte), ("c", T::Char), ("s", T::Short), ("i", T::Int),
        ("j", T::Long), ("f", T::Float), ("d", T::Double), ("r", T::Object), ("q", T::Object),
    ];
    let class = b.class("t.Prims", Some(object), prims);
    let sub = b.class("t.SubPrims", Some(class), &[("c2", T::Char), ("r", T::Object)]);
    let dangling = 0xdead_0000u64;
    let texts = [b.string("A"), b.string("z"), b.string(""), b.string("main"), b.utf16_string(&[0xD800, 0x41]), b.char_string(&[0x41, 0xDC00])];
    let chars = b.primitive_array(T::Char, &[Val::Char(0xD800), Val::Char(0x41), Val::Char(0)]);
    let array = b.object_array(b.object_array_class, &[texts[0], dangling, 0, chars]);
    let refs = [0, dangling, texts[0], texts[2], texts[4], texts[5], chars, array];
    let charv = [0x41u16, 0x7A, 0, 0xD800, 0xDFFF, 0xFFFF, 0x30];
    let floats = [0.1f32, f32::NAN, -0.0, f32::INFINITY, 1e-45, 16_777_216.0, 0.5, 65.0];
    let doubles = [f64::NAN, -0.0, 1e300, f64::NEG_INFINITY, 0.1, -0.25, 65.0, 1.5];
    let mut prev = 0;
    for k in 0..40usize {
        let v = [
            Val::Bool(k % 3 == 0),
            Val::Byte([0i8, -128, 127, 1, 65][k % 5]),
            Val::Char(charv[k % charv.len()]),
            Val::Short([0i16, i16::MIN, i16::MAX, -1][k % 4]),
            Val::Int([0, i32::MIN, i32::MAX, 1, -1, 65][k % 6]),
            Val::Long([0, i64::MIN, i64::MAX, 1, -1, 1 << 53][k % 6]),
            Val::Float(floats[k % floats.len()]),
            Val::Double(doubles[k % doubles.len()]),
            Val::Obj(refs[k % refs.len()]),
            Val::Obj(if k % 4 == 0 { prev } else { refs[(k / 2) % refs.len()] }),
        ];
        prev = if k % 2 == 0 {
            b.instance(class, &v)
        } else {
            let mut all = vec![Val::Char(charv[(k + 3) % charv.len()]), Val::Obj(refs[(k + 1) % refs.len()])];
            all.extend(v);
            b.instance(sub, &all)
        };
    }
    b.set_statics(
        class,
        &[("sz", Val::Bool(true)), ("sc", Val::Char(0xD801)), ("si", Val::Int(-7)), ("sj", Val::Long(i64::MIN)), ("sf", Val::Float(f32::NAN)),
          ("sd", Val::Double(-0.0)), ("sr", Val::Obj(dangling)), ("sq", Val::Obj(texts[3])), ("r", Val::Obj(array))],
    );
    let bytes = b.build();
    let heap = Heap::open_bytes(&bytes, "edge-values.hprof", OpenOptions::default()).unwrap();
    assert!(heap.object_count() > 40);
    check_heap(&heap, Path::new("edge-values.hprof"));
}

#[test]
fn scalar_paths_answer_as_the_reference_on_the_fixtures() {
    for p in [
        "fixtures/dumps/KnownHeap-jdk17-coops.hprof",
        "fixtures/dumps/KnownHeap-jdk17-nocoops.hprof",
        "fixtures/dumps/KnownHeap-jdk25-compact.hprof",
        "fixtures/dumps/waste/WasteHeap-jdk17-coops.hprof",
        "fixtures/demo/demo.hprof",
    ] {
        check_dump(&repo().join(p));
    }
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn scalar_paths_answer_as_the_reference_on_the_corpus() {
    for name in [
        "sun_jdk6_30_x64_compressedOops.hprof",
        "oracle_jdk7_21_hprofagent.hprof",
        "openjdk_jdk11_04_x64.hprof.gz",
        "ahat-test-dump.hprof",
        "hprof-32.bin",
        "hprof-64.bin",
    ] {
        let path = repo().join("../shared/corpus").join(name);
        assert!(path.exists(), "{} is missing from the corpus", path.display());
        check_dump(&path);
    }
}

/// Rows of a subquery's columns (no object): the row is its cell (or the list of them).
#[test]
fn scalar_paths_answer_as_the_reference_on_value_rows() {
    let heap = Heap::open(&repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof"), OpenOptions::default()).unwrap();
    let ctx = ExecContext::new(&heap);
    let env = Env::new(&ctx);
    let names = ["a".to_string(), "b".to_string()];
    let scope = Scope { columns: Some(&names), ..Scope::default() };
    let col = |n: &str| json!({"k": "col", "name": n});
    let mut exprs = vec![row(), col("a"), col("b"), is_null(row()), is_not_null(col("a")), field(row(), "value"), field(col("a"), "value"), attr(row(), "length"), attr(col("a"), "length"), not(row())];
    for l in [json!(0), json!(3), json!(2.5), json!("ab"), json!("b"), json!(true), json!(null)] {
        for op in ["=", "!=", "<", ">=", "+", "-", "and", "or"] {
            exprs.push(bin(op, row(), lit(l.clone())));
            exprs.push(bin(op, col("a"), lit(l.clone())));
            exprs.push(bin(op, col("a"), col("b")));
        }
    }
    let exprs: Vec<(String, CExpr)> = exprs
        .into_iter()
        .map(|j| (j.to_string(), compile(&env, &serde_json::from_value::<Expr>(j).unwrap(), &scope).unwrap()))
        .collect();
    let cells = [
        Value::Int(3),
        Value::Float(2.5),
        Value::str("ab"),
        Value::Utf16(std::sync::Arc::from([0xD800u16].as_slice())),
        Value::Null,
        Value::Bool(true),
        Value::Obj(5),
        Value::List(std::sync::Arc::from(vec![Value::Int(1)])),
    ];
    let mut bad = Vec::new();
    let memo = RefCell::new(ClassMemo::default());
    for a in &cells {
        for b in &cells {
            for cols in [vec![a.clone()], vec![a.clone(), b.clone()]] {
                let cx = Ctx { cols: &cols, ..Ctx::default() };
                for (text, e) in &exprs {
                    compare(&env, e, &cx, None, &memo, &|| format!("{cols:?}, {text}"), &mut bad);
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} differences, the first:\n{}", bad.len(), bad[..bad.len().min(20)].join("\n"));
}
