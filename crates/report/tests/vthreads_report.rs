//! The Thread Overview of a dump with virtual threads (fixtures/dumps/vthreads, made by
//! `fixtures/make-fixtures.sh VThreadHeap` with Temurin 25), against the JVM's own thread dump
//! taken with it (`jcmd Thread.dump_to_file -format=json`): every thread the JVM lists is
//! listed, virtual ones too, in the JVM's state, with its stack, the locals each frame holds and
//! what they retain.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions};
use heapql_report::{build, ReportOptions};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dumps/vthreads")
}

#[test]
fn virtual_threads_are_listed_in_the_jvms_state_with_their_stacks_and_locals() {
    let path = dir().join("VThreadHeap-jdk25.hprof.gz");
    assert!(path.is_file(), "{} is part of the repository (fixtures/make-fixtures.sh VThreadHeap)", path.display());
    let heap = Heap::open(&path, OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let data = build(&heap, &a, &ReportOptions { limit: 1_000_000, ..Default::default() }).unwrap();
    let threads = &data.threads.threads;

    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(dir().join("VThreadHeap-jdk25.threads.json")).unwrap()).unwrap();
    let mut virtual_seen = 0;
    for c in json["threadDump"]["threadContainers"].as_array().unwrap() {
        for jt in c["threads"].as_array().unwrap() {
            let name = jt["name"].as_str().unwrap();
            let listed: Vec<_> = threads.iter().filter(|t| t.name.as_deref() == Some(name)).collect();
            assert_eq!(listed.len(), 1, "{name:?}: listed once in the Thread Overview");
            let t = listed[0];
            // The JVM's state for every thread, platform or virtual (vt-spinning: its carrier's).
            assert_eq!(t.state.as_deref(), jt["state"].as_str(), "{name}");
            if jt["virtual"].as_bool() == Some(true) {
                virtual_seen += 1;
                assert_eq!(t.object.class_name, "java.lang.VirtualThread", "{name}");
                assert_eq!((t.daemon, t.priority), (Some(true), Some(5)), "{name}");
                // Its stack: the JVM's top frame is among the dump's top frames (the dump also
                // has the hidden Continuation.yield frames above it).
                let top = jt["stack"][0].as_str().unwrap();
                let method = top.split('(').next().unwrap().rsplit('/').next().unwrap();
                assert!(t.frames.iter().take(4).any(|f| f.method == method), "{name}: {method} not at the top of {:#?}", t.frames);
                assert!(t.retained >= t.shallow);
            }
        }
    }
    assert_eq!(virtual_seen, 5);

    // What each frame holds, with its retained size: the object the program left in a local.
    let local = |thread: &str, method: &str, class: &str| {
        let t = threads.iter().find(|t| t.name.as_deref() == Some(thread)).unwrap();
        let f = t.frames.iter().find(|f| f.method == method).unwrap_or_else(|| panic!("{thread}: no frame {method}"));
        let l = f.locals.iter().find(|l| l.object.class_name == class).unwrap_or_else(|| panic!("{thread}: {method} holds no {class}"));
        assert_eq!(l.retained, a.retained_size(l.object.object_id));
        (t, l.retained)
    };
    for (thread, method, class, payload_len) in [
        ("vt-parked-0", "VThreadHeap.parkedHold", "VThreadHeap$ParkedVirtualLocal", 2000),
        ("vt-parked-1", "VThreadHeap.parkedHold", "VThreadHeap$ParkedVirtualLocal", 2100),
        ("vt-parked-2", "VThreadHeap.parkedHold", "VThreadHeap$ParkedVirtualLocal", 2200),
        ("vt-sleeping", "VThreadHeap.sleepingHold", "VThreadHeap$SleepingVirtualLocal", 4000),
        ("vt-spinning", "VThreadHeap.spinningHold", "VThreadHeap$SpinningVirtualLocal", 5000),
        ("platform-parked", "VThreadHeap.platformHold", "VThreadHeap$PlatformLocal", 1000),
    ] {
        let (t, retained) = local(thread, method, class);
        // 16-byte long[] header + the longs, and the 16-byte holder (compressed oops).
        assert_eq!(retained, 16 + 16 + 8 * payload_len, "{thread}");
        // Only this thread holds it: its retained size counts it.
        assert!(t.retained >= t.shallow + retained, "{thread}: {} < {} + {retained}", t.retained, t.shallow);
        assert!(t.max_local_retained >= retained, "{thread}");
    }
    // The object two virtual threads hold is listed with both, retained by neither.
    let (t0, shared) = local("vt-parked-0", "VThreadHeap.parkedHold", "VThreadHeap$SharedLocal");
    let (t1, _) = local("vt-parked-1", "VThreadHeap.parkedHold", "VThreadHeap$SharedLocal");
    assert_eq!(shared, 16 + 16 + 8 * 3000);
    for t in [t0, t1] {
        let own = t.frames.iter().flat_map(|f| &f.locals).find(|l| l.object.class_name == "VThreadHeap$ParkedVirtualLocal").unwrap();
        assert!(t.retained < t.shallow + own.retained + shared, "{:?} does not retain the shared object", t.name);
    }
}
