//! `execute_count` (the count of a paged result, `/pages/<id>/count`, the REPL's "counting
//! rows") against the rows themselves: on the real KnownHeap fixture (1000 KnownHeap$Point
//! objects, x = 0..999, and its Strings), the count of every kind of query (WHERE, LIMIT,
//! DISTINCT, GROUP BY, ORDER BY, UNION, EXCEPT, a FROM subquery) is the number of rows that
//! reading them gives, and where reading them fails (a text too long for a cell) the count
//! fails with the same code. `execute_stream_from`'s seek gives the rows from row `skip` on,
//! as the whole result has them.

mod common;

use common::*;
use heapql_exec::{execute, execute_count, execute_stream, execute_stream_from, ExecContext, ExecError, Value};
use heapql_heap::Heap;
use serde_json::{json, Value as J};

fn heap() -> Heap {
    open(&repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof"))
}

fn x() -> J {
    field(row(), "x")
}

fn point(mods: J) -> J {
    select(class("KnownHeap$Point"), mods)
}

fn strings(mods: J) -> J {
    select(class("java.lang.String"), mods)
}

fn to_string() -> J {
    call("toString", vec![row()])
}

/// The rows of `q` as a reader of its pages gets them: streamed, each batch checked as the
/// N-API door checks it (a cell too long for JavaScript fails), counted.
fn paged_rows(ctx: &ExecContext, q: &J) -> Result<u64, ExecError> {
    let mut failed = None;
    let mut sent = 0u64;
    let end = execute_stream(ctx, &plan(q.clone()), 1000, &mut |b| {
        if let Err(e) = b.check_cell_lengths(sent, ctx.max_cell_units) {
            failed = Some(e);
            return false;
        }
        sent += b.row_count as u64;
        true
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(end.rows),
    }
}

fn agrees(ctx: &ExecContext, what: &str, q: J, want: u64) {
    let rows = paged_rows(ctx, &q).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(rows, want, "{what}: the rows paged");
    assert_eq!(execute(ctx, &plan(q.clone())).unwrap().row_count as u64, want, "{what}: execute's rows");
    let n = execute_count(ctx, &plan(q.clone())).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(n, want, "{what}: the count");
}

#[test]
fn the_count_is_the_rows_paged() {
    let heap = heap();
    let strings_n = execute(&ExecContext::new(&heap), &plan(strings(json!({})))).unwrap().row_count as u64;
    assert!(strings_n > 100, "{strings_n} Strings");
    for threads in [1, 0] {
        let ctx = ExecContext::new(&heap).with_threads(threads);
        let ctx = &ctx;
        agrees(ctx, "objects", point(json!({})), 1000);
        agrees(ctx, "columns", point(json!({"output": columns(&[("x", x()), ("s", to_string())])})), 1000);
        agrees(ctx, "toString of Strings", strings(json!({"output": columns(&[("t", to_string())])})), strings_n);
        agrees(ctx, "WHERE", point(json!({"filter": bin("<", x(), lit(json!(500))), "output": columns(&[("x", x())])})), 500);
        agrees(ctx, "WHERE on the text", strings(json!({"filter": bin(">", attr(row(), "length"), lit(json!(3))), "output": columns(&[("t", to_string())])})), {
            let q = strings(json!({"filter": bin(">", attr(row(), "length"), lit(json!(3)))}));
            execute(ctx, &plan(q)).unwrap().row_count as u64
        });
        for (limit, want) in [(0u64, 0u64), (1, 1), (250, 250), (999, 999), (5000, 1000)] {
            agrees(ctx, &format!("LIMIT {limit}"), point(json!({"limit": limit, "output": columns(&[("x", x())])})), want);
        }
        agrees(ctx, "WHERE … LIMIT", point(json!({"filter": bin(">=", x(), lit(json!(990))), "limit": 20})), 10);
        agrees(ctx, "DISTINCT", point(json!({"output": columns(&[("m", bin("%", x(), lit(json!(7))))]), "distinct": true})), 7);
        agrees(ctx, "DISTINCT … LIMIT", point(json!({"output": columns(&[("m", bin("%", x(), lit(json!(7))))]), "distinct": true, "limit": 5})), 5);
        let grouped = point(json!({"groupBy": [bin("%", x(), lit(json!(10)))], "aggregates": [count_star()], "output": columns(&[("k", key(0)), ("n", agg(0))])}));
        agrees(ctx, "GROUP BY", grouped, 10);
        agrees(ctx, "COUNT(*)", point(json!({"aggregates": [count_star()], "output": columns(&[("n", agg(0))])})), 1);
        agrees(ctx, "ORDER BY", point(json!({"orderBy": [{"expr": x(), "desc": true}], "output": columns(&[("s", to_string())])})), 1000);
        agrees(ctx, "ORDER BY … LIMIT", point(json!({"orderBy": [{"expr": x(), "desc": true}], "limit": 12})), 12);
        let small = point(json!({"filter": bin("<", x(), lit(json!(300)))}));
        agrees(ctx, "UNION", setop("union", point(json!({})), small.clone(), json!({})), 1300);
        agrees(ctx, "UNION DISTINCT", setop("union", point(json!({})), small.clone(), json!({"distinct": true})), 1000);
        agrees(ctx, "EXCEPT", setop("except", point(json!({})), small.clone(), json!({})), 700);
        agrees(ctx, "UNION … LIMIT", setop("union", point(json!({})), small, json!({"limit": 1100})), 1100);
        let inner = point(json!({"output": columns(&[("x", x())])}));
        let from_sub = select(json!({"kind": "subquery", "query": inner}), json!({"filter": bin("<", col("x"), lit(json!(42))), "output": columns(&[("y", col("x"))])}));
        agrees(ctx, "FROM a subquery", from_sub, 42);
    }
}

/// The code of `r`'s error, or its value.
fn outcome(r: Result<u64, ExecError>) -> Result<u64, String> {
    r.map_err(|e| e.code.to_string())
}

#[test]
fn the_count_fails_where_the_rows_fail() {
    let heap = heap();
    // Cells of at most 5 UTF-16 units, a text measured with its quotes (as a JSON string):
    // toString() of a String longer than 3 characters fails (ERR_TOO_LARGE), and so does a
    // text made longer than that.
    let ctx = ExecContext::new(&heap).with_max_cell_units(5);
    let cases = [
        ("toString", strings(json!({"output": columns(&[("t", to_string())])})), true),
        ("toString of short Strings", strings(json!({"filter": bin("<=", attr(row(), "length"), lit(json!(3))), "output": columns(&[("t", to_string())])})), false),
        ("toString of Strings of 4", strings(json!({"filter": bin("=", attr(row(), "length"), lit(json!(4))), "output": columns(&[("t", to_string())])})), true),
        ("a text made too long", point(json!({"output": columns(&[("t", bin("+", lit(json!("abcd")), call("toString", vec![x()])))])})), true),
        ("a String object concatenated", strings(json!({"output": columns(&[("t", bin("+", row(), lit(json!(""))))])})), true),
        ("a text that fits", point(json!({"filter": bin("<", x(), lit(json!(10))), "output": columns(&[("t", bin("+", lit(json!("ab")), call("toString", vec![x()])))])})), false),
    ];
    for (what, q, fails) in cases {
        let paged = outcome(paged_rows(&ctx, &q));
        let counted = outcome(execute_count(&ctx, &plan(q.clone())));
        assert_eq!(counted, paged, "{what}");
        assert_eq!(paged.is_err(), fails, "{what}: {paged:?}");
        if fails {
            assert_eq!(paged, Err("ERR_TOO_LARGE".to_string()), "{what}");
        }
    }
}

/// The rows `execute_stream_from` gives from row `skip` on.
fn rows_from(ctx: &ExecContext, q: &J, skip: u64) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    execute_stream_from(ctx, &plan(q.clone()), skip, 64, &mut |b| {
        for r in 0..b.row_count {
            rows.push(b.columns.iter().map(|c| cell(c.value(r))).collect());
        }
        true
    })
    .unwrap_or_else(|e| panic!("{e}\n{q}"));
    rows
}

fn whole_rows(ctx: &ExecContext, q: &J) -> Vec<Vec<String>> {
    let b = execute(ctx, &plan(q.clone())).unwrap();
    (0..b.row_count).map(|r| b.columns.iter().map(|c| cell(c.value(r))).collect()).collect()
}

/// A cell as text, to compare (a batch types each column over its own rows: a number is a
/// number whichever batch it is in).
fn cell(v: Value) -> String {
    format!("{v:?}")
}

#[test]
fn a_stream_from_a_row_gives_the_rest_of_the_rows() {
    let heap = heap();
    for threads in [1, 0] {
        let ctx = ExecContext::new(&heap).with_threads(threads);
        let small = point(json!({"filter": bin("<", x(), lit(json!(300)))}));
        for (what, q) in [
            ("objects", point(json!({}))),
            ("toString of Strings", strings(json!({"output": columns(&[("t", to_string()), ("n", attr(row(), "length"))])}))),
            ("WHERE", point(json!({"filter": bin(">", x(), lit(json!(600))), "output": columns(&[("x", x())])}))),
            ("LIMIT", point(json!({"limit": 700, "output": columns(&[("x", x())])}))),
            ("ORDER BY", point(json!({"orderBy": [{"expr": x(), "desc": true}], "output": columns(&[("x", x())])}))),
            ("DISTINCT", point(json!({"output": columns(&[("m", bin("%", x(), lit(json!(97))))]), "distinct": true}))),
            ("UNION", setop("union", point(json!({})), small, json!({}))),
        ] {
            let whole = whole_rows(&ctx, &q);
            let n = whole.len();
            for skip in [0, 1, 63, 64, n.saturating_sub(10), n.saturating_sub(1), n, n + 5] {
                let got = rows_from(&ctx, &q, skip as u64);
                assert_eq!(got, whole[skip.min(n)..].to_vec(), "{what}, from row {skip} of {n} ({threads} threads)");
            }
        }
    }
}

/// Objects of the seek test's dump: more than two of the executor's scan blocks (2^18 steps),
/// so a seek counts whole blocks before it walks the one holding its row again.
const MANY: i32 = 600_000;

/// A dump of `MANY` instances of demo.Big with `x` = 0, 1, 2, …, in that order.
fn many_objects() -> Heap {
    use heapql_hprof::testkit::{DumpBuilder, Val};
    let mut b = DumpBuilder::new(8);
    let big = b.class("demo.Big", Some(b.object_class), &[("x", heapql_hprof::BasicType::Int)]);
    for i in 0..MANY {
        b.instance(big, &[Val::Int(i)]);
    }
    open(&temp_file("many-objects.hprof", &b.build()))
}

#[test]
fn a_seek_past_the_first_scan_blocks_lands_on_its_row() {
    let heap = many_objects();
    let x = || field(row(), "x");
    let from = |skip: u64, q: &J, ctx: &ExecContext| {
        let mut first = None;
        let mut rows = 0u64;
        execute_stream_from(ctx, &plan(q.clone()), skip, 1000, &mut |b| {
            if first.is_none() && b.row_count > 0 {
                // A number, however the batch typed its column.
                first = Some(match b.columns[0].value(0) {
                    Value::Int(v) => v,
                    Value::Float(v) if v.fract() == 0.0 => v as i64,
                    other => panic!("x is a number, not {other:?}"),
                });
            }
            rows += b.row_count as u64;
            true
        })
        .unwrap_or_else(|e| panic!("{e}\n{q}"));
        (first, rows)
    };
    for threads in [1, 0] {
        let ctx = ExecContext::new(&heap).with_threads(threads);
        // Every object, and every third (the filter decides where a block's rows end).
        let every = select(class("demo.Big"), json!({"output": columns(&[("x", x())])}));
        let third = select(class("demo.Big"), json!({"filter": bin("=", bin("%", x(), lit(json!(3))), lit(json!(0))), "output": columns(&[("x", x())])}));
        for (what, q, step) in [("every object", &every, 1i64), ("every third", &third, 3)] {
            let n = (MANY as i64 + step - 1) / step;
            // Rows at and around the block ends (2^18, 2^19 steps) and the last.
            let block = 1i64 << 18;
            for skip in [0, block / step - 1, block / step, block / step + 1, 2 * block / step, 2 * block / step + 7, n - 1] {
                let (first, rows) = from(skip as u64, q, &ctx);
                assert_eq!(first, Some(skip * step), "{what}: row {skip} ({threads} threads)");
                assert_eq!(rows, (n - skip) as u64, "{what}: the rows from {skip} ({threads} threads)");
            }
            assert_eq!(from(n as u64, q, &ctx), (None, 0), "{what}: past the end");
        }
    }
}
