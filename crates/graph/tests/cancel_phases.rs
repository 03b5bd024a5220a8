//! Cancellation inside each step of the full analysis: the cancel flag, set from the progress
//! callback at a report inside a step (or by the pass beside the dominators), stops the
//! analysis at the next look at the flag, without finishing the step. The dump: a chain of
//! 300 000 objects held by a JNI global, so every step is several looks at the flag long.

use heapql_graph::{FullAnalysis, GraphOptions, ObjectGraph, PassBeside};
use heapql_heap::{Heap, HeapError, ObjIdx, OpenOptions, Progress};
use heapql_hprof::testkit::DumpBuilder;
use heapql_graph::control::{Cancelled, Control};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const CHAIN: usize = 300_000;

fn chain_dump(dir: &std::path::Path) -> Heap {
    let mut b = DumpBuilder::new(8);
    b.chain("demo.Node", CHAIN);
    let path = dir.join("chain.hprof");
    std::fs::write(&path, b.build()).unwrap();
    Heap::open(&path, OpenOptions::default()).unwrap()
}

/// Runs the analysis with the flag set at the first progress report for which `at` holds;
/// returns the outcome and every report (phase, done, total), the one that set the flag last
/// unless more came after it.
fn cancel_at(heap: &Heap, at: fn(&Progress) -> bool) -> (Result<(), HeapError>, Vec<(&'static str, u64, u64)>, usize) {
    let flag = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new((Vec::new(), usize::MAX)));
    let (set, log) = (flag.clone(), seen.clone());
    let progress = Arc::new(move |p: Progress| {
        let mut log = log.lock().unwrap();
        log.0.push((p.phase, p.done, p.total));
        if log.1 == usize::MAX && at(&p) {
            log.1 = log.0.len() - 1;
            set.store(true, Ordering::Relaxed);
        }
    });
    let outcome = FullAnalysis::build(heap, GraphOptions { progress: Some(progress), cancel: Some(flag), ..Default::default() }).map(|_| ());
    let (reports, trigger) = std::mem::take(&mut *seen.lock().unwrap());
    (outcome, reports, trigger)
}

