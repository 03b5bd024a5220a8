//! The waste checks' rules on hand-made dumps (hprof testkit), each where a real dump got it
//! wrong or left it unsaid: boxes the box caches hold, the overhead in unreachable objects told
//! apart, duplicate strings inside other findings, JDK ≤ 8 collection layouts, `-0.0f` tails.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions, Value};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use heapql_report::waste::{analyze, Check, HolderKind, Waste, WasteCategory, WasteOptions};

fn open(bytes: &[u8]) -> Heap {
    Heap::open_bytes(bytes, "test.hprof", OpenOptions::default()).unwrap()
}

fn waste_with(heap: &Heap, reachable_only: bool) -> Waste {
    let a = FullAnalysis::build(heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
    analyze(heap, &a, &WasteOptions { limit: 100, ..Default::default() }).unwrap()
}

/// The waste section as the full report makes it (its first step beside the dominators).
fn report_waste(heap: &Heap, reachable_only: bool) -> Waste {
    let mut warnings = Vec::new();
    let (a, _, pass) = heapql_report::analyze(heap, GraphOptions { reachable_only, ..Default::default() }, true, None, &mut warnings).unwrap();
    heapql_report::build_after(heap, &a, &heapql_report::ReportOptions { limit: 100, ..Default::default() }, pass).unwrap().waste
}

fn cat(w: &Waste, check: Check) -> &WasteCategory {
    w.categories.iter().find(|c| c.check == check).unwrap()
}

fn figures(w: &Waste, check: Check) -> (u64, u64) {
    let c = cat(w, check);
    (c.objects, c.overhead)
}

/// The boxes a box cache holds (`Integer$IntegerCache.cache`, raised by
/// `-XX:AutoBoxCacheMax`) are shared by every `valueOf` caller: no waste, also when the
/// application keeps them too, so that the cache array no longer dominates them (they read
/// `GC roots → java.lang.Integer`, 500 boxes of the tester's JDK 17 dump, 6,000 B). A box of the
/// same value made with `new Integer` is not the cache's, and counts.
#[test]
fn boxes_the_caches_hold_are_no_waste_whoever_else_holds_them() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let integer = b.class("java.lang.Integer", Some(obj), &[("value", BasicType::Int)]);
    let integer_array = b.class("java.lang.Integer[]", Some(obj), &[]);
    let cache_class = b.class("java.lang.Integer$IntegerCache", Some(obj), &[("unused", BasicType::Int)]);
    let app = b.class("app.Holder", Some(obj), &[]);
    // The cache of a JVM run with -XX:AutoBoxCacheMax=1009: −128..1009 (only the boxes above
    // 127 matter, the others are told by their value).
    let cached: Vec<u64> = (-128..=1009).map(|v| b.instance(integer, &[Val::Int(v)])).collect();
    let cache = b.object_array(integer_array, &cached);
    // Two statics name it, as on a JDK with class data sharing (`archivedCache`).
    b.set_statics(cache_class, &[("cache", Val::Obj(cache)), ("archivedCache", Val::Obj(cache)), ("high", Val::Int(1009))]);
    // The application keeps what Integer.valueOf(1000..1004) returned, and three boxes of
    // its own (new Integer(1000)).
    let shared: Vec<u64> = (1000..=1004).map(|v| cached[(v + 128) as usize]).collect();
    let shared_array = b.object_array(integer_array, &shared);
    let own: Vec<u64> = (0..3).map(|_| b.instance(integer, &[Val::Int(1000)])).collect();
    let own_array = b.object_array(integer_array, &own);
    b.set_statics(app, &[("SHARED", Val::Obj(shared_array)), ("OWN", Val::Obj(own_array))]);
    for c in [integer, integer_array, cache_class, app] {
        b.root_sticky_class(c);
    }
    let heap = open(&b.build());
    let own_size = heap.shallow_size(heap.index_of(own[0]).unwrap());
    for (how, w) in [("waste pass", waste_with(&heap, false)), ("beside the dominators", report_waste(&heap, false))] {
        let boxed = cat(&w, Check::BoxedPrimitives);
        assert_eq!((boxed.objects, boxed.overhead), (3, 3 * (own_size - 4)), "{how}: only the application's own boxes; rows {:#?}", boxed.rows);
        assert_eq!(boxed.rows.len(), 1, "{how}");
        assert_eq!(boxed.rows[0].holder.label, "app.Holder.OWN → java.lang.Integer", "{how}");
    }
}

