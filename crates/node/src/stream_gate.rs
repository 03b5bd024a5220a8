//! Back-pressure for streaming calls: the worker may run only a few batches ahead of the
//! JavaScript reader, so a slow reader (an HTTP client, a paused REPL) holds the scan instead of
//! letting every row pile up in Node's memory, and a reader that goes away stops it promptly.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use napi_derive::napi;

/// Made by JavaScript with the number of batches it lets the worker send ahead; `release()`
/// each time it has taken one.
#[napi]
pub struct StreamGate {
    pub(crate) inner: Arc<Gate>,
}

pub struct Gate {
    ahead: u32,
    /// Batches sent and not yet released.
    outstanding: Mutex<u32>,
    released: Condvar,
}

/// How often a waiting worker looks at its cancel flag (cancel does not signal the gate).
const CANCEL_POLL: Duration = Duration::from_millis(20);

#[napi]
impl StreamGate {
    #[napi(constructor)]
    pub fn new(ahead: u32) -> Self {
        StreamGate { inner: Arc::new(Gate { ahead: ahead.max(1), outstanding: Mutex::new(0), released: Condvar::new() }) }
    }

    /// The reader has taken one batch.
    #[napi]
    pub fn release(&self) {
        let mut n = self.inner.outstanding.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.saturating_sub(1);
        self.inner.released.notify_one();
    }
}

impl Gate {
    /// Waits until one more batch may be sent and counts it; false when `cancel` was set first.
    pub fn acquire(&self, cancel: Option<&AtomicBool>) -> bool {
        let cancelled = || cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        let mut n = self.outstanding.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if cancelled() {
                return false;
            }
            if *n < self.ahead {
                *n += 1;
                return true;
            }
            n = self.released.wait_timeout(n, CANCEL_POLL).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}
