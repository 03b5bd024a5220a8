//! The report's data across the boundary: one JSON string (serde, the shape of the report
//! model's sections) computed off the event loop from the full analysis.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use heapql_report::{build, ReportOptions};

use crate::analysis::SharedState;
use crate::convert::{catch_panic, coded, heap_error};
use crate::heap_handle::HeapHandle;
use crate::progress::{progress_fn, CancelToken, ProgressCallback};

#[napi(object)]
pub struct ReportDataOptions {
    /// Longest list of each section (default 25).
    pub limit: Option<u32>,
    /// Duplicate string values shown (default 20).
    pub top_strings: Option<u32>,
}

pub struct ReportDataTask {
    state: Arc<SharedState>,
    limit: usize,
    top_strings: usize,
    progress: Option<heapql_heap::ProgressFn>,
    cancel: Option<Arc<AtomicBool>>,
}

impl Task for ReportDataTask {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<String> {
        catch_panic("computing the report", || {
            let Some(analysis) = self.state.analysis() else {
                return Err(coded("ERR_NEEDS_ANALYSIS", "the report needs the full analysis: call analyze() first"));
            };
            let options = ReportOptions {
                reachable_only: analysis.reachable_only(),
                limit: self.limit,
                top_strings: self.top_strings,
                progress: self.progress.clone(),
                cancel: self.cancel.clone(),
            };
            let data = build(&self.state.heap, &analysis, &options).map_err(heap_error)?;
            Ok(data.to_json())
        })
    }

    fn resolve(&mut self, _env: Env, json: String) -> Result<String> {
        Ok(json)
    }
}

#[napi]
impl HeapHandle {
    /// The report's sections (overview, leak suspects, top consumers, threads, duplicate
    /// strings) as JSON text; fails with ERR_NEEDS_ANALYSIS before analyze().
    #[napi(
        ts_args_type = "options?: ReportDataOptions | null, onProgress?: ((event: ProgressEvent) => void) | null, cancel?: CancelToken | null",
        ts_return_type = "Promise<string>"
    )]
    pub fn report_data(
        &self,
        options: Option<ReportDataOptions>,
        on_progress: Option<ProgressCallback>,
        cancel: Option<&CancelToken>,
    ) -> Result<AsyncTask<ReportDataTask>> {
        let limit = options.as_ref().and_then(|o| o.limit).unwrap_or(25).max(1) as usize;
        let top_strings = options.as_ref().and_then(|o| o.top_strings).unwrap_or(20) as usize;
        Ok(AsyncTask::new(ReportDataTask {
            state: self.state()?.clone(),
            limit,
            top_strings,
            progress: progress_fn(on_progress),
            cancel: cancel.map(|c| c.flag.clone()),
        }))
    }
}
