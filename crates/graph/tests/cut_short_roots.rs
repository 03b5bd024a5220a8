//! A dump cut short loses its GC root records (HotSpot writes them after the objects): MAT's
//! fallback makes the bootstrap loader's non-array classes System Class roots
//! (mat-semantics.md §1.3), so the classes and what their statics hold stay reachable, and a
//! warning says so. A whole dump, which has its own System Class roots, keeps its roots as
//! they are.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions, RootKind};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dumps").join(name);
    assert!(p.is_file(), "the fixture {} is missing", p.display());
    p
}

/// The first `len` bytes of the fixture `name`, written into `dir`: a dump cut short inside its
/// objects, before any GC root record.
fn cut_copy(dir: &tempfile::TempDir, name: &str, len: usize) -> PathBuf {
    let bytes = std::fs::read(fixture(name)).unwrap();
    assert!(bytes.len() > len, "{name} is only {} bytes", bytes.len());
    let p = dir.path().join(format!("cut-{name}"));
    std::fs::write(&p, &bytes[..len]).unwrap();
    p
}

#[test]
fn a_dump_cut_before_its_roots_gets_system_class_roots_for_its_boot_classes() {
    let dir = tempfile::tempdir().unwrap();
    let path = cut_copy(&dir, "KnownHeap-jdk17-noccp.hprof", 1_500_000);
    let heap = Heap::open(&path, OpenOptions::default()).unwrap();
    let s = heap.summary();
    assert!(s.cut_short, "the copy is cut short");

    // Every non-array class of the bootstrap loader, and nothing else, is a System Class root.
    let boot: Vec<_> = (0..heap.class_count() as u32)
        .map(|c| heap.class(c))
        .filter(|c| c.loader_id == 0 && !c.name.ends_with("[]") && heap.class_described_by(c.object).is_some())
        .map(|c| c.object)
        .collect();
    assert!(boot.len() > 100, "boot classes: {}", boot.len());
    let sticky: Vec<_> = heap.gc_roots().iter().filter(|r| r.kind == RootKind::StickyClass).map(|r| r.object).collect();
    assert_eq!(sticky.len(), boot.len());
    assert_eq!(s.fallback_system_class_roots, boot.len() as u64);
    assert!(s.roots_by_kind.contains(&(RootKind::StickyClass, boot.len() as u64)), "{:?}", s.roots_by_kind);
    assert_eq!(s.gc_roots, heap.gc_roots().len() as u64);
    let system = heap.class(heap.classes_named("java.lang.System")[0]).object;
    assert!(sticky.contains(&system), "java.lang.System is a System Class root");
    let arrays: Vec<_> = ["java.lang.Object[]", "int[]"].iter().filter_map(|c| heap.classes_named(c).first().map(|&a| (c, a))).collect();
    assert!(!arrays.is_empty(), "the cut dump holds an array class to check");
    for (c, a) in arrays {
        assert!(!sticky.contains(&heap.class(a).object), "the array class {c} is no root");
    }

    let w = heap.warnings().iter().find(|w| w.message.contains("no System Class root")).expect("a warning about the missing System Class roots");
    for part in ["ROOT STICKY CLASS", "as Eclipse MAT does", &format!("its {} non-array classes of the bootstrap loader", boot.len()), "cut short", "partial"] {
        assert!(w.message.contains(part), "{part:?} in {}", w.message);
    }

    // Reachability follows from those roots: the classes and what their statics hold.
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    assert!(a.is_reachable(system));
    let reachable = (0..heap.object_count() as u32).filter(|&o| a.is_reachable(o)).count();
    assert!(reachable > boot.len(), "{reachable} reachable objects of {}", heap.object_count());
    assert!(a.gc_roots().count() >= boot.len());
}

#[test]
fn a_whole_dump_keeps_its_own_roots() {
    let heap = Heap::open(&fixture("KnownHeap-jdk17-noccp.hprof"), OpenOptions::default()).unwrap();
    let s = heap.summary();
    assert!(!s.cut_short);
    assert_eq!(s.fallback_system_class_roots, 0);
    assert!(!heap.warnings().iter().any(|w| w.message.contains("no System Class root")));
    // The counts the dump's own root records give (as before the fallback existed).
    assert_eq!(s.gc_roots, 728);
    let mut by_kind = s.roots_by_kind.clone();
    by_kind.sort();
    let mut want = vec![
        (RootKind::StickyClass, 655),
        (RootKind::JavaFrame, 33),
        (RootKind::JniGlobal, 31),
        (RootKind::ThreadObject, 8),
        (RootKind::JniLocal, 1),
    ];
    want.sort();
    assert_eq!(by_kind, want);
}

/// The file offset of the last HEAP DUMP SEGMENT record of the dump in `bytes` (a HotSpot
/// dump: its records walked by their lengths).
fn last_segment_offset(bytes: &[u8]) -> usize {
    let nul = bytes.iter().position(|&b| b == 0).unwrap();
    let mut pos = nul + 13;
    let mut last = None;
    while pos + 9 <= bytes.len() {
        if bytes[pos] == 0x1C {
            last = Some(pos);
        }
        pos += 9 + u32::from_be_bytes(bytes[pos + 5..pos + 9].try_into().unwrap()) as usize;
    }
    assert_eq!(pos, bytes.len(), "the records end where the file does");
    last.expect("a HEAP DUMP SEGMENT record")
}

/// A dump cut exactly between two records, after a whole HEAP DUMP SEGMENT and before the
/// next one (no HEAP DUMP END), is cut short as one cut inside a segment is: its GC root
/// records may be gone, so the System Class fallback's warning says the file is cut short and
/// the analysis knows it (the report words unreachable objects as what the dump shows).
#[test]
fn a_dump_cut_between_two_segments_is_cut_short() {
    let name = "KnownHeap-jdk17-noccp.hprof";
    let at = last_segment_offset(&std::fs::read(fixture(name)).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let path = cut_copy(&dir, name, at);
    let heap = Heap::open(&path, OpenOptions::default()).unwrap();
    let s = heap.summary();
    assert!(heap.warnings().iter().any(|w| w.message.contains("has no HEAP DUMP END record: the file may be cut short")), "{:?}", heap.warnings());
    assert!(s.cut_short, "a dump whose segments stop at the end of the file with no HEAP DUMP END is cut short");
    assert!(s.fallback_system_class_roots > 0);
    let w = heap.warnings().iter().find(|w| w.message.contains("no System Class root")).expect("a warning about the missing System Class roots");
    assert!(w.message.contains("the file is cut short") && w.message.contains("partial"), "{}", w.message);
}
