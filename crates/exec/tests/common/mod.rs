//! Helpers shared by the end-to-end tests: plan builders (JSON, as the planner writes it),
//! running a plan, reading cells back.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use heapql_exec::{execute, parse_plan, Batch, ExecContext, ExecError, Plan, Value};
use heapql_heap::{Heap, OpenOptions};
use serde_json::{json, Value as J};

pub fn open(path: &Path) -> Heap {
    Heap::open(path, OpenOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A dump of the shared corpus beside the repository. Its tests are ignored where the build
/// script (`crates/corpus_cfg.rs`) found no corpus, so a dump missing here is a broken corpus.
pub fn corpus_dump(name: &str) -> PathBuf {
    let path = repo().join("../shared/corpus").join(name);
    assert!(path.exists(), "{} is missing from the corpus", path.display());
    path
}

/// A file written once per test process under cargo's temp dir for tests (`target/tmp`, which
/// `cargo clean` removes), not the system's: nothing is left in /tmp when a run ends.
pub fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("heapql-exec-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

// ---- expressions ----
pub fn row() -> J {
    json!({"k": "row"})
}
pub fn lit(v: J) -> J {
    json!({"k": "lit", "v": v})
}
pub fn field(base: J, name: &str) -> J {
    json!({"k": "field", "base": base, "name": name})
}
pub fn attr(base: J, name: &str) -> J {
    json!({"k": "attr", "base": base, "name": name})
}
pub fn call(f: &str, args: Vec<J>) -> J {
    json!({"k": "call", "fn": f, "args": args})
}
pub fn bin(op: &str, l: J, r: J) -> J {
    json!({"k": "bin", "op": op, "l": l, "r": r})
}
pub fn agg(i: usize) -> J {
    json!({"k": "agg", "i": i})
}
pub fn key(i: usize) -> J {
    json!({"k": "key", "i": i})
}
pub fn out(i: usize) -> J {
    json!({"k": "out", "i": i})
}
pub fn col(name: &str) -> J {
    json!({"k": "col", "name": name})
}
pub fn classof_row() -> J {
    call("classof", vec![row()])
}
pub fn shallow() -> J {
    attr(row(), "usedHeapSize")
}

// ---- sources ----
pub fn class(name: &str) -> J {
    json!({"kind": "class", "name": name, "subclasses": false})
}
pub fn instanceof(name: &str) -> J {
    json!({"kind": "class", "name": name, "subclasses": true})
}
pub fn all() -> J {
    json!({"kind": "all"})
}

// ---- queries ----
/// A select with every field at its default, then `mods` merged in.
pub fn select(source: J, mods: J) -> J {
    let mut q = json!({
        "op": "select", "source": source, "alias": null, "filter": null,
        "output": {"kind": "objects"}, "groupBy": [], "aggregates": [], "having": null,
        "orderBy": [], "distinct": false, "limit": null, "retainedSet": false, "guards": []
    });
    for (k, v) in mods.as_object().expect("mods is an object") {
        q[k] = v.clone();
    }
    q
}
pub fn columns(cols: &[(&str, J)]) -> J {
    json!({"kind": "columns", "columns": cols.iter().map(|(n, e)| json!({"name": n, "expr": e})).collect::<Vec<_>>()})
}
pub fn count_star() -> J {
    json!({"fn": "count", "arg": null, "p": null})
}
pub fn aggregate(f: &str, arg: J, p: Option<u32>) -> J {
    json!({"fn": f, "arg": arg, "p": p})
}
pub fn setop(op: &str, l: J, r: J, mods: J) -> J {
    let mut q = json!({"op": op, "left": l, "right": r, "distinct": false, "orderBy": [], "limit": null});
    for (k, v) in mods.as_object().unwrap() {
        q[k] = v.clone();
    }
    q
}
pub fn plan(query: J) -> Plan {
    plan_with(query, false, false)
}
pub fn plan_with(query: J, reachable_only: bool, full_path: bool) -> Plan {
    let text = json!({"version": 1, "reachableOnly": reachable_only, "fullPath": full_path, "query": query}).to_string();
    parse_plan(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

pub fn run(heap: &Heap, query: J) -> Batch {
    try_run(heap, query).unwrap_or_else(|e| panic!("{e}"))
}
pub fn try_run(heap: &Heap, query: J) -> Result<Batch, ExecError> {
    execute(&ExecContext::new(heap), &plan(query))
}

/// Cells of column `c` as values.
pub fn column(b: &Batch, c: usize) -> Vec<Value> {
    (0..b.row_count).map(|r| b.columns[c].value(r)).collect()
}
pub fn ints(b: &Batch, c: usize) -> Vec<i64> {
    column(b, c)
        .into_iter()
        .map(|v| match v {
            Value::Float(f) => f as i64,
            Value::Int(i) => i,
            other => panic!("not a number: {other:?}"),
        })
        .collect()
}
pub fn objects(b: &Batch, c: usize) -> Vec<u32> {
    column(b, c)
        .into_iter()
        .map(|v| match v {
            Value::Obj(o) => o,
            other => panic!("not an object: {other:?}"),
        })
        .collect()
}
pub fn strings(b: &Batch, c: usize) -> Vec<Option<String>> {
    column(b, c)
        .into_iter()
        .map(|v| match v {
            Value::Str(s) => Some(s.to_string()),
            Value::Null => None,
            other => panic!("not a string: {other:?}"),
        })
        .collect()
}
pub fn single_int(b: &Batch) -> i64 {
    assert_eq!(b.row_count, 1, "expected one row");
    ints(b, 0)[0]
}
