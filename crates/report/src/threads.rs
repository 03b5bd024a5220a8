//! Thread Overview (mat-semantics.md §3.4): every `java.lang.Thread` with its name, daemon
//! flag, priority, state (the JVMTI bits of `threadStatus`, or `holder.threadStatus` on JDK
//! 19+), context class loader, sizes, and its frames with the objects each frame holds.

use heapql_heap::{ObjIdx, StackFrame as HeapFrame, ThreadInfo, Value};
use rustc_hash::FxHashMap;

use super::ctx::Ctx;
use super::model::{Local, StackFrame, Thread, ThreadOverview};

pub fn threads(ctx: &Ctx, thread_objects: &[ObjIdx]) -> ThreadOverview {
    let heap = ctx.heap;
    let a = ctx.analysis;
    let by_object: FxHashMap<ObjIdx, &ThreadInfo> =
        heap.threads().iter().filter_map(|t| t.object.map(|o| (o, t))).collect();
    let mut objects: Vec<ObjIdx> = thread_objects.to_vec();
    // Thread roots whose object is not an instance of a Thread class still count (MAT lists them).
    objects.extend(by_object.keys().copied().filter(|&o| a.in_tree(o)));
    objects.sort_unstable();
    objects.dedup();
    let mut out: Vec<Thread> = objects
        .iter()
        .map(|&o| {
            let info = by_object.get(&o).copied();
            let holder = ctx.object_field(o, "holder");
            let int = |name: &str| -> Option<i32> {
                let direct = heap.field(o, name).or_else(|| holder.and_then(|h| heap.field(h, name)));
                match direct {
                    Some(Value::Int(v)) => Some(v),
                    _ => None,
                }
            };
            let daemon = info.and_then(|t| t.daemon).or_else(|| {
                ["daemon", "isDaemon"].iter().find_map(|f| match heap.field(o, f).or_else(|| holder.and_then(|h| heap.field(h, f))) {
                    Some(Value::Boolean(b)) => Some(b),
                    _ => None,
                })
            });
            let frames: Vec<StackFrame> = info
                .map(|t| t.frames.iter().enumerate().map(|(d, f)| frame(ctx, d as u32, f)).collect())
                .unwrap_or_default();
            let other_locals = info.map(|t| locals(ctx, &t.other_locals)).unwrap_or_default();
            let max_local = frames.iter().flat_map(|f| &f.locals).chain(&other_locals).map(|l| l.retained).max().unwrap_or(0);
            let retained = a.retained_size(o);
            Thread {
                object: ctx.object_ref(o),
                name: info.and_then(|t| t.name.clone()).or_else(|| heap.thread_name(o)),
                daemon,
                priority: int("priority"),
                state: int("threadStatus").map(|s| thread_state(s).to_string()),
                context_class_loader: ctx.object_field(o, "contextClassLoader").map(|l| ctx.loader_object_label(l)),
                shallow: heap.shallow_size(o),
                retained,
                retained_percent: ctx.percent(retained),
                max_local_retained: max_local,
                frames,
                other_locals,
            }
        })
        .collect();
    out.sort_by(|x, y| y.retained.cmp(&x.retained).then(heap.object_id(x.object.object_id).cmp(&heap.object_id(y.object.object_id))));
    ThreadOverview { threads: out }
}

fn frame(ctx: &Ctx, depth: u32, f: &HeapFrame) -> StackFrame {
    StackFrame {
        depth,
        method: method_name(f),
        signature: (!f.signature.is_empty()).then(|| f.signature.clone()),
        source: source_text(f),
        locals: locals(ctx, &f.locals),
    }
}

/// The objects `held` (each once), biggest retained first, ties by address.
fn locals(ctx: &Ctx, held: &[ObjIdx]) -> Vec<Local> {
    let heap = ctx.heap;
    let mut held = held.to_vec();
    held.sort_unstable();
    held.dedup();
    let mut locals: Vec<Local> = held
        .into_iter()
        .map(|o| Local { object: ctx.object_ref(o), shallow: heap.shallow_size(o), retained: ctx.analysis.retained_size(o) })
        .collect();
    locals.sort_by(|x, y| y.retained.cmp(&x.retained).then(heap.object_id(x.object.object_id).cmp(&heap.object_id(y.object.object_id))));
    locals
}

/// `Demo$RequestHandler.awaitNextRequest` (the method alone when the class is unknown).
fn method_name(f: &HeapFrame) -> String {
    if f.class_name.is_empty() {
        f.method.clone()
    } else {
        format!("{}.{}", f.class_name, f.method)
    }
}

/// As Java prints a stack frame: `Demo.java:131`, `Native Method`, `Demo.java`, `Unknown Source`.
fn source_text(f: &HeapFrame) -> Option<String> {
    Some(match f.line {
        -3 => "Native Method".to_string(),
        -2 => "Compiled Method".to_string(),
        l if l > 0 && !f.source_file.is_empty() => format!("{}:{l}", f.source_file),
        _ if !f.source_file.is_empty() => f.source_file.clone(),
        _ => "Unknown Source".to_string(),
    })
}

/// `Demo$RequestHandler.processSession (Demo.java:122)`: a frame in one line.
pub fn frame_text(f: &HeapFrame) -> String {
    match source_text(f) {
        Some(s) => format!("{} ({s})", method_name(f)),
        None => method_name(f),
    }
}

/// `java.lang.Thread.State` from a JVMTI thread state word, as `jdk.internal.misc.VM
/// .toThreadState` decodes it (the order of the tests matters: a runnable bit wins).
pub fn thread_state(status: i32) -> &'static str {
    const ALIVE: i32 = 0x0001;
    const TERMINATED: i32 = 0x0002;
    const RUNNABLE: i32 = 0x0004;
    const WAITING_INDEFINITELY: i32 = 0x0010;
    const WAITING_WITH_TIMEOUT: i32 = 0x0020;
    const BLOCKED_ON_MONITOR_ENTER: i32 = 0x0400;
    if status & RUNNABLE != 0 {
        "RUNNABLE"
    } else if status & BLOCKED_ON_MONITOR_ENTER != 0 {
        "BLOCKED"
    } else if status & WAITING_INDEFINITELY != 0 {
        "WAITING"
    } else if status & WAITING_WITH_TIMEOUT != 0 {
        "TIMED_WAITING"
    } else if status & TERMINATED != 0 {
        "TERMINATED"
    } else if status & ALIVE == 0 {
        "NEW"
    } else {
        "RUNNABLE"
    }
}

#[cfg(test)]
mod tests {
    use super::thread_state;

    #[test]
    fn jvmti_state_words_decode_like_the_jdk() {
        assert_eq!(thread_state(0), "NEW");
        assert_eq!(thread_state(0x0005), "RUNNABLE");
        // alive + waiting + waiting indefinitely + in Object.wait (HotSpot's WAITING word).
        assert_eq!(thread_state(0x0191), "WAITING");
        // alive + waiting + with timeout + sleeping.
        assert_eq!(thread_state(0x00a1), "TIMED_WAITING");
        assert_eq!(thread_state(0x0401), "BLOCKED");
        assert_eq!(thread_state(0x0002), "TERMINATED");
        assert_eq!(thread_state(0x0001), "RUNNABLE");
    }
}
