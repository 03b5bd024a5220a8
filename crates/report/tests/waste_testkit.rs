//! The waste checks on hand-made dumps (hprof testkit): the string groups of the two halves of
//! the object range joined correctly, and the holder kinds (field, indirect, root, unreachable).

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use heapql_report::waste::{analyze, Check, HolderKind, Waste, WasteOptions};

fn waste_of(bytes: &[u8]) -> (Heap, Waste) {
    let heap = Heap::open_bytes(bytes, "test.hprof", OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let w = analyze(&heap, &a, &WasteOptions { limit: 100, ..Default::default() }).unwrap();
    (heap, w)
}

/// Texts whose copies sit in the lower half only, the upper half only, or both (one and
/// several on each side): every way the second core's groups can meet the first's.
#[test]
fn duplicate_strings_join_across_the_two_halves() {
    let mut b = DumpBuilder::new(8);
    let filler_class = b.class("app.Filler", Some(b.object_class), &[]);
    let low: Vec<u64> = ["a", "b", "b", "c", "d", "d", "lonely-low"].iter().map(|t| b.string(t)).collect();
    // Enough plain objects that the lower and upper groups fall on different cores.
    let fillers: Vec<u64> = (0..4000).map(|_| b.instance(filler_class, &[])).collect();
    let high: Vec<u64> = ["a", "b", "c", "c", "d", "d", "e", "e", "e", "lonely-high"].iter().map(|t| b.string(t)).collect();
    let all: Vec<u64> = low.iter().chain(&fillers).chain(&high).copied().collect();
    let list = b.object_array(b.object_array_class, &all);
    b.root_jni_global(list);
    let bytes = b.build();
    let (heap, w) = waste_of(&bytes);
    let mid = heap.object_count() / 2;
    let first_filler = heap.index_of(fillers[0]).unwrap();
    let last_filler = heap.index_of(*fillers.last().unwrap()).unwrap();
    assert!(first_filler < mid && mid < last_filler, "the halves split inside the fillers");

    let d = &w.duplicate_strings;
    assert_eq!(d.strings, 17);
    assert_eq!(d.distinct, 7);
    assert_eq!(d.duplicated_values, 5);
    let count = |t: &str| d.top.iter().find(|s| s.value == t).map(|s| s.count);
    assert_eq!([count("a"), count("b"), count("c"), count("d"), count("e")], [Some(2), Some(3), Some(3), Some(4), Some(3)]);
    // Every copy has its own array of equal size: waste = (copies − texts) × (String + array).
    let s = heap.shallow_size(heap.index_of(low[0]).unwrap());
    let arr = match heap.field(heap.index_of(low[0]).unwrap(), "value") {
        Some(heapql_heap::Value::Object(id)) => heap.shallow_size(heap.index_of(id).unwrap()),
        other => panic!("{other:?}"),
    };
    let redundant = (2 + 3 + 3 + 4 + 3) - 5;
    assert_eq!(d.wasted_bytes, redundant * (s + arr));
    let cat = w.categories.iter().find(|c| c.check == Check::DuplicateStrings).unwrap();
    assert_eq!((cat.objects, cat.overhead), (redundant, d.wasted_bytes));
}

/// Empty `java.util.ArrayList`s (no backing array) held four ways.
#[test]
fn holders_name_the_field_or_say_why_there_is_none() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let list_class = b.class("java.util.ArrayList", Some(obj), &[("elementData", BasicType::Object), ("size", BasicType::Int)]);
    let box_class = b.class("java.util.Box", Some(obj), &[("item", BasicType::Object)]);
    let owner_class = b.class("app.Owner", Some(obj), &[("direct", BasicType::Object), ("left", BasicType::Object), ("right", BasicType::Object)]);
    let empty = |b: &mut DumpBuilder| b.instance(list_class, &[Val::Obj(0), Val::Int(0)]);
    // Owner.direct → list: a field.
    let direct = empty(&mut b);
    // Owner.left → Box → list ← Box ← Owner.right: the owner dominates it through two paths.
    let shared = empty(&mut b);
    let (l, r) = (b.instance(box_class, &[Val::Obj(shared)]), b.instance(box_class, &[Val::Obj(shared)]));
    let owner = b.instance(owner_class, &[Val::Obj(direct), Val::Obj(l), Val::Obj(r)]);
    b.root_jni_global(owner);
    // A list that is itself a GC root, and one nothing references.
    let rooted = empty(&mut b);
    b.root_jni_global(rooted);
    let _garbage = empty(&mut b);
    let bytes = b.build();
    let (heap, w) = waste_of(&bytes);
    let cat = w.categories.iter().find(|c| c.check == Check::EmptyCollections).unwrap();
    let mut labels: Vec<(HolderKind, String, u64)> = cat.rows.iter().map(|r| (r.holder.kind, r.holder.label.clone(), r.objects)).collect();
    labels.sort();
    assert_eq!(
        labels,
        vec![
            (HolderKind::Field, "app.Owner.direct → java.util.ArrayList".to_string(), 1),
            (HolderKind::Indirect, "app.Owner (several paths) → java.util.ArrayList".to_string(), 1),
            (HolderKind::Root, "GC roots → java.util.ArrayList".to_string(), 1),
            (HolderKind::Unreachable, "unreachable → java.util.ArrayList".to_string(), 1),
        ]
    );
    let s = heap.shallow_size(heap.index_of(direct).unwrap());
    assert!(cat.rows.iter().all(|r| r.overhead == s), "an empty list without an array costs its shallow size");
}

