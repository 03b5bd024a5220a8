//! The report's data on the real fixture dumps, checked against the facts their programs wrote
//! (fixtures/demo/demo.facts.json, fixtures/dumps/*.facts.json).

use heapql_report::{build, ReportData, ReportOptions, SubjectKind, SuspectKind, ViaKind};
use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, ObjIdx, OpenOptions, Value};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn facts(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Every row of every list: the facts name classes that small limits would cut.
fn open_and_report(path: &Path) -> (Heap, FullAnalysis, ReportData) {
    let heap = Heap::open(path, OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let data = build(&heap, &a, &ReportOptions { limit: 1_000_000, top_strings: 50, ..Default::default() }).unwrap();
    (heap, a, data)
}

fn static_target(heap: &Heap, class: &str, field: &str) -> ObjIdx {
    let c = heap.classes_named(class)[0];
    match heap.class(c).statics.iter().find(|s| s.name == field).map(|s| s.value) {
        Some(Value::Object(id)) => heap.index_of(id).unwrap(),
        other => panic!("{class}.{field} is {other:?}"),
    }
}

fn object_field(heap: &Heap, o: ObjIdx, field: &str) -> ObjIdx {
    match heap.field(o, field) {
        Some(Value::Object(id)) => heap.index_of(id).unwrap(),
        other => panic!("{field} is {other:?}"),
    }
}

#[test]
fn demo_leak_is_named_after_its_static_field_with_a_correct_path() {
    let path = fixtures().join("demo/demo.hprof");
    let f = facts(&fixtures().join("demo/demo.facts.json"));
    let (heap, a, data) = open_and_report(&path);
    let leak = &f["collections"][0];
    let (class, field) = (leak["static_class"].as_str().unwrap(), leak["static_field"].as_str().unwrap());
    let map = static_target(&heap, class, field);
    let table = object_field(&heap, map, "table");

    let suspects = &data.leak_suspects.suspects;
    assert!(!suspects.is_empty());
    let s = &suspects[0];
    assert_eq!(s.rank, 1);
    assert_eq!(s.kind, SuspectKind::Single);
    assert_eq!(s.title, format!("{class}.{field}"));
    assert!(s.retained_percent > 10.0);
    // The memory accumulates in the map's table (400 sessions, each its own share: a big drop).
    let acc = s.accumulation_point.as_ref().unwrap();
    assert_eq!(acc.object.object_id, table);
    assert_eq!(acc.retained, a.retained_size(table));
    // The path: a GC root first, … class → (static field) → map → (table) → table, each step
    // really referencing the next.
    let p = s.path_to_root.as_ref().unwrap();
    assert!(!p.root_kinds.is_empty());
    assert!(a.root_kinds(&heap, p.steps[0].object.object_id).len() == p.root_kinds.len());
    assert!(p.steps[0].via.is_none());
    for w in p.steps.windows(2) {
        let (from, to) = (w[0].object.object_id, w[1].object.object_id);
        assert!(a.outbound(from).any(|x| x == to), "{} does not reference {}", w[0].object.label, w[1].object.label);
        assert_eq!(w[1].retained, a.retained_size(to));
        assert_eq!(w[1].shallow, heap.shallow_size(to));
    }
    let n = p.steps.len();
    assert_eq!(p.steps[n - 1].object.object_id, table);
    assert_eq!(p.steps[n - 1].via.as_ref().map(|v| (v.kind.clone(), v.name.as_str())), Some((ViaKind::Field, "table")));
    assert_eq!(p.steps[n - 2].object.object_id, map);
    assert_eq!(p.steps[n - 2].via.as_ref().map(|v| (v.kind.clone(), v.name.as_str())), Some((ViaKind::StaticField, field)));
    assert_eq!(p.steps[n - 3].object.label, format!("class {class}"));
    // The suspect itself is on the path and dominates the accumulation point.
    let suspect = s.object.as_ref().unwrap().object_id;
    assert!(p.steps.iter().any(|st| st.object.object_id == suspect));
    let mut d = Some(table);
    while let Some(x) = d.filter(|&x| x != suspect) {
        d = a.immediate_dominator(x);
    }
    assert_eq!(d, Some(suspect));
    // What the sessions retain is mostly their 4 KiB buffers.
    let sessions = s.retained_by_class.rows.iter().find(|r| r.class_name == "Demo$Session").unwrap();
    assert_eq!(sessions.objects, 400);
    assert_eq!(s.retained_by_class.rows[0].class_name, "byte[]");
    assert!(s.keywords.contains(&format!("{class}.{field}")));
    assert!(s.explanation.contains(&format!("{class}.{field}")), "{}", s.explanation);
}

/// The GC roots section counts the dump's root records, as `heapql summary` does: by kind,
/// adding up to the total, the same in either mode; the analysis's pseudo-roots of unreachable
/// objects are counted apart, never as GC roots.
fn assert_gc_roots_are_the_dumps(heap: &Heap, data: &ReportData, records: u64) {
    let (o, s) = (&data.overview, heap.summary());
    assert_eq!((o.gc_roots.total, o.gc_roots.objects), (s.gc_roots, s.gc_root_objects));
    assert_eq!(o.gc_roots.total, records);
    assert_eq!(o.gc_roots.by_kind.iter().map(|k| k.count).sum::<u64>(), o.gc_roots.total);
    assert!(!o.gc_roots.by_kind.iter().any(|k| k.kind == "Unreachable"));
    assert!(o.heap.unreachable_objects == 0 || o.heap.unreachable_pseudo_roots > 0 || o.reachable_only);
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn corpus_gc_roots_are_the_dumps_records() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/hprof-64.bin");
    let heap = Heap::open(&p, OpenOptions::default()).unwrap();
    for reachable_only in [false, true] {
        let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
        let data = build(&heap, &a, &ReportOptions::default()).unwrap();
        assert_eq!(data.overview.reachable_only, reachable_only);
        // The corpus README: 453 roots on 429 distinct objects.
        assert_gc_roots_are_the_dumps(&heap, &data, 453);
        assert_eq!(data.overview.gc_roots.objects, 429);
        assert_eq!(data.overview.heap.unreachable_pseudo_roots == 0, reachable_only);
    }
}

#[test]
fn demo_overview_threads_and_classes_match_the_facts() {
    let (heap, a, data) = open_and_report(&fixtures().join("demo/demo.hprof"));
    let f = facts(&fixtures().join("demo/demo.facts.json"));
    let o = &data.overview;
    assert!(o.system_properties.iter().any(|p| p.key == "heapql.fixture" && p.value == "yes"));
    assert!(o.system_properties.windows(2).all(|w| w[0].key < w[1].key));
    assert_eq!(o.jvm_version.as_deref().map(|v| v.starts_with(f["java_version"].as_str().unwrap())), Some(true));
    assert_eq!(o.heap.used_heap, a.total_size());
    assert_eq!(o.heap.objects, heap.object_count() as u64);
    for c in f["classes"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let row = o.class_histogram.rows.iter().find(|r| r.class_name == name).unwrap();
        assert_eq!(row.instances, c["instances"].as_u64().unwrap(), "{name}");
        assert_eq!(row.class_loader.as_deref(), Some("app"), "{name}");
    }
    assert_eq!(o.class_histogram.rows.len() as u64, o.class_histogram.classes);
    let app = o.class_loaders.iter().find(|l| l.name == "app").unwrap();
    assert_eq!(app.loader.as_ref().unwrap().class_name, "jdk.internal.loader.ClassLoaders$AppClassLoader");
    assert_eq!(app.loader_retained, Some(a.retained_size(app.loader.as_ref().unwrap().object_id)));
    assert!(o.class_loaders.iter().any(|l| l.name == "<bootstrap>" && l.loader.is_none()));
    assert_gc_roots_are_the_dumps(&heap, &data, 753);
    let kinds: Vec<(&str, u64)> = o.gc_roots.by_kind.iter().map(|k| (k.kind.as_str(), k.count)).collect();
    assert_eq!(kinds, [("System Class", 639), ("Java Local", 66), ("JNI Global", 36), ("Thread", 11), ("JNI Local", 1)]);

    for t in f["threads"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let th = data.threads.threads.iter().find(|x| x.name.as_deref() == Some(name)).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(th.daemon, t["daemon"].as_bool(), "{name}");
        assert_eq!(th.object.label, name);
        assert_eq!(th.context_class_loader.as_deref(), Some("app"));
        assert!(th.state.is_some() && th.priority == Some(5), "{name}");
        for m in t["frame_methods"].as_array().into_iter().flatten() {
            let m = format!("Demo$RequestHandler.{}", m.as_str().unwrap());
            assert!(th.frames.iter().any(|fr| fr.method == m), "{name}: no frame {m}");
        }
    }
    // The workers wait on a latch; their 64 KiB request buffer is a local of processSession.
    let w = data.threads.threads.iter().find(|x| x.name.as_deref() == Some("http-worker-1")).unwrap();
    assert_eq!(w.state.as_deref(), Some("WAITING"));
    let frame = w.frames.iter().find(|fr| fr.method.ends_with(".processSession")).unwrap();
    assert!(frame.locals.iter().any(|l| l.object.class_name == "byte[]" && l.shallow == 64 * 1024 + 16));
    assert!(data.threads.threads.windows(2).all(|x| x[0].retained >= x[1].retained));
    let evictor = data.threads.threads.iter().find(|x| x.name.as_deref() == Some("cache-evictor")).unwrap();
    assert_eq!(evictor.state.as_deref(), Some("TIMED_WAITING"));
}

/// The class loaders' rows are the overview's count of loaders, and their defined classes add
/// up to the overview's classes, in both modes (under
/// `--reachable-only` both count the classes whose class object is reachable; the loaders'
/// rows counted every class beside instances of reachable objects only).
#[test]
fn class_loader_rows_count_the_classes_the_overview_counts() {
    let path = fixtures().join("demo/demo.hprof");
    let heap = Heap::open(&path, OpenOptions::default()).unwrap();
    for reachable_only in [false, true] {
        let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
        let data = build(&heap, &a, &ReportOptions { limit: 1_000_000, ..Default::default() }).unwrap();
        let o = &data.overview;
        let defined: u64 = o.class_loaders.iter().map(|l| l.defined_classes).sum();
        assert_eq!(defined, o.heap.classes, "reachable_only {reachable_only}");
        // A row per loader the overview counts, those that define no class included.
        assert_eq!(o.class_loaders.len() as u64, o.heap.class_loaders, "reachable_only {reachable_only}");
    }
}

#[test]
fn known_heap_facts_hold_in_every_layout() {
    let dir = fixtures().join("dumps");
    let mut checked = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".facts.json") else { continue };
        let f = facts(&p);
        let (heap, a, data) = open_and_report(&dir.join(format!("{stem}.hprof")));
        // Class histogram: instances and shallow bytes of the program's classes.
        for c in f["classes"].as_array().unwrap() {
            let cname = c["name"].as_str().unwrap();
            let row = data.overview.class_histogram.rows.iter().find(|r| r.class_name == cname).unwrap();
            let n = c["instances"].as_u64().unwrap();
            assert_eq!((row.instances, row.shallow), (n, n * c["shallow"].as_u64().unwrap()), "{stem}: {cname}");
        }
        // Duplicate strings: 100 distinct Strings with one text, each with its own byte[].
        let dup = &f["duplicate_strings"];
        let text = dup["value"].as_str().unwrap();
        let count = dup["count"].as_u64().unwrap();
        let row = data.waste.duplicate_strings.top.iter().find(|s| s.value == text).unwrap();
        assert_eq!(row.count, count, "{stem}");
        let strings = static_target(&heap, "KnownHeap", "TEXTS");
        let array = object_field(&heap, strings, "duplicates");
        let first = match heap.array_element(array, 0) {
            Some(Value::Object(id)) => heap.index_of(id).unwrap(),
            other => panic!("{other:?}"),
        };
        let value = object_field(&heap, first, "value");
        assert_eq!(row.wasted_bytes, (count - 1) * (heap.shallow_size(first) + heap.shallow_size(value)), "{stem}");
        // The worker's frame local: retained as the facts say.
        let fact = f["retained"].as_array().unwrap().iter().find(|r| r["root"] == "frame_local").unwrap();
        let t = data.threads.threads.iter().find(|t| t.name.as_deref() == fact["thread"].as_str()).unwrap();
        let len = f["threads"][0]["frame_local_byte_array_length"].as_u64().unwrap() as u32;
        let local = t
            .frames
            .iter()
            .flat_map(|fr| fr.locals.iter())
            .find(|l| l.object.class_name == "byte[]" && heap.array_length(l.object.object_id) == Some(len))
            .unwrap_or_else(|| panic!("{stem}: no byte[{len}] local"));
        assert_eq!(local.retained, fact["retained"].as_u64().unwrap(), "{stem}");
        assert!(t.max_local_retained >= local.retained);
        // The worker holds itself (`this` of `Thread.run`): a local labelled as a thread, not by
        // its bare name, which reads like an instance of a class of that name.
        let own = t.frames.iter().flat_map(|fr| fr.locals.iter()).find(|l| l.object.object_id == t.object.object_id);
        assert_eq!(own.map(|l| l.object.label.as_str()), Some(format!("thread \"{}\"", fact["thread"].as_str().unwrap()).as_str()), "{stem}");
        // The class KnownHeap holds most of the heap (its CHAIN, 150 000 nodes in the full
        // scale, 15 000 in the lean one): a suspect. Its biggest child is the chain head; when
        // the chain keeps ≥ 70 % the walk follows it past MAT's 1000 levels (no accumulation
        // point), else it stops at the class at once.
        let s = data.leak_suspects.suspects.iter().find(|s| s.subject_kind == SubjectKind::Class).unwrap();
        let class_object = s.object.as_ref().unwrap().object_id;
        assert_eq!(s.object.as_ref().unwrap().label, "class KnownHeap");
        assert_eq!(s.retained, a.retained_size(class_object));
        let head = static_target(&heap, "KnownHeap", "CHAIN");
        let chain = f["retained"].as_array().unwrap().iter().find(|r| r["static_field"] == "CHAIN").unwrap();
        assert_eq!(a.retained_size(head), chain["retained"].as_u64().unwrap(), "{stem}");
        assert_eq!(a.dominated(class_object)[0], head);
        if a.retained_size(head) as f64 >= 0.7 * s.retained as f64 {
            assert!(s.accumulation_point.is_none(), "{stem}");
        } else {
            assert_eq!(s.accumulation_point.as_ref().unwrap().object.object_id, class_object, "{stem}");
        }
        assert!(f["system_properties"]["heapql.fixture"] == "yes");
        assert!(data.overview.system_properties.iter().any(|p| p.key == "heapql.fixture" && p.value == "yes"));
        checked += 1;
    }
    // JDK 17 and 25: compressed oops, none, no compressed class pointers; JDK 25 compact headers.
    assert_eq!(checked, 7);
}
