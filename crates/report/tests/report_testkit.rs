//! The report's data on hand-made dumps (hprof testkit) whose suspects, accumulation points,
//! paths, threads and duplicate strings follow from the construction.

use heapql_report::{build, ReportData, ReportOptions, SubjectKind, SuspectKind, ViaKind};
use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, ObjIdx, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// Object ids of the leak dump.
struct Leak {
    holder_class: u64,
    cache_class: u64,
    cache: u64,
    entries: u64,
    buffers: Vec<u64>,
    registry_class: u64,
    listeners_array: u64,
    listeners: Vec<u64>,
    listener_buffers: Vec<u64>,
}

/// Two leaks:
/// * `app.Holder.cache` (Holder is a System Class root) → `app.Cache` → `entries` Object[4] →
///   four byte[1000]: one single suspect, the class, accumulating in the Object[4];
/// * `app.Registry.listeners` Object[10] → ten `app.Listener`, each with a byte[500]; a second
///   path (JNI global `app.Box` → `app.Wrapper` → Object[10]) makes every listener a top-level
///   dominator: a group suspect accumulating in the Registry's array (the shorter path).
fn leak_dump() -> (Vec<u8>, Leak) {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let cache_class = b.class("app.Cache", Some(obj), &[("entries", BasicType::Object)]);
    let holder_class = b.class_full("app.Holder", Some(obj), 0, &[], &[]);
    let listener_class = b.class("app.Listener", Some(obj), &[("buffer", BasicType::Object)]);
    let registry_class = b.class_full("app.Registry", Some(obj), 0, &[], &[]);
    let box_class = b.class("app.Box", Some(obj), &[("wrapper", BasicType::Object)]);
    let wrapper_class = b.class("app.Wrapper", Some(obj), &[("items", BasicType::Object)]);
    let buffers: Vec<u64> = (0..4).map(|i| b.byte_array(&vec![i as u8; 1000])).collect();
    let entries = b.object_array(b.object_array_class, &buffers);
    let cache = b.instance(cache_class, &[Val::Obj(entries)]);
    b.set_statics(holder_class, &[("cache", Val::Obj(cache))]);
    let listener_buffers: Vec<u64> = (0..10).map(|i| b.byte_array(&vec![i as u8; 500])).collect();
    let listeners: Vec<u64> = listener_buffers.iter().map(|&buf| b.instance(listener_class, &[Val::Obj(buf)])).collect();
    let listeners_array = b.object_array(b.object_array_class, &listeners);
    b.set_statics(registry_class, &[("listeners", Val::Obj(listeners_array))]);
    let items = b.object_array(b.object_array_class, &listeners);
    let wrapper = b.instance(wrapper_class, &[Val::Obj(items)]);
    let boxed = b.instance(box_class, &[Val::Obj(wrapper)]);
    b.root_sticky_class(holder_class);
    b.root_sticky_class(registry_class);
    b.root_jni_global(boxed);
    let leak = Leak { holder_class, cache_class, cache, entries, buffers, registry_class, listeners_array, listeners, listener_buffers };
    (b.build(), leak)
}

