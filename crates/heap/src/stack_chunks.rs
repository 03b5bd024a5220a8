//! `jdk.internal.vm.StackChunk` (HotSpot, JDK 19+): the stack of an unmounted virtual thread
//! (or any continuation), copied into a heap object after its fields. The dump gives only the
//! fields, so these objects would read as 32-48 bytes each where a parked virtual thread's
//! chunk takes kilobytes. The VM sizes one as its fields, then `size` words of stack, then a
//! bitmap of the stack's reference slots (a bit per 4-byte slot with compressed oops, per
//! 8-byte slot without), rounded to the object alignment (`InstanceStackChunkKlass::
//! instance_size`); checked against `jcmd GC.class_histogram` in fixtures/dumps/layout.

use crate::layout::align_up;
use crate::{values, ClassIdx, FieldSlot, FieldType, Heap, ObjIdx, PrimType, Value};

/// The class and its `size` field, when the dump has one from a 64-bit HotSpot.
pub(crate) fn find(h: &Heap) -> Option<(ClassIdx, FieldSlot)> {
    if h.model.android || h.model.word != 8 {
        return None;
    }
    let c = *h.by_name.get("jdk.internal.vm.StackChunk")?.first()?;
    let slot = values::field_slot(h, c, "size")?;
    (slot.ty == FieldType::Prim(PrimType::Int)).then_some((c, slot))
}

/// The shallow size of chunk `o` of class `c`.
pub(crate) fn size(h: &Heap, o: ObjIdx, c: ClassIdx, slot: FieldSlot) -> u64 {
    let fixed = h.ext[c as usize].instance_size as u64;
    let words = match values::field_at(h, o, slot) {
        Some(Value::Int(n)) if n > 0 => n as u64,
        _ => 0,
    };
    let slots_per_word = 8 / h.model.ref_size.clamp(4, 8) as u64;
    let bitmap_words = (words * slots_per_word).div_ceil(64);
    align_up(fixed + 8 * (words + bitmap_words), h.model.align as u64)
}

/// The shallow bytes of all of class `c`'s chunks (one pass over the objects; only for dumps
/// that hold some).
pub(crate) fn total(h: &Heap, c: ClassIdx, slot: FieldSlot) -> u64 {
    (0..h.objs.len()).filter(|&o| h.object_kind(o) == crate::ObjectKind::Instance && h.class_of(o) == c).map(|o| size(h, o, c, slot)).sum()
}
