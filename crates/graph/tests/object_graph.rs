//! The heap object graph on a hand-made dump (hprof testkit) with hand-derived dominators.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, ObjIdx, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

struct Ids {
    h: u64,
    x: u64,
    y: u64,
    z: u64,
    app: u64,
    s: u64,
    t: u64,
    l: u64,
    u1: u64,
    u2: u64,
    c1: u64,
    c2: u64,
    d1: u64,
    d2: u64,
    arr: u64,
    p: u64,
    q: u64,
    node_class: u64,
}

fn write_dump(dir: &std::path::Path) -> (std::path::PathBuf, Ids) {
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let node_class = b.class("demo.Node", Some(obj), &[("next", BasicType::Object), ("val", BasicType::Int)]);
    let holder = b.class("demo.Holder", Some(obj), &[("a", BasicType::Object), ("b", BasicType::Object)]);
    let app = b.class("demo.App", Some(obj), &[]);
    // Objects in allocation (= index) order.
    let z = b.instance(node_class, &[Val::Obj(0), Val::Int(3)]);
    let x = b.instance(node_class, &[Val::Obj(z), Val::Int(1)]);
    let y = b.instance(node_class, &[Val::Obj(z), Val::Int(2)]);
    let h = b.instance(holder, &[Val::Obj(x), Val::Obj(y)]);
    let s = b.instance(node_class, &[Val::Obj(0xdead_0000), Val::Int(4)]); // dangling field
    b.set_statics(app, &[("INSTANCE", Val::Obj(s)), ("COUNT", Val::Int(7))]);
    let (t, serial) = b.thread("worker", false, &[("run", "demo.App", 12)]);
    let l = b.byte_array(&[7u8; 100]);
    b.root_java_frame(l, serial, 0);
    // Unreachable: u1 -> u2 -> c1 <-> c2 (entered from u1), and a lone cycle d1 <-> d2.
    let (c1, c2, d1, d2) = (b.alloc_id(), b.alloc_id(), b.alloc_id(), b.alloc_id());
    b.instance_with_id(c1, node_class, &[Val::Obj(c2), Val::Int(10)]);
    b.instance_with_id(c2, node_class, &[Val::Obj(c1), Val::Int(11)]);
    b.instance_with_id(d1, node_class, &[Val::Obj(d2), Val::Int(40)]);
    b.instance_with_id(d2, node_class, &[Val::Obj(d1), Val::Int(41)]);
    let u2 = b.instance(node_class, &[Val::Obj(c1), Val::Int(21)]);
    let u1 = b.instance(node_class, &[Val::Obj(u2), Val::Int(20)]);
    let p = b.instance(node_class, &[Val::Obj(0), Val::Int(30)]);
    let q = b.instance(node_class, &[Val::Obj(0), Val::Int(31)]);
    let arr = b.object_array(b.object_array_class, &[p, 0, p, q]);
    b.root_jni_global(h);
    b.root_jni_global(arr);
    for c in [obj, node_class, holder, app, b.class_class, b.string_class, b.thread_class, b.byte_array_class, b.object_array_class] {
        b.root_sticky_class(c);
    }
    let bytes = b.build();
    let path = dir.join("graph.hprof");
    std::fs::write(&path, &bytes).unwrap();
    (path, Ids { h, x, y, z, app, s, t, l, u1, u2, c1, c2, d1, d2, arr, p, q, node_class })
}

fn open(path: &std::path::Path) -> Heap {
    Heap::open(path, OpenOptions::default()).unwrap()
}

fn idx(heap: &Heap, id: u64) -> ObjIdx {
    heap.index_of(id).unwrap()
}

/// A directory of the test's own, removed with everything in it when the test ends.
fn tmpdir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("heapql-graph-{name}-")).tempdir().unwrap()
}

fn class_object(heap: &Heap, class_id: u64) -> ObjIdx {
    idx(heap, class_id)
}

