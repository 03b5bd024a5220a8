//! Section times of the analysis phases on stderr when `HEAPQL_TIMING` is set (as the index
//! build does): where the time goes, without a profiler.

use std::time::Instant;

/// Prints `[<crate>] <what>: <seconds since the last lap> s (<processor seconds of
/// every thread>), anonymous <MiB>` per lap: on a shared machine the processor time tells
/// work saved from waiting for a core.
pub struct Laps {
    crate_name: &'static str,
    on: bool,
    last: Instant,
    cpu: f64,
}

impl Laps {
    /// Laps printed as `[crate_name] …`.
    pub fn new(crate_name: &'static str) -> Laps {
        Laps { crate_name, on: std::env::var_os("HEAPQL_TIMING").is_some(), last: Instant::now(), cpu: cpu_seconds() }
    }

    /// Ends the section `what` (timed from the previous lap).
    pub fn lap(&mut self, what: &str) {
        if self.on {
            let (now, cpu) = (Instant::now(), cpu_seconds());
            let wall = (now - self.last).as_secs_f64();
            eprintln!("[{}] {what}: {wall:.3} s ({:.2} s cpu), anonymous {} MiB", self.crate_name, cpu - self.cpu, crate::rss_anon_bytes() >> 20);
            (self.last, self.cpu) = (now, cpu);
        }
    }
}

/// Processor time of this process's threads so far (user and system, 10 ms ticks), 0 where
/// unknown.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces, inside parentheses).
    let rest = stat.rsplit_once(')').map_or("", |x| x.1);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name and state.
    (tick(11) + tick(12)) / 100.0
}
