//! The report's data across the boundary: one JSON string (serde, the shape of the report
//! model's sections) computed off the event loop from the full analysis, through the dump's
//! cache entry when there is one.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use heapql_report::{build_after, build_json_with_cache, ReportOptions};

use crate::analysis::AnalysisJsonTask;
use crate::heap_handle::HeapHandle;
use crate::progress::{progress_fn, CancelToken, ProgressCallback};

#[napi(object)]
pub struct ReportDataOptions {
    /// Longest list of each section (default 25).
    pub limit: Option<u32>,
    /// Duplicate string values shown (default 20).
    pub top_strings: Option<u32>,
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
    ) -> Result<AsyncTask<AnalysisJsonTask>> {
        let defaults = ReportOptions::default();
        let limit = options.as_ref().and_then(|o| o.limit).map_or(defaults.limit, |l| l as usize).max(1);
        let top_strings = options.as_ref().and_then(|o| o.top_strings).map_or(defaults.top_strings, |t| t as usize);
        let progress = progress_fn(on_progress);
        let cancel = cancel.map(|c| c.flag.clone());
        let checked = cancel.clone();
        let run = move |state: &crate::analysis::SharedState, analysis: &heapql_graph::FullAnalysis| {
            let options = ReportOptions { limit, top_strings, progress: progress.clone(), cancel: cancel.clone() };
            let pass = state.take_object_pass();
            let Some(entry) = &state.cache.entry else { return build_after(&state.heap, analysis, &options, pass).map(|data| data.to_json()) };
            let mut warnings = Vec::new();
            let (json, used) = build_json_with_cache(&state.heap, analysis, &options, entry, &mut warnings, pass)?;
            state.cache.note("report", used, warnings);
            Ok(json)
        };
        Ok(AsyncTask::new(AnalysisJsonTask::new(
            self.state()?,
            "computing the report",
            "the report needs the full analysis: call analyze() first",
            run,
        )
        .cancellable(checked)))
    }
}
