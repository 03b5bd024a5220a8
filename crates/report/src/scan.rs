//! One pass over every object: counts by kind, instances and shallow bytes per class, the
//! unreachable part, the threads and class loaders, `Reference.referent` edges (excluded from
//! leak-suspect paths).

use heapql_graph::control::{Cancelled, Control};
use heapql_graph::object_graph::node;
use heapql_heap::{ObjIdx, ObjectKind, Value};

use super::ctx::{ClassCache, Ctx, LOADER, REFERENCE, THREAD};
use super::model::HeapFacts;

pub struct Scan {
    /// Covered objects by kind, and the unreachable ones (used heap and class loaders are
    /// filled in later).
    pub facts: HeapFacts,
    /// Covered instances and their shallow bytes per class (class objects under java.lang.Class).
    pub class_instances: Vec<u64>,
    pub class_shallow: Vec<u64>,
    /// Covered `java.lang.Thread` instances (subclasses included), ascending.
    pub threads: Vec<ObjIdx>,
    /// Covered class loader instances, ascending.
    pub loaders: Vec<ObjIdx>,
    /// `(node(reference), node(referent))` of every covered `java.lang.ref.Reference`, sorted.
    pub referents: Vec<(u32, u32)>,
    /// Class of every object (for `Ctx::set_classes`).
    pub classes: ClassCache,
}

/// Objects between two progress ticks.
pub const TICK: u32 = 1 << 16;

pub fn scan(ctx: &Ctx, ctl: &Control, total_work: u64) -> Result<Scan, Cancelled> {
    let heap = ctx.heap;
    let a = ctx.analysis;
    let classes = heap.class_count() as usize;
    let mut s = Scan {
        facts: HeapFacts::default(),
        class_instances: vec![0; classes],
        class_shallow: vec![0; classes],
        threads: Vec::new(),
        loaders: Vec::new(),
        referents: Vec::new(),
        classes: ClassCache::with_capacity(heap.class_count(), heap.object_count() as usize),
    };
    let n = heap.object_count();
    for o in 0..n {
        if o % TICK == 0 {
            ctl.tick(o as u64, total_work)?;
        }
        let kind = heap.object_kind(o);
        let c = heap.class_of(o);
        s.classes.push(c, kind);
        let shallow = match kind {
            ObjectKind::Instance => heap.instance_size(c),
            _ => heap.shallow_size(o),
        };
        if !a.is_reachable(o) {
            s.facts.unreachable_objects += 1;
            s.facts.unreachable_shallow += shallow;
        }
        if !a.in_tree(o) {
            continue;
        }
        s.facts.objects += 1;
        match kind {
            ObjectKind::Instance => s.facts.instances += 1,
            ObjectKind::ObjectArray => s.facts.object_arrays += 1,
            ObjectKind::PrimitiveArray(_) => s.facts.primitive_arrays += 1,
            ObjectKind::Class => s.facts.classes += 1,
        }
        s.class_instances[c as usize] += 1;
        s.class_shallow[c as usize] += shallow;
        if kind != ObjectKind::Instance {
            continue;
        }
        let f = ctx.class_flags(c);
        if f == 0 {
            continue;
        }
        if f & THREAD != 0 {
            s.threads.push(o);
        }
        if f & LOADER != 0 {
            s.loaders.push(o);
        }
        if f & REFERENCE != 0 {
            if let Some(Value::Object(id)) = heap.field(o, "referent") {
                if let Some(r) = heap.index_of(id) {
                    s.referents.push((node(o), node(r)));
                }
            }
        }
    }
    s.referents.sort_unstable();
    Ok(s)
}
