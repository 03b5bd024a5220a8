//! Section times of the report phase on stderr when `HEAPQL_TIMING` is set (as the index
//! build does): where the time goes, without a profiler.

use std::time::Instant;

/// Prints `[heapql-report] <what>: <seconds since the last lap> s, anonymous <MiB>` per lap.
pub struct Laps {
    on: bool,
    last: Instant,
}

impl Laps {
    pub fn new() -> Laps {
        Laps { on: std::env::var_os("HEAPQL_TIMING").is_some(), last: Instant::now() }
    }

    /// Ends the section `what` (timed from the previous lap).
    pub fn lap(&mut self, what: &str) {
        if self.on {
            let now = Instant::now();
            eprintln!("[heapql-report] {what}: {:.3} s, anonymous {} MiB", (now - self.last).as_secs_f64(), rss_anon_mib());
            self.last = now;
        }
    }
}

/// This process's resident anonymous memory, 0 where unknown.
fn rss_anon_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("RssAnon:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()))
        .map_or(0, |kb| kb / 1024)
}