#[test]
fn dominators_sizes_and_roots_follow_mat() {
    let dir = tmpdir("dom");
    let (path, ids) = write_dump(dir.path());
    let heap = open(&path);
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let i = |id| idx(&heap, id);
    let size = |id| heap.shallow_size(idx(&heap, id));

    // Z is reached through X and Y, both under H: H dominates all three.
    assert_eq!(a.immediate_dominator(i(ids.x)), Some(i(ids.h)));
    assert_eq!(a.immediate_dominator(i(ids.y)), Some(i(ids.h)));
    assert_eq!(a.immediate_dominator(i(ids.z)), Some(i(ids.h)));
    assert_eq!(a.immediate_dominator(i(ids.h)), None);
    assert_eq!(a.retained_size(i(ids.h)), size(ids.h) + size(ids.x) + size(ids.y) + size(ids.z));
    assert_eq!(a.retained_size(i(ids.z)), size(ids.z));
    // A static's target hangs off its (System Class) class object.
    assert_eq!(a.immediate_dominator(i(ids.s)), Some(class_object(&heap, ids.app)));
    // The frame local is no GC root: its thread retains it.
    assert_eq!(a.immediate_dominator(i(ids.l)), Some(i(ids.t)));
    assert!(a.retained_size(i(ids.t)) >= size(ids.t) + size(ids.l));
    assert!(a.gc_roots().any(|o| o == i(ids.t)));
    assert!(!a.gc_roots().any(|o| o == i(ids.l)));
    // Duplicate array elements count once; P and Q belong to the array.
    assert_eq!(a.immediate_dominator(i(ids.p)), Some(i(ids.arr)));
    assert_eq!(a.immediate_dominator(i(ids.q)), Some(i(ids.arr)));
    let out: Vec<ObjIdx> = a.outbound(i(ids.arr)).collect();
    let array_class = heap.class(heap.class_of(i(ids.arr))).object;
    assert_eq!(out, vec![array_class, i(ids.p), i(ids.q)]);
    // The dangling field of S is dropped: only its class edge remains.
    let out: Vec<ObjIdx> = a.outbound(i(ids.s)).collect();
    assert_eq!(out, vec![class_object(&heap, ids.node_class)]);
    // Inbound references: distinct referrers.
    assert_eq!(a.inbound(i(ids.z)), vec![i(ids.x), i(ids.y)]);
    assert_eq!(a.inbound_many(&[i(ids.z), i(ids.p)]), vec![vec![i(ids.x), i(ids.y)], vec![i(ids.arr)]]);

    // Unreachable parts: the entry object u1 and one member of the lone cycle are pseudo-roots.
    let pseudo: Vec<ObjIdx> = a.unreachable_roots().collect();
    assert!(pseudo.contains(&i(ids.u1)));
    assert!(pseudo.contains(&i(ids.d1)));
    for o in [ids.u2, ids.c1, ids.c2, ids.d2] {
        assert!(!pseudo.contains(&i(o)));
    }
    assert_eq!(a.immediate_dominator(i(ids.u2)), Some(i(ids.u1)));
    assert_eq!(a.immediate_dominator(i(ids.c1)), Some(i(ids.u2)));
    assert_eq!(a.immediate_dominator(i(ids.c2)), Some(i(ids.c1)));
    assert_eq!(a.immediate_dominator(i(ids.d2)), Some(i(ids.d1)));
    assert_eq!(a.retained_size(i(ids.u1)), [ids.u1, ids.u2, ids.c1, ids.c2].iter().map(|&o| size(o)).sum::<u64>());
    assert!(!a.is_reachable(i(ids.u1)));
    assert!(a.is_reachable(i(ids.z)));

    // Every object is in the tree; the virtual root holds the whole heap.
    let total: u64 = (0..heap.object_count()).map(|o| heap.shallow_size(o)).sum();
    assert_eq!(a.total_size(), total);
    let top = a.top_level_dominators();
    assert_eq!(top.iter().map(|&o| a.retained_size(o)).sum::<u64>(), total);
    for w in top.windows(2) {
        assert!(a.retained_size(w[0]) >= a.retained_size(w[1]));
    }
    let mut dominated = a.dominated(i(ids.h)).to_vec();
    for w in dominated.windows(2) {
        assert!(a.retained_size(w[0]) >= a.retained_size(w[1]));
    }
    dominated.sort();
    let mut want = vec![i(ids.x), i(ids.y), i(ids.z)];
    want.sort();
    assert_eq!(dominated, want);
}


