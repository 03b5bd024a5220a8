//! What a heap handle shares with its running tasks: the index, and the full analysis once
//! it has been built (queries switch to the full path without reopening the dump).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use heapql_graph::FullAnalysis;
use heapql_heap::{Heap, HeapError};

use crate::cache::CacheState;

pub struct SharedState {
    pub heap: Heap,
    /// The dump's cache entry and what the cache did.
    pub cache: CacheState,
    analysis: RwLock<Option<Arc<FullAnalysis>>>,
    /// The report's object pass made during the analysis (`analyze({ forReport })`), for the
    /// next report.
    object_pass: Mutex<Option<ObjectPass>>,
    /// Reachability for `--reachable-only` before (or without) the full analysis; built once.
    reachable: OnceLock<Vec<u64>>,
}

impl SharedState {
    pub fn new(heap: Heap, cache: CacheState) -> SharedState {
        SharedState { heap, cache, analysis: RwLock::new(None), object_pass: Mutex::new(None), reachable: OnceLock::new() }
    }

    /// Drops everything, the heap's pages taken down by both cores (`Heap::release`).
    pub fn release(self) {
        let SharedState { heap, cache, analysis, object_pass, reachable } = self;
        drop((cache, analysis, object_pass, reachable));
        heap.release();
    }

