//! The waste checks across the boundary: one JSON string (serde, the shape of the report
//! model's `waste` section) computed off the event loop from the full analysis.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use heapql_report::waste::{analyze, WasteOptions};

use crate::analysis::SharedState;
use crate::convert::{catch_panic, coded, heap_error};
use crate::heap_handle::HeapHandle;
use crate::progress::{progress_fn, CancelToken, ProgressCallback};

#[napi(object)]
pub struct WasteDataOptions {
    /// Holder rows shown per check (default 25).
    pub limit: Option<u32>,
    /// Duplicate string values shown (default 20).
    pub top_strings: Option<u32>,
}

pub struct WasteDataTask {
    state: Arc<SharedState>,
    options: WasteOptions,
}

impl Task for WasteDataTask {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<String> {
        catch_panic("computing the waste checks", || {
            let Some(analysis) = self.state.analysis() else {
                return Err(coded("ERR_NEEDS_ANALYSIS", "the waste checks need the full analysis: call analyze() first"));
            };
            let waste = analyze(&self.state.heap, &analysis, &self.options).map_err(heap_error)?;
            Ok(waste.to_json())
        })
    }

    fn resolve(&mut self, _env: Env, json: String) -> Result<String> {
        Ok(json)
    }
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
    ) -> Result<AsyncTask<WasteDataTask>> {
        let options = WasteOptions {
            limit: options.as_ref().and_then(|o| o.limit).unwrap_or(25).max(1) as usize,
            top_strings: options.as_ref().and_then(|o| o.top_strings).unwrap_or(20) as usize,
            progress: progress_fn(on_progress),
            cancel: cancel.map(|c| c.flag.clone()),
        };
        Ok(AsyncTask::new(WasteDataTask { state: self.state()?.clone(), options }))
    }
}
