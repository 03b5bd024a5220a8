//! Threads: ROOT THREAD OBJECT (or the agent's START THREAD) gives serial, object and stack
//! trace; TRACE and FRAME records give the frames; ROOT JAVA FRAME / JNI LOCAL roots (thread
//! serial + frame depth) give the objects each frame holds.

use crate::{GcRoot, Heap, ObjIdx, RootKind, StackFrame, ThreadInfo, Value};

/// A FRAME record with its strings resolved.
#[derive(Clone, Debug, Default)]
pub(crate) struct FrameText {
    pub method: String,
    pub signature: String,
    pub class_name: String,
    pub source_file: String,
    pub line: i32,
}

/// One thread as the records describe it, before objects are decoded.
pub(crate) struct RawThread {
    pub serial: u32,
    pub object: Option<ObjIdx>,
    pub frames: Vec<FrameText>,
    /// Name from START THREAD (agent dumps).
    pub record_name: Option<String>,
}

pub(crate) fn build_threads(h: &Heap, raw: Vec<RawThread>, roots: &[GcRoot]) -> Vec<ThreadInfo> {
    let mut out: Vec<ThreadInfo> = raw
        .into_iter()
        .map(|t| {
            let name = t.object.and_then(|o| thread_name(h, o)).or(t.record_name);
            let daemon = t.object.and_then(|o| thread_daemon(h, o));
            ThreadInfo {
                serial: t.serial,
                object: t.object,
                name,
                daemon,
                frames: t
                    .frames
                    .into_iter()
                    .map(|f| StackFrame {
                        method: f.method,
                        signature: f.signature,
                        class_name: f.class_name,
                        source_file: f.source_file,
                        line: f.line,
                        locals: Vec::new(),
                    })
                    .collect(),
                other_locals: Vec::new(),
            }
        })
        .collect();
    out.sort_by_key(|t| t.serial);
    for r in roots {
        let Some(serial) = r.thread_serial else { continue };
        let Ok(ti) = out.binary_search_by_key(&serial, |t| t.serial) else { continue };
        let t = &mut out[ti];
        match (r.kind, r.frame) {
            (RootKind::JavaFrame | RootKind::JniLocal, Some(d)) if (d as usize) < t.frames.len() => {
                t.frames[d as usize].locals.push(r.object)
            }
            (RootKind::ThreadObject, _) => {}
            _ => t.other_locals.push(r.object),
        }
    }
    out
}

fn string_or_chars(h: &Heap, v: Option<Value>) -> Option<String> {
    let Value::Object(id) = v? else { return None };
    let o = h.index_of(id)?;
    if let Some(s) = h.string_value(o) {
        return Some(s);
    }
    // JDK ≤ 6 kept the name as a char[].
    if h.object_kind(o) != crate::ObjectKind::PrimitiveArray(crate::PrimType::Char) {
        return None;
    }
    let b = h.primitive_array_bytes(o)?;
    Some(char::decode_utf16(b.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]]))).map(|r| r.unwrap_or('\u{FFFD}')).collect())
}

/// The text of a thread object's `name` field: a String, or (JDK ≤ 6) a `char[]`.
pub(crate) fn thread_name(h: &Heap, o: ObjIdx) -> Option<String> {
    string_or_chars(h, h.field(o, "name"))
}

fn thread_daemon(h: &Heap, o: ObjIdx) -> Option<bool> {
    if let Some(Value::Boolean(b)) = h.field(o, "daemon") {
        return Some(b);
    }
    // JDK 19+: the daemon flag moved to Thread.holder (a Thread$FieldHolder).
    let Value::Object(id) = h.field(o, "holder")? else { return None };
    match h.field(h.index_of(id)?, "daemon")? {
        Value::Boolean(b) => Some(b),
        _ => None,
    }
}