    pub fn analysis(&self) -> Option<Arc<FullAnalysis>> {
        self.analysis.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The reachable-object bitmap, computed on first use (told to `progress`, phase
    /// `reachability`).
    pub fn reachable(&self, cancel: Option<Arc<AtomicBool>>, progress: Option<heapql_heap::ProgressFn>) -> std::result::Result<&[u64], heapql_heap::HeapError> {
        if let Some(bits) = self.reachable.get() {
            return Ok(bits);
        }
        let ctl = heapql_graph::Control { phase: "reachability", progress, cancel };
        let bits = heapql_graph::reachable_bitmap(&self.heap, &ctl)?;
        Ok(self.reachable.get_or_init(|| bits))
    }

    /// Installs `analysis` with the report's object pass made with it, if any (one made with
    /// an earlier analysis goes).
    pub fn set_analysis(&self, analysis: FullAnalysis, pass: Option<ObjectPass>) {
        *self.analysis.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(analysis));
        *self.object_pass.lock().unwrap_or_else(|e| e.into_inner()) = pass;
    }

    /// The object pass made during the analysis, once.
    pub fn take_object_pass(&self) -> Option<ObjectPass> {
        self.object_pass.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

use napi::bindgen_prelude::*;
use napi_derive::napi;

use heapql_graph::GraphOptions;
use heapql_report::ObjectPass;

use crate::convert::{coded, heap_error, on_dump};
use crate::heap_handle::HeapHandle;
use crate::progress::{progress_fn, CancelToken};

/// JSON text computed off the event loop from the full analysis (the report's sections, the
/// waste checks); fails with ERR_NEEDS_ANALYSIS before analyze().
pub struct AnalysisJsonTask {
    state: Arc<SharedState>,
    /// What runs, for an internal error: `computing the report`.
    doing: &'static str,
    /// The error before analyze(): `the report needs the full analysis: call analyze() first`.
    needs_analysis: &'static str,
    run: Box<dyn FnMut(&SharedState, &FullAnalysis) -> std::result::Result<String, HeapError> + Send>,
    /// The caller's cancel flag, checked again in `resolve`: a cancel sent while the result was
    /// on its way (a cached report is read in no time) still wins.
    cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl AnalysisJsonTask {
    pub fn new(
        state: Arc<SharedState>,
        doing: &'static str,
        needs_analysis: &'static str,
        run: impl FnMut(&SharedState, &FullAnalysis) -> std::result::Result<String, HeapError> + Send + 'static,
    ) -> AnalysisJsonTask {
        AnalysisJsonTask { state, doing, needs_analysis, run: Box::new(run), cancel: None }
    }

    /// Fails with ERR_CANCELLED in `resolve` when `cancel` is set by then.
    pub fn cancellable(mut self, cancel: Option<Arc<std::sync::atomic::AtomicBool>>) -> AnalysisJsonTask {
        self.cancel = cancel;
        self
    }
}

impl Task for AnalysisJsonTask {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<String> {
        on_dump(&self.state.heap, self.doing, || {
            let Some(analysis) = self.state.analysis() else {
                return Err(coded("ERR_NEEDS_ANALYSIS", self.needs_analysis));
            };
            (self.run)(&self.state, &analysis).map_err(heap_error)
        })
    }

    fn resolve(&mut self, _env: Env, json: String) -> Result<String> {
        if self.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(heap_error(heapql_heap::HeapError::Cancelled));
        }
        crate::convert::js_text(json, self.doing)
    }
}

#[napi(object)]
pub struct AnalyzeOptions {
    /// Leave objects unreachable from GC roots out of the dominator tree.
    pub reachable_only: Option<bool>,
    /// A report follows: its pass over every object runs during the analysis, on the core
    /// the dominator phase leaves idle, with the own sizes read there.
    pub for_report: Option<bool>,
}

#[napi(object)]
pub struct JsAnalysisSummary {
    /// Sum of the shallow sizes of the objects in the dominator tree.
    pub total_size: f64,
    pub reachable_only: bool,
}

pub struct AnalyzeTask {
    state: Arc<SharedState>,
    options: GraphOptions,
    for_report: bool,
    /// The finished analysis (and the report's object pass), installed on the JavaScript
    /// thread in `resolve`: a cancel that JavaScript sent before it saw the result then always
    /// wins (no race with the worker).
    finished: Option<(FullAnalysis, Option<ObjectPass>)>,
}

impl Task for AnalyzeTask {
    type Output = f64;
    type JsValue = JsAnalysisSummary;

    fn compute(&mut self) -> Result<f64> {
        on_dump(&self.state.heap, "analyzing the heap", || {
            let state = &self.state;
            let mut warnings = Vec::new();
            let fallbacks = heapql_heap::memory_fallbacks();
            let (analysis, used, pass) =
                heapql_report::analyze(&state.heap, self.options.clone(), self.for_report, state.cache.entry.as_ref(), &mut warnings).map_err(heap_error)?;
            if let Some(used) = used {
                state.cache.note("analysis", used, warnings);
            }
            if let Some(w) = heapql_report::scratch_fallback_warning(&state.heap, fallbacks) {
                state.cache.warn(w);
            }
            let total = analysis.total_size() as f64;
            self.finished = Some((analysis, pass));
            Ok(total)
        })
    }

    fn resolve(&mut self, _env: Env, total_size: f64) -> Result<JsAnalysisSummary> {
        if self.options.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(heap_error(heapql_heap::HeapError::Cancelled));
        }
        if let Some((analysis, pass)) = self.finished.take() {
            self.state.set_analysis(analysis, pass);
        }
        Ok(JsAnalysisSummary { total_size, reachable_only: self.options.reachable_only })
    }
}

#[napi]
impl HeapHandle {
    /// Builds the object graph, dominator tree and retained sizes; afterwards plans may use the
    /// full path.
    #[napi(
        ts_args_type = "options?: AnalyzeOptions | null, onProgress?: ((event: ProgressEvent) => void) | null, cancel?: CancelToken | null",
        ts_return_type = "Promise<JsAnalysisSummary>"
    )]
    pub fn analyze(
        &self,
        options: Option<AnalyzeOptions>,
        on_progress: Option<crate::progress::ProgressCallback>,
        cancel: Option<&CancelToken>,
    ) -> Result<AsyncTask<AnalyzeTask>> {
        Ok(AsyncTask::new(AnalyzeTask {
            state: self.state()?,
            options: GraphOptions {
                reachable_only: options.as_ref().and_then(|o| o.reachable_only).unwrap_or(false),
                progress: progress_fn(on_progress),
                cancel: cancel.map(|c| c.flag.clone()),
            },
            for_report: options.as_ref().and_then(|o| o.for_report).unwrap_or(false),
            finished: None,
        }))
    }

    /// What the full analysis found wrong with the dump (references to ids that are no object),
    /// as warnings; none before the analysis. Kept with the analysis in the cache.
    #[napi]
    pub fn analysis_warnings(&self) -> Result<Vec<crate::heap_handle::JsWarning>> {
        let state = self.state()?;
        Ok(state.analysis().map_or_else(Vec::new, |a| {
            a.warnings(&state.heap).into_iter().map(|(offset, message)| crate::heap_handle::JsWarning { offset: offset as f64, message }).collect()
        }))
    }

    #[napi(getter)]
    pub fn analyzed(&self) -> bool {
        self.state().is_ok_and(|s| s.analysis().is_some())
    }
}