/// Duplicate byte arrays whose first copies together (6 MiB) exceed one verification pass's
/// content budget (3 MiB for arrays on a small dump: ¾ of 4 MiB), the copies interleaved
/// through the dump: every copy but the lowest-index one of each content is redundant,
/// whatever pass checks it; an array of equal bytes but another type is not a copy.
#[test]
fn duplicate_arrays_are_verified_in_several_passes() {
    let mut b = DumpBuilder::new(8);
    const MIB: usize = 1 << 20;
    let contents: Vec<Vec<u8>> = (0..6u8).map(|k| (0..MIB).map(|i| (i as u8).wrapping_mul(k + 1).wrapping_add(k) | 1).collect()).collect();
    // Copies per content: 2, 3, 2, 3, 2, 3, laid out round-robin so each group spans the dump.
    let mut ids = Vec::new();
    for round in 0..3 {
        for (k, c) in contents.iter().enumerate() {
            if round < 2 + k % 2 {
                ids.push(b.byte_array(c));
            }
        }
    }
    // The same bytes as content 0, typed as long[]: another class, never its copy.
    let longs: Vec<Val> = contents[0].chunks(8).map(|w| Val::Long(i64::from_le_bytes(w.try_into().unwrap()))).collect();
    ids.push(b.primitive_array(BasicType::Long, &longs));
    let list = b.object_array(b.object_array_class, &ids);
    b.root_jni_global(list);
    let bytes = b.build();
    let (heap, w) = waste_of(&bytes);
    let cat = w.categories.iter().find(|c| c.check == Check::DuplicateArrays).unwrap();
    let copies = (2 + 3 + 2 + 3 + 2 + 3) - 6;
    let array = heap.shallow_size(heap.index_of(ids[0]).unwrap());
    assert_eq!((cat.objects, cat.overhead), (copies, copies * array));
}

/// A String's value array is judged with the String (the duplicate strings count it): never a
/// duplicate or a zero tail of its own, even when two Strings share it (a JDK 6 substring),
/// which then neither dominates; an array no String holds is. Here five `byte[] "abc"` (one a
/// String's own, one shared by two Strings, one the own array of a String that comes before
/// it in the dump's order, two held alone) make one redundant copy, the later of the two alone
/// (the shared one counted there too was a byte counted twice), and of two arrays with a long
/// zero tail only the one no String owns counts. Both ways of making the checks' first step
/// (in the waste pass, and beside the dominators with the report's object pass) agree.
#[test]
fn a_strings_own_array_is_judged_with_the_string() {
    let mut b = DumpBuilder::new(8);
    let own = b.string("abc");
    let shared = b.byte_array(b"abc");
    let s1 = b.instance(b.string_class, &[Val::Obj(shared), Val::Byte(0), Val::Int(0)]);
    let s2 = b.instance(b.string_class, &[Val::Obj(shared), Val::Byte(0), Val::Int(0)]);
    // The String's id is lower than its array's, so it comes first in object order.
    let before = b.alloc_id();
    let after = b.byte_array(b"abc");
    b.instance_with_id(before, b.string_class, &[Val::Obj(after), Val::Byte(0), Val::Int(0)]);
    let alone = b.byte_array(b"abc");
    let alone2 = b.byte_array(b"abc");
    let own_tail = b.string("y\0\0\0\0\0");
    let alone_tail = b.byte_array(b"z\0\0\0\0\0");
    let list = b.object_array(b.object_array_class, &[own, s1, s2, before, alone, alone2, own_tail, alone_tail]);
    b.root_jni_global(list);
    let bytes = b.build();
    let (heap, w) = waste_of(&bytes);
    let mut warnings = Vec::new();
    let (a, _, pass) = heapql_report::analyze(&heap, GraphOptions::default(), true, None, &mut warnings).unwrap();
    assert!(pass.is_some(), "a pass made beside the dominators");
    let report = heapql_report::build_after(&heap, &a, &heapql_report::ReportOptions { limit: 100, ..Default::default() }, pass).unwrap();
    let idx = |id| heap.index_of(id).unwrap();
    assert!(idx(before) < idx(after), "the String before its array");
    let copy = idx(alone).max(idx(alone2));
    for (how, w) in [("waste pass", &w), ("beside the dominators", &report.waste)] {
        let dups = w.categories.iter().find(|c| c.check == Check::DuplicateArrays).unwrap();
        assert_eq!((dups.objects, dups.overhead), (1, heap.shallow_size(copy)), "{how}");
        assert_eq!(dups.rows[0].example.object_id, copy, "{how}: the later of the two arrays no String owns");
        // The shared array is paid for once, by the duplicate strings (s1's copy); the String
        // before its array pays for both.
        let strings = w.categories.iter().find(|c| c.check == Check::DuplicateStrings).unwrap();
        let string = heap.shallow_size(idx(s1));
        let want = 3 * string + heap.shallow_size(idx(shared)) + heap.shallow_size(idx(after));
        assert_eq!((strings.objects, strings.overhead), (3, want), "{how}");
        let tails = w.categories.iter().find(|c| c.check == Check::ZeroTailArrays).unwrap();
        assert_eq!((tails.objects, tails.overhead), (1, 5), "{how}");
        assert_eq!(tails.rows[0].example.object_id, idx(alone_tail), "{how}");
    }
}

