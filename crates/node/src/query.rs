//! Plan execution across the boundary: a physical plan (JSON) in, columnar batches out.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;

use heapql_exec::{AnalysisView, Batch, ColumnData, ExactTexts, ExecContext, ExecError};

use crate::analysis::SharedState;
use crate::convert::{coded, coded_with_data, heap_error, on_dump};
use crate::heap_handle::HeapHandle;
use crate::progress::{progress_fn, CancelToken, ProgressCallback};
use crate::stream_gate::{Gate, StreamGate};

#[napi(object)]
pub struct JsColumn {
    pub name: String,
    /// object | number | string | bool | list | null
    #[napi(js_name = "type")]
    pub kind: String,
    /// A string column's texts are JavaScript strings exactly as Java held them, an unpaired
    /// surrogate included (made from their UTF-16 units).
    #[napi(ts_type = "Uint32Array | Float64Array | string[] | number[]")]
    pub values: Either4<Uint32Array, Float64Array, Vec<Either<String, Utf16String>>, Vec<u32>>,
    pub nulls: Option<Uint8Array>,
    /// A number column's integers beyond ±(2^53 − 1), exact (absent when there is none: the
    /// common case costs nothing). `values` holds every number, these rounded.
    pub bigints: Option<JsBigInts>,
    /// The type the query fixes for the column (object | number | string | bool | list), absent
    /// where nothing tells: its `type` when no value tells it (no rows, NULLs only).
    pub fixed: Option<String>,
}

/// Rows (ascending) of a number column and their exact 64-bit integer values.
#[napi(object)]
pub struct JsBigInts {
    pub rows: Uint32Array,
    pub values: BigInt64Array,
}

#[napi(object)]
pub struct JsBatch {
    pub row_count: u32,
    pub columns: Vec<JsColumn>,
    /// Notes on the whole result (a SUM beyond a long, a field no object read had); absent
    /// when there is none, and on a stream's batches (its end has them).
    pub notes: Option<Vec<String>>,
    /// On a stream's batches: how many rows the whole stream gives, when the executor knew it
    /// as it made this batch (ORDER BY, GROUP BY, DISTINCT, aggregates, set operations: from
    /// the first batch on; with a LIMIT, at most the limit); absent while the rows come as the
    /// scan goes (the stream's end says it) and on `execute`'s batch.
    pub total: Option<f64>,
}

fn exec_error(e: ExecError) -> Error {
    match e.unknown {
        Some(unknown) => coded_with_data(e.code, e.message, &unknown.to_json()),
        None => coded(e.code, e.message),
    }
}

/// The batch for JavaScript, or ERR_TOO_LARGE naming the column and row of a cell (a text, a
/// list's JSON) that one JavaScript string cannot hold: napi's own failure says neither, and
/// inside a stream's callback it would end the process. `first_row` numbers the batch's first
/// row in the whole result.
fn to_js(mut batch: Batch, first_row: u64) -> Result<JsBatch> {
    batch.check_cell_lengths(first_row, heapql_exec::JS_STRING_MAX_UNITS).map_err(exec_error)?;
    let row_count = batch.row_count as u32;
    let mut columns = Vec::with_capacity(batch.columns.len());
    for c in std::mem::take(&mut batch.columns) {
        let kind = c.data.type_name().to_string();
        let mut bigints = None;
        let values = match c.data {
            ColumnData::Objects(v) => Either4::A(Uint32Array::new(v)),
            ColumnData::Numbers { values, wide } => {
                if !wide.is_empty() {
                    bigints = Some(JsBigInts { rows: Uint32Array::new(wide.rows), values: BigInt64Array::new(wide.values) });
                }
                Either4::B(Float64Array::new(values))
            }
            ColumnData::Strings { values, exact } => Either4::C(texts(values, exact)),
            ColumnData::Lists(v) => Either4::C(v.into_iter().map(Either::A).collect()),
            ColumnData::Bools(v) => Either4::D(v.into_iter().map(u32::from).collect()),
            ColumnData::Null => Either4::D(vec![0; row_count as usize]),
        };
        let nulls = if c.nulls.is_empty() { None } else { Some(Uint8Array::new(c.nulls)) };
        columns.push(JsColumn { name: c.name, kind, values, nulls, bigints, fixed: c.fixed.map(str::to_string) });
    }
    let notes = if batch.notes.is_empty() { None } else { Some(batch.notes) };
    Ok(JsBatch { row_count, columns, notes, total: batch.total.map(|t| t as f64) })
}

/// A string column's cells for JavaScript: each a Rust string, but the texts that are no valid
/// UTF-16 (`exact`, none in the common case), which go as their UTF-16 units.
fn texts(values: Vec<String>, exact: ExactTexts) -> Vec<Either<String, Utf16String>> {
    let mut cells: Vec<Either<String, Utf16String>> = values.into_iter().map(Either::A).collect();
    for (row, units) in exact.rows.into_iter().zip(exact.units) {
        cells[row as usize] = Either::B(Utf16String::from(units.to_vec()));
    }
    cells
}

