//! Times the full analysis of a dump and reports memory per object:
//! `cargo run --release -p heapql-report --example analyze -- <dump.hprof> [--reachable-only] [--report] [--waste] [--in-memory] [--cache <dir>]`
//! (`--cache`: also the index cache's cost: writing the index and the analysis, reading them back).

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions, Placement};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Peak resident set (VmHWM) in bytes, from /proc (Linux).
fn peak_rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse::<u64>().ok())
        .map_or(0, |k| k * 1024)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: analyze <dump.hprof> [--reachable-only]");
        std::process::exit(2);
    };
    let reachable_only = args.iter().any(|a| a == "--reachable-only");
    // Sampler: the progress ticks miss peaks between them, so a thread reads RssAnon every
    // 2 ms and keeps the maximum of each phase (the first is the index build, "open").
    let anon_peak = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let phase_peaks: Arc<Mutex<Vec<(&'static str, u64)>>> = Arc::new(Mutex::new(vec![("open", 0)]));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let (pp, stop, ap) = (phase_peaks.clone(), stop.clone(), anon_peak.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let a = heapql_heap::rss_anon_bytes();
                ap.fetch_max(a, std::sync::atomic::Ordering::Relaxed);
                if let Some(last) = pp.lock().unwrap().last_mut() {
                    last.1 = last.1.max(a);
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        })
    };
    // Big arrays in scratch files, as the CLI's full analysis does; --in-memory keeps them all
    // in anonymous memory.
    let scratch = if args.iter().any(|a| a == "--in-memory") { Placement::Memory } else { Placement::files(None) };
    let t0 = Instant::now();
    let heap = match Heap::open(std::path::Path::new(path), OpenOptions { scratch, ..Default::default() }) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let t_open = t0.elapsed();
    let rss_open = peak_rss();
    let anon_open = heapql_heap::rss_anon_bytes();
    let ap = anon_peak.clone();
    let phases: Arc<Mutex<Vec<(&'static str, Instant)>>> = Arc::new(Mutex::new(vec![("open", t0)]));
    let ph = phases.clone();
    let pp = phase_peaks.clone();
    let progress: heapql_heap::ProgressFn = Arc::new(move |p: heapql_heap::Progress| {
            ap.fetch_max(heapql_heap::rss_anon_bytes(), std::sync::atomic::Ordering::Relaxed);
            let mut v = ph.lock().unwrap();
            if v.last().map(|x| x.0) != Some(p.phase) {
                v.push((p.phase, Instant::now()));
                pp.lock().unwrap().push((p.phase, heapql_heap::rss_anon_bytes()));
            }
        });
    let opts = GraphOptions { reachable_only, progress: Some(progress.clone()), cancel: None };
    let t1 = Instant::now();
    // --report: the analysis as the CLI's report makes it (the report's object pass beside the
    // dominator phase while memory is plentiful).
    let report = args.iter().any(|a| a == "--report");
    let (a, _, pass) = heapql_report::analyze(&heap, opts, report, None, &mut Vec::new()).unwrap();
    let t_graph = t1.elapsed();
    let anon_analysis_end = heapql_heap::rss_anon_bytes();
    // --report: the report data too (phase "report"), as `heapql <dump>` computes it.
    let t_report = report.then(|| {
        let t = Instant::now();
        let ropts = heapql_report::ReportOptions { progress: Some(progress.clone()), ..Default::default() };
        let data = heapql_report::build_after(&heap, &a, &ropts, pass).unwrap();
        let json = data.to_json();
        let mut h = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&json, &mut h);
        (t.elapsed(), json.len(), std::hash::Hasher::finish(&h))
    });
    // --waste: the waste checks alone (phase "waste"), as `heapql waste` computes them.
    let t_waste = args.iter().any(|a| a == "--waste").then(|| {
        let t = Instant::now();
        let wopts = heapql_report::waste::WasteOptions { progress: Some(progress.clone()), ..Default::default() };
        let w = heapql_report::waste::analyze(&heap, &a, &wopts).unwrap();
        (t.elapsed(), w.overhead, w.overhead_percent)
    });
    phase_peaks.lock().unwrap().push(("end", heapql_heap::rss_anon_bytes()));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    sampler.join().unwrap();
    let n = heap.object_count() as f64;
    let size = heap.info().file_size;
    println!("dump: {path} ({:.1} MiB, {} objects)", size as f64 / 1048576.0, heap.object_count());
    println!(
        "open: {:.2} s, peak RSS {:.1} B/object (file pages included), anonymous after open {:.1} B/object",
        t_open.as_secs_f64(),
        rss_open as f64 / n,
        anon_open as f64 / n
    );
    let v = phases.lock().unwrap();
    let peaks = phase_peaks.lock().unwrap();
    for (i, (name, at)) in v.iter().enumerate() {
        let end = v.get(i + 1).map_or(Instant::now(), |x| x.1);
        let peak = peaks.iter().filter(|p| p.0 == *name).map(|p| p.1).max().unwrap_or(0);
        println!("  {name}: {:.2} s, peak anonymous {:.1} B/object", (end - *at).as_secs_f64(), peak as f64 / n);
    }
    println!(
        "graph+dominators+retained: {:.2} s; edges {}; reachable {}; gc roots {}; unreachable roots {}",
        t_graph.as_secs_f64(),
        a.graph().edge_count(),
        a.graph().reachable_count(),
        a.gc_roots().count(),
        a.unreachable_roots().count()
    );
    println!(
        "analysis resident: {:.1} B/object in memory, {:.1} B/object in scratch files; process peak RSS {:.1} B/object ({:.0} MiB)",
        a.heap_bytes() as f64 / n,
        a.file_bytes() as f64 / n,
        peak_rss() as f64 / n,
        peak_rss() as f64 / 1048576.0
    );
    println!(
        "anonymous memory: peak seen during the analysis {:.1} B/object (heap index included), at the end {:.1} B/object",
        anon_peak.load(std::sync::atomic::Ordering::Relaxed).max(heapql_heap::rss_anon_bytes()) as f64 / n,
        anon_analysis_end as f64 / n
    );
    if let Some((t, len, hash)) = t_report {
        println!("report: {:.2} s, JSON {len} bytes, hash {hash:016x}", t.as_secs_f64());
    }
    if let Some((t, bytes, pct)) = t_waste {
        println!("waste: {:.2} s, overhead {bytes} bytes ({pct:.1}% of the heap)", t.as_secs_f64());
    }
    // Fingerprint of the results (compare two builds: equal means same dominators and sizes).
    let mut h = std::hash::DefaultHasher::new();
    for o in 0..heap.object_count() {
        std::hash::Hash::hash(&(a.retained_size(o), a.immediate_dominator(o), a.dominated(o)), &mut h);
    }
    println!("results hash {:016x}", std::hash::Hasher::finish(&h));
    println!("total {:.2} s = {:.2} s per GiB", (t_open + t_graph).as_secs_f64(), (t_open + t_graph).as_secs_f64() / (size as f64 / 1073741824.0));
    let top = a.top_level_dominators();
    for &o in top.iter().take(5) {
        println!("  top: #{o} {} retained {}", heap.class(heap.class_of(o)).name, a.retained_size(o));
    }
    if let Some(dir) = args.iter().position(|a| a == "--cache").and_then(|i| args.get(i + 1)) {
        cache_cost(std::path::Path::new(path), std::path::Path::new(dir), &heap, &a, reachable_only);
    }
}