#[test]
fn reachable_only_leaves_unreachable_objects_out() {
    let dir = tmpdir("reach");
    let (path, ids) = write_dump(dir.path());
    let heap = open(&path);
    let a = FullAnalysis::build(&heap, GraphOptions { reachable_only: true, ..Default::default() }).unwrap();
    let i = |id| idx(&heap, id);
    for o in [ids.u1, ids.u2, ids.c1, ids.c2, ids.d1, ids.d2] {
        assert!(!a.in_tree(i(o)));
        assert_eq!(a.retained(i(o)), None, "no retained size outside the tree");
        assert_eq!(a.immediate_dominator(i(o)), None);
        assert!(a.path_to_root(&heap, i(o)).is_none());
    }
    assert_eq!(a.unreachable_roots().count(), 0);
    assert_eq!(a.immediate_dominator(i(ids.z)), Some(i(ids.h)));
    assert_eq!(a.retained(i(ids.z)), Some(heap.shallow_size(i(ids.z))));
    let reachable: u64 = (0..heap.object_count()).filter(|&o| a.is_reachable(o)).map(|o| heap.shallow_size(o)).sum();
    assert_eq!(a.total_size(), reachable);
}

#[test]
fn paths_and_retained_sets_carry_field_names() {
    let dir = tmpdir("paths");
    let (path, ids) = write_dump(dir.path());
    let heap = open(&path);
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let i = |id| idx(&heap, id);
    let steps = |o| {
        a.path_to_root(&heap, i(o)).unwrap().into_iter().map(|s| (s.object, s.label)).collect::<Vec<_>>()
    };
    assert_eq!(steps(ids.z), vec![(i(ids.h), "JNI Global".into()), (i(ids.x), "a".into()), (i(ids.z), "next".into())]);
    assert_eq!(steps(ids.l), vec![(i(ids.t), "Thread".into()), (i(ids.l), "<Java Local in frame 0>".into())]);
    assert_eq!(steps(ids.s), vec![(class_object(&heap, ids.app), "System Class".into()), (i(ids.s), "INSTANCE".into())]);
    assert_eq!(steps(ids.q)[1], (i(ids.q), "[3]".into()));
    assert_eq!(steps(ids.c2), vec![
        (i(ids.u1), "Unreachable".into()),
        (i(ids.u2), "next".into()),
        (i(ids.c1), "next".into()),
        (i(ids.c2), "next".into()),
    ]);
    // Avoiding H.a the path goes through Y.
    let field_a = |from: ObjIdx, to: ObjIdx| from == i(ids.h) && to == i(ids.x);
    let p = a.path_to_root_avoiding(&heap, i(ids.z), field_a).unwrap();
    assert_eq!(p.iter().map(|s| s.object).collect::<Vec<_>>(), vec![i(ids.h), i(ids.y), i(ids.z)]);
    assert_eq!(p[1].label, "b");
    // Class-to-class edges.
    let node_class = class_object(&heap, ids.node_class);
    assert_eq!(heapql_graph::edge_label(&heap, i(ids.x), node_class), "<class>");
    let object_class = heap.class(heap.classes_named("java.lang.Object")[0]).object;
    assert_eq!(heapql_graph::edge_label(&heap, node_class, object_class), "<super>");

    // Bounded forward paths.
    assert_eq!(a.path(i(ids.h), i(ids.z), 32, 100), heapql_graph::PathSearch::Found(vec![i(ids.h), i(ids.x), i(ids.z)]));
    assert_eq!(a.path(i(ids.z), i(ids.h), 32, 100), heapql_graph::PathSearch::NoPath);
    // Too short a bound: the search says it gave up, not that there is no path.
    assert_eq!(a.path(i(ids.h), i(ids.z), 1, 100), heapql_graph::PathSearch::GaveUp);

    // Retained sets: {X, Y} frees Z too; {X} alone frees only X.
    let size = |id| heap.shallow_size(idx(&heap, id));
    let rs = a.retained_set(&heap, &[i(ids.x), i(ids.y)]);
    let mut want = vec![i(ids.x), i(ids.y), i(ids.z)];
    want.sort();
    assert_eq!(rs.objects, want);
    assert_eq!(rs.size, size(ids.x) + size(ids.y) + size(ids.z));
    assert_eq!(a.retained_set(&heap, &[i(ids.x)]).objects, vec![i(ids.x)]);
    assert_eq!(a.min_retained_size(&[i(ids.x), i(ids.y)]), size(ids.x) + size(ids.y));
    assert_eq!(a.min_retained_size(&[i(ids.h), i(ids.x)]), a.retained_size(i(ids.h)));
}