/// The flag was set at a report, the analysis came back cancelled, and no report came after.
fn stopped_at_once(what: &str, (outcome, reports, trigger): (Result<(), HeapError>, Vec<(&'static str, u64, u64)>, usize)) {
    assert_ne!(trigger, usize::MAX, "{what}: no report inside the step to cancel at; reports: {:?}", &reports[reports.len().saturating_sub(5)..]);
    assert!(matches!(outcome, Err(HeapError::Cancelled)), "{what}: cancelled");
    assert_eq!(trigger + 1, reports.len(), "{what}: reports after the cancel: {:?}", &reports[trigger..]);
    let (phase, done, total) = reports[trigger];
    assert!(done < total, "{what}: cancelled inside the step, at {phase} {done} of {total}");
}

#[test]
fn cancelled_in_the_nearest_common_ancestors_step() {
    let dir = tempfile::tempdir().unwrap();
    let heap = chain_dump(dir.path());
    // Of 3 n: the search up to r ≤ n + 1, the semidominators up to 2 r - 65 536 (< 2 n), the
    // nearest common ancestors 2 r.. 2.5 r, the node numbers 2.5 r.. 3 r.
    stopped_at_once("nearest common ancestors", cancel_at(&heap, |p| p.phase == "dominators" && p.done > p.total / 3 * 2 && p.done < p.total / 6 * 5 - 10));
}

#[test]
fn cancelled_in_the_node_numbers_step() {
    let dir = tempfile::tempdir().unwrap();
    let heap = chain_dump(dir.path());
    stopped_at_once("node numbers", cancel_at(&heap, |p| p.phase == "dominators" && p.done > p.total / 6 * 5 + 10 && p.done < p.total));
}

#[test]
fn cancelled_in_the_retained_sums() {
    let dir = tempfile::tempdir().unwrap();
    let heap = chain_dump(dir.path());
    stopped_at_once("retained sums", cancel_at(&heap, |p| p.phase == "retained" && p.done > 0 && p.done + 1 < p.total));
}

/// A pass beside the dominators that sets the flag at object `at` and never looks at it
/// itself: the analysis looks at it for the pass (`both` waits for this side once the
/// dominator phase stopped).
struct SetsTheFlag {
    at: ObjIdx,
    flag: Arc<AtomicBool>,
    seen: Arc<AtomicU64>,
}

impl PassBeside for SetsTheFlag {
    type Out = ();
    fn object(&mut self, _: &ObjectGraph, o: ObjIdx) -> Result<u64, Cancelled> {
        if o == self.at {
            self.flag.store(true, Ordering::Relaxed);
        }
        self.seen.fetch_add(1, Ordering::Relaxed);
        Ok(16)
    }
    fn finish(self) {}
}

#[test]
fn the_pass_beside_the_dominators_stops_when_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let heap = chain_dump(dir.path());
    let (flag, seen) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
    let pass = SetsTheFlag { at: 1000, flag: flag.clone(), seen: seen.clone() };
    let outcome = FullAnalysis::build_beside(&heap, GraphOptions { cancel: Some(flag), ..Default::default() }, pass);
    assert!(matches!(outcome, Err(HeapError::Cancelled)), "cancelled");
    let seen = seen.load(Ordering::Relaxed);
    assert!(seen <= 1 << 16, "the pass stopped at the next look at the flag, after {seen} of {} objects", heap.object_count());
}

/// The dominators' search scans a successor list already numbered in blocks, looking at the
/// flag between two: the root holds A and B, each holding the same 100 000 leaves. The
/// leaves are numbered under A (one progress report, at 65 536: the flag set there), then B
/// scans them all and numbers nothing, so only a look inside the scan stops it before its end.
#[test]
fn the_dominator_search_stops_inside_a_long_list_of_vertices_met_before() {
    use heapql_graph::{dominators, Control, Csr};
    let leaves = 100_000u32;
    let (a, b) = (1u32, 2u32);
    let g = Csr::from_edges(leaves + 3, |emit| {
        emit(0, a);
        emit(0, b);
        for from in [a, b] {
            for x in 3..leaves + 3 {
                emit(from, x);
            }
        }
    });
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    let reports = Arc::new(AtomicU64::new(0));
    let count = reports.clone();
    let progress: heapql_heap::ProgressFn = Arc::new(move |_| {
        count.fetch_add(1, Ordering::Relaxed);
        set.store(true, Ordering::Relaxed);
    });
    let ctl = Control { phase: "dominators", progress: Some(progress), cancel: Some(flag) };
    let scanned_from_b = std::cell::Cell::new(0u64);
    let keep = |u: u32, _: u32| {
        if u == b {
            scanned_from_b.set(scanned_from_b.get() + 1);
        }
        true
    };
    assert!(dominators(&g, 0, keep, &ctl).is_err(), "cancelled");
    assert_eq!(reports.load(Ordering::Relaxed), 1, "one report (the flag set there), under A");
    let scanned = scanned_from_b.get();
    assert!(scanned > 0 && scanned < leaves as u64, "B's list scanned in part before the stop: {scanned} of {leaves}");
}

/// The full path search behind the leak suspects (`root_path_parents_or_stop`, the BFS from
/// the roots) on the chain: the flag set as the search takes the edge into object 100 000 of
/// 300 000 (the `skip` test of that edge); the BFS looks at it every 65 536 nodes, so it stops
/// with two thirds of the chain not searched.
#[test]
fn the_path_search_from_the_roots_stops_when_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let heap = chain_dump(dir.path());
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    let ctl = Control { phase: "report", progress: None, cancel: Some(flag.clone()) };
    let (tested, at) = (AtomicU64::new(0), 100_000u64);
    let skip = |_, _| {
        if tested.fetch_add(1, Ordering::Relaxed) + 1 == at {
            flag.store(true, Ordering::Relaxed);
        }
        false
    };
    assert!(matches!(a.root_path_parents_or_stop(skip, &ctl), Err(Cancelled)), "cancelled");
    let after = tested.load(Ordering::Relaxed) - at;
    assert!(after < 1 << 17, "{after} edges searched after the flag was set");
    // Uncancelled, the same search tests an edge per link of the chain.
    let all = AtomicU64::new(0);
    a.root_path_parents_or_stop(|_, _| all.fetch_add(1, Ordering::Relaxed) == u64::MAX, &Control::none()).unwrap();
    assert!(all.load(Ordering::Relaxed) >= CHAIN as u64, "the whole chain searched uncancelled");
}

/// The search that stops at its target (the suspects' paths, up to a million nodes before the
/// full BFS answers) on a chain of 300 000 nodes: the flag set as it reads the successors of
/// node 100 000 stops it within 65 536 nodes, short of the chain's end it is looking for.
#[test]
fn the_search_for_one_path_stops_when_cancelled() {
    let n = CHAIN as u32;
    let flag = Arc::new(AtomicBool::new(false));
    let ctl = Control { phase: "report", progress: None, cancel: Some(flag.clone()) };
    let read = AtomicU64::new(0);
    let successors = |u: u32| {
        read.fetch_add(1, Ordering::Relaxed);
        if u == 100_000 {
            flag.store(true, Ordering::Relaxed);
        }
        (u + 1 < n).then_some(u + 1)
    };
    let outcome = heapql_graph::search_path_or_stop(0, n - 1, usize::MAX, usize::MAX, successors, &ctl);
    assert!(matches!(outcome, Err(Cancelled)), "cancelled: {:?}", outcome.map(|p| p.found().map(|p| p.len())));
    let after = read.load(Ordering::Relaxed) - 100_001;
    assert!(after < 1 << 17, "{after} nodes read after the flag was set");
    let found = heapql_graph::search_path_or_stop(0, n - 1, usize::MAX, usize::MAX, |u: u32| (u + 1 < n).then_some(u + 1), &Control::none());
    assert_eq!(found.map(|p| p.found().map(|p| p.len())), Ok(Some(CHAIN)), "uncancelled, the whole chain");
}
