//! heapql-exec: runs a physical plan (`docs/physical-plan.md`, version 1) over the heap index
//! and, on the full path, the object graph (through `GraphView`), and returns columnar batches.
//!
//! Entry points for the N-API door:
//! - `parse_plan(json) -> Plan` (checks the version, ERR_PLAN otherwise);
//! - `execute(&ExecContext, &Plan) -> Batch` (one shot), `execute_json` (plan text in);
//! - `execute_stream(&ExecContext, &Plan, batch_rows, on_batch)` (batches as rows are produced);
//! - `describe(&Heap, idx) -> (address, class_name, label)` to render object cells.
//! - `float_value(f32) -> f64`: a Java float as the value OQL gives it (its shortest decimal),
//!   for the door's look-ups.

mod aggregate;
mod analysis_view;
mod batch;
mod compile;
mod env;
mod error;
mod eval;
mod graph_view;
mod group;
mod late;
mod order;
pub mod plan;
mod rows;
mod scan;
mod select;
mod source;
mod types;
mod value;

pub use analysis_view::AnalysisView;
pub use batch::{Batch, Column, ColumnData, ExactTexts};
/// Object labels live in the heap crate so the graph crate's reports share them.
pub use heapql_heap::describe;
pub use env::{ExecContext, JS_STRING_MAX_UNITS};
pub use error::{
    ExecError, NameKind, UnknownName, ERR_CANCELLED, ERR_NEEDS_ANALYSIS, ERR_PLAN, ERR_QUERY, ERR_TOO_LARGE, ERR_UNKNOWN_CLASS,
    ERR_UNKNOWN_FIELD,
};
pub use graph_view::{GraphView, PATH_MAX_VISITED};
#[doc(hidden)]
pub use late::with_eager_order;
pub use plan::{parse_plan, Plan, PLAN_VERSION};
pub use source::check_pattern;
pub use value::{float_value, Value};

use env::Env;
use rows::RowSet;

/// How a streamed execution ended.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamEnd {
    /// Rows handed to the callback.
    pub rows: u64,
    /// Column names of the result (also when no row was produced).
    pub columns: Vec<String>,
    /// The result is a list of objects: its one column is typed `object` also when no row was
    /// produced (a table's columns are typed by their values, without a row by `types`).
    pub object_rows: bool,
    /// The type the query fixes for each column (`types.rs`): `object`, `number`, `string`,
    /// `bool`, `list`, or None where nothing tells (a column without a row is typed so).
    pub types: Vec<Option<&'static str>>,
    /// True when the callback asked to stop.
    pub stopped: bool,
    /// Notes on the whole result, as `Batch::notes` of `execute`.
    pub notes: Vec<String>,
}

fn prepare<'a>(ctx: &ExecContext<'a>, plan: &Plan) -> Result<Env<'a>, ExecError> {
    if plan.version != PLAN_VERSION {
        return Err(ExecError::plan(format!(
            "plan version {} is not supported: this executor runs plan version {PLAN_VERSION}",
            plan.version
        )));
    }
    let mut env = Env::new(ctx);
    if plan.full_path && ctx.graph.is_none() {
        return Err(ExecError::needs_analysis("this query"));
    }
    env.reachable_only = plan.reachable_only;
    if plan.reachable_only {
        env.check_reachability_available()?;
    }
    Ok(env)
}

/// Runs a plan to completion and returns the whole result as one batch.
pub fn execute(ctx: &ExecContext, plan: &Plan) -> Result<Batch, ExecError> {
    let env = prepare(ctx, plan)?;
    let rows = select::run_query(&env, &plan.query)?;
    let fixed = types::query_types(&env, &plan.query);
    let mut batch = rows.to_batch(0, rows.len(), &fixed);
    batch.notes = env.take_notes();
    Ok(batch)
}

/// `execute` for a plan given as JSON text.
pub fn execute_json(ctx: &ExecContext, plan_json: &str) -> Result<Batch, ExecError> {
    execute(ctx, &parse_plan(plan_json)?)
}

/// Runs a plan and hands its rows to `on_batch` in batches of `batch_rows` rows (the last one
/// may be shorter). Plain selects (no grouping, ORDER BY or DISTINCT) stream while the scan
/// runs; an ordered select without grouping sorts its keys, then delivers its batches as their
/// outputs are evaluated in the sorted order (`late.rs`); other plans deliver their batches
/// when the result is complete. Each batch is typed on
/// its own (a column may be `number` in one batch and `null` in another). `on_batch` returns
/// false to stop early.
///
/// A plan that has every row before it hands over its first one (ORDER BY, GROUP BY, DISTINCT,
/// aggregates, a set operation, a LIMIT with ORDER BY) says how many rows the whole stream
/// gives on each of its batches (`Batch::total`, from the first one on); a plain select, whose
/// rows come as the scan goes, says it only at its end (`StreamEnd::rows`).
pub fn execute_stream(
    ctx: &ExecContext,
    plan: &Plan,
    batch_rows: usize,
    on_batch: &mut dyn FnMut(Batch) -> bool,
) -> Result<StreamEnd, ExecError> {
    execute_stream_from(ctx, plan, 0, batch_rows, on_batch)
}

