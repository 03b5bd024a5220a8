//! The holder of a wasteful object: the field through which the application keeps it.
//!
//! Definition: walk up the dominator tree from the object while the dominator is a container
//! (an object array, or an instance of a class under `java.util.`: collections and their
//! nodes). The first dominator that is not a container is the *owner*; the holder is the
//! owner's field (instance or static) that references the last object of the walk. So the
//! 1000 empty `ArrayList`s in `static List<List<…>> LISTS` are held by `Demo.LISTS`, through
//! the outer list and its `Object[]`. When the owner reaches that object through more than one
//! path (it dominates it without referencing it), the holder is `indirect`; when the walk
//! reaches the GC roots (the object or its container is referenced from several roots), it is
//! `root` (`unreachable` when the object is garbage the dump still holds); a local variable of
//! a thread's stack frame is held by that thread (`local`, one row per thread). The walk stops after `MAX_CLIMB` containers (a linked list thousands of nodes
//! long): the holder is then `indirect` at the container reached.

use heapql_heap::{ClassIdx, Heap, ObjIdx, ObjectKind};

use super::model::{Holder, HolderKind};
use super::roles::Roles;
use crate::ctx::ClassCache;
use heapql_graph::FullAnalysis;

/// Containers climbed at most.
pub const MAX_CLIMB: u32 = 256;
const NO_SLOT: u32 = u32::MAX;

/// A holder as a compact key: kind, owner class, field slot (layout position or static index;
/// for a local, the thread object).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HolderKey {
    pub kind: HolderKind,
    pub owner: ClassIdx,
    pub slot: u32,
}

pub fn holder_of(heap: &Heap, a: &FullAnalysis, roles: &Roles, classes: &ClassCache, o: ObjIdx) -> HolderKey {
    let mut child = o;
    for _ in 0..MAX_CLIMB {
        let Some(p) = a.immediate_dominator(child) else {
            let kind = if a.is_reachable(child) { HolderKind::Root } else { HolderKind::Unreachable };
            return HolderKey { kind, owner: class_of(heap, classes, child), slot: NO_SLOT };
        };
        match classes.kind(heap, p) {
            ObjectKind::ObjectArray => child = p,
            ObjectKind::Instance => {
                let c = classes.class_of(heap, p);
                if roles.container[c as usize] {
                    child = p;
                    continue;
                }
                return match slot_referencing(heap, p, child) {
                    Some(slot) => HolderKey { kind: HolderKind::Field, owner: c, slot },
                    // An instance's only other references are its class and, for a thread, the
                    // locals of its stack's frames (the graph's edges from the thread): one row
                    // per thread, which `slot` then names.
                    None if a.outbound(p).any(|x| x == child) && classes.kind(heap, child) != ObjectKind::Class => {
                        HolderKey { kind: HolderKind::Local, owner: c, slot: p }
                    }
                    None => HolderKey { kind: HolderKind::Indirect, owner: c, slot: NO_SLOT },
                };
            }
            ObjectKind::Class => {
                let c = heap.class_described_by(p).unwrap_or(heap.class_class());
                return match slot_referencing(heap, p, child) {
                    Some(slot) => HolderKey { kind: HolderKind::StaticField, owner: c, slot },
                    None => HolderKey { kind: HolderKind::Indirect, owner: c, slot: NO_SLOT },
                };
            }
            ObjectKind::PrimitiveArray(_) => {
                return HolderKey { kind: HolderKind::Indirect, owner: classes.class_of(heap, p), slot: NO_SLOT };
            }
        }
    }
    HolderKey { kind: HolderKind::Indirect, owner: class_of(heap, classes, child), slot: NO_SLOT }
}

/// Class of an object as holders name it (a class object: the class it describes).
fn class_of(heap: &Heap, classes: &ClassCache, o: ObjIdx) -> ClassIdx {
    match classes.kind(heap, o) {
        ObjectKind::Class => heap.class_described_by(o).unwrap_or(heap.class_class()),
        _ => classes.class_of(heap, o),
    }
}

/// The field (instance layout position, or static index) of `p` that references `child`.
fn slot_referencing(heap: &Heap, p: ObjIdx, child: ObjIdx) -> Option<u32> {
    let id = heap.object_id(child);
    let mut found = None;
    heap.for_each_reference(p, |target, slot| {
        // Class objects also reference their super class and loader (slots near u32::MAX).
        if found.is_none() && target == id && slot < u32::MAX - 2 {
            found = Some(slot);
        }
    });
    found
}

/// The holder as the report shows it; `class` is the wasteful objects' class.
pub fn describe_holder(heap: &Heap, key: HolderKey, class: ClassIdx) -> Holder {
    let owner = heap.class(key.owner).name.clone();
    let target = &heap.class(class).name;
    let field = match key.kind {
        HolderKind::Field => heap.instance_layout(key.owner).get(key.slot as usize).map(|f| f.name.clone()),
        HolderKind::StaticField => heap.class(key.owner).statics.get(key.slot as usize).map(|s| s.name.clone()),
        HolderKind::Indirect | HolderKind::Root | HolderKind::Unreachable | HolderKind::Local => None,
    };
    let label = match (key.kind, &field) {
        (HolderKind::Local, _) => match heap.thread_name(key.slot) {
            Some(name) => format!("a stack local of {} ({owner}) → {target}", crate::ctx::thread_label(&name)),
            None => format!("a stack local of {owner} @ {:#x} → {target}", heap.object_id(key.slot)),
        },
        (HolderKind::Root, _) if owner == *target => format!("GC roots → {target}"),
        (HolderKind::Root, _) => format!("GC roots → {owner} → {target}"),
        (HolderKind::Unreachable, _) if owner == *target => format!("unreachable → {target}"),
        (HolderKind::Unreachable, _) => format!("unreachable → {owner} → {target}"),
        (HolderKind::Indirect, _) | (_, None) => format!("{owner} (several paths) → {target}"),
        (_, Some(f)) => format!("{owner}.{f} → {target}"),
    };
    let kind = if field.is_none() && matches!(key.kind, HolderKind::Field | HolderKind::StaticField) { HolderKind::Indirect } else { key.kind };
    Holder { kind, owner, field, label }
}
