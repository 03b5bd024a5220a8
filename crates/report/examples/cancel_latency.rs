//! How long a cancelled full analysis (graph, dominators, retained sizes, report) takes to
//! stop: `cargo run --release -p heapql-report --example cancel_latency -- DUMP [SECONDS...]`.
//! Opens DUMP once (scratch files in a temporary directory, as the CLI's full analysis), runs
//! the analysis once uncancelled for its phase timeline, then once per SECONDS value, setting
//! the cancel flag that long after the start, and prints where it was and how long it took
//! to return. Default: every 0.25 s up to the uncancelled run's length. A value
//! `PHASE@FRACTION+SECONDS` sets the flag SECONDS after the first progress report of PHASE
//! with at least FRACTION of its total done (`report@0.667+0.05`: 50 ms into the report's
//! last third), to land in a step wherever the machine's load puts it in time.
//! Besides the CPU time spent after the flag, it prints the time the process's threads spent
//! ready to run but waiting for a CPU (`/proc/self/task/*/schedstat`, sampled every
//! millisecond until the return): on a shared machine, most of the wall time from the flag to
//! the return may be that wait, not work or a wait of ours.

use heapql_graph::GraphOptions;
use heapql_heap::{Heap, HeapError, OpenOptions, Placement, Progress};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn run(heap: &Heap, cancel: Arc<AtomicBool>, last: Arc<Mutex<(String, u64, u64)>>, start: Instant, timeline: bool) -> Result<(), HeapError> {
    let seen = Mutex::new(String::new());
    let progress = Arc::new(move |p: Progress| {
        let mut l = last.lock().unwrap();
        *l = (p.phase.to_string(), p.done, p.total);
        let mut s = seen.lock().unwrap();
        if timeline && *s != p.phase {
            eprintln!("  {:>6.2} s  {} starts", start.elapsed().as_secs_f64(), p.phase);
            *s = p.phase.to_string();
        }
    });
    let options = GraphOptions { reachable_only: false, progress: Some(progress.clone()), cancel: Some(cancel.clone()) };
    let mut warnings = Vec::new();
    let (a, _, pass) = heapql_report::analyze(heap, options, true, None, &mut warnings)?;
    let report = heapql_report::ReportOptions { progress: Some(progress), cancel: Some(cancel), ..Default::default() };
    heapql_report::build_after(heap, &a, &report, pass)?;
    Ok(())
}

