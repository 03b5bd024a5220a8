//! Thread Overview (mat-semantics.md §3.4): every `java.lang.Thread` with its name, daemon
//! flag, priority, state (the JVMTI bits of `threadStatus`, or `holder.threadStatus` on JDK
//! 19+; a virtual thread's `VirtualThread.state`), context class loader, sizes, and its frames
//! with the objects each frame holds.

use heapql_heap::{ClassIdx, FieldSlot, Heap, ObjIdx, StackFrame as HeapFrame, Value};
use rustc_hash::FxHashMap;

use super::ctx::{thread_label, Ctx, VIRTUAL, VIRTUAL_THREAD};
use super::model::{Local, StackFrame, Thread, ThreadOverview};

/// Frames listed per thread, from the top: as many as the JVM's own thread dump (`jcmd
/// Thread.print`) shows. A dump of 60 threads 20,000 frames deep made a report larger than one
/// JavaScript string can hold (and 4.6 GB of memory on the way); the frames below are counted.
pub const FRAMES_LISTED: usize = 1024;

pub fn threads(ctx: &Ctx, thread_objects: &[ObjIdx]) -> ThreadOverview {
    let heap = ctx.heap;
    let a = ctx.analysis;
    let mut objects: Vec<ObjIdx> = thread_objects.to_vec();
    // Thread roots whose object is not an instance of a Thread class still count (MAT lists them).
    objects.extend(heap.threads().iter().filter_map(|t| t.object).filter(|&o| a.in_tree(o)));
    objects.sort_unstable();
    objects.dedup();
    // What the state of a `VirtualThread` reads, resolved once per class.
    let mut virtual_classes: FxHashMap<ClassIdx, Option<VirtualStates>> = FxHashMap::default();
    let mut out: Vec<Thread> = Vec::with_capacity(objects.len());
    for &o in &objects {
        let info = ctx.thread_entry(o);
        let holder = ctx.object_field(o, "holder");
        let flags = ctx.object_flags(o);
        let virtual_thread = flags & VIRTUAL != 0;
        // Virtual threads are daemons of NORM_PRIORITY by specification (`Thread.isDaemon`,
        // `getPriority`); JDK 21+ keeps neither in the object (its `holder` is null).
        let daemon = if virtual_thread {
            Some(true)
        } else {
            info.and_then(|t| t.daemon).or_else(|| {
                ["daemon", "isDaemon"].iter().find_map(|f| match heap.field(o, f).or_else(|| holder.and_then(|h| heap.field(h, f))) {
                    Some(Value::Boolean(b)) => Some(b),
                    _ => None,
                })
            })
        };
        let priority = if virtual_thread { Some(NORM_PRIORITY) } else { own_int(heap, o, holder, "priority") };
        let mut state = platform_state(heap, o, holder);
        if state.is_none() && flags & VIRTUAL_THREAD != 0 {
            let class = ctx.class_of(o);
            state = virtual_classes.entry(class).or_insert_with(|| VirtualStates::of(heap, class)).as_ref().and_then(|v| v.state(ctx, o));
        }
        let frames: Vec<StackFrame> = info
            .map(|t| t.frames.iter().take(FRAMES_LISTED).enumerate().map(|(d, f)| frame(ctx, d as u32, f)).collect())
            .unwrap_or_default();
        // Deeper frames are counted, and their locals still count for `max_local_retained`.
        let deeper = info.map_or(&[][..], |t| t.frames.get(FRAMES_LISTED..).unwrap_or_default());
        let deeper_max = deeper.iter().flat_map(|f| locals(ctx, &f.locals)).map(|l| l.retained).max().unwrap_or(0);
        let other_locals = info.map(|t| locals(ctx, &t.other_locals)).unwrap_or_default();
        let max_local = frames.iter().flat_map(|f| &f.locals).chain(&other_locals).map(|l| l.retained).max().unwrap_or(0).max(deeper_max);
        let retained = a.retained_size(o);
        let object = ctx.object_ref(o);
        out.push(Thread {
            // The thread table's name, else the `name` field (`object_ref` reads the same).
            name: info.and_then(|t| t.name.clone()).or_else(|| heap.thread_name(o)),
            object,
            daemon,
            priority,
            state: state.map(str::to_string),
            context_class_loader: ctx.object_field(o, "contextClassLoader").map(|l| ctx.loader_object_label(l)),
            shallow: heap.shallow_size(o),
            retained,
            retained_percent: ctx.percent(retained),
            max_local_retained: max_local,
            frames,
            frames_left_out: deeper.len() as u64,
            other_locals,
        });
    }
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

/// An int field of thread `o`, or of its `holder` (JDK 19+ keeps a platform thread's there).
fn own_int(heap: &Heap, o: ObjIdx, holder: Option<ObjIdx>, name: &str) -> Option<i32> {
    match heap.field(o, name).or_else(|| holder.and_then(|h| heap.field(h, name))) {
        Some(Value::Int(v)) => Some(v),
        _ => None,
    }
}

/// The state of a platform thread (or a virtual thread bound to one), from its JVMTI state
/// word (its own field, or its `holder`'s).
fn platform_state(heap: &Heap, o: ObjIdx, holder: Option<ObjIdx>) -> Option<&'static str> {
    own_int(heap, o, holder, "threadStatus").map(thread_state)
}

