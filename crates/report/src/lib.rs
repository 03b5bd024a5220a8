//! The data of the full-analysis report (issue C): System Overview, Leak Suspects, Top
//! Consumers, Thread Overview and the waste checks (`waste`, duplicate strings among them),
//! computed from the heap index (`heapql-heap`) and a `FullAnalysis` (`heapql-graph`), the
//! layers below this crate. `build` returns plain data whose JSON (serde, camelCase) is
//! exactly the shape of those sections of `ts/report/model.ts`; the TypeScript side adds the
//! envelope.
//!
//! Rules and thresholds follow MAT (docs: mat-semantics.md §3); each section's file says which
//! rule it implements. Cost: a linear pass over every object, with the waste checks' first
//! step (two threads, or made during the analysis with the own sizes, on the core the
//! dominator phase leaves idle: `analyze`); the rest of the waste checks (their findings
//! confirmed by the dominator tree) beside the dominator tree's preorder, laid out by two linear passes
//! over the analysis's DFS order, whose pass giving each position its class sums the retained
//! size by class on the way (`preorder.rs`); then
//! sequential scans of that preorder for each suspect's breakdown (split over two threads); per
//! single suspect a search from the roots that stops at its accumulation point, and one full
//! BFS over the graph only for group suspects or a point far from the roots. With
//! `HEAPQL_TIMING` set, each section's time goes to stderr (`heapql_heap::Laps`).

mod consumers;
mod ctx;
mod model;
mod overview;
mod paths;
mod preorder;
mod retained_by_class;
mod scan;
mod suspects;
mod threads;
pub mod waste;

pub use model::*;
pub use overview::iso_time;
pub use suspects::{BIG_DROP_RATIO, GROUP_PATH_SHARE, MAX_GROUP_SAMPLE, MAX_WALK_DEPTH};
pub use threads::{thread_state, FRAMES_LISTED as THREAD_FRAMES_LISTED};

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use heapql_graph::control::Control;
use heapql_graph::{FullAnalysis, GraphOptions, PassBeside, ShallowSizes};
use heapql_heap::{Heap, HeapError, ProgressFn};
use scan::Coverage;

/// Options of `build` (progress phase: "report").
#[derive(Clone)]
pub struct ReportOptions {
    /// Longest list of each section (histogram rows, loaders, consumers, packages, …).
    pub limit: usize,
    /// Values shown in `waste.duplicateStrings.top`.
    pub top_strings: usize,
    pub progress: Option<ProgressFn>,
    /// Set to true from another thread to stop; build() then returns HeapError::Cancelled.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions { limit: 25, top_strings: 20, progress: None, cancel: None }
    }
}

/// Computes every section of the report. An analysis built with `reachable_only` leaves
/// unreachable objects out of every section (they are still counted in
/// `overview.heap.unreachable*`).
pub fn build(heap: &Heap, analysis: &FullAnalysis, options: &ReportOptions) -> Result<ReportData, HeapError> {
    build_after(heap, analysis, options, None)
}

/// The report's pass over every object (per class instances and bytes, threads, class
/// loaders, `Reference.referent` edges, and the class of every object: 2 bytes per object
/// while the classes fit 16 bits), with the waste checks' first step (what needs only the
/// object: `waste::Objects`), made ahead of the report: it needs the graph's reachability,
/// not the dominators, so `FullAnalysis::build_beside` runs it on the core the dominator
/// phase leaves idle, and the report phase is shorter by two passes over the dump.
pub struct ObjectPass {
    scan: scan::Scan,
    /// The dump it was made from (`DumpMark::of`).
    dump: DumpMark,
    reachable_only: bool,
}

/// Which dump a pass was made from: its file, size, heap dump within it and object count
/// (an object count alone would take another dump of as many objects for this one).
#[derive(Clone, Debug, PartialEq, Eq)]
struct DumpMark {
    path: String,
    file_size: u64,
    dump: usize,
    objects: u32,
}

impl DumpMark {
    fn of(heap: &Heap) -> DumpMark {
        let info = heap.info();
        DumpMark { path: info.path.clone(), file_size: info.file_size, dump: info.dump, objects: heap.object_count() }
    }
}