/// The overhead in objects no GC root reaches (a dump taken without a collection holds the
/// GC's all-zero `int[]` fillers, megabytes of "zero tails") is told apart from the overhead a
/// change in the code would save: by each finding's own reachability, not by its holder (an
/// unreachable `app.Holder` keeps its empty list in the same `app.Holder.list` row as a
/// reachable one). The checks' rows keep them; with `--reachable-only` there are none.
#[test]
fn the_overhead_in_unreachable_objects_is_told_apart() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let list_class = b.class("java.util.ArrayList", Some(obj), &[("elementData", BasicType::Object), ("size", BasicType::Int)]);
    let holder_class = b.class("app.Holder", Some(obj), &[("list", BasicType::Object)]);
    let live_list = b.instance(list_class, &[Val::Obj(0), Val::Int(0)]);
    let live = b.instance(holder_class, &[Val::Obj(live_list)]);
    b.root_jni_global(live);
    let dead_list = b.instance(list_class, &[Val::Obj(0), Val::Int(0)]);
    let _dead = b.instance(holder_class, &[Val::Obj(dead_list)]);
    let filler = b.primitive_array(BasicType::Int, &[Val::Int(0); 100]);
    for c in [list_class, holder_class] {
        b.root_sticky_class(c);
    }
    let heap = open(&b.build());
    let idx = |id| heap.index_of(id).unwrap();
    let list = heap.shallow_size(idx(live_list));
    for (how, w) in [("waste pass", waste_with(&heap, false)), ("beside the dominators", report_waste(&heap, false))] {
        assert_eq!(w.overhead, 2 * list + 400, "{how}");
        assert_eq!((w.reachable_overhead, w.unreachable_overhead), (list, list + 400), "{how}");
        let percent = |b: u64| b as f64 * 100.0 / w.used_heap as f64;
        assert!((w.reachable_overhead_percent - percent(list)).abs() < 1e-9, "{how}");
        assert!((w.unreachable_overhead_percent - percent(list + 400)).abs() < 1e-9, "{how}");
        let empty = cat(&w, Check::EmptyCollections);
        assert_eq!(empty.rows.len(), 1, "{how}");
        assert_eq!((empty.rows[0].holder.label.as_str(), empty.rows[0].objects), ("app.Holder.list → java.util.ArrayList", 2), "{how}");
        let tails = cat(&w, Check::ZeroTailArrays);
        assert_eq!((tails.objects, tails.overhead, tails.rows[0].holder.kind), (1, 400, HolderKind::Unreachable), "{how}");
        assert_eq!(tails.rows[0].example.object_id, idx(filler));
    }
    for (how, w) in [("waste pass", waste_with(&heap, true)), ("beside the dominators", report_waste(&heap, true))] {
        assert_eq!((w.overhead, w.reachable_overhead, w.unreachable_overhead), (list, list, 0), "{how}, reachable only");
        assert_eq!(w.unreachable_overhead_percent, 0.0, "{how}");
    }
}

