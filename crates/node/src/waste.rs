//! The waste checks across the boundary: one JSON string (serde, the shape of the report
//! model's `waste` section) computed off the event loop from the full analysis.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use heapql_report::waste::{analyze, WasteOptions};

use crate::analysis::AnalysisJsonTask;
use crate::heap_handle::HeapHandle;
use crate::progress::{progress_fn, CancelToken, ProgressCallback};

#[napi(object)]
pub struct WasteDataOptions {
    /// Holder rows shown per check (default 25).
    pub limit: Option<u32>,
    /// Duplicate string values shown (default 20).
    pub top_strings: Option<u32>,
}

#[napi]
impl HeapHandle {
    /// The waste section (every check, rows by holder, duplicate strings) as JSON text; fails
    /// with ERR_NEEDS_ANALYSIS before analyze().
    #[napi(
        ts_args_type = "options?: WasteDataOptions | null, onProgress?: ((event: ProgressEvent) => void) | null, cancel?: CancelToken | null",
        ts_return_type = "Promise<string>"
    )]
    pub fn waste_data(
        &self,
        options: Option<WasteDataOptions>,
        on_progress: Option<ProgressCallback>,
        cancel: Option<&CancelToken>,
    ) -> Result<AsyncTask<AnalysisJsonTask>> {
        let defaults = WasteOptions::default();
        let options = WasteOptions {
            limit: options.as_ref().and_then(|o| o.limit).map_or(defaults.limit, |l| l as usize).max(1),
            top_strings: options.as_ref().and_then(|o| o.top_strings).map_or(defaults.top_strings, |t| t as usize),
            progress: progress_fn(on_progress),
            cancel: cancel.map(|c| c.flag.clone()),
        };
        let checked = options.cancel.clone();
        Ok(AsyncTask::new(AnalysisJsonTask::new(
            self.state()?,
            "computing the waste checks",
            "the waste checks need the full analysis: call analyze() first",
            move |state, analysis| analyze(&state.heap, analysis, &options).map(|waste| waste.to_json()),
        )
        .cancellable(checked)))
    }
}