impl ObjectPass {
    /// Made from `heap`'s dump, for an analysis of `reachable_only`?
    fn fits(&self, heap: &Heap, reachable_only: bool) -> bool {
        self.dump == DumpMark::of(heap) && self.reachable_only == reachable_only
    }
}

/// The full analysis, through the dump's cache entry when given (what the cache did comes
/// back with it). When `report_follows`, the report's object pass rides on the own-size pass
/// the analysis makes on the core its dominator phase leaves idle (hand it to `build_after`;
/// bench-4g: report phase 1.91-2.05 s against 2.49-2.50). One read of the dump's index then
/// serves both, which a memory limit needs: made as a second pass there it paged (0.35 ×
/// bench-1g: dominator phase 1.42-1.80 s against 1.31-1.33), and made in the report it read
/// the index back from disk (101 MB; walls 4.59-5.19 s against 4.98-6.03, five alternating
/// runs each). The waste checks' first step rides on it too (bench-1g: report phase 0.25-0.26
/// s against 0.30-0.39; inside 0.35 × no faster, the index it no longer reads afterwards
/// being read back by the dominator phase instead). An analysis read from the cache has no
/// dominator phase: there is no pass then, and the report makes it.
pub fn analyze(
    heap: &Heap,
    options: GraphOptions,
    report_follows: bool,
    entry: Option<&heapql_cache::Entry>,
    warnings: &mut Vec<String>,
) -> Result<Analyzed<ObjectPass>, HeapError> {
    if !report_follows {
        return analyze_beside(heap, options, entry, warnings, ShallowSizes(heap)).map(|(a, used, _)| (a, used, None));
    }
    let reachable_only = options.reachable_only;
    let beside = scan::ScanBeside::new(heap, ctx::class_flags(heap), reachable_only, options.cancel.clone());
    let (a, used, scan) = analyze_beside(heap, options, entry, warnings, beside)?;
    Ok((a, used, scan.map(|scan| ObjectPass { scan, dump: DumpMark::of(heap), reachable_only })))
}

/// The warning for a scratch directory that filled up during the analysis (the arrays that did
/// not fit went to memory), if one did: `fallbacks_before` is `memory_fallbacks()` read before
/// it. The index's own arrays going to memory was said at the open, so not again. The count is
/// the process's: another analysis at once in it may add to it, never take from it.
pub fn scratch_fallback_warning(heap: &Heap, fallbacks_before: u64) -> Option<String> {
    let heapql_heap::Placement::Files(dir) = heap.scratch() else { return None };
    (heapql_heap::memory_fallbacks() > fallbacks_before && !heap.index_fell_back_to_memory()).then(|| {
        format!("could not make every scratch file of the analysis in {} (no space left, or not writable); the arrays that did not fit are kept in memory", dir.display())
    })
}

/// An analysis, what the cache did (when one was given), and what its pass beside the
/// dominator phase found (none when the analysis came from the cache).
pub type Analyzed<T> = (FullAnalysis, Option<heapql_cache::CacheUse>, Option<T>);

/// The analysis, through the cache entry when given, with `beside` seeing every object
/// during its dominator phase (no answer from it when the analysis came from the cache).
fn analyze_beside<P: PassBeside>(
    heap: &Heap,
    options: GraphOptions,
    entry: Option<&heapql_cache::Entry>,
    warnings: &mut Vec<String>,
    beside: P,
) -> Result<Analyzed<P::Out>, HeapError> {
    match entry {
        Some(entry) => FullAnalysis::build_with_cache_beside(heap, options, entry, warnings, beside).map(|(a, used, out)| (a, Some(used), out)),
        None => FullAnalysis::build_beside(heap, options, beside).map(|(a, out)| (a, None, Some(out))),
    }
}

