//! Progress reporting and cancellation for the long phases, in the heap crate's style.

use heapql_heap::{Progress, ProgressFn};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The caller set the cancel flag; the phase stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

/// One phase's progress callback and cancel flag. `Control::none()` for neither.
#[derive(Clone, Default)]
pub struct Control {
    pub phase: &'static str,
    pub progress: Option<ProgressFn>,
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Control {
    pub fn none() -> Control {
        Control::default()
    }

    /// The same callback and flag under another phase name.
    pub fn phase(&self, phase: &'static str) -> Control {
        Control { phase, progress: self.progress.clone(), cancel: self.cancel.clone() }
    }

    /// Checks the cancel flag only (for loops between two progress reports: one atomic load).
    #[inline]
    pub fn check(&self) -> Result<(), Cancelled> {
        match &self.cancel {
            Some(c) if c.load(Ordering::Relaxed) => Err(Cancelled),
            _ => Ok(()),
        }
    }

    /// Reports progress and checks the cancel flag (call every few tens of thousands of items).
    pub fn tick(&self, done: u64, total: u64) -> Result<(), Cancelled> {
        if let Some(c) = &self.cancel {
            if c.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
        }
        if let Some(p) = &self.progress {
            p(Progress { phase: self.phase, done: done.min(total), total });
        }
        Ok(())
    }
}
