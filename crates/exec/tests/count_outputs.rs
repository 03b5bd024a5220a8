//! A count evaluates no output column that cannot change the row count nor fail
//! (`execute_count`), and a stream from row `skip` evaluates none of the rows before it
//! (`execute_stream_from`'s seek): the output cells evaluated are counted
//! (`ExecContext::eval_counter`).

mod common;

use common::*;
use heapql_exec::{execute, execute_count, execute_stream_from, ExecContext};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use serde_json::json;

#[test]
fn a_count_and_a_seek_evaluate_no_output_before_their_rows() {
    let heap = open(&repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof"));
    let counter = Arc::new(AtomicU64::new(0));
    let mut ctx = ExecContext::new(&heap);
    ctx.eval_counter = Some(counter.clone());
    let output_evaluations = || counter.load(Ordering::Relaxed);
    // toString(s) (its length checked, its text not read), a label, a field, a size.
    let outputs = columns(&[
        ("t", call("toString", vec![row()])),
        ("d", attr(row(), "displayName")),
        ("h", field(row(), "hash")),
        ("u", attr(row(), "usedHeapSize")),
    ]);
    let q = select(class("java.lang.String"), json!({"output": outputs, "filter": bin(">", attr(row(), "length"), lit(json!(2)))}));
    let before = output_evaluations();
    let rows = execute(&ctx, &plan(q.clone())).unwrap().row_count as u64;
    assert!(rows > 100, "{rows} rows");
    // The counter counts: reading the rows evaluates every cell.
    assert_eq!(output_evaluations() - before, rows * 4, "the rows' cells");

    let before = output_evaluations();
    assert_eq!(execute_count(&ctx, &plan(q.clone())).unwrap(), rows);
    assert_eq!(output_evaluations() - before, 0, "a count evaluates no output");

    // A column that could fail is evaluated by the count (a text made from a number: its
    // length is checked as a cell's), the others still not.
    let text = bin("+", lit(json!("#")), call("toString", vec![field(row(), "hash")]));
    let risky = select(class("java.lang.String"), json!({"output": columns(&[("t", text), ("d", attr(row(), "displayName"))])}));
    let all = execute(&ctx, &plan(risky.clone())).unwrap().row_count as u64;
    let before = output_evaluations();
    assert_eq!(execute_count(&ctx, &plan(risky)).unwrap(), all);
    assert_eq!(output_evaluations() - before, all, "only the column that could fail");

    // A seek: the rows before row `skip` are found by the filter alone.
    let skip = rows - 10;
    let before = output_evaluations();
    let mut got = 0u64;
    execute_stream_from(&ctx, &plan(q), skip, 1000, &mut |b| {
        got += b.row_count as u64;
        true
    })
    .unwrap();
    assert_eq!(got, 10);
    assert_eq!(output_evaluations() - before, 10 * 4, "the last ten rows' cells only");
}