/// ART's hprof writer gives a class a `$classOverhead` static holding a zero-filled `byte[]`
/// that stands for the class's native size: no code change saves it, so neither duplicate
/// arrays nor zero tails count it. The application's own arrays of the same content still
/// count (the first of them is now the kept copy), and so does such an array when something
/// else holds it too (the class alone does not dominate it). Dalvik and early ART name the
/// static `$staticOverhead`: the same.
#[test]
fn art_class_overhead_arrays_are_not_waste() {
    for name in ["$classOverhead", "$staticOverhead"] {
        class_overhead_arrays_are_not_waste(name);
    }
}

fn class_overhead_arrays_are_not_waste(static_name: &str) {
    // 4-byte ids and `$classOverhead` statics: read as an Android dump.
    let mut b = DumpBuilder::new(4);
    let obj = b.object_class;
    let holder_class = b.class("app.Holder", Some(obj), &[("a", BasicType::Object), ("b", BasicType::Object), ("shared", BasicType::Object)]);
    let mut classes = Vec::new();
    let mut overhead = Vec::new();
    for name in ["app.A", "app.B", "app.C", "app.D"] {
        let c = b.class_full(name, Some(obj), 0, &[], &[]);
        let len = if name == "app.D" { 50 } else { 100 };
        let arr = b.byte_array(&vec![0u8; len]);
        b.set_statics(c, &[(static_name, Val::Obj(arr))]);
        b.root_sticky_class(c);
        classes.push(c);
        overhead.push(arr);
    }
    let own1 = b.byte_array(&[0u8; 100]);
    let own2 = b.byte_array(&[0u8; 100]);
    let holder = b.instance(holder_class, &[Val::Obj(own1), Val::Obj(own2), Val::Obj(overhead[3])]);
    b.root_jni_global(holder);
    let bytes = b.build();
    let (heap, w) = waste_of(&bytes);
    let idx = |id: u64| heap.index_of(id).unwrap();
    for (&c, &arr) in classes.iter().zip(&overhead) {
        let c = heap.class_described_by(idx(c)).unwrap();
        assert_eq!(heap.class_overhead_array(c), Some(idx(arr)), "{static_name}: {}", heap.class(c).name);
    }
    let cat = |check: Check| w.categories.iter().find(|c| c.check == check).unwrap();
    let dup = cat(Check::DuplicateArrays);
    assert_eq!((dup.objects, dup.overhead), (1, heap.shallow_size(idx(own2))), "{static_name}");
    assert_eq!(dup.rows[0].holder.label, "app.Holder.b → byte[]");
    let tails = cat(Check::ZeroTailArrays);
    assert_eq!((tails.objects, tails.overhead), (2, 100 + 50), "{static_name}");
    let mut examples: Vec<u32> = tails.rows.iter().map(|r| r.example.object_id).collect();
    examples.sort_unstable();
    assert_eq!(examples, vec![idx(overhead[3]), idx(own1)]);
    assert_eq!(w.overhead, dup.overhead + tails.overhead);
}

