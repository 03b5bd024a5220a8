//! A stream's total (`Batch::total`): a plan that has every row before it hands over its first
//! one (ORDER BY, late or eager, with and without LIMIT; GROUP BY; aggregates; DISTINCT; set
//! operations) says on every batch, from the first on, how many rows the whole stream gives,
//! and that number is the rows it then gives (also to a reader that stops after one batch: the
//! rows it would have given); with a LIMIT it is the rows left after it (at most the limit). A
//! plain select, whose rows come as the scan goes, says nothing on its batches. On the real
//! KnownHeap fixture (1000 KnownHeap$Point objects, x = 0..999).

mod common;

use common::*;
use heapql_exec::{execute, execute_stream, with_eager_order, ExecContext};
use heapql_heap::Heap;
use serde_json::{json, Value as J};

fn heap() -> Heap {
    open(&repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof"))
}

const POINTS: u64 = 1000;

fn x() -> J {
    field(row(), "x")
}

fn point(mods: J) -> J {
    select(class("KnownHeap$Point"), mods)
}

/// Streams `q` in batches of `batch_rows`; the totals of its batches and the rows it gave.
fn stream(ctx: &ExecContext, q: &J, batch_rows: usize, stop_after: Option<usize>) -> (Vec<Option<u64>>, u64) {
    let mut totals = Vec::new();
    let end = execute_stream(ctx, &plan(q.clone()), batch_rows, &mut |b| {
        totals.push(b.total);
        stop_after.is_none_or(|n| totals.len() < n)
    })
    .unwrap_or_else(|e| panic!("{e}\n{q}"));
    (totals, end.rows)
}

/// Every batch of `q` says `want` (also from a reader that stops after the first batch), and
/// the stream gives that many rows, as many as `execute`'s one batch has.
fn says_total(ctx: &ExecContext, what: &str, q: J, want: u64) {
    let whole = execute(ctx, &plan(q.clone())).unwrap_or_else(|e| panic!("{e}\n{q}"));
    assert_eq!(whole.row_count as u64, want, "{what}: the result's rows");
    assert_eq!(whole.total, None, "{what}: execute's batch is the whole result");
    for batch_rows in [7, 1000, 5000] {
        let (totals, rows) = stream(ctx, &q, batch_rows, None);
        assert_eq!(rows, want, "{what}: the rows streamed in batches of {batch_rows}");
        assert!(!totals.is_empty(), "{what}: no batch");
        assert!(totals.iter().all(|t| *t == Some(want)), "{what}, batches of {batch_rows}: totals {:?}, want {want}", &totals[..totals.len().min(5)]);
    }
    let (totals, rows) = stream(ctx, &q, 7, Some(1));
    assert_eq!(totals, vec![Some(want)], "{what}: a reader that stops after one batch");
    assert_eq!(rows, want.min(7));
}

#[test]
fn materialising_plans_say_their_total_from_the_first_batch() {
    let heap = heap();
    let ctx = ExecContext::new(&heap);
    let by_x_desc = || json!([{"expr": x(), "desc": true}]);
    let x_mod = |n: i64| bin("%", x(), lit(json!(n)));

    // ORDER BY: objects and columns (late path), a key that is an output column.
    says_total(&ctx, "ORDER BY (objects)", point(json!({"orderBy": by_x_desc()})), POINTS);
    let cols = json!({"output": columns(&[("x", x()), ("y", field(row(), "y"))]), "orderBy": [{"expr": out(0), "desc": false}]});
    says_total(&ctx, "ORDER BY (columns)", point(cols.clone()), POINTS);
    // The path that evaluates every output first says the same.
    with_eager_order(|| says_total(&ctx, "ORDER BY (eager)", point(cols.clone()), POINTS));
    // LIMIT caps the total: a top-k (k < n / 4), a sort cut after, a limit beyond the rows.
    for (limit, want) in [(10u64, 10u64), (900, 900), (5000, POINTS)] {
        let q = point(json!({"orderBy": by_x_desc(), "limit": limit}));
        says_total(&ctx, &format!("ORDER BY … LIMIT {limit}"), q.clone(), want);
        with_eager_order(|| says_total(&ctx, &format!("ORDER BY … LIMIT {limit} (eager)"), q, want));
    }
    // A filter: the rows it keeps.
    let kept = point(json!({"filter": bin("<", x(), lit(json!(123))), "orderBy": by_x_desc()}));
    says_total(&ctx, "WHERE … ORDER BY", kept, 123);

    // GROUP BY: one row a group; HAVING drops some; LIMIT caps.
    let grouped = |mods: J| {
        let mut q = point(json!({"groupBy": [x_mod(10)], "aggregates": [count_star()], "output": columns(&[("k", key(0)), ("n", agg(0))])}));
        for (k, v) in mods.as_object().unwrap() {
            q[k] = v.clone();
        }
        q
    };
    says_total(&ctx, "GROUP BY", grouped(json!({})), 10);
    says_total(&ctx, "GROUP BY … HAVING", grouped(json!({"having": bin("<", key(0), lit(json!(4)))})), 4);
    says_total(&ctx, "GROUP BY … ORDER BY … LIMIT", grouped(json!({"orderBy": [{"expr": key(0), "desc": true}], "limit": 3})), 3);
    says_total(&ctx, "GROUP BY … LIMIT", grouped(json!({"limit": 6})), 6);
    // Aggregates alone: one row.
    says_total(&ctx, "COUNT(*)", point(json!({"aggregates": [count_star()], "output": columns(&[("n", agg(0))])})), 1);

    // DISTINCT over a column: 7 values; with LIMIT; with ORDER BY.
    let distinct = |mods: J| {
        let mut q = point(json!({"output": columns(&[("m", x_mod(7))]), "distinct": true}));
        for (k, v) in mods.as_object().unwrap() {
            q[k] = v.clone();
        }
        q
    };
    says_total(&ctx, "DISTINCT", distinct(json!({})), 7);
    says_total(&ctx, "DISTINCT … LIMIT", distinct(json!({"limit": 5})), 5);
    says_total(&ctx, "DISTINCT … ORDER BY", distinct(json!({"orderBy": [{"expr": out(0), "desc": true}]})), 7);

    // Set operations: whole before their first row.
    let small = point(json!({"filter": bin("<", x(), lit(json!(300)))}));
    let union = setop("union", point(json!({})), small.clone(), json!({}));
    says_total(&ctx, "UNION", union, POINTS + 300);
    says_total(&ctx, "EXCEPT", setop("except", point(json!({})), small.clone(), json!({})), POINTS - 300);
    says_total(&ctx, "UNION … LIMIT", setop("union", point(json!({})), small, json!({"limit": 1100})), 1100);
}

#[test]
fn plain_selects_stream_without_a_total() {
    let heap = heap();
    let ctx = ExecContext::new(&heap);
    for (what, q, want) in [
        ("objects", point(json!({})), POINTS),
        ("columns", point(json!({"output": columns(&[("x", x())])})), POINTS),
        ("a filter", point(json!({"filter": bin("<", x(), lit(json!(500)))})), 500),
        ("LIMIT", point(json!({"limit": 250})), 250),
    ] {
        let (totals, rows) = stream(&ctx, &q, 7, None);
        assert_eq!(rows, want, "{what}");
        assert!(totals.len() > 1 && totals.iter().all(Option::is_none), "{what}: {:?}", &totals[..totals.len().min(5)]);
    }
}
