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

/// Whether stack chunk `o` holds frames, as `StackChunk.isEmpty()` tells: `sp < bottom` from
/// JDK 22 on, `sp < size - argsize` in JDK 19–21 (whose chunks have `argsize`, no `bottom`);
/// false when the chunk has neither.
fn holds_frames(h: &Heap, o: ObjIdx) -> bool {
    let int = |name: &str| match h.field(o, name) {
        Some(Value::Int(v)) => Some(v as i64),
        _ => None,
    };
    match (int("sp"), int("bottom"), int("size"), int("argsize")) {
        (Some(sp), Some(bottom), _, _) => sp < bottom,
        (Some(sp), None, Some(size), Some(args)) => sp < size - args,
        _ => false,
    }
}

/// The object field `name` of `o`, when it names an object of the dump.
fn object_field(h: &Heap, o: ObjIdx, name: &str) -> Option<ObjIdx> {
    match h.field(o, name)? {
        Value::Object(id) => h.index_of(id),
        _ => None,
    }
}

/// The virtual threads whose frames are in stack chunks but which have no thread record: their
/// frames' locals are not in the dump. HotSpot's dumper records an unmounted virtual thread
/// (ROOT THREAD OBJECT, stack trace, ROOT JAVA FRAME for its locals, read from its chunks) from
/// JDK 22 on; JDK 19–21's records only the platform threads (a mounted virtual thread's frames
/// under its carrier's serial), and so does the serviceability agent's (`jhsdb jmap`, JDK 25
/// included). In such a dump what only a parked virtual thread's frames hold has no path from a
/// GC root: it reads as unreachable, though the JVM kept it. Returns the warning that says so,
/// None when every virtual thread with frames in the heap has its record. One pass over the
/// objects, only when the dump holds more virtual threads than thread records name.
pub(crate) fn unrecorded_virtual_threads(h: &Heap) -> Option<crate::Warning> {
    let classes: &[ClassIdx] = h.by_name.get("java.lang.VirtualThread")?;
    let count: u64 = h.histogram.iter().filter(|r| classes.contains(&r.class)).map(|r| r.count).sum();
    let mut recorded: Vec<ObjIdx> = h.threads.iter().filter_map(|t| t.object).filter(|&o| classes.contains(&h.class_of(o))).collect();
    recorded.sort_unstable();
    recorded.dedup();
    if count <= recorded.len() as u64 {
        return None;
    }
    let mut missing = 0u64;
    let mut first: Option<ObjIdx> = None;
    for o in 0..h.objs.len() {
        if h.object_kind(o) != crate::ObjectKind::Instance || !classes.contains(&h.class_of(o)) || recorded.binary_search(&o).is_ok() {
            continue;
        }
        // The continuation's chunks, newest first (`Continuation.tail`, then each `parent`);
        // the bound guards a cycle in a damaged dump.
        let mut chunk = object_field(h, o, "cont").and_then(|c| object_field(h, c, "tail"));
        let mut has_frames = false;
        for _ in 0..64 {
            let Some(k) = chunk else { break };
            if holds_frames(h, k) {
                has_frames = true;
                break;
            }
            chunk = object_field(h, k, "parent");
        }
        if has_frames {
            missing += 1;
            first = first.or(Some(o));
        }
    }
    let o = first?;
    let (s, have) = if missing == 1 { ("", "has") } else { ("s", "have") };
    Some(crate::Warning {
        offset: h.record_offset(o).unwrap_or(0),
        message: format!(
            "{missing} virtual thread{s} (e.g. 0x{:x}) {have} frames in jdk.internal.vm.StackChunk objects but no thread record: \
             the JVM that wrote this dump did not record unmounted virtual threads' stacks (HotSpot does from JDK 22 on; \
             JDK 19-21 and jhsdb jmap do not), so objects only their frames hold read as unreachable here though the JVM kept them; \
             for their roots, dump with `jcmd <pid> GC.heap_dump` on JDK 22 or later",
            h.object_id(o)
        ),
    })
}