/// Runs `f` with an execution context over the heap and, when analyzed, the graph, telling
/// `progress` how it goes. A reachable-only plan without the full analysis gets the
/// reachability bitmap, built on first use with its own progress (phase `reachability`: the
/// graph's lists and the walk from the GC roots, seconds on a big dump) before the query's.
fn with_context<T>(
    state: &SharedState,
    plan: &heapql_exec::Plan,
    cancel: Option<Arc<AtomicBool>>,
    progress: Option<heapql_heap::ProgressFn>,
    f: impl FnOnce(&ExecContext) -> Result<T>,
) -> Result<T> {
    let analysis = state.analysis();
    let view = analysis.as_deref().map(|analysis| AnalysisView::new(&state.heap, analysis));
    let mut ctx = ExecContext::new(&state.heap);
    if let Some(view) = view.as_ref() {
        ctx = ctx.with_graph(view);
    } else if plan.reachable_only {
        ctx = ctx.with_reachable(state.reachable(cancel.clone(), progress.clone()).map_err(heap_error)?);
    }
    if let Some(flag) = cancel {
        ctx = ctx.with_cancel(flag);
    }
    if let Some(p) = progress {
        ctx = ctx.with_progress(p);
    }
    f(&ctx)
}

pub struct ExecuteTask {
    state: Arc<SharedState>,
    plan: String,
    cancel: Option<Arc<AtomicBool>>,
    progress: Option<heapql_heap::ProgressFn>,
}

impl Task for ExecuteTask {
    type Output = Batch;
    type JsValue = JsBatch;

    fn compute(&mut self) -> Result<Batch> {
        on_dump(&self.state.heap, "running the query", || {
            let plan = heapql_exec::parse_plan(&self.plan).map_err(exec_error)?;
            with_context(&self.state, &plan, self.cancel.clone(), self.progress.clone(), |ctx| heapql_exec::execute(ctx, &plan).map_err(exec_error))
        })
    }

    fn resolve(&mut self, _env: Env, batch: Batch) -> Result<JsBatch> {
        to_js(batch, 0)
    }
}

pub type BatchCallback = ThreadsafeFunction<JsBatch, bool, JsBatch, Status, false>;

#[napi(object)]
pub struct JsStreamEnd {
    pub rows: f64,
    pub columns: Vec<String>,
    /// The result is a list of objects (its one column is `object` also without a row).
    pub object_rows: bool,
    pub stopped: bool,
    /// Notes on the whole result, as `JsBatch::notes`.
    pub notes: Option<Vec<String>>,
    /// The type the query fixes for each column (object | number | string | bool | list), or
    /// `null` where nothing tells: the columns' types when no row came.
    pub types: Vec<String>,
}

pub struct StreamTask {
    state: Arc<SharedState>,
    plan: String,
    skip: u64,
    batch_rows: usize,
    on_batch: Arc<BatchCallback>,
    cancel: Option<Arc<AtomicBool>>,
    gate: Option<Arc<Gate>>,
    progress: Option<heapql_heap::ProgressFn>,
}

impl Task for StreamTask {
    type Output = heapql_exec::StreamEnd;
    type JsValue = JsStreamEnd;

    fn compute(&mut self) -> Result<heapql_exec::StreamEnd> {
        on_dump(&self.state.heap, "streaming the query", || {
            let plan = heapql_exec::parse_plan(&self.plan).map_err(exec_error)?;
            let callback = self.on_batch.clone();
            let cancel = self.cancel.clone();
            let gate = self.gate.clone();
            // A batch that cannot cross (a cell too long for a JavaScript string) ends the
            // stream with that error: the caller's loop rejects, the process goes on.
            let mut failed: Option<Error> = None;
            let mut sent: u64 = 0;
            let skip = self.skip;
            // No batch read after a fault of the dump's mapping goes out (`on_dump` says the
            // error): the rows sent before it were read whole.
            let heap = &self.state.heap;
            let end = with_context(&self.state, &plan, self.cancel.clone(), self.progress.clone(), |ctx| {
                heapql_exec::execute_stream_from(ctx, &plan, self.skip, self.batch_rows, &mut |batch| {
                    if heap.dump_read_faulted() {
                        return false;
                    }
                    let rows = batch.row_count as u64;
                    let js = match to_js(batch, skip + sent) {
                        Ok(js) => js,
                        Err(e) => {
                            failed = Some(e);
                            return false;
                        }
                    };
                    sent += rows;
                    if gate.as_ref().is_some_and(|g| !g.acquire(cancel.as_deref())) {
                        return false;
                    }
                    callback.call(js, ThreadsafeFunctionCallMode::Blocking);
                    !cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
                })
                .map_err(exec_error)
            })?;
            match failed {
                Some(e) => Err(e),
                None => Ok(end),
            }
        })
    }

