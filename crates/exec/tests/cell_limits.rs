//! A result cell crosses to JavaScript as one string: a text or a list that could not fit fails
//! with ERR_TOO_LARGE before it is built (the limit is lowered here so the dump stays small;
//! the real one is `JS_STRING_MAX_UNITS`).

mod common;

use common::*;
use heapql_exec::{execute, ExecContext, ExecError, ERR_TOO_LARGE, JS_STRING_MAX_UNITS};
use heapql_heap::Heap;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::{json, Value as J};

/// Limit used here: a list of at most (101 - 1) / 2 = 50 numbers, (101 - 1) / 8 = 12 objects,
/// a text of at most 101 units.
const UNITS: usize = 101;

fn dump() -> Heap {
    let mut b = DumpBuilder::new(8);
    let object = b.object_class;
    let holder = b.class("t.Holder", Some(object), &[("longs", BasicType::Object), ("objs", BasicType::Object), ("s", BasicType::Object)]);
    let longs: Vec<Val> = (0..1000).map(Val::Long).collect();
    let longs = b.primitive_array(BasicType::Long, &longs);
    let targets: Vec<u64> = (0..20).map(|_| b.instance(object, &[])).collect();
    let objs = b.object_array(b.object_array_class, &targets);
    let long_text = b.string(&"x".repeat(200));
    let short_text = b.string("short");
    let h1 = b.instance(holder, &[Val::Obj(longs), Val::Obj(objs), Val::Obj(long_text)]);
    let h2 = b.instance(holder, &[Val::Obj(0), Val::Obj(0), Val::Obj(short_text)]);
    b.root_jni_global(h1);
    b.root_jni_global(h2);
    // One file per test: tests run at once, and a file rewritten under another's map faults.
    let name = std::thread::current().name().unwrap_or("t").replace("::", "-");
    open(&temp_file(&format!("cell-limits-{name}.hprof"), &b.build()))
}

fn run_limited(heap: &Heap, source: J, expr: J) -> Result<heapql_exec::Batch, ExecError> {
    let q = select(source, json!({"output": columns(&[("c", expr)])}));
    execute(&ExecContext::new(heap).with_max_cell_units(UNITS), &plan(q))
}

fn slice(e: J, from: J, to: J) -> J {
    json!({"k": "slice", "e": e, "from": lit(from), "to": lit(to)})
}

#[test]
fn the_real_limit_is_one_javascript_string() {
    assert_eq!(JS_STRING_MAX_UNITS, (1 << 29) - 24);
    assert_eq!(ExecContext::new(&dump()).max_cell_units, JS_STRING_MAX_UNITS);
}

#[test]
fn an_array_slice_longer_than_a_cell_fails_before_it_is_built() {
    let heap = dump();
    let e = run_limited(&heap, class("long[]"), slice(row(), json!(null), json!(null))).unwrap_err();
    assert_eq!(e.code, ERR_TOO_LARGE, "{e}");
    assert!(e.message.contains("long[1000]") && e.message.contains("1000 elements") && e.message.contains("@length"), "{e}");
    // 50 numbers fit, 51 do not.
    let b = run_limited(&heap, class("long[]"), slice(row(), json!(0), json!(50))).unwrap();
    assert_eq!(b.row_count, 1);
    let e = run_limited(&heap, class("long[]"), slice(row(), json!(0), json!(51))).unwrap_err();
    assert_eq!(e.code, ERR_TOO_LARGE, "{e}");
    // An object array's elements are wider: 12 fit, 13 do not.
    assert!(run_limited(&heap, class("java.lang.Object[]"), slice(row(), json!(0), json!(12))).is_ok());
    let e = run_limited(&heap, class("java.lang.Object[]"), slice(row(), json!(0), json!(13))).unwrap_err();
    assert_eq!(e.code, ERR_TOO_LARGE, "{e}");
}

#[test]
fn outbounds_longer_than_a_cell_fail() {
    let heap = dump();
    // The Object[] refers to its class and 20 objects: 21 > 12.
    let e = run_limited(&heap, class("java.lang.Object[]"), attr(row(), "outbounds")).unwrap_err();
    assert_eq!(e.code, ERR_TOO_LARGE, "{e}");
    assert!(e.message.contains("@outbounds"), "{e}");
    // A holder's outbounds (class, three referents) fit.
    assert!(run_limited(&heap, class("t.Holder"), attr(row(), "outbounds")).is_ok());
}