fn analyze(bytes: &[u8], reachable_only: bool) -> (Heap, FullAnalysis) {
    let heap = Heap::open_bytes(bytes, "test.hprof", OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
    (heap, a)
}

fn report(heap: &Heap, a: &FullAnalysis) -> ReportData {
    build(heap, a, &ReportOptions::default()).unwrap()
}

fn idx(heap: &Heap, id: u64) -> ObjIdx {
    heap.index_of(id).unwrap()
}

fn shallow(heap: &Heap, ids: &[u64]) -> u64 {
    ids.iter().map(|&id| heap.shallow_size(idx(heap, id))).sum()
}

#[test]
fn single_and_group_suspects_with_their_accumulation_points() {
    let (bytes, l) = leak_dump();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let total = a.total_size();
    let holder = idx(&heap, l.holder_class);
    // The class object app.Cache is referenced only by its one instance: it is retained too.
    let holder_retained =
        heap.shallow_size(holder) + shallow(&heap, &[l.cache_class, l.cache, l.entries]) + shallow(&heap, &l.buffers);
    let group_retained = shallow(&heap, &l.listeners) + shallow(&heap, &l.listener_buffers);
    // The construction makes both leaks exceed 10 % of the heap.
    assert!(holder_retained * 10 > total && group_retained * 10 > total, "{holder_retained} {group_retained} {total}");
    assert!(group_retained > holder_retained);
    let s = &data.leak_suspects.suspects;
    assert_eq!(data.leak_suspects.threshold_percent, 10.0);
    assert_eq!(s.len(), 2, "{:#?}", s.iter().map(|x| &x.title).collect::<Vec<_>>());

    // Rank 1: the group of listeners.
    let g = &s[0];
    assert_eq!((g.rank, g.kind, g.subject_kind), (1, SuspectKind::Group, SubjectKind::Instances));
    assert_eq!(g.title, "app.Listener");
    assert_eq!(g.instances, 10);
    assert_eq!(g.retained, group_retained);
    assert_eq!(g.shallow, shallow(&heap, &l.listeners));
    assert!(g.object.is_none());
    let acc = g.accumulation_point.as_ref().expect("group accumulation point");
    assert_eq!(acc.object.object_id, idx(&heap, l.listeners_array));
    let path = g.path_to_root.as_ref().unwrap();
    assert_eq!(path.root_kinds, vec!["System Class"]);
    assert_eq!(path.steps.len(), 2);
    assert_eq!(path.steps[0].object.object_id, idx(&heap, l.registry_class));
    assert_eq!(path.steps[0].object.label, "class app.Registry");
    assert!(path.steps[0].via.is_none());
    let via = path.steps[1].via.as_ref().unwrap();
    assert_eq!((via.kind.clone(), via.name.as_str()), (ViaKind::StaticField, "listeners"));
    assert!(g.keywords.contains(&"app.Registry.listeners".to_string()), "{:?}", g.keywords);
    assert_eq!(g.biggest_instances.len(), 10);
    assert!(g.biggest_instances.iter().all(|x| x.retained == group_retained / 10));
    assert_eq!(g.retained_by_class.objects, 20);
    assert_eq!(g.retained_by_class.rows[0].class_name, "byte[]");
    assert_eq!(g.retained_by_class.rows[0].objects, 10);

    // Rank 2: the class app.Holder, named by its static that holds the accumulation point.
    let h = &s[1];
    assert_eq!((h.rank, h.kind, h.subject_kind), (2, SuspectKind::Single, SubjectKind::Class));
    assert_eq!(h.title, "app.Holder.cache");
    assert_eq!(h.object.as_ref().unwrap().object_id, holder);
    // A class object is named by the class it describes, as in query results.
    assert_eq!(h.object.as_ref().unwrap().class_name, "app.Holder");
    assert_eq!(h.object.as_ref().unwrap().label, "class app.Holder");
    assert_eq!(h.retained, holder_retained);
    assert_eq!(h.instances, 1);
    // Walk: class (R) → Cache (≈R) → Object[4] (≈R) → byte[1000] (≈R/4 < 0.7): stop at the array.
    let acc = h.accumulation_point.as_ref().unwrap();
    assert_eq!(acc.object.object_id, idx(&heap, l.entries));
    assert_eq!(acc.retained, a.retained_size(idx(&heap, l.entries)));
    let steps = &h.path_to_root.as_ref().unwrap().steps;
    let shown: Vec<(ObjIdx, Option<(ViaKind, String)>)> =
        steps.iter().map(|st| (st.object.object_id, st.via.clone().map(|v| (v.kind, v.name)))).collect();
    assert_eq!(
        shown,
        vec![
            (holder, None),
            (idx(&heap, l.cache), Some((ViaKind::StaticField, "cache".to_string()))),
            (idx(&heap, l.entries), Some((ViaKind::Field, "entries".to_string()))),
        ]
    );
    assert_eq!(steps[2].retained, acc.retained);
    assert!(h.explanation.contains("app.Holder.cache") && h.explanation.contains("Object[4]"), "{}", h.explanation);
    let bytes_row = h.retained_by_class.rows.iter().find(|r| r.class_name == "byte[]").unwrap();
    assert_eq!((bytes_row.objects, bytes_row.shallow), (4, shallow(&heap, &l.buffers)));
    assert_eq!(h.retained_by_class.objects, 8);
    assert!(h.biggest_instances.is_empty());

    // Top consumers: the same three structures, above 1 %.
    let tc = &data.top_consumers;
    assert_eq!(tc.biggest_objects[0].object.object_id, holder);
    let listeners = tc.biggest_classes.iter().find(|c| c.name == "app.Listener").unwrap();
    assert_eq!((listeners.objects, listeners.retained), (10, group_retained));
    let app = tc.biggest_packages.iter().find(|p| p.name == "app").unwrap();
    assert_eq!((app.parent.as_deref(), app.depth), (None, 0));
    // The package leaf counts the class object app.Listener too (a class object by its own name).
    let class_object = heap.class(heap.classes_named("app.Listener")[0]).object;
    assert_eq!(a.immediate_dominator(class_object), None);
    let leaf = tc.biggest_packages.iter().find(|p| p.name == "app.Listener").unwrap();
    assert_eq!(
        (leaf.parent.as_deref(), leaf.depth, leaf.objects, leaf.retained),
        (Some("app"), 1, 11, group_retained + a.retained_size(class_object))
    );
}

#[test]
fn class_histogram_retained_is_the_minimum_retained_size_of_each_class() {
    let (bytes, l) = leak_dump();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let rows = &data.overview.class_histogram.rows;
    for row in rows {
        let classes = heap.classes_named(&row.class_name);
        let members: Vec<ObjIdx> =
            (0..heap.object_count()).filter(|&o| classes.contains(&heap.class_of(o))).collect();
        assert_eq!(row.instances, members.len() as u64, "{}", row.class_name);
        assert_eq!(row.retained, a.min_retained_size(&members), "{}", row.class_name);
    }
    let listener = rows.iter().find(|r| r.class_name == "app.Listener").unwrap();
    assert_eq!(listener.retained, shallow(&heap, &l.listeners) + shallow(&heap, &l.listener_buffers));
    // Largest retained first.
    assert!(rows.windows(2).all(|w| w[0].retained >= w[1].retained));
    let h = &data.overview.heap;
    assert_eq!(h.used_heap, a.total_size());
    assert_eq!(h.objects, heap.object_count() as u64);
    assert_eq!(h.instances + h.object_arrays + h.primitive_arrays + h.classes, h.objects);
    assert_eq!(h.object_arrays, 3);
    assert_eq!(h.primitive_arrays, 14);
}

/// Object ids of the loader dump.
struct Loaders {
    loader: u64,
    idle_loader: u64,
    big_class: u64,
    helper_class: u64,
    data: u64,
}

/// A class loader whose object retains little while a class it defined retains a lot:
/// `app.Loader` instance `loader` (a JNI global) defines `app.Big` (a System Class root)
/// whose static `data` holds a byte[100000] and whose static `helper` holds the class object
/// of `app.Helper`, also defined by `loader` and reachable only through it (its static holds a
/// byte[5000]); `idle_loader`, a second `app.Loader` (a JNI global), defines no class.
fn loader_dump() -> (Vec<u8>, Loaders) {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let class_loader = b.class("java.lang.ClassLoader", Some(obj), &[("parent", BasicType::Object)]);
    let loader_class = b.class("app.Loader", Some(class_loader), &[]);
    let loader = b.instance(loader_class, &[Val::Obj(0)]);
    let idle_loader = b.instance(loader_class, &[Val::Obj(0)]);
    let data = b.byte_array(&vec![7; 100_000]);
    let more = b.byte_array(&vec![8; 5_000]);
    let helper_class = b.class_full("app.Helper", Some(obj), loader, &[], &[("more", Val::Obj(more))]);
    let big_class = b.class_full("app.Big", Some(obj), loader, &[], &[("data", Val::Obj(data)), ("helper", Val::Obj(helper_class))]);
    b.root_sticky_class(big_class);
    b.root_jni_global(loader);
    b.root_jni_global(idle_loader);
    (b.build(), Loaders { loader, idle_loader, big_class, helper_class, data })
}

/// Every loader's `retained` is its classes taken together — for a loader other than the
/// bootstrap loader too (it was the loader object's retained size there, here 16 bytes
/// against the 105 000 its classes hold) — computed apart from the report by climbing the
/// immediate dominators, and the minimum retained size of its class objects; the loader
/// object's own is `loader_retained`. A loader that defines no class has a row, so the rows
/// are the overview's count.
#[test]
fn class_loader_rows_give_every_loader_its_classes_taken_together() {
    let (bytes, l) = loader_dump();
    for reachable_only in [false, true] {
        let (heap, a) = analyze(&bytes, reachable_only);
        let data = report(&heap, &a);
        let o = &data.overview;
        // Per defining loader, apart from the report: its class objects that no other class
        // object of the same loader dominates.
        let loader_of_class_object = |o: ObjIdx| {
            let class = (heap.object_kind(o) == heapql_heap::ObjectKind::Class).then(|| heap.class_described_by(o)).flatten();
            class.map(|c| heap.class(c).loader_id)
        };
        let mut naive: std::collections::BTreeMap<u64, u64> = Default::default();
        let mut members: std::collections::BTreeMap<u64, Vec<ObjIdx>> = Default::default();
        for x in (0..heap.object_count()).filter(|&x| a.in_tree(x)) {
            let Some(loader) = loader_of_class_object(x) else { continue };
            members.entry(loader).or_default().push(x);
            let mut up = a.immediate_dominator(x);
            while up.is_some_and(|d| loader_of_class_object(d) != Some(loader)) {
                up = a.immediate_dominator(up.unwrap());
            }
            if up.is_none() {
                *naive.entry(loader).or_default() += a.retained_size(x);
            }
        }
        assert_eq!(o.heap.class_loaders, 3, "the bootstrap loader and two loader instances");
        assert_eq!(o.class_loaders.len(), 3, "a row for each");
        for row in &o.class_loaders {
            let id = row.loader.as_ref().map_or(0, |r| heap.object_id(r.object_id));
            assert_eq!(row.retained, naive.get(&id).copied().unwrap_or(0), "{}", row.name);
            assert_eq!(row.retained, members.get(&id).map_or(0, |m| a.min_retained_size(m)), "{}", row.name);
            assert_eq!(row.loader_retained, row.loader.as_ref().map(|r| a.retained_size(r.object_id)), "{}", row.name);
        }
        let app = o.class_loaders.iter().find(|r| r.loader.as_ref().is_some_and(|r| r.object_id == idx(&heap, l.loader))).unwrap();
        let big = a.retained_size(idx(&heap, l.big_class));
        assert_eq!(app.defined_classes, 2);
        // app.Helper's class object hangs below app.Big's: counted once, inside app.Big's.
        assert_eq!(a.immediate_dominator(idx(&heap, l.helper_class)), Some(idx(&heap, l.big_class)));
        assert_eq!(app.retained, big);
        assert!(big >= 105_000 && big >= heap.shallow_size(idx(&heap, l.data)), "{big}");
        assert_eq!(app.loader_retained, Some(heap.shallow_size(idx(&heap, l.loader))));
        assert!(app.loader_retained.unwrap() < 100, "the loader object alone retains little");
        assert!((app.retained_percent - app.retained as f64 * 100.0 / a.total_size() as f64).abs() < 1e-9);
        let idle = o.class_loaders.iter().find(|r| r.loader.as_ref().is_some_and(|r| r.object_id == idx(&heap, l.idle_loader))).unwrap();
        assert_eq!((idle.defined_classes, idle.instances, idle.retained), (0, 0, 0));
        assert_eq!(idle.loader_retained, Some(heap.shallow_size(idx(&heap, l.idle_loader))));
        assert!(idle.name.starts_with("app.Loader @ 0x"), "{}", idle.name);
        let boot = o.class_loaders.iter().find(|r| r.loader.is_none()).unwrap();
        assert_eq!((boot.name.as_str(), boot.loader_retained), ("<bootstrap>", None));
        // Its classes first, then the loader object, then the name.
        assert!(o.class_loaders.windows(2).all(|w| (w[0].retained, w[0].loader_retained) >= (w[1].retained, w[1].loader_retained)));
        assert_eq!(o.class_loaders[0].name, app.name, "the loader whose classes retain the most first");
    }
}

#[test]
fn threads_show_state_priority_daemon_frames_and_locals() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    // JDK ≤ 18: the fields on the Thread itself (a subclass here, own fields first).
    let old_style = b.class("app.OldThread", Some(b.thread_class), &[("threadStatus", BasicType::Int), ("priority", BasicType::Int)]);
    // JDK 19+: the fields on Thread.holder.
    let holder_class = b.class(
        "java.lang.Thread$FieldHolder",
        Some(obj),
        &[("threadStatus", BasicType::Int), ("priority", BasicType::Int), ("daemon", BasicType::Boolean)],
    );
    let new_style = b.class("app.NewThread", Some(b.thread_class), &[("holder", BasicType::Object)]);
    let n1 = b.string("sleeper");
    let t1 = b.instance(old_style, &[Val::Int(0x00a1), Val::Int(7), Val::Obj(n1), Val::Bool(true)]);
    let fh = b.instance(holder_class, &[Val::Int(0x0401), Val::Int(3), Val::Bool(false)]);
    let n2 = b.string("blocked");
    let t2 = b.instance(new_style, &[Val::Obj(fh), Val::Obj(n2), Val::Bool(false)]);
    b.class("app.Job", Some(obj), &[]);
    let (worker, serial) = b.thread("worker", false, &[("await", "app.Job", 42), ("run", "app.Job", 7)]);
    let small = b.byte_array(&[1u8; 10]);
    let big = b.byte_array(&[2u8; 5000]);
    b.root_java_frame(small, serial, 0);
    b.root_java_frame(big, serial, 1);
    b.root_java_frame(small, serial, 1);
    b.root_jni_global(t1);
    b.root_jni_global(t2);
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let threads = &data.threads.threads;
    assert_eq!(threads.len(), 3);
    // Biggest retained first: the worker holds the byte[5000].
    let w = &threads[0];
    assert_eq!(w.object.object_id, idx(&heap, worker));
    assert_eq!(w.name.as_deref(), Some("worker"));
    assert_eq!(w.object.label, "worker");
    assert_eq!(w.daemon, Some(false));
    assert_eq!((w.priority, w.state.as_deref()), (None, None));
    let big_size = heap.shallow_size(idx(&heap, big));
    let small_size = heap.shallow_size(idx(&heap, small));
    // The thread, its name (String + byte[]) and both locals: nothing else references them.
    let name_size = shallow(&heap, &[heap_name(&heap, worker)]) + heap.shallow_size(name_value(&heap, worker));
    assert_eq!(w.retained, heap.shallow_size(idx(&heap, worker)) + name_size + big_size + small_size);
    assert_eq!(w.max_local_retained, big_size);
    assert_eq!(w.frames.len(), 2);
    assert_eq!(w.frames[0].method, "app.Job.await");
    assert_eq!(w.frames[0].source.as_deref(), Some("Job.java:42"));
    assert_eq!(w.frames[0].signature.as_deref(), Some("()V"));
    assert_eq!(w.frames[0].locals.len(), 1);
    let locals: Vec<(ObjIdx, u64)> = w.frames[1].locals.iter().map(|x| (x.object.object_id, x.retained)).collect();
    assert_eq!(locals, vec![(idx(&heap, big), big_size), (idx(&heap, small), small_size)]);

    let by_name = |n: &str| threads.iter().find(|t| t.name.as_deref() == Some(n)).unwrap();
    let s = by_name("sleeper");
    assert_eq!((s.daemon, s.priority, s.state.as_deref()), (Some(true), Some(7), Some("TIMED_WAITING")));
    assert!(s.frames.is_empty());
    let k = by_name("blocked");
    assert_eq!((k.daemon, k.priority, k.state.as_deref()), (Some(false), Some(3), Some("BLOCKED")));
    let _ = t2;
}