    fn resolve(&mut self, _env: Env, end: heapql_exec::StreamEnd) -> Result<JsStreamEnd> {
        let notes = if end.notes.is_empty() { None } else { Some(end.notes) };
        let types = end.types.iter().map(|t| t.unwrap_or("null").to_string()).collect();
        Ok(JsStreamEnd { rows: end.rows as f64, columns: end.columns, object_rows: end.object_rows, stopped: end.stopped, notes, types })
    }
}

#[napi]
impl HeapHandle {
    /// Runs a physical plan (docs/physical-plan.md) off the event loop; one batch with every row.
    /// `onProgress` is told the objects scanned so far (phase `query`).
    #[napi(
        ts_args_type = "plan: string, cancel?: CancelToken | null, onProgress?: ((event: ProgressEvent) => void) | null",
        ts_return_type = "Promise<JsBatch>"
    )]
    pub fn execute(&self, plan: String, cancel: Option<&CancelToken>, on_progress: Option<ProgressCallback>) -> Result<AsyncTask<ExecuteTask>> {
        Ok(AsyncTask::new(ExecuteTask { state: self.state()?, plan, cancel: cancel.map(|c| c.flag.clone()), progress: progress_fn(on_progress) }))
    }

    /// Runs a plan and calls `onBatch` with batches of `batchRows` rows as they are produced;
    /// with a `gate`, at most its number of batches ahead of the reader's `release()` calls.
    /// `onProgress` is told the objects scanned so far (phase `query`), as `execute`'s. With
    /// `skip`, the result's rows from row `skip` (from 0) on (`heapql_exec::execute_stream_from`:
    /// a plain select seeks there without evaluating the outputs of the rows before it).
    #[napi(
        ts_args_type = "plan: string, batchRows: number, onBatch: (batch: JsBatch) => void, cancel?: CancelToken | null, gate?: StreamGate | null, onProgress?: ((event: ProgressEvent) => void) | null, skip?: number | null",
        ts_return_type = "Promise<JsStreamEnd>"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn execute_stream(
        &self,
        plan: String,
        batch_rows: u32,
        on_batch: BatchCallback,
        cancel: Option<&CancelToken>,
        gate: Option<&StreamGate>,
        on_progress: Option<ProgressCallback>,
        skip: Option<f64>,
    ) -> Result<AsyncTask<StreamTask>> {
        let skip = match skip {
            None => 0,
            Some(s) if s >= 0.0 && s.fract() == 0.0 && s <= 9007199254740991.0 => s as u64,
            Some(s) => return Err(coded("ERR_ARGUMENT", format!("skip must be a whole number of rows, at least 0, not {s}"))),
        };
        Ok(AsyncTask::new(StreamTask {
            state: self.state()?,
            plan,
            skip,
            batch_rows: batch_rows as usize,
            on_batch: Arc::new(on_batch),
            cancel: cancel.map(|c| c.flag.clone()),
            gate: gate.map(|g| g.inner.clone()),
            progress: progress_fn(on_progress),
        }))
    }

    /// How many rows a plan's result has, none converted nor handed over
    /// (`heapql_exec::execute_count`: a plain select evaluates of its outputs only what could
    /// fail). `onProgress` is told the objects scanned so far (phase `query`). Cancelled:
    /// ERR_CANCELLED.
    #[napi(
        ts_args_type = "plan: string, cancel?: CancelToken | null, onProgress?: ((event: ProgressEvent) => void) | null",
        ts_return_type = "Promise<number>"
    )]
    pub fn execute_count(&self, plan: String, cancel: Option<&CancelToken>, on_progress: Option<ProgressCallback>) -> Result<AsyncTask<CountTask>> {
        Ok(AsyncTask::new(CountTask { state: self.state()?, plan, cancel: cancel.map(|c| c.flag.clone()), progress: progress_fn(on_progress) }))
    }
}

pub struct CountTask {
    state: Arc<SharedState>,
    plan: String,
    cancel: Option<Arc<AtomicBool>>,
    progress: Option<heapql_heap::ProgressFn>,
}

impl Task for CountTask {
    type Output = u64;
    type JsValue = f64;

    fn compute(&mut self) -> Result<u64> {
        on_dump(&self.state.heap, "counting the query's rows", || {
            let plan = heapql_exec::parse_plan(&self.plan).map_err(exec_error)?;
            with_context(&self.state, &plan, self.cancel.clone(), self.progress.clone(), |ctx| heapql_exec::execute_count(ctx, &plan).map_err(exec_error))
        })
    }

    fn resolve(&mut self, _env: Env, rows: u64) -> Result<f64> {
        Ok(rows as f64)
    }
}