/// The duplicate strings' value table (`duplicateStrings.wastedBytes`, each value's bytes)
/// describes every String, while the `duplicateStrings` check leaves out the copies an empty
/// collection or an object waiting for finalization keeps alive (counted there, with their
/// retained size): the two differ by exactly those copies. Here a text kept once outside, one
/// copy held alone and two copies in the `tag` of empty subclasses of `ArrayList` (the tester's
/// `TaggedList`: 560 B of a 4,928 B table against the check's 4,368 B).
#[test]
fn duplicate_strings_inside_other_findings_are_in_the_table_only() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let list_class = b.class("java.util.ArrayList", Some(obj), &[("elementData", BasicType::Object), ("size", BasicType::Int)]);
    let tagged = b.class("app.TaggedList", Some(list_class), &[("tag", BasicType::Object)]);
    let kept = b.string("tagged-dup-text");
    let alone = b.string("tagged-dup-text");
    let inside: Vec<u64> = (0..2).map(|_| b.string("tagged-dup-text")).collect();
    let lists: Vec<u64> = inside.iter().map(|&s| b.instance(tagged, &[Val::Obj(s), Val::Obj(0), Val::Int(0)])).collect();
    let mut held = vec![kept, alone];
    held.extend(&lists);
    let holder = b.object_array(b.object_array_class, &held);
    b.root_jni_global(holder);
    for c in [list_class, tagged] {
        b.root_sticky_class(c);
    }
    let heap = open(&b.build());
    let idx = |id| heap.index_of(id).unwrap();
    let copy = |s: u64| {
        let Some(Value::Object(array)) = heap.field(idx(s), "value") else { panic!("a String's value") };
        heap.shallow_size(idx(s)) + heap.shallow_size(idx(array))
    };
    for (how, w) in [("waste pass", waste_with(&heap, false)), ("beside the dominators", report_waste(&heap, false))] {
        let d = &w.duplicate_strings;
        assert_eq!((d.duplicated_values, d.wasted_bytes), (1, 3 * copy(alone)), "{how}");
        assert_eq!((d.top[0].count, d.top[0].wasted_bytes), (4, 3 * copy(alone)), "{how}: the value's row counts every copy");
        assert_eq!(figures(&w, Check::DuplicateStrings), (1, copy(alone)), "{how}: the check, the copy held alone only");
        let list = heap.shallow_size(idx(lists[0]));
        assert_eq!(figures(&w, Check::EmptyCollections), (2, 2 * (list + copy(inside[0]))), "{how}: the lists pay for their tags");
        // The part of the table inside other findings is the table's bytes less the check's.
        assert_eq!(d.wasted_bytes - cat(&w, Check::DuplicateStrings).overhead, 2 * copy(inside[0]), "{how}");
        assert_eq!(w.overhead, figures(&w, Check::DuplicateStrings).1 + figures(&w, Check::EmptyCollections).1, "{how}: each byte once");
    }
}

/// Collections of an older JDK's layout: a JDK ≤ 8 `Properties` is a `Hashtable` (no map of
/// its own) and is judged as one (it was judged as nothing, and its table escaped the sparse
/// arrays as "a collection's"); a JDK ≤ 7 `ConcurrentHashMap` keeps `segments` and no
/// `baseCount`: not a collection to the checks, so its `Segment[]` with mostly null slots (JDK 7
/// creates segments lazily) is a sparse array like any other (it escaped every check).
#[test]
fn old_jdk_collection_layouts_are_judged_or_left_to_the_array_checks() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let hashtable = b.class("java.util.Hashtable", Some(obj), &[("table", BasicType::Object), ("count", BasicType::Int)]);
    let properties = b.class("java.util.Properties", Some(hashtable), &[("defaults", BasicType::Object)]);
    let entry_array = b.class("java.util.Hashtable$Entry[]", Some(obj), &[]);
    let abstract_map = b.class("java.util.AbstractMap", Some(obj), &[]);
    let chm = b.class("java.util.concurrent.ConcurrentHashMap", Some(abstract_map), &[("segments", BasicType::Object), ("segmentMask", BasicType::Int), ("segmentShift", BasicType::Int)]);
    let segment = b.class("java.util.concurrent.ConcurrentHashMap$Segment", Some(obj), &[("table", BasicType::Object), ("count", BasicType::Int)]);
    let segment_array = b.class("java.util.concurrent.ConcurrentHashMap$Segment[]", Some(obj), &[]);
    let app = b.class("app.Holder", Some(obj), &[]);
    let table = b.object_array(entry_array, &[0; 11]);
    // defaults, then the Hashtable's table and count.
    let props = b.instance(properties, &[Val::Obj(0), Val::Obj(table), Val::Int(0)]);
    let segments: Vec<u64> = (0..2).map(|_| b.instance(segment, &[Val::Obj(0), Val::Int(0)])).collect();
    let mut slots = vec![0u64; 16];
    slots[..2].copy_from_slice(&segments);
    let segment_slots = b.object_array(segment_array, &slots);
    let map = b.instance(chm, &[Val::Obj(segment_slots), Val::Int(15), Val::Int(28)]);
    b.set_statics(app, &[("PROPS", Val::Obj(props)), ("MAP", Val::Obj(map))]);
    for c in [hashtable, properties, entry_array, abstract_map, chm, segment, segment_array, app] {
        b.root_sticky_class(c);
    }
    let heap = open(&b.build());
    let idx = |id| heap.index_of(id).unwrap();
    let w = waste_with(&heap, false);
    let empty = cat(&w, Check::EmptyCollections);
    assert_eq!((empty.objects, empty.overhead), (1, heap.shallow_size(idx(props)) + heap.shallow_size(idx(table))), "{:#?}", empty.rows);
    assert_eq!(empty.rows[0].holder.label, "app.Holder.PROPS → java.util.Properties");
    let sparse = cat(&w, Check::SparseArrays);
    let reference = heap.size_model().ref_size as u64;
    assert_eq!((sparse.objects, sparse.overhead), (1, 14 * reference), "{:#?}", sparse.rows);
    assert_eq!(sparse.rows[0].example.object_id, idx(segment_slots));
    assert_eq!(figures(&w, Check::SmallCollections), (0, 0));
    assert_eq!(figures(&w, Check::SparseCollections), (0, 0));
}