/// CPU time of the whole process (every thread) so far, in ms (`/proc/self/stat`, 10 ms steps;
/// 0 where there is none): the machine may be shared, and CPU time counts the work done.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = after.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    // Fields 14 and 15 of the file (utime, stime), counted from the state, field 3.
    f.get(11).zip(f.get(12)).map_or(0.0, |(u, s)| (u + s) * 10.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: cancel_latency DUMP [SECONDS...]");
    let mut delays: Vec<Point> = args.map(|a| Point::parse(&a)).collect();
    let dir = tempfile::tempdir().unwrap();
    let heap = Heap::open(std::path::Path::new(&path), OpenOptions { scratch: Placement::Files(Arc::from(dir.path())), ..Default::default() }).unwrap();
    let last = Arc::new(Mutex::new((String::new(), 0, 0)));
    let start = Instant::now();
    run(&heap, Arc::new(AtomicBool::new(false)), last.clone(), start, true).unwrap();
    let whole = start.elapsed().as_secs_f64();
    eprintln!("  {whole:>6.2} s  done (uncancelled)");
    if delays.is_empty() {
        delays = (1..).map(|k| k as f64 * 0.25).take_while(|&d| d < whole).map(|d| Point { after: None, delay: d }).collect();
    }
    println!("cancel at s\tphase (done/total) at cancel\tstopped after ms\tcpu ms after cancel\trun-queue ms after cancel\tresult");
    for d in delays {
        let cancel = Arc::new(AtomicBool::new(false));
        *last.lock().unwrap() = (String::new(), 0, 0);
        let start = Instant::now();
        let (flag, l) = (cancel.clone(), last.clone());
        let (heap, set) = (&heap, Arc::new(Mutex::new(None::<Instant>)));
        let answer = std::thread::scope(|s| {
            let worker = s.spawn(move || run(heap, cancel, l, start, false));
            let mut from = match &d.after {
                None => Some(start),
                Some(_) => None,
            };
            while !worker.is_finished() && from.is_none_or(|f| f.elapsed() < Duration::from_secs_f64(d.delay)) {
                if from.is_none() && d.reached(&last.lock().unwrap()) {
                    from = Some(Instant::now());
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            let at = last.lock().unwrap().clone();
            let cpu = cpu_ms();
            let mut queued = RunQueue::now();
            flag.store(true, Ordering::Relaxed);
            *set.lock().unwrap() = Some(Instant::now());
            while !worker.is_finished() {
                queued.sample();
                std::thread::sleep(Duration::from_millis(1));
            }
            let r = worker.join().unwrap();
            (at, r, (cpu_ms() - cpu, queued.waited_ms()))
        });
        let stopped = set.lock().unwrap().unwrap().elapsed().as_secs_f64() * 1000.0;
        let ((phase, done, total), r, (cpu, queued)) = answer;
        let what = match r {
            Err(HeapError::Cancelled) => "cancelled".to_string(),
            Ok(()) => "finished".to_string(),
            Err(e) => format!("error {e}"),
        };
        println!("{d}\t{phase} ({done}/{total})\t{stopped:.0}\t{cpu:.0}\t{queued:.0}\t{what}");
    }
}

/// Time the process's threads waited, ready to run, for a CPU (the second number of each
/// thread's `/proc/self/task/TID/schedstat`, in ns): the last value seen of every thread, from
/// when the flag was set (a thread started later counts from zero). A thread that ends between
/// two samples loses its last millisecond.
struct RunQueue {
    start: std::collections::HashMap<String, u64>,
    last: std::collections::HashMap<String, u64>,
}

impl RunQueue {
    fn read() -> std::collections::HashMap<String, u64> {
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return Default::default() };
        tasks
            .flatten()
            .filter_map(|t| {
                let stat = std::fs::read_to_string(t.path().join("schedstat")).ok()?;
                Some((t.file_name().to_string_lossy().into_owned(), stat.split_whitespace().nth(1)?.parse().ok()?))
            })
            .collect()
    }

    fn now() -> RunQueue {
        let start = RunQueue::read();
        RunQueue { last: start.clone(), start }
    }

    fn sample(&mut self) {
        self.last.extend(RunQueue::read());
    }

    fn waited_ms(&self) -> f64 {
        let ns: u64 = self.last.iter().map(|(t, &w)| w.saturating_sub(self.start.get(t).copied().unwrap_or(0))).sum();
        ns as f64 / 1e6
    }
}

/// Where to set the flag: `delay` seconds after the start, or after the first progress
/// report of `after`'s phase with at least its fraction done.
struct Point {
    after: Option<(String, f64)>,
    delay: f64,
}

impl Point {
    fn parse(a: &str) -> Point {
        let number = |x: &str| x.parse::<f64>().unwrap_or_else(|_| panic!("{a:?}: SECONDS or PHASE@FRACTION+SECONDS"));
        match a.split_once('@') {
            None => Point { after: None, delay: number(a) },
            Some((phase, rest)) => {
                let (fraction, delay) = rest.split_once('+').unwrap_or((rest, "0"));
                Point { after: Some((phase.to_string(), number(fraction))), delay: number(delay) }
            }
        }
    }

    fn reached(&self, (phase, done, total): &(String, u64, u64)) -> bool {
        self.after.as_ref().is_some_and(|(p, f)| p == phase && *done as f64 >= f * *total as f64)
    }
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match &self.after {
            None => write!(f, "{:.2}", self.delay),
            Some((p, x)) => write!(f, "{p}@{x}+{:.2}", self.delay),
        }
    }
}