/// A local in no frame the dump names (frame -1 of a JNI local, as ART writes; any local of a
/// dump without stack traces) is listed with the thread, as `max_local_retained` counts it:
/// the figure always matches a listed local.
#[test]
fn locals_in_no_frame_are_listed_with_the_thread() {
    let mut b = DumpBuilder::new(8);
    b.class("app.Job", Some(b.object_class), &[]);
    let (worker, serial) = b.thread("worker", false, &[("run", "app.Job", 7)]);
    let in_frame = b.byte_array(&[1u8; 100]);
    let outside = b.byte_array(&[2u8; 3000]);
    b.root_java_frame(in_frame, serial, 0);
    b.root_java_frame(outside, serial, -1);
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let w = data.threads.threads.iter().find(|t| t.object.object_id == idx(&heap, worker)).unwrap();
    let outside_size = heap.shallow_size(idx(&heap, outside));
    assert_eq!(w.frames[0].locals.iter().map(|l| l.object.object_id).collect::<Vec<_>>(), vec![idx(&heap, in_frame)]);
    assert_eq!(w.other_locals.iter().map(|l| (l.object.object_id, l.retained)).collect::<Vec<_>>(), vec![(idx(&heap, outside), outside_size)]);
    assert_eq!(w.max_local_retained, outside_size);
}