/// A JDK 8+ `ConcurrentHashMap` whose count lies in counter cells is not judged (its size is not
/// read), and its table stays its own business, not a sparse array: a hash table a quarter
/// full is most slots null without being wasteful.
#[test]
fn a_concurrent_hash_map_with_counter_cells_keeps_its_table() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let chm = b.class("java.util.concurrent.ConcurrentHashMap", Some(obj), &[("table", BasicType::Object), ("baseCount", BasicType::Long), ("counterCells", BasicType::Object)]);
    let node = b.class("java.util.concurrent.ConcurrentHashMap$Node", Some(obj), &[("hash", BasicType::Int)]);
    let node_array = b.class("java.util.concurrent.ConcurrentHashMap$Node[]", Some(obj), &[]);
    let cell = b.class("java.util.concurrent.ConcurrentHashMap$CounterCell", Some(obj), &[("value", BasicType::Long)]);
    let cell_array = b.class("java.util.concurrent.ConcurrentHashMap$CounterCell[]", Some(obj), &[]);
    let app = b.class("app.Holder", Some(obj), &[]);
    let nodes: Vec<u64> = (0..4).map(|h| b.instance(node, &[Val::Int(h)])).collect();
    let mut slots = vec![0u64; 16];
    slots[..4].copy_from_slice(&nodes);
    let table = b.object_array(node_array, &slots);
    let cells: Vec<u64> = (0..2).map(|_| b.instance(cell, &[Val::Long(2)])).collect();
    let counter_cells = b.object_array(cell_array, &cells);
    let map = b.instance(chm, &[Val::Obj(table), Val::Long(0), Val::Obj(counter_cells)]);
    b.set_statics(app, &[("MAP", Val::Obj(map))]);
    for c in [chm, node, node_array, cell, cell_array, app] {
        b.root_sticky_class(c);
    }
    let heap = open(&b.build());
    let w = waste_with(&heap, false);
    assert_eq!(w.overhead, 0, "{:#?}", w.categories.iter().filter(|c| c.objects > 0).collect::<Vec<_>>());
}

/// A zero tail is a run of all-zero bits, what memory holds: trailing `-0.0f` (sign bit set)
/// is not one, trailing `0.0f` is.
#[test]
fn a_zero_tail_is_all_zero_bits() {
    let mut b = DumpBuilder::new(8);
    let values = |tail: f32| -> Vec<Val> { (0..8).map(|i| Val::Float(if i == 0 { 1.0 } else { tail })).collect() };
    let (negative, positive) = (values(-0.0), values(0.0));
    let negative = b.primitive_array(BasicType::Float, &negative);
    let positive = b.primitive_array(BasicType::Float, &positive);
    let holder = b.object_array(b.object_array_class, &[negative, positive]);
    b.root_jni_global(holder);
    let heap = open(&b.build());
    let w = waste_with(&heap, false);
    let tails = cat(&w, Check::ZeroTailArrays);
    assert_eq!((tails.objects, tails.overhead), (1, 7 * 4));
    assert_eq!(tails.rows[0].example.object_id, heap.index_of(positive).unwrap());
}

