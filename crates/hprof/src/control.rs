//! Progress reporting and cancellation shared by every pass.

use crate::error::Error;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Callback `(phase, bytes done, bytes total)`.
pub type ProgressCallback<'a> = &'a (dyn Fn(&'static str, u64, u64) + Sync);

/// What a long pass needs from its caller: where to report progress, when to stop.
#[derive(Clone, Copy, Default)]
pub struct Control<'a> {
    pub progress: Option<ProgressCallback<'a>>,
    pub cancel: Option<&'a AtomicBool>,
}

impl<'a> Control<'a> {
    pub fn none() -> Control<'static> {
        Control { progress: None, cancel: None }
    }

    #[inline]
    pub fn check(&self) -> Result<(), Error> {
        match self.cancel {
            Some(c) if c.load(Ordering::Relaxed) => Err(Error::Cancelled),
            _ => Ok(()),
        }
    }

    #[inline]
    pub fn report(&self, phase: &'static str, done: u64, total: u64) {
        if let Some(p) = self.progress {
            p(phase, done, total);
        }
    }

    /// A ticker for one pass over `total` bytes: reports about 200 times and checks cancellation
    /// every `CHECK_BYTES` bytes (a few ms of work), so a cancel takes effect well within 100 ms.
    pub fn ticker(&self, phase: &'static str, total: u64) -> Ticker<'a> {
        Ticker {
            ctl: *self,
            phase,
            total,
            next_report: 0,
            report_step: (total / 200).max(1 << 20),
            next_check: 0,
            shared: None,
            last: 0,
        }
    }

    /// A ticker for one of several threads working on parts of the same pass: each adds the
    /// bytes it advanced to `shared`, and reports the shared total. `start` is the first offset
    /// this thread will pass to `at`.
    pub fn shared_ticker(&self, phase: &'static str, total: u64, shared: &'a AtomicU64, start: u64) -> Ticker<'a> {
        let mut t = self.ticker(phase, total);
        t.shared = Some(shared);
        t.last = start;
        t.next_check = start;
        t
    }
}

const CHECK_BYTES: u64 = 4 << 20;

pub struct Ticker<'a> {
    ctl: Control<'a>,
    phase: &'static str,
    total: u64,
    next_report: u64,
    report_step: u64,
    next_check: u64,
    shared: Option<&'a AtomicU64>,
    last: u64,
}

impl<'a> Ticker<'a> {
    /// Called with the bytes done so far (monotonic); cheap when nothing is due.
    #[inline]
    pub fn at(&mut self, done: u64) -> Result<(), Error> {
        if done >= self.next_check {
            self.next_check = done + CHECK_BYTES;
            self.ctl.check()?;
            let overall = match self.shared {
                Some(s) => {
                    let d = done.saturating_sub(self.last);
                    self.last = done;
                    s.fetch_add(d, Ordering::Relaxed) + d
                }
                None => done,
            };
            if overall >= self.next_report {
                self.next_report = overall + self.report_step;
                self.ctl.report(self.phase, overall.min(self.total), self.total);
            }
        }
        Ok(())
    }

    pub fn finish(&self) {
        self.ctl.report(self.phase, self.total, self.total);
    }
}
