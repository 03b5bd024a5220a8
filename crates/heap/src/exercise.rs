//! Touches every answer an index gives (used by the fuzz target and the mutation test): a
//! corrupt dump must never make any accessor panic or loop.

use crate::{Heap, ObjectKind};

/// Calls every accessor on every object (bounded work per object); returns a checksum so the
/// calls are not optimised away.
pub fn exercise(h: &Heap) -> u64 {
    let mut sum = 0u64;
    let n = h.object_count();
    for o in 0..n {
        sum = sum.wrapping_add(h.object_id(o));
        let _ = h.index_of(h.object_id(o));
        let c = h.class_of(o);
        if (c as usize) < h.class_count() as usize {
            sum = sum.wrapping_add(h.instance_layout(c).len() as u64);
        }
        sum = sum.wrapping_add(h.shallow_size(o));
        let _ = h.class_described_by(o);
        sum = sum.wrapping_add(h.fields(o).len() as u64);
        let _ = h.field(o, "value");
        if let Some(len) = h.array_length(o) {
            let _ = h.array_element(o, 0);
            let _ = h.array_element(o, len.saturating_sub(1));
            let _ = h.array_element(o, len);
        }
        if let ObjectKind::PrimitiveArray(_) = h.object_kind(o) {
            let _ = h.primitive_array_bytes(o);
        }
        let _ = h.string_value(o);
        h.for_each_reference(o, |id, _| {
            sum = sum.wrapping_add(id);
            let _ = h.index_of(id);
        });
    }
    for c in 0..h.class_count() {
        let _ = h.subclasses(c);
        let _ = h.classes_named(&h.class(c).name);
    }
    sum = sum.wrapping_add(h.gc_roots().len() as u64 + h.threads().len() as u64 + h.system_properties().len() as u64);
    sum = sum.wrapping_add(h.class_histogram().len() as u64);
    sum
}