/// The reachable part of the overhead is what `--reachable-only` counts for the same dump,
/// also where the copy a duplicate group keeps (the lowest object index) is garbage: the
/// reachable copies are then judged among themselves, as `--reachable-only` sees them (the
/// lowest-index reachable copy is kept, the others cost their String and their array unless
/// an earlier reachable copy of the text holds it), and the kept garbage copy's own finding
/// (a Latin-1 candidate, a zero tail) is reachable when a reachable copy would have it. The
/// rows keep every copy, as before: one garbage copy at a lower index than one reachable
/// copy made the reachable one "the redundant copy", counted reachable, while
/// `--reachable-only` counted nothing.
#[test]
fn the_reachable_part_of_duplicate_strings_is_what_reachable_only_counts() {
    let mut b = DumpBuilder::new(8);
    let mut held = Vec::new();
    // One garbage copy, then one reachable copy.
    let _garbage = b.string("garbage-first-text");
    let live = b.string("garbage-first-text");
    held.push(live);
    // Shared arrays: a garbage copy over X, reachable copies over Y and X.
    let x = b.byte_array(b"shared-array-text");
    let y = b.byte_array(b"shared-array-text");
    let _g2 = b.string_over(x, 0);
    let r1 = b.string_over(y, 0);
    let r2 = b.string_over(x, 0);
    held.extend([r1, r2]);
    // A reachable copy first, then a garbage copy and a reachable one sharing an array Z.
    let r3 = b.string("reachable-first-text");
    let z = b.byte_array(b"reachable-first-text");
    let _g3 = b.string_over(z, 0);
    let r4 = b.string_over(z, 0);
    held.extend([r3, r4]);
    // A UTF-16 text that fits Latin-1: its garbage copy comes first.
    let units: Vec<u16> = "a utf-16 text whose chars all fit in latin-1".encode_utf16().collect();
    let _g4 = b.utf16_string(&units);
    let l4 = b.utf16_string(&units);
    held.push(l4);
    let holder = b.object_array(b.object_array_class, &held);
    b.root_jni_global(holder);
    let heap = open(&b.build());
    let idx = |id| heap.index_of(id).unwrap();
    let string = heap.shallow_size(idx(live));
    let array = |s: u64| {
        let Some(Value::Object(a)) = heap.field(idx(s), "value") else { panic!("a String's value") };
        heap.shallow_size(idx(a))
    };
    // Every redundant copy, as the rows counted them before (the lowest index kept).
    let rows = (string + array(live)) + (2 * string + array(r1)) + (2 * string + array(r4)) + (string + array(l4));
    let latin1 = array(l4) - heap.size_model().array_size(1, units.len() as u64);
    for (how, full, reachable_only) in [
        ("waste pass", waste_with(&heap, false), waste_with(&heap, true)),
        ("beside the dominators", report_waste(&heap, false), report_waste(&heap, true)),
    ] {
        assert_eq!(figures(&full, Check::DuplicateStrings), (6, rows), "{how}: the rows count every copy");
        assert_eq!(figures(&full, Check::Latin1Strings), (1, latin1), "{how}");
        assert_eq!(figures(&reachable_only, Check::DuplicateStrings), (2, (string + array(r2)) + (string + array(r4))), "{how}, reachable only");
        assert_eq!(figures(&reachable_only, Check::Latin1Strings), (1, latin1), "{how}, reachable only");
        assert_eq!(full.reachable_overhead, reachable_only.overhead, "{how}: the reachable part is what --reachable-only counts");
        assert_eq!(full.unreachable_overhead, full.overhead - full.reachable_overhead, "{how}");
        assert_eq!(reachable_only.reachable_overhead, reachable_only.overhead, "{how}");
    }
}

