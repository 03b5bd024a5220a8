//! The fixture facts' retained sizes count the objects a program built. A dump adds the class
//! objects that nothing live but those objects refers to: an array class such as `byte[][]` is
//! no GC root (HotSpot roots only bootstrap instance classes), and the unreachable reflection
//! objects that also refer to it do not count (design.md §4.2), so the structure retains it.
//! Shared by the graph and exec tests (`#[path]`).

use heapql_graph::FullAnalysis;
use heapql_heap::{Heap, ObjIdx};
use std::collections::HashSet;

/// Shallow size of the class objects that are no GC root and whose every reachable referrer is
/// an object reached from `top` through its fields (read from the dump, not the graph).
pub fn private_class_mirrors(heap: &Heap, a: &FullAnalysis, top: ObjIdx) -> u64 {
    let mut members: HashSet<ObjIdx> = HashSet::from([top]);
    let mut stack = vec![top];
    while let Some(o) = stack.pop() {
        heap.for_each_reference(o, |id, _| {
            if let Some(t) = heap.index_of(id) {
                if members.insert(t) {
                    stack.push(t);
                }
            }
        });
    }
    let classes: HashSet<ObjIdx> = members.iter().map(|&m| heap.class(heap.class_of(m)).object).collect();
    classes
        .into_iter()
        .filter(|&c| !members.contains(&c) && a.root_kinds(heap, c).is_empty())
        .filter(|&c| a.inbound(c).iter().all(|r| !a.is_reachable(*r) || members.contains(r)))
        .map(|c| heap.shallow_size(c))
        .sum()
}
