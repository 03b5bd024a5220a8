//! Retained sizes on the real fixture dumps against the facts their programs wrote
//! (fixtures/dumps/*.facts.json: hand-derived formulas evaluated by the dumped JVM itself).

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, ObjectKind, OpenOptions, PrimType, Value};
use std::path::PathBuf;

#[path = "support/class_mirrors.rs"]
mod class_mirrors;

fn dumps() -> Vec<(PathBuf, serde_json::Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dumps");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).expect("fixtures/dumps exists") {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if let Some(stem) = name.strip_suffix(".facts.json") {
            let facts: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            out.push((dir.join(format!("{stem}.hprof")), facts));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty(), "no fixture facts found in {}", dir.display());
    out
}

#[test]
fn retained_sizes_match_the_fixture_facts() {
    for (path, facts) in dumps() {
        let heap = Heap::open(&path, OpenOptions::default()).unwrap();
        let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
        let name = path.display();
        let mut checked = 0;
        for fact in facts["retained"].as_array().unwrap() {
            let want = fact["retained"].as_u64().unwrap();
            match fact["root"].as_str().unwrap() {
                "static" => {
                    let class = fact["class"].as_str().unwrap();
                    let field = fact["static_field"].as_str().unwrap();
                    let c = heap.classes_named(class)[0];
                    let v = heap.class(c).statics.iter().find(|s| s.name == field).unwrap().value;
                    let Value::Object(id) = v else { panic!("{name}: {class}.{field} is {v:?}") };
                    let o = heap.index_of(id).unwrap();
                    let want = want + class_mirrors::private_class_mirrors(&heap, &a, o);
                    assert_eq!(a.retained_size(o), want, "{name}: retained({class}.{field})");
                    // The static's target hangs directly off its class object.
                    assert_eq!(a.immediate_dominator(o), Some(heap.class(c).object), "{name}: {field}");
                    checked += 1;
                }
                "frame_local" => {
                    let thread = fact["thread"].as_str().unwrap();
                    let t = heap.threads().iter().find(|t| t.name.as_deref() == Some(thread)).unwrap();
                    let tobj = t.object.unwrap();
                    let len = facts["threads"][0]["frame_local_byte_array_length"].as_u64().unwrap() as u32;
                    let local = a
                        .dominated(tobj)
                        .iter()
                        .copied()
                        .find(|&o| {
                            heap.object_kind(o) == ObjectKind::PrimitiveArray(PrimType::Byte)
                                && heap.array_length(o) == Some(len)
                        })
                        .unwrap_or_else(|| panic!("{name}: no byte[{len}] under thread {thread}"));
                    assert_eq!(a.retained_size(local), want, "{name}: retained(local byte[{len}])");
                    assert!(!a.gc_roots().any(|o| o == local), "{name}: a frame local is no GC root");
                    let steps = a.path_to_root(&heap, local).unwrap();
                    assert_eq!(steps[0].object, tobj);
                    assert!(steps[1].label.starts_with("<Java Local"), "{name}: {:?}", steps[1].label);
                    checked += 1;
                }
                other => panic!("{name}: unknown retained fact root {other}"),
            }
        }
        assert_eq!(checked, 5, "{name}");
        // The tree covers the whole heap.
        let total: u64 = (0..heap.object_count()).map(|o| heap.shallow_size(o)).sum();
        assert_eq!(a.total_size(), total, "{name}");
    }
}

/// The top-level dominators (kept from the dominator phase's preorder) and the child lists
/// (built on the first `dominated` call) agree with `immediate_dominator` on every object:
/// biggest retained first, then by object.
#[test]
fn top_level_dominators_and_child_lists_follow_the_immediate_dominators() {
    for (path, _) in dumps() {
        let heap = Heap::open(&path, OpenOptions::default()).unwrap();
        for reachable_only in [false, true] {
            let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
            let name = format!("{} reachable_only={reachable_only}", path.display());
            let n = heap.object_count();
            let mut children: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
            let mut top = Vec::new();
            for o in (0..n).filter(|&o| a.in_tree(o)) {
                match a.immediate_dominator(o) {
                    Some(d) => children[d as usize].push(o),
                    None => top.push(o),
                }
            }
            let by_size = |list: &mut Vec<u32>| list.sort_by_key(|&o| (std::cmp::Reverse(a.retained_size(o)), o));
            by_size(&mut top);
            assert!(top.len() > 10, "{name}");
            assert_eq!(a.top_level_dominators(), &top[..], "{name}");
            for (d, mut list) in children.into_iter().enumerate() {
                by_size(&mut list);
                assert_eq!(a.dominated(d as u32), &list[..], "{name}: children of {d}");
            }
        }
    }
}
