//! Virtual threads as GC roots (fixtures/dumps/vthreads, `fixtures/make-fixtures.sh
//! VThreadHeap`): an object only a virtual thread's frame holds — parked (its frames in a
//! `jdk.internal.vm.StackChunk`, whose stack the dump does not show as references) or mounted —
//! is reachable as the JVM saw it (the class histogram taken with the dump counts it live), and
//! its dominator is that thread: the dump gives each virtual thread a ROOT THREAD OBJECT and its
//! frames' locals ROOT JAVA FRAME records under its serial, which become edges from the thread.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, ObjIdx, OpenOptions};
use std::collections::HashMap;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dumps/vthreads")
}

fn open(name: &str) -> Heap {
    let path = dir().join(format!("{name}.hprof.gz"));
    assert!(path.is_file(), "{} is part of the repository (fixtures/make-fixtures.sh VThreadHeap)", path.display());
    Heap::open(&path, OpenOptions::default()).unwrap()
}

/// `jcmd GC.class_histogram` instances by class name.
fn histogram(name: &str) -> HashMap<String, u64> {
    let text = std::fs::read_to_string(dir().join(format!("{name}.histo-after.txt"))).unwrap();
    let mut m = HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 4 && f[0].ends_with(':') {
            if let Ok(n) = f[1].parse::<u64>() {
                *m.entry(f[3].to_string()).or_default() += n;
            }
        }
    }
    m
}

fn instances(h: &Heap, class: &str) -> Vec<ObjIdx> {
    let cs = h.classes_named(class);
    (0..h.object_count()).filter(|&o| h.object_kind(o) == heapql_heap::ObjectKind::Instance && cs.contains(&h.class_of(o))).collect()
}

/// The thread object whose stack holds `o`, when exactly one does.
fn holder(h: &Heap, o: ObjIdx) -> Option<ObjIdx> {
    let mut v: Vec<ObjIdx> = h
        .threads()
        .iter()
        .filter(|t| t.frames.iter().any(|f| f.locals.contains(&o)) || t.other_locals.contains(&o))
        .filter_map(|t| t.object)
        .collect();
    v.dedup();
    (v.len() == 1).then(|| v[0])
}

const HELD: [&str; 5] = [
    "VThreadHeap$PlatformLocal",
    "VThreadHeap$ParkedVirtualLocal",
    "VThreadHeap$SharedLocal",
    "VThreadHeap$SleepingVirtualLocal",
    "VThreadHeap$SpinningVirtualLocal",
];

#[test]
fn objects_only_virtual_threads_hold_are_reachable_and_dominated_by_their_thread() {
    let name = "VThreadHeap-jdk25";
    let h = open(name);
    let jvm = histogram(name);
    for reachable_only in [true, false] {
        let a = FullAnalysis::build(&h, GraphOptions { reachable_only, ..Default::default() }).unwrap();
        let roots: Vec<ObjIdx> = a.gc_roots().collect();
        // Every virtual thread the JVM counted is a GC root of the dump (a child of the
        // virtual root), as every platform thread with a stack is.
        let vts = instances(&h, "java.lang.VirtualThread");
        assert_eq!(vts.len() as u64, jvm["java.lang.VirtualThread"]);
        for &vt in &vts {
            assert!(roots.contains(&vt), "virtual thread {vt} is no GC root");
            assert_eq!(a.immediate_dominator(vt), None);
        }
        for class in HELD {
            let objs = instances(&h, class);
            assert_eq!(objs.len() as u64, jvm[class], "{class}: the JVM's count");
            for &o in &objs {
                assert!(a.is_reachable(o), "{class} {o} is held by a frame, so reachable (reachable_only {reachable_only})");
                assert!(!roots.contains(&o), "{class} {o}: a frame's local hangs off its thread, it is no GC root of its own");
                let payload = a.outbound(o).find(|&p| h.class(h.class_of(p)).name == "long[]").unwrap();
                assert_eq!(a.retained_size(o), h.shallow_size(o) + h.shallow_size(payload), "{class} retains itself and its array");
                match holder(&h, o) {
                    // Held by one thread only: that thread dominates it and retains it.
                    Some(t) => {
                        assert_ne!(class, "VThreadHeap$SharedLocal");
                        assert_eq!(a.immediate_dominator(o), Some(t), "{class} {o}");
                        assert!(a.dominated(t).contains(&o));
                        assert!(a.retained_size(t) >= h.shallow_size(t) + a.retained_size(o));
                    }
                    // Two virtual threads hold the SharedLocal: neither retains it.
                    None => {
                        assert_eq!(class, "VThreadHeap$SharedLocal");
                        assert_eq!(a.immediate_dominator(o), None);
                        assert!(a.top_level_dominators().contains(&o));
                    }
                }
            }
        }
        // A parked virtual thread's stack chunk is its continuation's: retained by its thread.
        for c in instances(&h, "jdk.internal.vm.StackChunk") {
            let mut d = c;
            let mut steps = 0;
            while h.class(h.class_of(d)).name != "java.lang.VirtualThread" {
                d = a.immediate_dominator(d).unwrap_or_else(|| panic!("stack chunk {c} is not under a virtual thread"));
                steps += 1;
                assert!(steps < 8);
            }
        }
    }
}

/// JDK 17 for contrast: no virtual threads; the platform thread's local is its thread's.
#[test]
fn jdk17_platform_thread_local_is_dominated_by_its_thread() {
    let h = open("VThreadHeap-jdk17");
    let a = FullAnalysis::build(&h, GraphOptions { reachable_only: true, ..Default::default() }).unwrap();
    let objs = instances(&h, "VThreadHeap$PlatformLocal");
    assert_eq!(objs.len(), 1);
    let t = holder(&h, objs[0]).unwrap();
    assert_eq!(h.thread_name(t).as_deref(), Some("platform-parked"));
    assert_eq!(a.immediate_dominator(objs[0]), Some(t));
}

/// The serviceability agent's dump of the same program (`jhsdb jmap`) records no virtual
/// thread: what only a parked one's frames hold has no path from a GC root there, so it reads as
/// unreachable (the index warns of it: crates/heap/tests/vthreads.rs), though the JVM kept it.
#[test]
fn without_virtual_thread_records_their_locals_read_as_unreachable() {
    let h = open("VThreadHeap-jdk25-sa");
    let a = FullAnalysis::build(&h, GraphOptions::default()).unwrap();
    let parked = instances(&h, "VThreadHeap$ParkedVirtualLocal");
    assert!(!parked.is_empty());
    for o in parked {
        assert!(!a.is_reachable(o), "{o}");
        assert_eq!(holder(&h, o), None, "no thread's frame holds {o} in this dump");
    }
}
