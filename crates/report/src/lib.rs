//! The data of the full-analysis report (issue C): System Overview, Leak Suspects, Top
//! Consumers, Thread Overview and the waste checks (`waste`, duplicate strings among them),
//! computed from the heap index (`heapql-heap`) and a `FullAnalysis` (`heapql-graph`), the
//! layers below this crate. `build` returns plain data whose JSON (serde, camelCase) is
//! exactly the shape of those sections of `ts/report/model.ts`; the TypeScript side adds the
//! envelope.
//!
//! Rules and thresholds follow MAT (docs: mat-semantics.md §3); each section's file says
//! which rule it implements. Cost: a linear pass over every object (two threads); the waste
//! pass (two threads) beside the dominator tree's preorder, laid out by two linear passes over
//! the analysis's DFS order (`preorder.rs`; one after the other in a memory limit); then
//! sequential scans of that preorder for the retained size by class and each suspect's
//! breakdown (both split over two threads); per single suspect a search from the roots that
//! stops at its accumulation point, and one full BFS over the graph only for group suspects
//! or a point far from the roots. With `HEAPQL_TIMING` set, each section's time goes to
//! stderr (`heapql_heap::Laps`).

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
pub use threads::thread_state;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use heapql_graph::control::Control;
use heapql_graph::FullAnalysis;
use heapql_heap::{Heap, HeapError, ProgressFn};

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
    build_in(heap, analysis, options, Schedule::for_memory(heap))
}

/// How the waste pass and the preorder of the dominator tree share the two cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Schedule {
    /// Both at once: they need nothing of each other, and the preorder (one thread) waits on
    /// memory more than it computes (bench-4g: 2.98-3.17 s for the report against 3.37-3.98).
    SideBySide,
    /// The waste pass first (two threads), then the preorder: in a memory limit the
    /// preorder's fresh scratch pages would push out the pages the waste pass reads at random
    /// (index, holders), and it would page.
    OneAfterTheOther,
}

impl Schedule {
    /// Side by side while memory is plentiful: twice what the preorder fills, to spare.
    fn for_memory(heap: &Heap) -> Schedule {
        if preorder::Preorder::fresh_bytes(heap) * 2 < heapql_heap::memory_to_spare() {
            Schedule::SideBySide
        } else {
            Schedule::OneAfterTheOther
        }
    }
}

fn build_in(heap: &Heap, analysis: &FullAnalysis, options: &ReportOptions, schedule: Schedule) -> Result<ReportData, HeapError> {
    let ctl = Control { phase: "report", progress: options.progress.clone(), cancel: options.cancel.clone() };
    let cancelled = |_| HeapError::Cancelled;
    let mut laps = heapql_heap::Laps::new("heapql-report");
    let mut ctx = ctx::Ctx::new(heap, analysis, options.limit.max(1));
    // Work units for progress: the object pass, the preorder's two passes, the rest.
    let n = heap.object_count() as u64;
    let total_work = 3 * n.max(1);
    laps.lap("context");
    let mut scan = scan::scan(&ctx, &ctl, total_work).map_err(cancelled)?;
    laps.lap("scan");
    ctx.set_classes(std::mem::take(&mut scan.classes));
    let waste_options = waste::WasteOptions {
        limit: options.limit.max(1),
        top_strings: options.top_strings,
        // The report's progress counts its own passes; the waste pass only honours the cancel.
        progress: None,
        cancel: options.cancel.clone(),
    };
    let (waste, pre) = if schedule == Schedule::SideBySide {
        let (waste, pre) = heapql_graph::par::both(
            || waste::analyze_with(heap, analysis, &waste_options, ctx.classes()),
            || preorder::Preorder::build(&ctx, &ctl, n, total_work),
        );
        laps.lap("waste and preorder, side by side");
        (waste?, pre.map_err(cancelled)?)
    } else {
        let waste = waste::analyze_with(heap, analysis, &waste_options, ctx.classes())?;
        laps.lap("waste");
        let pre = preorder::Preorder::build(&ctx, &ctl, n, total_work).map_err(cancelled)?;
        laps.lap("preorder");
        (waste, pre)
    };
    // The rest reads classes from the preorder, or of a few objects: the cache goes (each
    // class's kind of object stays).
    ctx.forget_object_classes();
    let retained = retained_by_class::retained_by_class(&ctx, &pre);
    laps.lap("retained by class");
    ctl.tick(2 * n, total_work).map_err(cancelled)?;
    let overview = overview::overview(&ctx, &scan, &retained, analysis.reachable_only());
    let paths = paths::Paths::new(&ctx, &scan.referents);
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
) -> Result<(String, heapql_cache::CacheUse), HeapError> {
    let key = format!("limit={};top-strings={};reachable-only={}", options.limit, options.top_strings, analysis.reachable_only());
    entry.blob_or_build("report", &key, warnings, || build(heap, analysis, options).map(|data| data.to_json()))
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

    /// The waste pass beside the preorder or before it: the same report, with and without
    /// unreachable objects.
    #[test]
    fn both_schedules_give_the_same_report() {
        testkit::each_analysis(|dump, heap, a| {
            let options = ReportOptions::default();
            let side = build_in(heap, a, &options, Schedule::SideBySide).unwrap();
            let sequential = build_in(heap, a, &options, Schedule::OneAfterTheOther).unwrap();
            assert!(side.waste.overhead > 0 && !side.leak_suspects.suspects.is_empty(), "{dump}: a report with findings");
            assert_eq!(side.to_json(), sequential.to_json(), "{dump}, reachable only {}", a.reachable_only());
        });
    }
}
