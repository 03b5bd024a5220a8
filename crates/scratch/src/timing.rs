//! Section times of the analysis phases on stderr when `HEAPQL_TIMING` is set (as the index
//! build does): where the time goes, without a profiler.

use std::time::Instant;

/// Prints `[<crate>] <what>: <seconds since the last lap> s (<processor seconds of
/// every thread>), anonymous <MiB>, dirtied <MiB>` per lap: on a shared machine the processor
/// time tells work saved from waiting for a core; the page cache dirtied in the lap (the
/// system's `nr_dirtied`, so only meaningful on an otherwise quiet machine) is what the
/// scratch files cost, which a memory limit turns into disk writes.
pub struct Laps {
    crate_name: &'static str,
    on: bool,
    last: Instant,
    cpu: f64,
    dirtied: u64,
}

impl Laps {
    /// Laps printed as `[crate_name] …`.
    pub fn new(crate_name: &'static str) -> Laps {
        let on = std::env::var_os("HEAPQL_TIMING").is_some();
        Laps { crate_name, on, last: Instant::now(), cpu: cpu_seconds(), dirtied: if on { dirtied_bytes() } else { 0 } }
    }

    /// Ends the section `what` (timed from the previous lap).
    pub fn lap(&mut self, what: &str) {
        if self.on {
            let (now, cpu, dirtied) = (Instant::now(), cpu_seconds(), dirtied_bytes());
            let wall = (now - self.last).as_secs_f64();
            eprintln!(
                "[{}] {what}: {wall:.3} s ({:.2} s cpu), anonymous {} MiB, dirtied {} MiB",
                self.crate_name,
                cpu - self.cpu,
                crate::rss_anon_bytes() >> 20,
                dirtied.saturating_sub(self.dirtied) >> 20
            );
            (self.last, self.cpu, self.dirtied) = (now, cpu, dirtied);
        }
    }
}

/// Bytes of page cache the system has dirtied since boot (`nr_dirtied` of `/proc/vmstat`, in
/// 4 KiB pages), 0 where unknown.
fn dirtied_bytes() -> u64 {
    let vmstat = std::fs::read_to_string("/proc/vmstat").unwrap_or_default();
    let pages = vmstat.lines().find_map(|l| l.strip_prefix("nr_dirtied ")).and_then(|n| n.trim().parse::<u64>().ok());
    pages.unwrap_or(0) * 4096
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