/// Writes the index and the analysis into a cache in `dir`, then opens both again (verified
/// and mapped), and prints the times and sizes.
fn cache_cost(path: &std::path::Path, dir: &std::path::Path, heap: &Heap, a: &FullAnalysis, reachable_only: bool) {
    let cache = heapql_cache::Cache::new(dir.to_path_buf(), Some(u64::MAX));
    let _ = cache.clear(Some(path));
    let entry = cache.entry(path, heap.info().dump, "analyze-example").expect("the dump can be identified");
    let written = |w: heapql_cache::Written| match w {
        heapql_cache::Written::Done(n) => n,
        other => panic!("cache not written: {other:?}"),
    };
    let t = Instant::now();
    let index = written(entry.write("index", "", |w| heap.write_cache(w)));
    let t_index = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let analysis = written(entry.write("analysis", if reachable_only { "reachable-only" } else { "" }, |w| a.write_cache(w)));
    let t_analysis = t.elapsed().as_secs_f64();
    let (n, gib) = (heap.object_count() as f64, (index + analysis) as f64 / 1073741824.0);
    println!(
        "cache write: index {:.1} B/object in {t_index:.2} s, analysis {:.1} B/object in {t_analysis:.2} s: {:.2} s per GiB written",
        index as f64 / n,
        analysis as f64 / n,
        (t_index + t_analysis) / gib
    );
    let mut warnings = Vec::new();
    let t = Instant::now();
    let (h2, u1) = Heap::open_with_cache(path, OpenOptions::default(), &entry, &mut warnings).expect("cached index opens");
    let t_open = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (a2, u2) = FullAnalysis::build_with_cache(&h2, GraphOptions { reachable_only, ..Default::default() }, &entry, &mut warnings).expect("cached analysis opens");
    let t_read = t.elapsed().as_secs_f64();
    assert_eq!((u1, u2), (heapql_cache::CacheUse::Hit, heapql_cache::CacheUse::Hit), "{warnings:?}");
    assert_eq!(a2.total_size(), a.total_size());
    println!("cache read (verified, mapped): index {t_open:.2} s, analysis {t_read:.2} s");
}