#[test]
fn progress_phases_and_cancellation() {
    let dir = tmpdir("ctl");
    let (path, _) = write_dump(dir.path());
    let heap = open(&path);
    let seen = Arc::new(Mutex::new(Vec::<&'static str>::new()));
    let s2 = seen.clone();
    let opts = GraphOptions {
        progress: Some(Arc::new(move |p: heapql_heap::Progress| {
            let mut v = s2.lock().unwrap();
            if v.last() != Some(&p.phase) {
                v.push(p.phase);
            }
        })),
        ..Default::default()
    };
    FullAnalysis::build(&heap, opts).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec!["graph", "dominators", "retained"]);
    let opts = GraphOptions { cancel: Some(Arc::new(AtomicBool::new(true))), ..Default::default() };
    let err = FullAnalysis::build(&heap, opts).err().unwrap();
    assert_eq!(err.code(), "ERR_CANCELLED");
}

/// Garbage pointing into a live structure (design.md §4.2): H (JNI global) -> array -> E -> X,
/// E -> Y -> X, and an unreachable G -> X, G -> Y plus a garbage cycle K1 <-> K2 -> E. Nothing
/// of the garbage may change a live object's dominator, retained size, path or retained set.
#[test]
fn garbage_never_changes_a_live_objects_dominator() {
    let dir = tmpdir("garbage");
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let node_class = b.class("demo.Node", Some(obj), &[("next", BasicType::Object), ("other", BasicType::Object)]);
    let x = b.instance(node_class, &[Val::Obj(0), Val::Obj(0)]);
    let y = b.instance(node_class, &[Val::Obj(x), Val::Obj(0)]);
    let e = b.instance(node_class, &[Val::Obj(x), Val::Obj(y)]);
    let arr = b.object_array(b.object_array_class, &[e]);
    let h = b.instance(node_class, &[Val::Obj(arr), Val::Obj(0)]);
    let g = b.instance(node_class, &[Val::Obj(x), Val::Obj(y)]);
    let (k1, k2) = (b.alloc_id(), b.alloc_id());
    b.instance_with_id(k1, node_class, &[Val::Obj(k2), Val::Obj(0)]);
    b.instance_with_id(k2, node_class, &[Val::Obj(k1), Val::Obj(e)]);
    b.root_jni_global(h);
    // S, held by two roots of its own: only the virtual root dominates it.
    let shared = b.instance(node_class, &[Val::Obj(0), Val::Obj(0)]);
    let r1 = b.instance(node_class, &[Val::Obj(shared), Val::Obj(0)]);
    let r2 = b.instance(node_class, &[Val::Obj(shared), Val::Obj(0)]);
    b.root_jni_global(r1);
    b.root_jni_global(r2);
    for c in [obj, node_class, b.class_class, b.object_array_class, b.string_class, b.thread_class] {
        b.root_sticky_class(c);
    }
    let path = dir.path().join("garbage.hprof");
    std::fs::write(&path, b.build()).unwrap();
    let heap = open(&path);
    let i = |id| idx(&heap, id);
    let size = |id| heap.shallow_size(idx(&heap, id));
    let all = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let live = FullAnalysis::build(&heap, GraphOptions { reachable_only: true, ..Default::default() }).unwrap();
    for a in [&all, &live] {
        assert_eq!(a.immediate_dominator(i(x)), Some(i(e)));
        assert_eq!(a.immediate_dominator(i(y)), Some(i(e)));
        assert_eq!(a.immediate_dominator(i(e)), Some(i(arr)));
        assert_eq!(a.retained_size(i(e)), size(e) + size(x) + size(y));
        assert_eq!(a.retained_size(i(h)), size(h) + size(arr) + size(e) + size(x) + size(y));
        let path: Vec<ObjIdx> = a.path_to_root(&heap, i(x)).unwrap().iter().map(|s| s.object).collect();
        assert_eq!(path, vec![i(h), i(arr), i(e), i(x)]);
        let mut freed = vec![i(e), i(x), i(y)];
        freed.sort();
        assert_eq!(a.retained_set(&heap, &[i(e)]).objects, freed);
    }
    // The garbage: its own forest, G and the cycle each under the virtual root.
    assert!(!all.is_reachable(i(g)));
    assert_eq!(all.immediate_dominator(i(g)), None);
    assert_eq!(all.retained_size(i(g)), size(g));
    assert_eq!(all.retained_set(&heap, &[i(g)]).objects, vec![i(g)]);
    let root_of_cycle = if all.is_unreachable_root(i(k1)) { k1 } else { k2 };
    let other = if root_of_cycle == k1 { k2 } else { k1 };
    assert_eq!(all.immediate_dominator(i(other)), Some(i(root_of_cycle)));
    assert_eq!(all.retained_size(i(root_of_cycle)), size(k1) + size(k2));
    let path: Vec<ObjIdx> = all.path_to_root(&heap, i(g)).unwrap().iter().map(|s| s.object).collect();
    assert_eq!(path, vec![i(g)]);
    // Why an object has no dominator: a GC root, held through two roots, garbage at the top
    // of its own tree; none for an object with a dominator.
    use heapql_graph::lookup::{dominator_view, TopOfTree};
    let top = |a: &FullAnalysis, id| dominator_view(a, i(id), 0).top;
    for a in [&all, &live] {
        assert_eq!(top(a, h), Some(TopOfTree::GcRoot));
        assert_eq!(top(a, r1), Some(TopOfTree::GcRoot));
        assert_eq!(top(a, shared), Some(TopOfTree::Shared));
        assert_eq!(top(a, e), None);
    }
    assert_eq!(top(&all, g), Some(TopOfTree::Unreachable));
    assert_eq!(top(&all, root_of_cycle), Some(TopOfTree::Unreachable));
    assert_eq!(top(&all, other), None);
    assert_eq!(top(&live, g), None, "outside the tree of a reachable-only analysis");
    // Every object still counts once under the virtual root.
    let total: u64 = (0..heap.object_count()).map(|o| heap.shallow_size(o)).sum();
    assert_eq!(all.total_size(), total);
    let garbage: u64 = (0..heap.object_count()).filter(|&o| !all.is_reachable(o)).map(|o| heap.shallow_size(o)).sum();
    assert!(garbage >= size(g) + size(k1) + size(k2));
    assert_eq!(all.total_size() - live.total_size(), garbage);
    // Referrers: G and the cycle refer to X, Y and E; a reachable-only analysis has no such
    // objects, so it does not list them (with unreachable ones kept, it does).
    let mut with_garbage = vec![i(y), i(e), i(g)];
    with_garbage.sort();
    assert_eq!(all.inbound(i(x)), with_garbage);
    assert_eq!(live.inbound(i(x)), vec![i(y), i(e)]);
    assert_eq!(live.inbound(i(e)), vec![i(arr)]);
    assert_eq!(live.inbound_many(&[i(x), i(e)]), vec![vec![i(y), i(e)], vec![i(arr)]]);
    assert_eq!(heapql_graph::lookup::referrers(&live, &heap, i(e), 10).1, 1);
    assert_eq!(heapql_graph::lookup::referrers(&all, &heap, i(e), 10).1, 2);
}

#[test]
fn look_ups_name_referrers_dominated_objects_and_path_windows() {
    let dir = tmpdir("lookups");
    let (path, ids) = write_dump(dir.path());
    let heap = open(&path);
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let (h, x, y, z) = (idx(&heap, ids.h), idx(&heap, ids.x), idx(&heap, ids.y), idx(&heap, ids.z));

    let (refs, total) = heapql_graph::lookup::referrers(&a, &heap, z, 10);
    assert_eq!(total, 2);
    assert_eq!(refs, vec![(x, "next".to_string()), (y, "next".to_string())]);
    let (first, total) = heapql_graph::lookup::referrers(&a, &heap, z, 1);
    assert_eq!((first.len(), total), (1, 2));

    // h dominates x, y and z (z is reached only through x or y).
    let view = heapql_graph::lookup::dominator_view(&a, h, 10);
    assert_eq!(view.dominator, None);
    assert!(view.in_tree);
    let mut children = view.children.clone();
    children.sort_unstable();
    assert_eq!(children, { let mut v = vec![x, y, z]; v.sort_unstable(); v });
    assert_eq!(view.child_count, 3);
    assert_eq!(heapql_graph::lookup::dominator_view(&a, h, 1).children.len(), 1);
    assert_eq!(heapql_graph::lookup::dominator_view(&a, z, 10).dominator, Some(h));

    // The path h -> x -> z (3 steps); a window of 1 + 1 leaves the middle step out.
    let full = heapql_graph::lookup::path_to_root_window(&a, &heap, z, 50, 50).unwrap();
    assert_eq!(full.skipped, 0);
    assert_eq!(full.steps, a.path_to_root(&heap, z).unwrap());
    assert_eq!(full.steps.len(), 3);
    let w = heapql_graph::lookup::path_to_root_window(&a, &heap, z, 1, 1).unwrap();
    assert_eq!((w.skipped, w.gap_at), (1, 1));
    assert_eq!(w.steps, vec![full.steps[0].clone(), full.steps[2].clone()]);
    assert_eq!(w.steps[1].label, "next");
}
