//! What the unit tests share: the fixture dumps they run on, analysed in both modes.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions};

/// Runs `check` on the analysis of two fixture dumps, with and without unreachable objects:
/// (dump, heap, analysis).
pub(crate) fn each_analysis(check: impl Fn(&str, &Heap, &FullAnalysis)) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    for dump in ["fixtures/demo/demo.hprof", "fixtures/dumps/KnownHeap-jdk17-coops.hprof"] {
        let heap = Heap::open(&root.join(dump), OpenOptions::default()).unwrap();
        for reachable_only in [false, true] {
            let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
            check(dump, &heap, &a);
        }
    }
}