/// `build`, with the object pass made ahead when given (one made from another dump or with
/// other `reachable_only` is passed over, and the pass made here).
pub fn build_after(heap: &Heap, analysis: &FullAnalysis, options: &ReportOptions, pass: Option<ObjectPass>) -> Result<ReportData, HeapError> {
    let ctl = Control { phase: "report", progress: options.progress.clone(), cancel: options.cancel.clone() };
    let cancelled = |_| HeapError::Cancelled;
    let mut laps = heapql_heap::Laps::new("heapql-report");
    let mut ctx = ctx::Ctx::new(heap, analysis, options.limit.max(1));
    // Work units for progress: the object pass, the preorder's two passes, the rest.
    let n = heap.object_count() as u64;
    let total_work = 3 * n.max(1);
    laps.lap("context");
    let pass = pass.filter(|p| p.fits(heap, analysis.reachable_only()));
    let mut scan = match pass {
        Some(p) => {
            ctl.tick(n, total_work).map_err(cancelled)?;
            p.scan
        }
        None => {
            let scan = scan::scan(heap, &ctx.flags, Coverage::of(analysis), &ctl, total_work).map_err(cancelled)?;
            laps.lap("scan");
            scan
        }
    };
    ctx.set_classes(std::mem::take(&mut scan.classes));
    let waste_options = waste::WasteOptions {
        limit: options.limit.max(1),
        top_strings: options.top_strings,
        // The report's progress counts its own passes; the waste pass only honours the cancel.
        progress: None,
        cancel: options.cancel.clone(),
    };
    // The waste checks' first step, made beside the dominators with the pass.
    let seen = scan.waste.take();
    // The waste pass and the preorder side by side: they need nothing of each other, and the
    // preorder (one thread) waits on memory more than it computes. Inside a memory limit too,
    // now that a fault on an evicted scratch page reads back 2 MiB, not 8 (crates/scratch's
    // paging advice): inside 0.35 × bench-1g the two took 0.50-0.66 s side by side against
    // 0.64-1.06 s one after the other (the report phase 0.62-0.78 s against 0.76-1.18 s),
    // inside 0.35 × bench-4g 2.33-2.51 s against 2.75-3.97 s.
    let (waste, pre) = heapql_graph::par::both(
        || waste::analyze_with(heap, analysis, &waste_options, ctx.classes(), seen),
        || preorder::Preorder::build(&ctx, &ctl, n, total_work),
    );
    laps.lap("waste and preorder, side by side");
    let (waste, pre) = (waste?, pre.map_err(cancelled)?);
    // The rest reads classes from the preorder, or of a few objects: the cache goes (each
    // class's kind of object stays).
    ctx.forget_object_classes();
    ctl.tick(2 * n, total_work).map_err(cancelled)?;
    let overview = overview::overview(&ctx, &scan, &pre.retained_by_class, analysis.reachable_only());
    let paths = paths::Paths::new(&ctx, &scan.referents, &ctl);
    laps.lap("overview");
    let leak_suspects = suspects::leak_suspects(&ctx, &paths, &pre, &ctl, (2 * n, total_work)).map_err(cancelled)?;
    laps.lap("suspects");
    let top_consumers = consumers::top_consumers(&ctx);
    laps.lap("consumers");
    let threads = threads::threads(&ctx, &scan.threads);
    laps.lap("threads");
    ctl.tick(2 * n + n / 2, total_work).map_err(cancelled)?;
    ctl.tick(total_work, total_work).map_err(cancelled)?;
    Ok(ReportData { overview, leak_suspects, top_consumers, threads, waste })
}

/// The report's JSON through the dump's cache entry: the cached text when it was made with
/// the same options, else `build`'s, then written. Cache problems become lines in
/// `warnings`, never errors.
pub fn build_json_with_cache(
    heap: &Heap,
    analysis: &FullAnalysis,
    options: &ReportOptions,
    entry: &heapql_cache::Entry,
    warnings: &mut Vec<String>,
    pass: Option<ObjectPass>,
) -> Result<(String, heapql_cache::CacheUse), HeapError> {
    let key = format!("limit={};top-strings={};reachable-only={}", options.limit, options.top_strings, analysis.reachable_only());
    let entry = entry.watched(heapql_heap::cache_watch(&options.progress, &options.cancel));
    // Not written when a read of the dump faulted meanwhile (its reads gave zeros).
    let done = entry.blob_or_build("report", &key, warnings, || {
        let json = build_after(heap, analysis, options, pass)?.to_json();
        heap.check_dump_unchanged()?;
        Ok::<_, HeapError>(json)
    })?;
    heapql_heap::stop_if_cancelled(&options.cancel)?;
    Ok(done)
}