/// JDK ≤ 6: a thread without a stack trace (not in the dump's thread table) whose `name` is a
/// `char[]` is named by it in the Thread Overview and in its object label, as threads with a
/// stack are.
#[test]
fn stackless_threads_with_char_array_names_are_named() {
    let mut b = DumpBuilder::new(8);
    let units: Vec<Val> = "C2 CompilerThread0".encode_utf16().map(Val::Char).collect();
    let name = b.primitive_array(BasicType::Char, &units);
    let t = b.instance(b.thread_class, &[Val::Obj(name), Val::Bool(true)]);
    b.root_jni_global(t);
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    assert!(heap.threads().iter().all(|x| x.object != Some(idx(&heap, t))));
    let data = report(&heap, &a);
    let th = data.threads.threads.iter().find(|x| x.object.object_id == idx(&heap, t)).unwrap();
    assert_eq!(th.name.as_deref(), Some("C2 CompilerThread0"));
    assert_eq!(th.object.label, "C2 CompilerThread0");
    assert_eq!(th.daemon, Some(true));
}

/// JDK 24 and 25's `VirtualThread` state constants, as HotSpot dumps them with the class
/// (JDK 21.0.4+, 22 and 23 have those up to YIELDED, TERMINATED and SUSPENDED: the same
/// numbers; JDK 19, 20 and 21 to 21.0.3 number them otherwise, `JDK19_TO_21_0_3`).
const JDK25_VIRTUAL_STATES: [(&str, i32); 21] = [
    ("NEW", 0),
    ("STARTED", 1),
    ("RUNNING", 2),
    ("PARKING", 3),
    ("PARKED", 4),
    ("PINNED", 5),
    ("TIMED_PARKING", 6),
    ("TIMED_PARKED", 7),
    ("TIMED_PINNED", 8),
    ("UNPARKED", 9),
    ("YIELDING", 10),
    ("YIELDED", 11),
    ("BLOCKING", 12),
    ("BLOCKED", 13),
    ("UNBLOCKED", 14),
    ("WAITING", 15),
    ("WAIT", 16),
    ("TIMED_WAITING", 17),
    ("TIMED_WAIT", 18),
    ("TERMINATED", 99),
    ("SUSPENDED", 256),
];