/// What `VirtualThread.threadState()` gives for a state constant (`VIRTUAL_STATES`).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mapped {
    State(&'static str),
    /// NEW while its `container` is null, else RUNNABLE.
    Started,
    /// Its carrier thread's state when mounted, else RUNNABLE.
    Running,
}

/// `VirtualThread`'s state constants by name, what `threadState()` makes of each, and the value
/// read when the dump's `VirtualThread` class holds none of them (`VirtualStates::of`).
///
/// The numbers, from the JDK's sources: JDK 19, 20 and 21 to 21.0.3 number NEW 0, STARTED 1,
/// RUNNABLE 2 (unmounted), RUNNING 3, PARKING 4, PARKED 5, PINNED 6, YIELDING 7, TERMINATED 99
/// (SUSPENDED 1 << 8 throughout). JDK 22, and 21 from 21.0.4 (JDK-8312498 and JDK-8321270,
/// backported together to 21.0.4), dropped RUNNABLE for UNPARKED and YIELDED and added the
/// timed states: NEW 0 to YIELDED 11 as the fallback column says, TERMINATED 99; JDK 24 added
/// BLOCKING 12 to TIMED_WAIT 18 (JEP 491). Read in: OpenJ9's OpenJDK 19, 23 and 24 trees, a 20u
/// tree, a fork of 21 GA and the 21u tree of after the backport, Temurin 25.0.3's src.zip; 22
/// only from the JDK-8321270 review (in 22 and 23 by December 2023), not its source; nothing
/// after 25. The fallback is right for 21.0.4+ and 22–25 only: a dump of 19 to 21.0.3 whose
/// class has none of the constants reads wrong (the class alone cannot tell the two apart).
const VIRTUAL_STATES: [(&str, Option<i32>, Mapped); 21] = {
    use Mapped::*;
    [
        ("NEW", Some(0), State("NEW")),
        ("STARTED", Some(1), Started),
        // JDK 19 to 21.0.3: runnable, unmounted (2 there).
        ("RUNNABLE", None, State("RUNNABLE")),
        ("RUNNING", Some(2), Running),
        ("PARKING", Some(3), State("RUNNABLE")),
        ("PARKED", Some(4), State("WAITING")),
        ("PINNED", Some(5), State("WAITING")),
        ("TIMED_PARKING", Some(6), State("RUNNABLE")),
        ("TIMED_PARKED", Some(7), State("TIMED_WAITING")),
        ("TIMED_PINNED", Some(8), State("TIMED_WAITING")),
        ("UNPARKED", Some(9), State("RUNNABLE")),
        ("YIELDING", Some(10), State("RUNNABLE")),
        ("YIELDED", Some(11), State("RUNNABLE")),
        ("BLOCKING", Some(12), State("BLOCKED")),
        ("BLOCKED", Some(13), State("BLOCKED")),
        ("UNBLOCKED", Some(14), State("RUNNABLE")),
        ("WAITING", Some(15), State("RUNNABLE")),
        ("WAIT", Some(16), State("WAITING")),
        ("TIMED_WAITING", Some(17), State("RUNNABLE")),
        ("TIMED_WAIT", Some(18), State("TIMED_WAITING")),
        ("TERMINATED", Some(99), State("TERMINATED")),
    ]
};

