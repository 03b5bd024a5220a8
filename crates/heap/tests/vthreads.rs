//! How a HotSpot heap dump records virtual threads, against the JVM's own facts
//! (fixtures/dumps/vthreads, made by `fixtures/make-fixtures.sh VThreadHeap`): the class
//! histogram taken with the dump and the JVM's thread dump (`jcmd Thread.dump_to_file -format=json`).
//!
//! JDK 22+ (Temurin 25 here) gives every started, unterminated virtual thread a ROOT THREAD
//! OBJECT with a serial of its own and a stack trace: a mounted one next to its carrier (whose
//! trace then holds only the carrier's frames), an unmounted one when the heap walk meets it,
//! its frames read from its stack chunks. Its frames' locals are ROOT JAVA FRAME records under
//! that serial, so the thread table gives each virtual thread its frames and what they hold.

mod common;

use common::{parse_histogram, repo};
use heapql_heap::{GcRoot, Heap, ObjIdx, OpenOptions, RootKind, StackFrame, ThreadInfo};
use std::path::PathBuf;

fn dir() -> PathBuf {
    repo().join("fixtures/dumps/vthreads")
}

fn open(name: &str) -> Heap {
    let path = dir().join(format!("{name}.hprof.gz"));
    assert!(path.is_file(), "{} is part of the repository (fixtures/make-fixtures.sh VThreadHeap)", path.display());
    Heap::open(&path, OpenOptions::default()).unwrap()
}

/// A frame as the JVM's thread dump prints it, without the module: `Class.method(File.java:12)`.
fn frame_text(f: &StackFrame) -> String {
    let at = match f.line {
        -3 => "Native Method".to_string(),
        l if l > 0 => format!("{}:{l}", f.source_file),
        _ => f.source_file.clone(),
    };
    format!("{}.{}({at})", f.class_name, f.method)
}

/// `java.base/java.lang.Thread.run(Thread.java:1474)` -> `java.lang.Thread.run(Thread.java:1474)`.
fn without_module(s: &str) -> &str {
    match s.split_once('/') {
        Some((module, rest)) if !module.contains('(') && module.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') => rest,
        _ => s,
    }
}

/// The JVM's threads: (name, virtual, state, carrier tid, stack).
struct JvmThread {
    name: String,
    tid: String,
    is_virtual: bool,
    state: String,
    carrier: Option<String>,
    stack: Vec<String>,
}

fn jvm_threads(name: &str) -> Vec<JvmThread> {
    let path = dir().join(format!("{name}.threads.json"));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut out = Vec::new();
    for c in v["threadDump"]["threadContainers"].as_array().unwrap() {
        for t in c["threads"].as_array().unwrap() {
            out.push(JvmThread {
                name: t["name"].as_str().unwrap().to_string(),
                tid: t["tid"].as_str().unwrap().to_string(),
                is_virtual: t["virtual"].as_bool() == Some(true),
                state: t["state"].as_str().unwrap().to_string(),
                carrier: t["carrier"].as_str().map(str::to_string),
                stack: t["stack"].as_array().unwrap().iter().map(|s| without_module(s.as_str().unwrap()).to_string()).collect(),
            });
        }
    }
    out
}

fn thread_named<'a>(h: &'a Heap, name: &str) -> &'a ThreadInfo {
    let found: Vec<&ThreadInfo> = h.threads().iter().filter(|t| t.name.as_deref() == Some(name)).collect();
    assert_eq!(found.len(), 1, "threads named {name:?} in the dump's thread table");
    found[0]
}

fn class_name(h: &Heap, o: ObjIdx) -> &str {
    &h.class(h.class_of(o)).name
}

/// The objects of class `class` that frame `method` of `t` holds.
fn held_in(h: &Heap, t: &ThreadInfo, method: &str, class: &str) -> Vec<ObjIdx> {
    let f = t.frames.iter().find(|f| f.method == method).unwrap_or_else(|| panic!("{:?} has no frame {method}", t.name));
    f.locals.iter().copied().filter(|&o| class_name(h, o) == class).collect()
}