/// A dump with `java.lang.VirtualThread` (under `BaseVirtualThread`) whose class holds
/// `constants` as statics, and one virtual thread per `(state, carrier state word)`: a
/// carrier, when given, is a JDK 19+ platform thread whose `holder.threadStatus` is that word.
/// Returns the report and the virtual threads' object indexes.
fn virtual_threads(constants: &[(&str, i32)], with_state: bool, threads: &[(i32, Option<i32>)]) -> (ReportData, Vec<ObjIdx>) {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let holder_class = b.class("java.lang.Thread$FieldHolder", Some(obj), &[("threadStatus", BasicType::Int)]);
    let carrier_class = b.class("jdk.internal.misc.CarrierThread", Some(b.thread_class), &[("holder", BasicType::Object)]);
    let base = b.class("java.lang.BaseVirtualThread", Some(b.thread_class), &[]);
    let statics: Vec<(&str, Val)> = constants.iter().map(|&(n, v)| (n, Val::Int(v))).collect();
    // `container` (Thread's in the JDK) null: a thread started but not yet in a container.
    let fields: &[(&str, BasicType)] = if with_state {
        &[("state", BasicType::Int), ("carrierThread", BasicType::Object), ("container", BasicType::Object)]
    } else {
        &[("carrierThread", BasicType::Object), ("container", BasicType::Object)]
    };
    let vt_class = b.class_full("java.lang.VirtualThread", Some(base), 0, fields, &statics);
    let mut ids = Vec::new();
    for &(state, carrier) in threads {
        let carrier = match carrier {
            Some(word) => {
                let h = b.instance(holder_class, &[Val::Int(word)]);
                let n = b.string("carrier");
                let c = b.instance(carrier_class, &[Val::Obj(h), Val::Obj(n), Val::Bool(true)]);
                b.root_jni_global(c);
                c
            }
            None => 0,
        };
        let name = b.string("");
        // The kit's Thread has a `daemon` field; false here: a virtual thread is a daemon whatever it says.
        let mut values = vec![Val::Obj(carrier), Val::Obj(0), Val::Obj(name), Val::Bool(false)];
        if with_state {
            values.insert(0, Val::Int(state));
        }
        let vt = b.instance(vt_class, &values);
        b.root_jni_global(vt);
        ids.push(vt);
    }
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let ids = ids.iter().map(|&id| idx(&heap, id)).collect();
    (data, ids)
}

/// The daemon flag, priority and state of each of `threads`.
fn flags_of(data: &ReportData, threads: &[ObjIdx]) -> Vec<(Option<bool>, Option<i32>, Option<String>)> {
    threads
        .iter()
        .map(|&o| {
            let t = data.threads.threads.iter().find(|t| t.object.object_id == o).unwrap();
            (t.daemon, t.priority, t.state.clone())
        })
        .collect()
}

/// F3: a virtual thread (JDK 21+) has no `holder`: its state is `VirtualThread.state`, mapped as
/// `VirtualThread.threadState()` does, and it is a daemon of NORM_PRIORITY by specification.
#[test]
fn virtual_threads_are_daemons_of_norm_priority_in_the_state_their_jdk_reports() {
    const TIMED_PARKED: i32 = 7;
    const PARKED_SUSPENDED: i32 = 4 | 256;
    const RUNNING: i32 = 2;
    const YIELDED: i32 = 11;
    const TERMINATED: i32 = 99;
    const STARTED: i32 = 1;
    let (data, vts) = virtual_threads(
        &JDK25_VIRTUAL_STATES,
        true,
        // Mounted (RUNNING): its carrier's state, here BLOCKED; unmounted: RUNNABLE.
        &[(TIMED_PARKED, None), (PARKED_SUSPENDED, None), (RUNNING, Some(0x0401)), (RUNNING, None), (YIELDED, None), (TERMINATED, None), (STARTED, None), (1234, None)],
    );
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        flags_of(&data, &vts),
        vec![
            (Some(true), Some(5), s("TIMED_WAITING")),
            (Some(true), Some(5), s("WAITING")),
            (Some(true), Some(5), s("BLOCKED")),
            (Some(true), Some(5), s("RUNNABLE")),
            (Some(true), Some(5), s("RUNNABLE")),
            (Some(true), Some(5), s("TERMINATED")),
            // Started, not yet in a thread container.
            (Some(true), Some(5), s("NEW")),
            // No constant has this value: the JDK would throw; the report says nothing.
            (Some(true), Some(5), None),
        ]
    );
}

/// `VirtualThread`'s state constants in JDK 19, 20 and 21 to 21.0.3 (JDK-8312498 and
/// JDK-8321270 renumbered them in 22 and 21.0.4).
const JDK19_TO_21_0_3: [(&str, i32); 10] =
    [("NEW", 0), ("STARTED", 1), ("RUNNABLE", 2), ("RUNNING", 3), ("PARKING", 4), ("PARKED", 5), ("PINNED", 6), ("YIELDING", 7), ("TERMINATED", 99), ("SUSPENDED", 256)];

/// The states of `threads` (`virtual_threads`).
fn states_of(constants: &[(&str, i32)], threads: &[(i32, Option<i32>)]) -> Vec<Option<String>> {
    let (data, vts) = virtual_threads(constants, true, threads);
    flags_of(&data, &vts).into_iter().map(|f| f.2).collect()
}

/// The state numbers are the ones the dump's `VirtualThread` class defines: JDK 19, 20 and
/// 21 to 21.0.3 numbered them otherwise (2 was RUNNABLE, unmounted, and 3 RUNNING there; 7
/// was YIELDING, TIMED_PARKED since JDK 22 and 21.0.4), read by their names, also when the
/// class holds only some of them; a virtual thread without a `state` field has no state.
#[test]
fn virtual_thread_states_are_read_by_the_names_of_their_constants() {
    let s = |x: &str| Some(x.to_string());
    let states = states_of(&JDK19_TO_21_0_3, &[(7, None), (5, None), (2, None), (2 | 256, None), (3, Some(0x0401)), (9, None)]);
    // YIELDING, PARKED, RUNNABLE (unmounted), RUNNABLE suspended, RUNNING on a blocked carrier,
    // and 9, which no constant of that JDK has.
    assert_eq!(states, vec![s("RUNNABLE"), s("WAITING"), s("RUNNABLE"), s("RUNNABLE"), s("BLOCKED"), None]);
    // A class with some of the old constants (TERMINATED left out): those are read, not the
    // numbering of a class dumped without any (where 7 would be TIMED_PARKED).
    let some: Vec<(&str, i32)> = JDK19_TO_21_0_3.iter().copied().filter(|&(n, _)| n != "TERMINATED").collect();
    assert_eq!(states_of(&some, &[(7, None), (99, None)]), vec![s("RUNNABLE"), None]);
    let (data, vts) = virtual_threads(&JDK25_VIRTUAL_STATES, false, &[(0, None)]);
    assert_eq!(flags_of(&data, &vts), vec![(Some(true), Some(5), None)]);
}