/// A finding counted with its whole retained size pays for everything it keeps alive, so no
/// other check counts those objects again: an empty subclass of `ArrayList` with a big array
/// of its own, and an object waiting for finalization holding arrays. Their arrays are later
/// copies of arrays held alone and have zero tails, so without the rule the duplicate arrays
/// and the zero tails counted them a second time (the total could pass the heap's size). The
/// resource's own empty list is a finding inside a finding: counted by the outer one only.
#[test]
fn what_a_whole_finding_keeps_alive_is_counted_once() {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let list_class = b.class("java.util.ArrayList", Some(obj), &[("elementData", BasicType::Object), ("size", BasicType::Int)]);
    let my_list = b.class("app.MyList", Some(list_class), &[("buf", BasicType::Object)]);
    let queue_class = b.class("java.lang.ref.ReferenceQueue", Some(obj), &[]);
    let enqueued = b.instance(queue_class, &[]);
    b.set_statics(queue_class, &[("ENQUEUED", Val::Obj(enqueued))]);
    let finalizer_class = b.class("java.lang.ref.Finalizer", Some(obj), &[("queue", BasicType::Object), ("referent", BasicType::Object)]);
    let resource_class = b.class("app.Resource", Some(obj), &[("a", BasicType::Object), ("b", BasicType::Object), ("c", BasicType::Object)]);
    let content = |k: u8| -> Vec<u8> { (0..4000).map(|i| if i < 10 { k + 1 } else { 0 }).collect() };
    // The first copies, held alone, come first in the dump's order: they are the kept ones.
    let kept: Vec<u64> = (0..3).map(|k| b.byte_array(&content(k))).collect();
    let buf = b.byte_array(&content(0));
    let list = b.instance(my_list, &[Val::Obj(buf), Val::Obj(0), Val::Int(0)]);
    let (ra, rb) = (b.byte_array(&content(1)), b.byte_array(&content(2)));
    // A finding inside a finding: an empty list with its own array, held by the resource only.
    let buf2 = b.byte_array(&content(0));
    let list2 = b.instance(my_list, &[Val::Obj(buf2), Val::Obj(0), Val::Int(0)]);
    let resource = b.instance(resource_class, &[Val::Obj(ra), Val::Obj(rb), Val::Obj(list2)]);
    let finalizer = b.instance(finalizer_class, &[Val::Obj(enqueued), Val::Obj(resource)]);
    let mut held = kept.clone();
    held.extend([list, finalizer]);
    let holder = b.object_array(b.object_array_class, &held);
    b.root_jni_global(holder);
    // The classes are the system's: their instances do not keep them alive.
    for c in [my_list, resource_class, finalizer_class, queue_class] {
        b.root_sticky_class(c);
    }
    let bytes = b.build();
    let (heap, w) = waste_of(&bytes);
    let mut warnings = Vec::new();
    let (a, _, pass) = heapql_report::analyze(&heap, GraphOptions::default(), true, None, &mut warnings).unwrap();
    let report = heapql_report::build_after(&heap, &a, &heapql_report::ReportOptions { limit: 100, ..Default::default() }, pass).unwrap();
    let idx = |id| heap.index_of(id).unwrap();
    let size = |id| heap.shallow_size(idx(id));
    for (how, w) in [("waste pass", &w), ("beside the dominators", &report.waste)] {
        let cat = |check| w.categories.iter().find(|c| c.check == check).unwrap();
        let empty = cat(Check::EmptyCollections);
        assert_eq!((empty.objects, empty.overhead), (1, size(list) + size(buf)), "{how}: the list and its own array, not the resource's list");
        let pending = cat(Check::PendingFinalization);
        let held = size(resource) + size(ra) + size(rb) + size(list2) + size(buf2);
        assert_eq!((pending.objects, pending.overhead), (1, held), "{how}: the referent, its arrays and its empty list");
        let (dups, tails) = (cat(Check::DuplicateArrays), cat(Check::ZeroTailArrays));
        assert_eq!((dups.objects, dups.overhead), (0, 0), "{how}: the later copies are paid for by the findings holding them");
        // The kept copies alone have zero tails of their own: 3 × 3990 bytes.
        assert_eq!((tails.objects, tails.overhead), (3, 3 * 3990), "{how}: only the arrays held alone");
        let sum: u64 = w.categories.iter().map(|c| c.overhead).sum();
        assert_eq!(w.overhead, sum, "{how}");
        assert!(w.overhead <= w.used_heap, "{how}: {} of {}", w.overhead, w.used_heap);
    }
}