impl ReportData {
    /// The JSON text the N-API door hands to TypeScript.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("report data is plain values")
    }
}

#[cfg(test)]
mod testkit;

#[cfg(test)]
mod tests {
    use super::*;
    use heapql_graph::ObjectGraph;

    /// The objects the pass covers, told from the graph alone, are those of the dominator tree.
    #[test]
    fn the_pass_covers_the_objects_of_the_dominator_tree() {
        testkit::each_analysis(|dump, heap, a| {
            let cover = Coverage::of(a);
            let differ = (0..heap.object_count()).filter(|&o| cover.covers(o) != a.in_tree(o)).count();
            assert_eq!(differ, 0, "{dump}, reachable only {}", a.reachable_only());
            if a.reachable_only() {
                assert!((0..heap.object_count()).any(|o| !a.in_tree(o)), "{dump}: some object outside the tree");
            }
        });
    }

    /// An `ObjectPass` made apart from the dominator phase, for the mode given.
    fn object_pass(heap: &Heap, graph: &ObjectGraph, reachable_only: bool, cancel: Option<Arc<AtomicBool>>) -> Result<ObjectPass, HeapError> {
        let ctl = Control { phase: "report", progress: None, cancel };
        let flags = ctx::class_flags(heap);
        let scan = scan::scan(heap, &flags, Coverage { graph, reachable_only }, &ctl, 1).map_err(|_| HeapError::Cancelled)?;
        Ok(ObjectPass { scan, dump: DumpMark::of(heap), reachable_only })
    }

    /// The object pass made beside the dominator phase gives the report the pass made in it
    /// would; one made with the other `reachable_only` is passed over.
    #[test]
    fn a_pass_made_beside_the_dominators_gives_the_same_report() {
        testkit::each_analysis(|dump, heap, a| {
            let options = ReportOptions::default();
            let own = build(heap, a, &options).unwrap().to_json();
            let mode = GraphOptions { reachable_only: a.reachable_only(), ..Default::default() };
            let mut warnings = Vec::new();
            let (_, _, none) = analyze(heap, mode.clone(), false, None, &mut warnings).unwrap();
            assert!(none.is_none(), "{dump}: no pass unless a report follows");
            let (fresh, used, pass) = analyze(heap, mode, true, None, &mut warnings).unwrap();
            assert!(pass.is_some() && used.is_none() && warnings.is_empty(), "{dump}: a pass, no cache");
            assert_eq!(fresh.total_size(), a.total_size(), "{dump}");
            let ahead = build_after(heap, &fresh, &options, pass).unwrap().to_json();
            assert_eq!(ahead, own, "{dump}, reachable only {}", a.reachable_only());
            let other = object_pass(heap, a.graph(), !a.reachable_only(), None).unwrap();
            let passed_over = build_after(heap, a, &options, Some(other)).unwrap().to_json();
            assert_eq!(passed_over, own, "{dump}: the other mode's pass is not used");
        });
    }

    /// A pass fits the dump it was made from, in its mode only, and not another file with as
    /// many objects (here a copy of the same dump).
    #[test]
    fn a_pass_fits_only_the_dump_and_mode_it_was_made_for() {
        let dir = tempfile::tempdir().unwrap();
        testkit::each_analysis(|dump, heap, a| {
            let pass = object_pass(heap, a.graph(), a.reachable_only(), None).unwrap();
            assert!(pass.fits(heap, a.reachable_only()), "{dump}");
            assert!(!pass.fits(heap, !a.reachable_only()), "{dump}: the other mode");
            let copy = dir.path().join("copy.hprof");
            std::fs::copy(&heap.info().path, &copy).unwrap();
            let other = Heap::open(&copy, heapql_heap::OpenOptions::default()).unwrap();
            assert_eq!(other.object_count(), heap.object_count(), "{dump}: as many objects");
            assert!(!pass.fits(&other, a.reachable_only()), "{dump}: another file");
        });
    }
}

/// The report's and the waste section's JSON cross to Node as one string: at most this long.
pub use heapql_heap::{too_long_for_js, JS_STRING_MAX_UNITS};