/// A `VirtualThread` class dumped with none of its state constants is read with the numbers
/// of JDK 22 to 25 and 21.0.4 on (`JDK25_VIRTUAL_STATES`), not JDK 19, 20 or 21 to 21.0.3's,
/// which such a dump cannot tell apart.
#[test]
fn virtual_thread_states_without_constants_read_as_jdk_22_to_25_and_21_0_4_on_number_them() {
    let s = |x: &str| Some(x.to_string());
    assert_eq!(states_of(&[], &[(7, None), (11, None), (4 | 256, None), (2, Some(0x0401)), (16, None)]), vec![s("TIMED_WAITING"), s("RUNNABLE"), s("WAITING"), s("BLOCKED"), s("WAITING")]);
}

/// F4: a thread held as a local is labelled as a thread (`thread "worker"`), not by its bare
/// name, which reads like an instance of a class of that name; a thread with an empty or no
/// name as `thread (unnamed)`.
#[test]
fn threads_held_as_locals_are_labelled_as_threads() {
    let mut b = DumpBuilder::new(8);
    b.class("app.Job", Some(b.object_class), &[]);
    let (worker, serial) = b.thread("Finalizer", false, &[("run", "app.Job", 7)]);
    let (nameless, _) = b.thread("", false, &[]);
    let no_name = b.instance(b.thread_class, &[Val::Obj(0), Val::Bool(false)]);
    let data_obj = b.byte_array(&[1u8; 10]);
    // A quote or a backslash in a name would make the label end early: both are escaped.
    let (quoted, _) = b.thread(r#"say "hi" \ bye"#, false, &[]);
    for o in [worker, nameless, no_name, data_obj, quoted] {
        b.root_java_frame(o, serial, 0);
    }
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let w = data.threads.threads.iter().find(|t| t.object.object_id == idx(&heap, worker)).unwrap();
    assert_eq!(w.object.label, "Finalizer", "the thread's own reference keeps its name");
    let label = |o: u64| w.frames[0].locals.iter().find(|l| l.object.object_id == idx(&heap, o)).unwrap().object.label.clone();
    assert_eq!(label(worker), "thread \"Finalizer\"");
    assert_eq!(label(nameless), "thread (unnamed)");
    assert_eq!(label(no_name), "thread (unnamed)");
    assert_eq!(label(quoted), r#"thread "say \"hi\" \\ bye""#);
    assert!(label(data_obj).ends_with(&format!(" @ 0x{data_obj:x}")), "other objects keep their label");
}

/// The `name` String of a testkit thread.
fn heap_name(heap: &Heap, thread: u64) -> u64 {
    match heap.field(idx(heap, thread), "name") {
        Some(heapql_heap::Value::Object(id)) => id,
        other => panic!("thread name {other:?}"),
    }
}

/// The value array of a thread's name.
fn name_value(heap: &Heap, thread: u64) -> ObjIdx {
    match heap.field(idx(heap, heap_name(heap, thread)), "value") {
        Some(heapql_heap::Value::Object(id)) => idx(heap, id),
        other => panic!("name value {other:?}"),
    }
}

#[test]
fn duplicate_strings_count_each_wasted_copy_once() {
    let mut b = DumpBuilder::new(8);
    let dups: Vec<u64> = (0..3).map(|_| b.string("same text")).collect();
    let single = b.string("only once");
    // Two Strings sharing one backing array (string deduplication): only the String is wasted.
    let shared = b.byte_array(b"shared");
    let s1 = b.instance(b.string_class, &[Val::Obj(shared), Val::Byte(0), Val::Int(0)]);
    let s2 = b.instance(b.string_class, &[Val::Obj(shared), Val::Byte(0), Val::Int(0)]);
    // Same bytes, other encoding: a different text.
    let utf16 = b.byte_array(b"same text\0");
    let s3 = b.instance(b.string_class, &[Val::Obj(utf16), Val::Byte(1), Val::Int(0)]);
    let long = "x".repeat(250);
    let l1 = b.string(&long);
    let l2 = b.string(&long);
    let list = b.object_array(b.object_array_class, &[dups[0], dups[1], dups[2], single, s1, s2, s3, l1, l2]);
    b.root_jni_global(list);
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let d = &data.waste.duplicate_strings;
    assert_eq!(d.strings, 9);
    assert_eq!(d.distinct, 5);
    assert_eq!(d.duplicated_values, 3);
    let string_size = heap.shallow_size(idx(&heap, dups[0]));
    let value_of = |s: u64| match heap.field(idx(&heap, s), "value") {
        Some(heapql_heap::Value::Object(id)) => heap.shallow_size(idx(&heap, id)),
        other => panic!("{other:?}"),
    };
    let same = 2 * (string_size + value_of(dups[0]));
    let sharing = string_size;
    let longs = string_size + value_of(l1);
    assert_eq!(d.wasted_bytes, same + sharing + longs);
    let top: Vec<(&str, u64, u64)> = d.top.iter().map(|t| (t.value.as_str(), t.count, t.wasted_bytes)).collect();
    assert_eq!(top[0].1, 2);
    assert_eq!(top[0].2, longs);
    assert!(top.contains(&("same text", 3, same)), "{top:?}");
    let long_row = d.top.iter().find(|t| t.count == 2 && t.value.starts_with('x')).unwrap();
    assert_eq!((long_row.value.chars().count(), long_row.truncated, long_row.length), (200, true, 250));
    let shared_row = d.top.iter().find(|t| t.value == "shared").unwrap();
    assert_eq!((shared_row.count, shared_row.wasted_bytes), (2, sharing));
    assert!(d.top.windows(2).all(|w| w[0].wasted_bytes >= w[1].wasted_bytes));
}

#[test]
fn reachable_only_leaves_unreachable_objects_out() {
    let (bytes, _) = leak_dump();
    let (heap, all) = analyze(&bytes, false);
    let (_, live) = analyze(&bytes, true);
    let full = report(&heap, &all);
    let reach = report(&heap, &live);
    assert!(!full.overview.reachable_only && reach.overview.reachable_only);
    // The builder's own classes have no roots: unreachable in both reports.
    let unreachable = (0..heap.object_count()).filter(|&o| !all.is_reachable(o)).count() as u64;
    assert!(unreachable > 0);
    assert_eq!(full.overview.heap.unreachable_objects, unreachable);
    assert_eq!(reach.overview.heap.unreachable_objects, unreachable);
    assert_eq!(full.overview.heap.objects, heap.object_count() as u64);
    assert_eq!(reach.overview.heap.objects, heap.object_count() as u64 - unreachable);
    assert_eq!(reach.overview.heap.used_heap, live.total_size());
    // Pseudo-roots hold the unreachable forest: counted apart from the dump's GC roots, which
    // are the same in both modes.
    assert_eq!(full.overview.heap.unreachable_pseudo_roots, all.unreachable_roots().count() as u64);
    assert!(full.overview.heap.unreachable_pseudo_roots > 0);
    assert_eq!(reach.overview.heap.unreachable_pseudo_roots, 0);
    for r in [&full, &reach] {
        assert_eq!(r.overview.gc_roots.total, heap.summary().gc_roots);
        assert_eq!(r.overview.gc_roots.by_kind.iter().map(|k| k.count).sum::<u64>(), r.overview.gc_roots.total);
        assert!(!r.overview.gc_roots.by_kind.iter().any(|k| k.kind == "Unreachable"));
    }
    let instances: u64 = reach.overview.class_histogram.rows.iter().map(|r| r.instances).sum();
    assert!(instances <= reach.overview.heap.objects);
}

#[test]
fn progress_and_cancel() {
    let (bytes, _) = leak_dump();
    let (heap, a) = analyze(&bytes, false);
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let options = ReportOptions {
        progress: Some(Arc::new(move |p: heapql_heap::Progress| sink.lock().unwrap().push((p.phase, p.done, p.total)))),
        ..Default::default()
    };
    build(&heap, &a, &options).unwrap();
    let events = events.lock().unwrap();
    assert!(events.iter().all(|&(phase, done, total)| phase == "report" && done <= total));
    let last = events.last().unwrap();
    assert_eq!(last.1, last.2);
    let cancelled = ReportOptions { cancel: Some(Arc::new(AtomicBool::new(true))), ..Default::default() };
    let err = build(&heap, &a, &cancelled).expect_err("cancelled");
    assert_eq!(err.code(), "ERR_CANCELLED");
}

#[test]
fn json_uses_the_model_field_names() {
    let (bytes, _) = leak_dump();
    let (heap, a) = analyze(&bytes, false);
    let v: serde_json::Value = serde_json::from_str(&report(&heap, &a).to_json()).unwrap();
    let keys = |x: &serde_json::Value| {
        let mut k = x.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        k.sort();
        k
    };
    assert_eq!(keys(&v), vec!["leakSuspects", "overview", "threads", "topConsumers", "waste"]);
    assert_eq!(
        keys(&v["waste"]),
        vec![
            "categories",
            "dumpCutShort",
            "duplicateStrings",
            "overhead",
            "overheadPercent",
            "reachableOverhead",
            "reachableOverheadPercent",
            "unreachableOverhead",
            "unreachableOverheadPercent",
            "usedHeap"
        ]
    );
    let s = &v["leakSuspects"]["suspects"][0];
    assert_eq!(s["kind"], "group");
    assert_eq!(s["subjectKind"], "instances");
    assert_eq!(s["pathToRoot"]["steps"][1]["via"]["kind"], "staticField");
    assert!(s["accumulationPoint"]["object"]["address"].as_str().unwrap().starts_with("0x"));
    assert!(v["overview"]["heap"]["usedHeap"].is_u64());
    assert!(v["overview"]["compressedOops"].is_boolean() || v["overview"]["compressedOops"].is_null());
}

#[test]
fn suspect_paths_avoid_reference_referent_when_another_path_exists() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let reference = b.class("java.lang.ref.Reference", Some(obj), &[("referent", BasicType::Object)]);
    let weak = b.class("java.lang.ref.WeakReference", Some(reference), &[]);
    let node_class = b.class("app.Node", Some(obj), &[("next", BasicType::Object)]);
    let big = b.byte_array(&[7u8; 20_000]);
    // Shortest path: JNI global WeakReference --referent--> big (excluded, as MAT does);
    // the path to report: JNI global Node --next--> Node --next--> big.
    let r = b.instance(weak, &[Val::Obj(big)]);
    let second = b.instance(node_class, &[Val::Obj(big)]);
    let first = b.instance(node_class, &[Val::Obj(second)]);
    b.root_jni_global(r);
    b.root_jni_global(first);
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let s = data.leak_suspects.suspects.iter().find(|s| s.object.as_ref().map(|o| o.object_id) == Some(idx(&heap, big))).unwrap();
    assert_eq!(s.kind, SuspectKind::Single);
    assert_eq!(s.title, "byte[]");
    assert_eq!(s.accumulation_point.as_ref().unwrap().object.object_id, idx(&heap, big));
    let objects: Vec<ObjIdx> = s.path_to_root.as_ref().unwrap().steps.iter().map(|st| st.object.object_id).collect();
    assert_eq!(objects, vec![idx(&heap, first), idx(&heap, second), idx(&heap, big)]);
    assert_eq!(s.path_to_root.as_ref().unwrap().root_kinds, vec!["JNI Global"]);
    // Without the other path, the referent is the only way: MAT retries without excludes.
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let reference = b.class("java.lang.ref.Reference", Some(obj), &[("referent", BasicType::Object)]);
    let big = b.byte_array(&[7u8; 20_000]);
    let r = b.instance(reference, &[Val::Obj(big)]);
    b.root_jni_global(r);
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let s = &data.leak_suspects.suspects[0];
    let objects: Vec<ObjIdx> = s.path_to_root.as_ref().unwrap().steps.iter().map(|st| st.object.object_id).collect();
    assert_eq!(objects.last(), Some(&idx(&heap, big)));
    assert_eq!(objects.first(), Some(&idx(&heap, r)));
}

/// A suspect no GC root keeps alive says so: kept by default (each unreachable object under a
/// pseudo-root of its own), it is garbage the next collection frees, no leak. One unreachable
/// array, ten unreachable arrays of another class (a group), and a reachable holder; with
/// `--reachable-only` neither unreachable suspect is left, and the holder's text never says it.
#[test]
fn unreachable_suspects_say_so() {
    let mut b = DumpBuilder::new(8);
    let holder_class = b.class("app.Holder", Some(b.object_class), &[("data", BasicType::Object)]);
    b.root_sticky_class(holder_class);
    let kept = b.byte_array(&vec![1u8; 30_000]);
    let holder = b.instance(holder_class, &[Val::Obj(kept)]);
    b.root_jni_global(holder);
    let _garbage = b.byte_array(&vec![2u8; 40_000]);
    let longs: Vec<Val> = (0..500).map(Val::Long).collect();
    for _ in 0..10 {
        b.primitive_array(BasicType::Long, &longs);
    }
    let bytes = b.build();
    for reachable_only in [false, true] {
        let (heap, a) = analyze(&bytes, reachable_only);
        let data = build(&heap, &a, &ReportOptions::default()).unwrap();
        let s = &data.leak_suspects.suspects;
        let said = |needle: &str| s.iter().filter(|x| x.explanation.contains(needle)).map(|x| x.class_name.clone()).collect::<Vec<_>>();
        if reachable_only {
            assert!(said("unreachable").is_empty(), "{s:#?}");
            assert!(s.iter().all(|x| x.class_name == "app.Holder"), "{s:#?}");
        } else {
            assert_eq!(said("It is unreachable: no GC root keeps it alive"), vec!["byte[]"], "{s:#?}");
            assert_eq!(said("They are unreachable: no GC root keeps them alive"), vec!["long[]"], "{s:#?}");
            let h = s.iter().find(|x| x.class_name == "app.Holder").expect("the holder is a suspect");
            assert!(!h.explanation.contains("unreachable"), "{}", h.explanation);
        }
    }
}

/// A group suspect of which one instance is unreachable says so in the singular.
#[test]
fn one_unreachable_instance_of_a_group_is_said_in_the_singular() {
    let mut b = DumpBuilder::new(8);
    let longs: Vec<Val> = (0..500).map(Val::Long).collect();
    for i in 0..10 {
        let arr = b.primitive_array(BasicType::Long, &longs);
        if i > 0 {
            b.root_jni_global(arr);
        }
    }
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = build(&heap, &a, &ReportOptions::default()).unwrap();
    let s = &data.leak_suspects.suspects;
    let group = s.iter().find(|x| x.class_name == "long[]" && x.kind == SuspectKind::Group).expect("a group of long[]");
    assert_eq!(group.instances, 10, "{group:#?}");
    let e = &group.explanation;
    assert!(e.contains(" 1 of them, retaining ") && e.contains(", is unreachable: no GC root keeps it alive, so the next garbage collection frees it."), "{e}");
    assert!(!e.contains("are unreachable"), "{e}");
}

/// Dalvik's UNREACHABLE root record (0x90) is counted with the GC roots under a name of its
/// own, never the "Unreachable" of the analysis's pseudo-roots of garbage, which stay apart
/// (not GC roots); the object it names is a GC root, and its path says which kind.
#[test]
fn dalvik_unreachable_roots_are_named_apart_from_the_pseudo_roots() {
    let mut b = DumpBuilder::new(4);
    let marked = b.byte_array(&vec![1u8; 20_000]);
    b.root(heapql_hprof::types::sub::UNREACHABLE, marked);
    let _garbage = b.byte_array(&vec![2u8; 30_000]);
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let roots = &data.overview.gc_roots;
    // Beside the System Class roots of MAT's fallback (the builder's boot classes; the dump
    // records no System Class root, mat-semantics.md §1.3).
    let fallback = heap.summary().fallback_system_class_roots;
    assert!(fallback > 0);
    assert_eq!(roots.total, 1 + fallback);
    let kinds: Vec<(&str, u64)> = roots.by_kind.iter().map(|k| (k.kind.as_str(), k.count)).filter(|k| k.0 != "System Class").collect();
    assert_eq!(kinds, vec![("Unreachable (Dalvik)", 1)]);
    // The garbage array no root holds here.
    assert!(data.overview.heap.unreachable_pseudo_roots >= 1);
    assert!(a.is_reachable(idx(&heap, marked)));
    assert_eq!(a.root_label(&heap, idx(&heap, marked)), "Unreachable (Dalvik)");
    let garbage = heap.index_of(_garbage).unwrap();
    assert_eq!(a.root_label(&heap, garbage), "Unreachable");
}

/// A stack deeper than the JVM's own thread dump shows: the top `FRAMES_LISTED` frames are
/// listed, the rest counted, and a local of a frame below still counts as the biggest.
#[test]
fn deep_stacks_list_their_top_frames_and_count_the_rest() {
    let mut b = DumpBuilder::new(8);
    b.class("app.Deep", Some(b.object_class), &[]);
    let depth = heapql_report::THREAD_FRAMES_LISTED + 76;
    let frames: Vec<(&str, &str, i32)> = (0..depth).map(|_| ("recurse", "app.Deep", 3)).collect();
    let (_, serial) = b.thread("deep", false, &frames);
    let small = b.byte_array(&[1u8; 10]);
    let big = b.byte_array(&[2u8; 5000]);
    b.root_java_frame(small, serial, 0);
    b.root_java_frame(big, serial, (depth - 10) as i32);
    let bytes = b.build();
    let (heap, a) = analyze(&bytes, false);
    let data = report(&heap, &a);
    let t = data.threads.threads.iter().find(|t| t.name.as_deref() == Some("deep")).unwrap();
    assert_eq!(t.frames.len(), heapql_report::THREAD_FRAMES_LISTED);
    assert_eq!(t.frames_left_out, 76);
    assert_eq!(t.max_local_retained, heap.shallow_size(idx(&heap, big)));
    assert!(t.frames.iter().all(|f| f.locals.iter().all(|l| l.object.object_id != idx(&heap, big))));
    assert_eq!(t.frames[0].locals[0].object.object_id, idx(&heap, small));
}