/// `execute_stream` of the result's rows from row `skip` on (counted from 0; the rows before
/// it are not handed over, `StreamEnd::rows` counts those that are, and a batch's `total` is
/// still the whole result's). A select whose count is its filtered scan's (`count_execute`'s
/// fast case: no DISTINCT, GROUP BY, aggregates, HAVING or ORDER BY) seeks: the rows before
/// `skip` are found by the scan and the filter alone, their output columns never evaluated,
/// so an output that would fail on one of them does not fail here. Any other query makes
/// every row, as `execute_stream`, and drops the first `skip`.
pub fn execute_stream_from(
    ctx: &ExecContext,
    plan: &Plan,
    skip: u64,
    batch_rows: usize,
    on_batch: &mut dyn FnMut(Batch) -> bool,
) -> Result<StreamEnd, ExecError> {
    let env = prepare(ctx, plan)?;
    // A plain select seeks (`run_query_from`); any other query's first rows are dropped here.
    let seeks = select::counts_alone(&plan.query);
    let batch_rows = batch_rows.max(1);
    let fixed = types::query_types(&env, &plan.query);
    let mut pending: Option<RowSet> = None;
    let mut sent = 0u64;
    let mut stopped = false;
    let mut columns: Option<(Vec<String>, bool)> = None;
    let mut dropping = if seeks { 0 } else { skip };
    let mut deliver = |rs: RowSet, flush: bool, total: Option<u64>, sent: &mut u64, stopped: &mut bool| -> bool {
        let rs = if dropping > 0 {
            let k = dropping.min(rs.len() as u64) as usize;
            dropping -= k as u64;
            let rest: Vec<usize> = (k..rs.len()).collect();
            if k == 0 { rs } else { rs.select(&rest) }
        } else {
            rs
        };
        let mut rs = match pending.take() {
            Some(mut p) => {
                p.append(rs);
                p
            }
            None => rs,
        };
        let mut pos = 0;
        while rs.len() - pos >= batch_rows || (flush && pos < rs.len()) {
            let end = (pos + batch_rows).min(rs.len());
            *sent += (end - pos) as u64;
            let mut batch = rs.to_batch(pos, end, &fixed);
            batch.total = total;
            if !on_batch(batch) {
                *stopped = true;
                return false;
            }
            pos = end;
        }
        if pos > 0 {
            let rest: Vec<usize> = (pos..rs.len()).collect();
            rs = rs.select(&rest);
        }
        pending = Some(rs);
        true
    };
    // The total a sorted stream (`late.rs`) announces with its rows; the emitted rows of a
    // plain select come without one.
    let mut total: Option<u64> = None;
    let mut emitted = false;
    let mut emit = |rs: RowSet, whole: Option<usize>| -> Result<bool, ExecError> {
        columns.get_or_insert_with(|| (rs.names(), rs.is_objects()));
        emitted = true;
        total = whole.map(|n| n as u64);
        Ok(deliver(rs, false, total, &mut sent, &mut stopped))
    };
    let rest = select::run_query_from(&env, &plan.query, Some(&mut emit), if seeks { skip } else { 0 })?;
    let (columns, object_rows) = columns.unwrap_or_else(|| (rest.names(), rest.is_objects()));
    if !stopped {
        // Nothing emitted: `rest` is the whole result, so its length is the total.
        let total = if emitted { total } else { Some(rest.len() as u64) };
        deliver(rest, true, total, &mut sent, &mut stopped);
    }
    Ok(StreamEnd { rows: sent, columns, object_rows, stopped, notes: env.take_notes(), types: fixed })
}

/// How many rows a plan's result has (up to its LIMIT), none of them handed over. A select
/// without DISTINCT, GROUP BY, aggregates, HAVING or ORDER BY counts the rows its scan and
/// filter let through, and of its output columns evaluates only what could fail (an
/// ERR_TOO_LARGE text or list, rule 12's `count` read past the row, …; `toString(s)` checks
/// the String's length, not its text), so that the count fails where reading the rows would.
/// Any other query runs as `execute_stream` does, its batches checked as the N-API door
/// checks them (a cell too long for JavaScript fails) and counted, none converted.
pub fn execute_count(ctx: &ExecContext, plan: &Plan) -> Result<u64, ExecError> {
    let env = prepare(ctx, plan)?;
    if let Some(n) = select::count_query(&env, &plan.query)? {
        return Ok(n);
    }
    drop(env);
    let max = ctx.max_cell_units;
    let mut failed: Option<ExecError> = None;
    let mut counted = 0u64;
    let end = execute_stream(ctx, plan, COUNT_BATCH_ROWS, &mut |batch| {
        if let Err(e) = batch.check_cell_lengths(counted, max) {
            failed = Some(e);
            return false;
        }
        counted += batch.row_count as u64;
        true
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(end.rows),
    }
}

/// Rows per batch of `execute_count`'s other queries (counted, never converted).
const COUNT_BATCH_ROWS: usize = 65536;