/// `VirtualThread.SUSPENDED`, the bit a thread suspended while unmounted adds to its state, in
/// every JDK so far (19 to 25).
const SUSPENDED: i32 = 1 << 8;

/// How the virtual threads of one class read their state: the numbers of its
/// `java.lang.VirtualThread` class and where its instances keep `state`, `container` and
/// `carrierThread`, resolved once per class rather than per thread.
struct VirtualStates {
    /// (number, mapping) of every constant the class has.
    states: Vec<(i32, Mapped)>,
    suspended: i32,
    state: FieldSlot,
    container: Option<FieldSlot>,
    carrier: Option<FieldSlot>,
}

impl VirtualStates {
    /// None when class `c` is no `java.lang.VirtualThread` (nor a subclass) or its instances
    /// have no `state` field. The numbers are the constants of that class, read by name; when
    /// it holds none of them at all, the JDK 21.0.4+ and 22–25 values (`VIRTUAL_STATES`).
    fn of(heap: &Heap, c: ClassIdx) -> Option<VirtualStates> {
        let mut cur = Some(c);
        let mut found = None;
        // The class table is acyclic in a sane dump; the bound guards a corrupt one.
        for _ in 0..64 {
            let Some(k) = cur else { break };
            let info = heap.class(k);
            if info.name == "java.lang.VirtualThread" {
                found = Some(k);
                break;
            }
            cur = info.super_class;
        }
        let statics = &heap.class(found?).statics;
        let int = |name: &str| {
            statics.iter().find(|f| f.name == name).and_then(|f| match f.value {
                Value::Int(v) => Some(v),
                _ => None,
            })
        };
        let dumped = statics.iter().any(|f| f.name == "SUSPENDED" || VIRTUAL_STATES.iter().any(|&(name, _, _)| f.name == name));
        let (states, suspended) = if dumped {
            (VIRTUAL_STATES.iter().filter_map(|&(name, _, mapped)| Some((int(name)?, mapped))).collect(), int("SUSPENDED").unwrap_or(0))
        } else {
            (VIRTUAL_STATES.iter().filter_map(|&(_, fallback, mapped)| Some((fallback?, mapped))).collect(), SUSPENDED)
        };
        Some(VirtualStates {
            states,
            suspended,
            state: heap.field_slot(c, "state")?,
            container: heap.field_slot(c, "container"),
            carrier: heap.field_slot(c, "carrierThread"),
        })
    }

    /// Virtual thread `o`'s `Thread.State`, as `VirtualThread.threadState()` derives it from
    /// its `state` field; None for a number no constant has.
    fn state(&self, ctx: &Ctx, o: ObjIdx) -> Option<&'static str> {
        let heap = ctx.heap;
        let Some(Value::Int(state)) = heap.field_at(o, self.state) else { return None };
        // A thread suspended while unmounted (`SUSPENDED` bit) is in the state under it.
        let state = state & !self.suspended;
        let &(_, mapped) = self.states.iter().find(|&&(v, _)| v == state)?;
        Some(match mapped {
            Mapped::State(s) => s,
            // Started but not yet in a thread container: NEW.
            Mapped::Started if matches!(self.container.and_then(|f| heap.field_at(o, f)), Some(Value::Null)) => "NEW",
            Mapped::Started => "RUNNABLE",
            // Mounted: the state of its carrier thread.
            Mapped::Running => self
                .carrier
                .and_then(|f| match heap.field_at(o, f) {
                    Some(Value::Object(id)) => heap.index_of(id),
                    _ => None,
                })
                .and_then(|c| platform_state(heap, c, ctx.object_field(c, "holder")))
                .unwrap_or("RUNNABLE"),
        })
    }
}

/// How a thread held as a local is labelled: `thread "main"`, as a thread rather than by its
/// bare name (which reads like an instance of a class of that name), `"` and `\` in the name
/// escaped (`ctx::thread_label`); `thread (unnamed)` for an empty or missing name.
fn local_thread_label(name: Option<String>) -> String {
    match name.filter(|n| !n.is_empty()) {
        Some(n) => thread_label(&n),
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
            // A thread (class flag `THREAD`) as one, anything else by its own label.
            let object = ctx.object_ref_with(o, |name, _| local_thread_label(name));
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
