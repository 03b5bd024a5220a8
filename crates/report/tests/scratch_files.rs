//! The full analysis with its big arrays in scratch files gives exactly the results of the
//! all-in-memory analysis, and really places them in files.

use heapql_report::{build, ReportOptions};
use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions, Placement};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn open(path: &Path, scratch: Placement) -> Heap {
    Heap::open(path, OpenOptions { scratch, ..Default::default() }).expect("fixture opens")
}

#[test]
fn scratch_files_change_nothing_but_where_the_arrays_live() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile_dir();
    let files = Placement::Files(Arc::from(dir.as_path()));
    for dump in ["fixtures/demo/demo.hprof", "fixtures/dumps/KnownHeap-jdk17-coops.hprof"] {
        let path = root.join(dump);
        let (mh, fh) = (open(&path, Placement::Memory), open(&path, files.clone()));
        let (m, f) = (
            FullAnalysis::build(&mh, GraphOptions::default()).unwrap(),
            FullAnalysis::build(&fh, GraphOptions::default()).unwrap(),
        );
        assert_eq!(m.file_bytes(), 0, "{dump}: in memory");
        assert!(f.file_bytes() > 0, "{dump}: the graph should be in scratch files");
        assert!(f.heap_bytes() < m.heap_bytes(), "{dump}: less anonymous memory with files");
        for o in 0..mh.object_count() {
            assert_eq!(fh.object_id(o), mh.object_id(o));
            assert_eq!(f.retained_size(o), m.retained_size(o), "{dump}: retained size of #{o}");
            assert_eq!(f.immediate_dominator(o), m.immediate_dominator(o), "{dump}: dominator of #{o}");
            assert_eq!(f.dominated(o), m.dominated(o), "{dump}: children of #{o}");
            assert!(f.outbound(o).eq(m.outbound(o)), "{dump}: outbound of #{o}");
        }
        let sample: Vec<u32> = (0..mh.object_count()).step_by(97).collect();
        for &o in &sample {
            assert_eq!(f.inbound(o), m.inbound(o), "{dump}: inbound of #{o}");
            assert_eq!(f.path_to_root(&fh, o), m.path_to_root(&mh, o), "{dump}: path of #{o}");
        }
        let (rm, rf) = (
            build(&mh, &m, &ReportOptions::default()).unwrap().to_json(),
            build(&fh, &f, &ReportOptions::default()).unwrap().to_json(),
        );
        assert_eq!(rf, rm, "{dump}: report data");
    }
}

/// A fresh directory under the target dir (removed at the start of the next run).
fn tempfile_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scratch-files-test");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
