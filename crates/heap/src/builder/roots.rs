//! GC roots and threads: the root records resolved to objects, the threads joined from their
//! thread objects, START THREAD records and stack traces.

use super::*;

/// The roots whose object is in the index; the others are counted in a warning.
pub(super) fn resolve_roots(h: &mut Heap, raw: &[RawRoot]) -> Vec<GcRoot> {
    let mut roots = Vec::with_capacity(raw.len());
    let mut dropped = 0u64;
    let mut first: Option<&RawRoot> = None;
    for r in raw {
        match h.objs.index_of(r.id) {
            Some(o) => {
                let kind = root_kind(r.tag);
                let frame = match kind {
                    RootKind::JavaFrame | RootKind::JniLocal | RootKind::JniMonitor => r.frame.filter(|&f| f >= 0),
                    _ => None,
                };
                roots.push(GcRoot { kind, object: o, thread_serial: r.thread, frame });
            }
            None => {
                dropped += 1;
                first = first.or(Some(r));
            }
        }
    }
    if let Some(r) = first {
        h.warnings.push(Warning {
            offset: 0,
            message: format!(
                "{dropped} GC root record(s) name ids that are not objects of this dump; dropped (e.g. {} {} root naming 0x{:x})",
                article(root_kind(r.tag).label()),
                root_kind(r.tag).label(),
                r.id
            ),
        });
    }
    roots
}

/// The threads: one per thread serial, from the ROOT THREAD OBJECT records first, then the
/// START THREAD records (which also name them), each with its stack trace's frames.
pub(super) fn collect_threads(h: &Heap, recs: &Recs, thread_objs: &[(u64, u32, u32)], roots: &[GcRoot]) -> Vec<ThreadInfo> {
    let frame_text = |fid: u64| -> FrameText {
        match recs.frames.get(&fid) {
            Some(&(m, s, f, cs, line)) => FrameText {
                method: recs.text(&h.src, m).unwrap_or_default(),
                signature: recs.text(&h.src, s).unwrap_or_default(),
                class_name: recs
                    .serial_class
                    .get(&cs)
                    .and_then(|cid| recs.load.get(cid))
                    .and_then(|&n| recs.text(&h.src, n))
                    .map(|s| java_name(&s))
                    .unwrap_or_default(),
                source_file: recs.text(&h.src, f).unwrap_or_default(),
                line,
            },
            None => FrameText { method: format!("<unknown frame 0x{fid:x}>"), ..Default::default() },
        }
    };
    let frames_of = |trace: u32| recs.traces.get(&trace).map(|f| f.iter().map(|&x| frame_text(x)).collect()).unwrap_or_default();
    let mut raw_threads: Vec<RawThread> = Vec::new();
    let mut seen_serials = FxHashSet::default();
    for &(id, serial, trace) in thread_objs {
        if !seen_serials.insert(serial) {
            continue;
        }
        raw_threads.push(RawThread { serial, object: h.objs.index_of(id), frames: frames_of(trace), record_name: None });
    }
    for &(serial, id, trace, name_id) in &recs.starts {
        let name = recs.text(&h.src, name_id);
        if let Some(t) = raw_threads.iter_mut().find(|t| t.serial == serial) {
            t.record_name = name;
            continue;
        }
        raw_threads.push(RawThread { serial, object: h.objs.index_of(id), frames: frames_of(trace), record_name: name });
    }
    crate::threads::build_threads(h, raw_threads, roots)
}

/// "an" before a word that starts with a vowel sound ("an Interned String", "an Unknown"),
/// "a" otherwise ("a JNI Global", "a Java Local").
fn article(word: &str) -> &'static str {
    match word.chars().next() {
        Some('A' | 'E' | 'I' | 'O' | 'U' | 'a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// MAT's fallback for a dump that records no System Class root at all
/// (`HprofParserHandlerImpl.fillIn`, mat-semantics.md §1.3): every non-array class of the
/// bootstrap loader (loader id 0) becomes a System Class root, as HotSpot's ROOT STICKY CLASS
/// records would have made it. Only the first `ndumped` classes (those with a CLASS DUMP) are
/// candidates: the synthesized ones have no recorded loader. Adds the roots to `roots` and a
/// warning that says so (and, for a dump cut short, that its roots are partial); returns how
/// many roots it made. A dump with its own System Class roots is left as it is.
pub(super) fn system_class_fallback(h: &mut Heap, roots: &mut Vec<GcRoot>, ndumped: usize, cut_short: bool) -> u64 {
    if roots.iter().any(|r| r.kind == RootKind::StickyClass) {
        return 0;
    }
    let before = roots.len();
    for c in h.classes.iter().take(ndumped) {
        if c.loader_id == 0 && !c.name.ends_with("[]") {
            roots.push(GcRoot { kind: RootKind::StickyClass, object: c.object, thread_serial: None, frame: None });
        }
    }
    let made = (roots.len() - before) as u64;
    if made == 0 {
        return 0;
    }
    let others = match before {
        0 => "the dump records no other GC root".to_string(),
        n => format!("beside the dump's {n} other GC root record(s)"),
    };
    let mut message = format!(
        "the dump holds no System Class root (no ROOT STICKY CLASS record); as Eclipse MAT does, heapql made each of its {made} non-array classes of the bootstrap loader (loader 0) a System Class root, {others}"
    );
    if cut_short {
        message.push_str(
            ": the file is cut short, and HotSpot writes the GC root records at the end of the dump, so the roots it lost (threads, their locals, JNI globals) are missing; reachability, retained sizes and the unreachable objects are partial: what this cut dump shows, not what the JVM held. Take the dump again, or copy it again whole, for complete results",
        );
    } else {
        message.push_str(": objects only the missing roots would hold count as unreachable");
    }
    h.warnings.push(Warning { offset: 0, message });
    made
}
