//! Progress callbacks and cancellation tokens shared by every long call.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;

#[napi(object)]
#[derive(Clone)]
pub struct ProgressEvent {
    pub phase: String,
    pub done: f64,
    pub total: f64,
}

/// A JavaScript progress callback, callable from any thread; it never blocks the worker.
pub type ProgressCallback = ThreadsafeFunction<ProgressEvent, (), ProgressEvent, Status, false>;

/// Wraps a JavaScript callback as the crates' progress function.
pub fn progress_fn(callback: Option<ProgressCallback>) -> Option<heapql_heap::ProgressFn> {
    let callback = Arc::new(callback?);
    Some(Arc::new(move |p: heapql_heap::Progress| {
        callback.call(
            ProgressEvent { phase: p.phase.to_string(), done: p.done as f64, total: p.total as f64 },
            ThreadsafeFunctionCallMode::NonBlocking,
        );
    }))
}

/// Set from JavaScript (Ctrl-C, AbortSignal) to stop a running call at its next check.
#[napi]
pub struct CancelToken {
    pub(crate) flag: Arc<AtomicBool>,
}

#[napi]
impl CancelToken {
    #[napi(constructor)]
    pub fn new() -> Self {
        CancelToken { flag: Arc::new(AtomicBool::new(false)) }
    }

    #[napi]
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    #[napi(getter)]
    pub fn cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

impl Default for CancelToken {
    fn default() -> Self {
        Self::new()
    }
}