/// An array a thread's stack frame holds in a local variable is held by that thread: one row
/// per thread, named (it read `java.lang.Thread (several paths) → long[]`, every thread's
/// locals in one row, though each array has one holder).
#[test]
fn stack_locals_are_held_by_their_thread() {
    let mut b = DumpBuilder::new(8);
    let tail = |k: i64| -> Vec<Val> { (0..400).map(|i| Val::Long(if i < 10 { k + 1 } else { 0 })).collect() };
    let mut arrays = Vec::new();
    // A name with a quote and a backslash reads escaped: the quotes still end it.
    for (k, name) in ["worker-0", r#"worker "1" \ two"#].iter().enumerate() {
        let (_, serial) = b.thread(name, false, &[("run", "app.Worker", 7)]);
        let array = b.primitive_array(BasicType::Long, &tail(k as i64));
        b.root_java_frame(array, serial, 0);
        arrays.push(array);
    }
    let bytes = b.build();
    let (_, w) = waste_of(&bytes);
    let tails = w.categories.iter().find(|c| c.check == Check::ZeroTailArrays).unwrap();
    let mut rows: Vec<(HolderKind, String, String, u64)> =
        tails.rows.iter().map(|r| (r.holder.kind, r.holder.owner.clone(), r.holder.label.clone(), r.objects)).collect();
    rows.sort();
    assert_eq!(
        rows,
        vec![
            (HolderKind::Local, "java.lang.Thread".to_string(), r#"a stack local of thread "worker \"1\" \\ two" (java.lang.Thread) → long[]"#.to_string(), 1),
            (HolderKind::Local, "java.lang.Thread".to_string(), "a stack local of thread \"worker-0\" (java.lang.Thread) → long[]".to_string(), 1),
        ]
    );
    assert_eq!(tails.overhead, 2 * 390 * 8, "{rows:?}");
}

/// An Android array dumped without its data (PRIMITIVE ARRAY NODATA, 0xC3) has unknown
/// contents: two of equal type and length are no duplicates of each other, none is a zero
/// tail; a String whose value is one has no text, so it is no copy of the empty string nor of
/// another such String. A real all-zero array beside them is still a zero tail, and real
/// empty strings still duplicates.
#[test]
fn arrays_dumped_without_data_are_judged_on_nothing() {
    let mut b = DumpBuilder::new(4);
    let obj = b.object_class;
    let holder_class = b.class("app.Holder", Some(obj), &[("items", BasicType::Object)]);
    let mut items = Vec::new();
    for (ty, len) in [(BasicType::Byte, 100), (BasicType::Byte, 100), (BasicType::Int, 10), (BasicType::Int, 10), (BasicType::Char, 5), (BasicType::Char, 5)] {
        items.push(b.nodata_array(ty, len));
    }
    let zeros = b.byte_array(&[0u8; 100]);
    items.push(zeros);
    // Strings over NODATA arrays (a byte[] and a char[] each), and two real empty strings.
    let mut no_text = Vec::new();
    for ty in [BasicType::Byte, BasicType::Byte, BasicType::Char, BasicType::Char] {
        let id = b.nodata_array(ty, 5);
        no_text.push(b.string_over(id, 0));
    }
    items.extend(&no_text);
    let empty = [b.string(""), b.string("")];
    items.extend(empty);
    let list = b.object_array(b.object_array_class, &items);
    let holder = b.instance(holder_class, &[Val::Obj(list)]);
    b.root_jni_global(holder);
    let bytes = b.build();
    let (heap, w) = waste_of(&bytes);
    let idx = |id: u64| heap.index_of(id).unwrap();
    let cat = |check: Check| w.categories.iter().find(|c| c.check == check);
    assert!(cat(Check::DuplicateArrays).is_none_or(|c| c.objects == 0), "{:?}", cat(Check::DuplicateArrays));
    let tails = cat(Check::ZeroTailArrays).unwrap();
    assert_eq!((tails.objects, tails.overhead), (1, 100));
    assert_eq!(tails.rows[0].example.object_id, idx(zeros));
    let d = &w.duplicate_strings;
    assert_eq!((d.strings, d.distinct, d.duplicated_values), (6, 1, 1), "{d:?}");
    assert_eq!(d.top.len(), 1);
    assert_eq!((d.top[0].value.as_str(), d.top[0].count), ("", 2));
    let dup_strings = cat(Check::DuplicateStrings).unwrap();
    assert_eq!(dup_strings.objects, 1);
    assert_eq!(w.overhead, 100 + dup_strings.overhead);
}
