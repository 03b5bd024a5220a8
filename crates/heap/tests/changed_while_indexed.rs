//! A dump written to on disk while it is being indexed: what was read is no one dump, so the
//! open fails with `HeapError::Changed` (ERR_DUMP_CHANGED, "open it again once it is complete"),
//! never with an index of the mixed bytes nor with an error blaming its bytes ("the file is not
//! cut short: it was damaged").

use heapql_heap::{Heap, HeapError, OpenOptions, Progress};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

mod common;

/// A copy of the fixture in a directory of its own.
fn copy(dir: &tempfile::TempDir) -> PathBuf {
    let fixture = common::repo().join("fixtures/dumps/KnownHeap-jdk17-noccp.hprof");
    assert!(fixture.is_file(), "the fixture {} is missing", fixture.display());
    let p = dir.path().join("dump.hprof");
    std::fs::copy(&fixture, &p).unwrap();
    p
}

/// Opens `path`, running `change` on it at the first progress report (the record walk's start).
fn open_changing(path: &Path, change: impl Fn(&Path) + Send + Sync + 'static) -> Result<Heap, HeapError> {
    let done = Arc::new(AtomicBool::new(false));
    let p = path.to_path_buf();
    let options = OpenOptions {
        progress: Some(Arc::new(move |_: Progress| {
            if !done.swap(true, Ordering::SeqCst) {
                change(&p);
            }
        })),
        ..OpenOptions::default()
    };
    Heap::open(path, options)
}

fn assert_changed(r: Result<Heap, HeapError>, what: &str) {
    match r {
        Err(e @ HeapError::Changed { .. }) => {
            let m = e.to_string();
            assert_eq!(e.code(), "ERR_DUMP_CHANGED");
            assert!(m.contains(what) && m.contains("while it was being indexed") && m.contains("open it again once it is complete"), "{m}");
        }
        Err(e) => panic!("not called a dump changed while indexed: {e}"),
        Ok(_) => panic!("indexed as if unchanged"),
    }
}

#[test]
fn a_dump_written_over_while_indexed_is_changed_not_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(&dir);
    assert!(Heap::open(&path, OpenOptions::default()).is_ok(), "the copy reads whole");
    // Its heap data written over in place, the length kept: read on, it is damaged data.
    let r = open_changing(&path, |p| {
        let mut f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
        let len = f.metadata().unwrap().len();
        f.seek(SeekFrom::Start(len / 2)).unwrap();
        f.write_all(&vec![0xEE; 1 << 16]).unwrap();
    });
    assert_changed(r, "written to or replaced on disk");
}

#[test]
fn a_dump_grown_while_indexed_is_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(&dir);
    let r = open_changing(&path, |p| {
        std::fs::OpenOptions::new().append(true).open(p).unwrap().write_all(&[0u8; 4096]).unwrap();
    });
    match r {
        Err(e @ HeapError::Changed { .. }) => assert!(e.to_string().contains("written to on disk"), "{e}"),
        Err(e) => panic!("not called a dump changed: {e}"),
        Ok(_) => panic!("a dump grown while indexed was indexed as if unchanged"),
    }
}
