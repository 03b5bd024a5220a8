//! Thread Overview (mat-semantics.md §3.4): every `java.lang.Thread` with its name, daemon
//! flag, priority, state (the JVMTI bits of `threadStatus`, or `holder.threadStatus` on JDK
//! 19+; a virtual thread's `VirtualThread.state`), context class loader, sizes, and its frames
//! with the objects each frame holds.

use heapql_heap::{ClassIdx, Heap, ObjIdx, StackFrame as HeapFrame, ThreadInfo, Value};
use rustc_hash::FxHashMap;

use super::ctx::{Ctx, THREAD};
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
            let virtual_thread = VirtualKind::of(heap, o);
            // Virtual threads are daemons of NORM_PRIORITY by specification (`Thread.isDaemon`,
            // `getPriority`); JDK 21+ keeps neither in the object (its `holder` is null).
            let daemon = if virtual_thread.is_some() {
                Some(true)
            } else {
                info.and_then(|t| t.daemon).or_else(|| {
                    ["daemon", "isDaemon"].iter().find_map(|f| match heap.field(o, f).or_else(|| holder.and_then(|h| heap.field(h, f))) {
                        Some(Value::Boolean(b)) => Some(b),
                        _ => None,
                    })
                })
            };
            let priority = if virtual_thread.is_some() { Some(NORM_PRIORITY) } else { own_int(ctx, o, "priority") };
            let state = platform_state(ctx, o).or_else(|| match virtual_thread {
                Some(VirtualKind::Continuation(class)) => virtual_state(ctx, o, class),
                _ => None,
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
                priority,
                state: state.map(str::to_string),
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

/// `Thread.NORM_PRIORITY`, every virtual thread's priority.
const NORM_PRIORITY: i32 = 5;

/// An int field of a thread, or of its `holder` (JDK 19+ keeps a platform thread's there).
fn own_int(ctx: &Ctx, o: ObjIdx, name: &str) -> Option<i32> {
    let heap = ctx.heap;
    let holder = ctx.object_field(o, "holder");
    match heap.field(o, name).or_else(|| holder.and_then(|h| heap.field(h, name))) {
        Some(Value::Int(v)) => Some(v),
        _ => None,
    }
}

/// The state of a platform thread (or a virtual thread bound to one), from its JVMTI state word.
fn platform_state(ctx: &Ctx, o: ObjIdx) -> Option<&'static str> {
    own_int(ctx, o, "threadStatus").map(thread_state)
}

/// What kind of virtual thread an object is (`Thread.isVirtual`: a `java.lang.BaseVirtualThread`).
#[derive(Clone, Copy)]
enum VirtualKind {
    /// A `java.lang.VirtualThread` (this class): its state is its `state` field.
    Continuation(ClassIdx),
    /// Another one (`ThreadBuilders$BoundVirtualThread`), whose state is a platform thread's.
    Bound,
}

impl VirtualKind {
    fn of(heap: &Heap, o: ObjIdx) -> Option<VirtualKind> {
        let mut kind = None;
        let mut cur = Some(heap.class_of(o));
        // The class table is acyclic in a sane dump; the bound guards a corrupt one.
        for _ in 0..64 {
            let Some(c) = cur else { break };
            let info = heap.class(c);
            match info.name.as_str() {
                "java.lang.VirtualThread" => kind = Some(VirtualKind::Continuation(c)),
                "java.lang.BaseVirtualThread" => return Some(kind.unwrap_or(VirtualKind::Bound)),
                _ => {}
            }
            cur = info.super_class;
        }
        kind
    }
}

/// `VirtualThread`'s state constants in JDK 21–25 and the `Thread.State` its `threadState()`
/// gives each (STARTED and RUNNING depend on more: `virtual_state`).
const VIRTUAL_STATES: [(&str, i32, &str); 20] = [
    ("NEW", 0, "NEW"),
    ("STARTED", 1, "RUNNABLE"),
    ("RUNNING", 2, "RUNNABLE"),
    ("PARKING", 3, "RUNNABLE"),
    ("PARKED", 4, "WAITING"),
    ("PINNED", 5, "WAITING"),
    ("TIMED_PARKING", 6, "RUNNABLE"),
    ("TIMED_PARKED", 7, "TIMED_WAITING"),
    ("TIMED_PINNED", 8, "TIMED_WAITING"),
    ("UNPARKED", 9, "RUNNABLE"),
    ("YIELDING", 10, "RUNNABLE"),
    ("YIELDED", 11, "RUNNABLE"),
    ("BLOCKING", 12, "BLOCKED"),
    ("BLOCKED", 13, "BLOCKED"),
    ("UNBLOCKED", 14, "RUNNABLE"),
    ("WAITING", 15, "RUNNABLE"),
    ("WAIT", 16, "WAITING"),
    ("TIMED_WAITING", 17, "RUNNABLE"),
    ("TIMED_WAIT", 18, "TIMED_WAITING"),
    ("TERMINATED", 99, "TERMINATED"),
];

/// A virtual thread's `Thread.State`, as `VirtualThread.threadState()` derives it from its
/// `state` field. The numbers are the constants of the dump's `VirtualThread` class, read by
/// name (JDK 19–20 numbered them otherwise, a later JDK may again); JDK 21–25's when the class
/// was dumped without them. None without the field or for a number no constant has.
fn virtual_state(ctx: &Ctx, o: ObjIdx, class: ClassIdx) -> Option<&'static str> {
    let heap = ctx.heap;
    let Some(Value::Int(state)) = heap.field(o, "state") else { return None };
    let statics = &heap.class(class).statics;
    let dumped = statics.iter().any(|f| f.name == "TERMINATED");
    let constant = |name: &str, jdk21: i32| -> Option<i32> {
        if !dumped {
            return Some(jdk21);
        }
        statics.iter().find(|f| f.name == name).and_then(|f| match f.value {
            Value::Int(v) => Some(v),
            _ => None,
        })
    };
    // A thread suspended while unmounted (`SUSPENDED` bit) is in the state under it.
    let state = state & !constant("SUSPENDED", 1 << 8).unwrap_or(0);
    let &(name, _, mapped) = VIRTUAL_STATES.iter().find(|&&(name, jdk21, _)| constant(name, jdk21) == Some(state))?;
    Some(match name {
        // Started but not yet in a thread container: NEW.
        "STARTED" if matches!(heap.field(o, "container"), Some(Value::Null)) => "NEW",
        // Mounted: the state of its carrier thread.
        "RUNNING" => ctx.object_field(o, "carrierThread").and_then(|c| platform_state(ctx, c)).unwrap_or(mapped),
        _ => mapped,
    })
}

/// How a thread held as a local is labelled: `thread "main"`, as a thread rather than by its
/// bare name (which reads like an instance of a class of that name); `thread (unnamed)` for
/// an empty or missing name.
fn local_thread_label(name: Option<String>) -> String {
    match name.filter(|n| !n.is_empty()) {
        Some(n) => format!("thread \"{n}\""),
        None => "thread (unnamed)".to_string(),
    }
}

/// The objects `held` (each once), biggest retained first, ties by address; a thread labelled
/// as one.
fn locals(ctx: &Ctx, held: &[ObjIdx]) -> Vec<Local> {
    let heap = ctx.heap;
    let mut held = held.to_vec();
    held.sort_unstable();
    held.dedup();
    let mut locals: Vec<Local> = held
        .into_iter()
        .map(|o| {
            let mut object = ctx.object_ref(o);
            if ctx.object_flags(o) & THREAD != 0 {
                object.label = local_thread_label(ctx.thread_name(o));
            }
            Local { object, shallow: heap.shallow_size(o), retained: ctx.analysis.retained_size(o) }
        })
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
