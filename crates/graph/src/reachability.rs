//! Reachability alone, for `--reachable-only` on the query-only path: which objects a GC root
//! reaches, following the same edges as the full analysis (MAT's graph), without dominators.

use heapql_heap::{Heap, HeapError};

use crate::control::Control;
use crate::object_graph::{node, ObjectGraph};

/// One bit per object (by dense index): set when the object is reachable from a GC root.
pub fn reachable_bitmap(heap: &Heap, ctl: &Control) -> Result<Vec<u64>, HeapError> {
    let graph = ObjectGraph::build(heap, true, &ctl.phase("reachability")).map_err(|_| HeapError::Cancelled)?;
    let n = heap.object_count();
    let mut bits = vec![0u64; (n as usize).div_ceil(64)];
    for o in 0..n {
        if graph.is_reachable(node(o)) {
            bits[o as usize / 64] |= 1 << (o % 64);
        }
    }
    Ok(bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use heapql_heap::OpenOptions;
    use std::path::Path;

    #[test]
    fn demo_dump_reachability_matches_the_full_analysis() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo/demo.hprof");
        let heap = Heap::open(&path, OpenOptions::default()).expect("demo dump opens");
        let bits = reachable_bitmap(&heap, &Control::none()).unwrap();
        let analysis = crate::FullAnalysis::build(&heap, Default::default()).unwrap();
        let mut reachable = 0;
        for o in 0..heap.object_count() {
            let bit = bits[o as usize / 64] >> (o % 64) & 1 == 1;
            assert_eq!(bit, analysis.is_reachable(o), "object {o}");
            reachable += bit as u32;
        }
        // The demo keeps a few objects unreachable (garbage at dump time); most are reachable.
        assert!(reachable > 0 && reachable <= heap.object_count());
    }
}