#[test]
fn a_string_longer_than_a_cell_fails_before_it_is_read() {
    let heap = dump();
    let e = run_limited(&heap, class("t.Holder"), call("toString", vec![field(row(), "s")])).unwrap_err();
    assert_eq!(e.code, ERR_TOO_LARGE, "{e}");
    assert!(e.message.contains("200 characters") && e.message.contains("java.lang.String"), "{e}");
    // Its length and a short string are fine.
    let q = select(class("t.Holder"), json!({"output": columns(&[("n", attr(field(row(), "s"), "length"))]), "filter": bin("=", field(row(), "s"), lit(json!("short")))}));
    let b = execute(&ExecContext::new(&heap).with_max_cell_units(UNITS), &plan(q)).unwrap();
    assert_eq!(ints(&b, 0), vec![5]);
}

/// `path(a, b)` follows a chain far longer than the old 32-step bound; a search that gives up
/// (here at a lowered bound) is NULL with a note, so NULL alone means "no path".
mod paths {
    use super::*;
    use heapql_exec::{AnalysisView, Value, PATH_MAX_VISITED};
    use heapql_graph::analysis::{FullAnalysis, GraphOptions};

    const CHAIN: usize = 1000;

    /// `Link`s 0 → 1 → … → CHAIN-1 (`next`), and a `Pair` whose `from` is the first link and
    /// `to` the last (a root, as the first link).
    fn chain() -> Heap {
        let mut b = DumpBuilder::new(8);
        let object = b.object_class;
        let link = b.class("t.Link", Some(object), &[("next", BasicType::Object), ("v", BasicType::Int)]);
        let pair = b.class("t.Pair", Some(object), &[("from", BasicType::Object), ("to", BasicType::Object)]);
        let last = b.instance(link, &[Val::Obj(0), Val::Int(CHAIN as i32 - 1)]);
        let mut first = last;
        for v in (0..CHAIN - 1).rev() {
            first = b.instance(link, &[Val::Obj(first), Val::Int(v as i32)]);
        }
        let p = b.instance(pair, &[Val::Obj(first), Val::Obj(last)]);
        b.root_jni_global(first);
        b.root_jni_global(p);
        let name = std::thread::current().name().unwrap_or("t").replace("::", "-");
        open(&temp_file(&format!("chain-{name}.hprof"), &b.build()))
    }

    /// `SELECT path(p.<a>, p.<b>) FROM t.Pair p`: the path's length (None: NULL) and the notes.
    fn path_length(heap: &Heap, a: &str, b: &str, max_visited: Option<usize>) -> (Option<usize>, Vec<String>) {
        let analysis = FullAnalysis::build(heap, GraphOptions::default()).unwrap();
        let view = AnalysisView::new(heap, &analysis);
        let q = select(class("t.Pair"), json!({
            "output": columns(&[("p", call("path", vec![field(row(), a), field(row(), b)]))]),
        }));
        let mut ctx = ExecContext::new(heap).with_graph(&view);
        if let Some(n) = max_visited {
            ctx = ctx.with_path_max_visited(n);
        }
        let batch = execute(&ctx, &plan_with(q, false, true)).unwrap();
        assert_eq!(batch.row_count, 1);
        let len = match batch.columns[0].value(0) {
            Value::List(items) => Some(items.len()),
            Value::Null => None,
            other => panic!("{other:?}"),
        };
        (len, batch.notes.clone())
    }

    #[test]
    fn a_chain_far_longer_than_32_steps_has_its_path() {
        let heap = chain();
        let (len, notes) = path_length(&heap, "from", "to", None);
        assert_eq!(len, Some(CHAIN), "{notes:?}");
        assert!(notes.is_empty(), "{notes:?}");
        assert!(PATH_MAX_VISITED >= 1_000_000);
    }

    #[test]
    fn no_path_is_null_without_a_note() {
        let heap = chain();
        let (len, notes) = path_length(&heap, "to", "from", None);
        assert_eq!(len, None);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn a_search_that_gives_up_is_null_with_a_note() {
        let heap = chain();
        let (len, notes) = path_length(&heap, "from", "to", Some(100));
        assert_eq!(len, None);
        assert!(notes.iter().any(|n| n.contains("path(a, b) gave up")), "{notes:?}");
    }
}