/// Every object of class `class` held by any frame of any thread.
fn held_anywhere(h: &Heap, class: &str) -> Vec<(u32, ObjIdx)> {
    let mut v: Vec<(u32, ObjIdx)> = h
        .threads()
        .iter()
        .flat_map(|t| t.frames.iter().flat_map(|f| &f.locals).chain(&t.other_locals).map(move |&o| (t.serial, o)))
        .filter(|&(_, o)| class_name(h, o) == class)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn thread_roots(h: &Heap) -> Vec<&GcRoot> {
    h.gc_roots().iter().filter(|r| r.kind == RootKind::ThreadObject).collect()
}

#[test]
fn every_virtual_thread_has_a_thread_root_its_own_stack_and_its_locals() {
    let name = "VThreadHeap-jdk25";
    let h = open(name);
    let jvm = jvm_threads(name);
    let virtuals: Vec<&JvmThread> = jvm.iter().filter(|t| t.is_virtual).collect();
    assert_eq!(virtuals.len(), 5, "the JVM's thread dump lists the program's 5 virtual threads");
    let roots = thread_roots(&h);
    for jt in &virtuals {
        let t = thread_named(&h, &jt.name);
        let o = t.object.expect("a virtual thread's ROOT THREAD OBJECT names its object");
        assert_eq!(class_name(&h, o), "java.lang.VirtualThread", "{}", jt.name);
        assert!(roots.iter().any(|r| r.object == o && r.thread_serial == Some(t.serial)), "{}: no ROOT THREAD OBJECT", jt.name);
        // The JVM's dump leaves out hidden frames (Continuation.yield, lambda forms); the rest
        // are the dump's frames, in order.
        let ours: Vec<String> = t.frames.iter().map(frame_text).collect();
        let mut at = 0;
        for want in &jt.stack {
            match ours[at..].iter().position(|f| f == want) {
                Some(k) => at += k + 1,
                None => panic!("{}: frame {want} is not in the dump's stack (in this order): {ours:#?}", jt.name),
            }
        }
        assert!(!jt.stack.is_empty(), "{}", jt.name);
    }

    // What each thread's frames hold: the object the program made for it, in the frame that
    // made it, and nowhere else.
    for i in 0..3 {
        let t = thread_named(&h, &format!("vt-parked-{i}"));
        assert_eq!(held_in(&h, t, "parkedHold", "VThreadHeap$ParkedVirtualLocal").len(), 1, "vt-parked-{i}");
        let shared = held_in(&h, t, "parkedHold", "VThreadHeap$SharedLocal");
        assert_eq!(shared.len(), usize::from(i < 2), "vt-parked-{i} holds the SharedLocal iff i < 2");
    }
    let one = |thread: &str, method: &str, class: &str| {
        let t = thread_named(&h, thread);
        assert_eq!(held_in(&h, t, method, class).len(), 1, "{thread}: {method} holds one {class}");
        t.serial
    };
    let sleeping = one("vt-sleeping", "sleepingHold", "VThreadHeap$SleepingVirtualLocal");
    let spinning = one("vt-spinning", "spinningHold", "VThreadHeap$SpinningVirtualLocal");
    let platform = one("platform-parked", "platformHold", "VThreadHeap$PlatformLocal");

    // Each such object once in the whole thread table (no carrier holds its virtual thread's).
    let parked = held_anywhere(&h, "VThreadHeap$ParkedVirtualLocal");
    assert_eq!(parked.len(), 3, "{parked:?}");
    let serials: Vec<u32> = (0..3).map(|i| thread_named(&h, &format!("vt-parked-{i}")).serial).collect();
    assert!(parked.iter().all(|(s, _)| serials.contains(s)), "{parked:?}");
    assert_eq!(held_anywhere(&h, "VThreadHeap$SleepingVirtualLocal").iter().map(|p| p.0).collect::<Vec<_>>(), [sleeping]);
    assert_eq!(held_anywhere(&h, "VThreadHeap$SpinningVirtualLocal").iter().map(|p| p.0).collect::<Vec<_>>(), [spinning]);
    assert_eq!(held_anywhere(&h, "VThreadHeap$PlatformLocal").iter().map(|p| p.0).collect::<Vec<_>>(), [platform]);
    assert_eq!(held_anywhere(&h, "VThreadHeap$SharedLocal").len(), 2);

    // The mounted virtual thread and its carrier are two threads with two stacks: the
    // carrier's trace starts where the virtual thread's ends (at Continuation.run).
    let vt = jvm.iter().find(|t| t.name == "vt-spinning").unwrap();
    let carrier_tid = vt.carrier.as_deref().expect("the JVM says vt-spinning is mounted");
    let carrier_name = &jvm.iter().find(|t| t.tid == carrier_tid).unwrap().name;
    let carrier = thread_named(&h, carrier_name);
    assert_eq!(carrier.frames.first().map(|f| f.method.as_str()), Some("run"), "{:#?}", carrier.frames);
    assert_eq!(carrier.frames[0].class_name, "jdk.internal.vm.Continuation");
    assert!(carrier.frames.iter().all(|f| f.class_name != "VThreadHeap"), "the carrier's trace has none of the virtual thread's frames");
}

/// The objects only frames hold are in the dump as the JVM counted them, and the states the
/// JVM reports are those of the program's threads (the facts the other checks rely on).
#[test]
fn the_held_objects_are_the_jvms_and_the_jdk17_dump_has_its_platform_thread_only() {
    for name in ["VThreadHeap-jdk25", "VThreadHeap-jdk17"] {
        let h = open(name);
        let jvm = parse_histogram(&std::fs::read_to_string(dir().join(format!("{name}.histo-after.txt"))).unwrap());
        let classes: &[&str] = if name.ends_with("jdk25") {
            &[
                "VThreadHeap$PlatformLocal",
                "VThreadHeap$ParkedVirtualLocal",
                "VThreadHeap$SharedLocal",
                "VThreadHeap$SleepingVirtualLocal",
                "VThreadHeap$SpinningVirtualLocal",
                "java.lang.VirtualThread",
                "jdk.internal.vm.StackChunk",
            ]
        } else {
            &["VThreadHeap$PlatformLocal"]
        };
        for class in classes {
            let want = jvm.get(*class).unwrap_or_else(|| panic!("{name}: the JVM's histogram has no {class}")).0;
            let ours: u64 = h.classes_named(class).iter().map(|&c| h.class_histogram().iter().filter(|r| r.class == c).map(|r| r.count).sum::<u64>()).sum();
            assert_eq!(ours, want, "{name}: {class}");
        }
        if name.ends_with("jdk17") {
            assert!(h.classes_named("java.lang.VirtualThread").is_empty());
            assert!(h.classes_named("VThreadHeap$ParkedVirtualLocal").is_empty(), "no virtual thread ran on JDK 17");
            let t = thread_named(&h, "platform-parked");
            assert_eq!(held_in(&h, t, "platformHold", "VThreadHeap$PlatformLocal").len(), 1);
            assert!(!dir().join(format!("{name}.threads.json")).exists(), "JDK 17's jcmd has no Thread.dump_to_file");
        }
    }
    let jvm = jvm_threads("VThreadHeap-jdk25");
    let state = |n: &str| jvm.iter().find(|t| t.name == n).map(|t| t.state.clone()).unwrap();
    assert_eq!(state("vt-parked-0"), "WAITING");
    assert_eq!(state("vt-sleeping"), "TIMED_WAITING");
    assert_eq!(state("vt-spinning"), "RUNNABLE");
}

fn unrecorded_warnings(h: &Heap) -> Vec<String> {
    h.warnings().iter().filter(|w| w.message.contains("no thread record")).map(|w| w.message.clone()).collect()
}

/// A dump that records no unmounted virtual thread (the serviceability agent's, `jhsdb jmap`,
/// of the same program on Temurin 25; JDK 19–21's HotSpot dumper does the same) loses what
/// only their frames hold: the index says so in a warning, naming how many virtual threads
/// have frames in stack chunks but no thread record. HotSpot's own JDK 25 dump (every
/// virtual thread recorded) and JDK 17's (none exist) say nothing.
#[test]
fn a_dump_without_unmounted_virtual_threads_stacks_says_so() {
    let h = open("VThreadHeap-jdk25-sa");
    // The facts of this dump: virtual threads, none with a thread record, some with frames.
    let classes = h.classes_named("java.lang.VirtualThread");
    let vts: Vec<ObjIdx> = (0..h.object_count()).filter(|&o| classes.contains(&h.class_of(o))).collect();
    assert!(!vts.is_empty());
    assert!(h.threads().iter().all(|t| t.object.is_none_or(|o| !vts.contains(&o))), "the agent records no virtual thread");
    let obj = |o: ObjIdx, f: &str| match h.field(o, f) {
        Some(heapql_heap::Value::Object(id)) => h.index_of(id),
        _ => None,
    };
    let int = |o: ObjIdx, f: &str| match h.field(o, f) {
        Some(heapql_heap::Value::Int(v)) => v,
        other => panic!("{f}: {other:?}"),
    };
    let with_frames: Vec<ObjIdx> = vts
        .iter()
        .copied()
        .filter(|&vt| obj(vt, "cont").and_then(|c| obj(c, "tail")).is_some_and(|k| int(k, "sp") < int(k, "bottom")))
        .collect();
    assert!(!with_frames.is_empty(), "some virtual thread of the dump is parked with frames in its chunk");
    let w = unrecorded_warnings(&h);
    assert_eq!(w.len(), 1, "{:?}", h.warnings());
    let n = with_frames.len();
    let want = if n == 1 { "1 virtual thread (e.g.".to_string() } else { format!("{n} virtual threads (e.g.") };
    assert!(w[0].starts_with(&want), "{}", w[0]);
    assert!(w[0].contains(&format!("0x{:x}", h.object_id(with_frames[0]))), "{}", w[0]);
    assert!(w[0].contains("read as unreachable"), "{}", w[0]);

    for name in ["VThreadHeap-jdk25", "VThreadHeap-jdk17"] {
        let h = open(name);
        assert_eq!(unrecorded_warnings(&h), Vec::<String>::new(), "{name}");
    }
}