/// `the_reachable_part_of_duplicate_strings_is_what_reachable_only_counts` for duplicate
/// primitive arrays: a garbage copy first, then a reachable one (nothing reachable is
/// redundant), with a zero tail (the reachable copy has it), and a group whose kept copy is
/// reachable (one reachable copy is redundant, the garbage one is not reachable waste).
#[test]
fn the_reachable_part_of_duplicate_arrays_is_what_reachable_only_counts() {
    let mut b = DumpBuilder::new(8);
    let ints = |v: &[i32]| -> Vec<Val> { v.iter().map(|&x| Val::Int(x)).collect() };
    let plain = ints(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let tailed = ints(&[9, 0, 0, 0, 0, 0, 0, 0]);
    let other = ints(&[5, 4, 3, 2, 1, 2, 3, 4]);
    let _garbage = b.primitive_array(BasicType::Int, &plain);
    let live = b.primitive_array(BasicType::Int, &plain);
    let _garbage_tail = b.primitive_array(BasicType::Int, &tailed);
    let live_tail = b.primitive_array(BasicType::Int, &tailed);
    let kept = b.primitive_array(BasicType::Int, &other);
    let _garbage_other = b.primitive_array(BasicType::Int, &other);
    let live_other = b.primitive_array(BasicType::Int, &other);
    let holder = b.object_array(b.object_array_class, &[live, live_tail, kept, live_other]);
    b.root_jni_global(holder);
    let heap = open(&b.build());
    let size = heap.shallow_size(heap.index_of(live).unwrap());
    for (how, full, reachable_only) in [
        ("waste pass", waste_with(&heap, false), waste_with(&heap, true)),
        ("beside the dominators", report_waste(&heap, false), report_waste(&heap, true)),
    ] {
        assert_eq!(figures(&full, Check::DuplicateArrays), (4, 4 * size), "{how}: the rows count every copy");
        assert_eq!(figures(&full, Check::ZeroTailArrays), (1, 7 * 4), "{how}: the garbage copy's tail");
        assert_eq!(figures(&reachable_only, Check::DuplicateArrays), (1, size), "{how}, reachable only");
        assert_eq!(figures(&reachable_only, Check::ZeroTailArrays), (1, 7 * 4), "{how}, reachable only");
        assert_eq!(full.reachable_overhead, reachable_only.overhead, "{how}: the reachable part is what --reachable-only counts");
        assert_eq!(full.unreachable_overhead, full.overhead - full.reachable_overhead, "{how}");
    }
}

/// JDK ≤ 7u5 Strings (`value char[]`, `offset`, `count`) may read a window of an array other
/// Strings read too (`substring`): dropping such a copy frees its String, not the array, which
/// Strings of another text still need. So a redundant copy pays for its array only when every
/// String that reads it is a copy of the same text (then once, however many copies share it).
/// The JDK 6 corpus dump counted a `.` at 1,816 B (its String and the class path's `char[883]`,
/// read by 26 Strings) and a 58-character path at 10,400 B: 30,264 B in all, 14,480 B freed.
#[test]
fn a_duplicate_string_over_a_window_of_an_array_other_texts_read_costs_its_string_alone() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let string = b.class("java.lang.String", Some(obj), &[("value", BasicType::Object), ("offset", BasicType::Int), ("count", BasicType::Int), ("hash", BasicType::Int)]);
    let chars = |b: &mut DumpBuilder, s: &str| {
        let units: Vec<Val> = s.encode_utf16().map(Val::Char).collect();
        b.primitive_array(BasicType::Char, &units)
    };
    let over = |b: &mut DumpBuilder, value: u64, offset: i32, count: i32| b.instance(string, &[Val::Obj(value), Val::Int(offset), Val::Int(count), Val::Int(0)]);
    // "." kept over its own char[1]; a copy reads the middle of "a.b"'s array.
    let own_dot = chars(&mut b, ".");
    let kept_dot = over(&mut b, own_dot, 0, 1);
    let path = chars(&mut b, "a.b");
    let whole = over(&mut b, path, 0, 3);
    let window_dot = over(&mut b, path, 1, 1);
    // "q" kept over its own array; a copy over an array of its own; two copies sharing one.
    let a = chars(&mut b, "q");
    let q0 = over(&mut b, a, 0, 1);
    let own = chars(&mut b, "q");
    let q1 = over(&mut b, own, 0, 1);
    let shared = chars(&mut b, "q");
    let q2 = over(&mut b, shared, 0, 1);
    let q3 = over(&mut b, shared, 0, 1);
    let holder = b.object_array(b.object_array_class, &[kept_dot, whole, window_dot, q0, q1, q2, q3]);
    b.root_jni_global(holder);
    b.root_sticky_class(string);
    let heap = open(&b.build());
    let idx = |id| heap.index_of(id).unwrap();
    let s = heap.shallow_size(idx(window_dot));
    let (own_size, shared_size) = (heap.shallow_size(idx(own)), heap.shallow_size(idx(shared)));
    for (how, w) in [("waste pass", waste_with(&heap, false)), ("beside the dominators", report_waste(&heap, false))] {
        let d = &w.duplicate_strings;
        let value = |text: &str| d.top.iter().find(|v| v.value == text).unwrap_or_else(|| panic!("{how}: {text:?} among {:?}", d.top));
        assert_eq!((value(".").count, value(".").wasted_bytes), (2, s), "{how}: the window's String alone, not \"a.b\"'s array");
        assert_eq!((value("q").count, value("q").wasted_bytes), (4, 3 * s + own_size + shared_size), "{how}: arrays only copies of the text read, each once");
        assert_eq!((d.duplicated_values, d.wasted_bytes), (2, 4 * s + own_size + shared_size), "{how}");
        assert_eq!(figures(&w, Check::DuplicateStrings), (4, 4 * s + own_size + shared_size), "{how}: the check's rows alike");
        // What --reachable-only counts: every copy is reachable here, so the same.
        assert_eq!(w.reachable_overhead, w.overhead, "{how}");
    }
}
