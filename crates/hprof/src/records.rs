//! Top-level record walk (hprof-format.md §3, §5, §6, §12): hands the small records to a visitor
//! and returns where each heap dump's segments are. Heap data itself is not read here.

use crate::control::{Control, Ticker};
use crate::cursor::Cursor;
use crate::error::{Error, Warning};
use crate::header::Header;
use crate::source::Source;
use crate::types::{be_id, be_u32, sub, tag};

/// A non-heap record, borrowed from the window.
#[derive(Debug)]
pub enum Record<'a> {
    Utf8 { id: u64, body_off: u64, text: &'a [u8] },
    LoadClass { serial: u32, class_id: u64, trace_serial: u32, name_id: u64 },
    UnloadClass { serial: u32 },
    Frame { id: u64, method_name_id: u64, signature_id: u64, source_file_id: u64, class_serial: u32, line: i32 },
    /// `frame_ids` holds `count` identifiers of `id_size` bytes, top of stack first.
    Trace { serial: u32, thread_serial: u32, count: u32, frame_ids: &'a [u8] },
    StartThread { serial: u32, object_id: u64, trace_serial: u32, name_id: u64, group_name_id: u64, parent_group_name_id: u64 },
    EndThread { serial: u32 },
    /// ALLOC SITES, HEAP SUMMARY, CPU SAMPLES, CONTROL SETTINGS: known, not used by the index.
    Other { tag: u8, offset: u64, len: u64 },
}

pub trait RecordVisitor {
    fn record(&mut self, r: Record<'_>);
}

impl<F: FnMut(Record<'_>)> RecordVisitor for F {
    fn record(&mut self, r: Record<'_>) {
        self(r)
    }
}

/// One HEAP DUMP (0x0C) or HEAP DUMP SEGMENT (0x1C) body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// File offset of the first sub-record (just after the 9-byte record header).
    pub offset: u64,
    pub len: u64,
    /// True when this body reaches the end of the data because the file is cut short inside
    /// it (a file cut right after a whole segment is `Dump::missing_end`).
    pub truncated: bool,
}

/// One heap dump: a 0x0C record, or the 0x1C segments up to a 0x2C.
#[derive(Clone, Debug, Default)]
pub struct Dump {
    pub segments: Vec<Segment>,
    /// File offset of the first record of this dump.
    pub offset: u64,
    pub bytes: u64,
    /// The time field of that record: microseconds after the header's time (each dump of a
    /// file with several has its own; HotSpot writes 0 in its single dump's).
    pub micros: u32,
    /// Segments the file ends among without their HEAP DUMP END: the file may be cut between
    /// two records, and what a writer puts last (HotSpot's GC root records) may be missing.
    pub missing_end: bool,
}

/// What the walk found.
#[derive(Debug, Default)]
pub struct Layout {
    pub dumps: Vec<Dump>,
    pub warnings: Vec<Warning>,
    /// Records per top-level tag.
    pub record_counts: Vec<(u8, u64)>,
    /// Where parsing stopped (the file length unless it is cut short).
    pub data_end: u64,
}

/// Does a believable record header start at `off`? Used to tell an empty zero-length heap
/// record from one whose length was never patched (§12.1).
fn plausible_record(cur: &mut Cursor<'_>, off: u64, total: u64) -> bool {
    let h = cur.get(off, 9);
    if h.len() < 9 {
        return false;
    }
    let len = be_u32(h, 5) as u64;
    tag::is_known(h[0]) && off + 9 + len <= total
}

/// The longest UTF8 record believed: HotSpot's symbols hold at most 65535 bytes; other writers'
/// names are no longer. A header claiming more is not one a writer wrote.
const MAX_UTF8: u64 = 1 << 20;

/// The length rule of a record kind (hprof-format.md §5, §6), the one table the checks below
/// read: a fixed length, or a fixed part plus entries of `per` bytes whose count the body
/// holds at `count_at`; UTF8 (an id and up to `MAX_UTF8` bytes) and heap records (any length).
enum Shape {
    Fixed(u64),
    Counted { base: u64, per: u64, count_at: u64 },
    Utf8,
    Heap,
}

/// The length rule of tag `t` for identifiers of `ids` bytes; `None` for an unknown tag.
fn shape(t: u8, ids: u64) -> Option<Shape> {
    let counted = |base, per, count_at| Shape::Counted { base, per, count_at };
    Some(match t {
        tag::UTF8 => Shape::Utf8,
        tag::LOAD_CLASS => Shape::Fixed(8 + 2 * ids),
        tag::UNLOAD_CLASS | tag::END_THREAD => Shape::Fixed(4),
        tag::FRAME => Shape::Fixed(4 * ids + 8),
        tag::TRACE => counted(12, ids, 8),
        tag::ALLOC_SITES => counted(34, 25, 30),
        tag::HEAP_SUMMARY => Shape::Fixed(24),
        tag::START_THREAD => Shape::Fixed(8 + 4 * ids),
        tag::CPU_SAMPLES => counted(8, 8, 4),
        tag::CONTROL_SETTINGS => Shape::Fixed(6),
        tag::HEAP_DUMP | tag::HEAP_DUMP_SEGMENT => Shape::Heap,
        tag::HEAP_DUMP_END => Shape::Fixed(0),
        _ => return None,
    })
}

/// Could a record with tag `t` hold `len` bytes? False for an unknown tag.
fn shape_fits(t: u8, len: u64, ids: u64) -> bool {
    match shape(t, ids) {
        Some(Shape::Fixed(n)) => len == n,
        Some(Shape::Counted { base, per, .. }) => len >= base && (len - base).is_multiple_of(per),
        Some(Shape::Utf8) => len >= ids && len <= ids + MAX_UTF8,
        Some(Shape::Heap) => true,
        None => false,
    }
}

/// The entry count a counted record's body holds at `at` (`None` past the end of the data).
fn count_in(cur: &mut Cursor<'_>, body: u64, at: u64) -> Option<u64> {
    let c = cur.get(body + at, 4);
    (c.len() == 4).then(|| be_u32(c, 0) as u64)
}

/// Could the header `(t, len)` at `p` be one a writer wrote? Its kind's shape, a counted
/// record's count agrees with its length, and a heap record's body starts with a heap
/// sub-record (each when the data goes that far).
fn believable(cur: &mut Cursor<'_>, p: u64, t: u8, len: u64, ids: u64) -> bool {
    if !shape_fits(t, len, ids) {
        return false;
    }
    match shape(t, ids) {
        Some(Shape::Heap) if len > 0 => {
            let b = cur.get(p + 9, 1);
            b.is_empty() || sub::is_known(b[0])
        }
        Some(Shape::Counted { base, per, count_at }) => {
            count_in(cur, p + 9, count_at).is_none_or(|c| c == (len - base) / per)
        }
        _ => true,
    }
}

/// After a record of an unknown kind that ends at `p`: does the data go on there the way a
/// file does? The end of the data, a header cut by it, a believable header of a known kind (one
/// running past the end is a file cut short), or more records of unknown kinds that fit (as many
/// as there are), and then one of those. `Some(e)`: it does, and every record from `p` to `e` is
/// one of those unknown ones (so a record starting before `e` need not be followed again).
fn lands(cur: &mut Cursor<'_>, mut p: u64, total: u64, ids: u64) -> Option<u64> {
    loop {
        if p >= total {
            return (p == total).then_some(p);
        }
        let h = cur.get(p, 9);
        if h.len() < 9 {
            return Some(p);
        }
        let (t, len) = (h[0], be_u32(h, 5) as u64);
        if tag::is_known(t) {
            return believable(cur, p, t, len, ids).then_some(p);
        }
        if len > total - p - 9 {
            return None;
        }
        p += 9 + len;
    }
}

/// Do `n` whole records of known kinds and possible lengths start at `p` (fewer when the data
/// ends just after them)? Strict, to tell where records resume after a lying length.
fn chain(cur: &mut Cursor<'_>, mut p: u64, total: u64, ids: u64, n: usize) -> bool {
    for i in 0..n {
        if p == total {
            return i > 0;
        }
        let h = cur.get(p, 9);
        if h.len() < 9 {
            return false;
        }
        let (t, len) = (h[0], be_u32(h, 5) as u64);
        if len > total - p - 9 || !believable(cur, p, t, len, ids) {
            return false;
        }
        p += 9 + len;
    }
    true
}

/// The length a record of a known small kind must have, from its kind and the counts in its
/// body; `None` for UTF8 and heap records (any length) and unknown tags.
fn exact_len(cur: &mut Cursor<'_>, body: u64, t: u8, ids: u64) -> Option<u64> {
    match shape(t, ids)? {
        Shape::Fixed(n) => Some(n),
        Shape::Counted { base, per, count_at } => Some(base + per * count_in(cur, body, count_at)?),
        Shape::Utf8 | Shape::Heap => None,
    }
}

/// Where the records after the small record (not a heap one) whose body starts at `body` resume,
/// found from its body rather than from its length: at the length its kind and counts give it,
/// or for a UTF8 record (any length up to `MAX_UTF8`) at the first offset after its id where
/// whole records of known kinds follow each other. Only on the error path.
fn true_end(cur: &mut Cursor<'_>, body: u64, t: u8, total: u64, ids: u64) -> Option<u64> {
    if let Some(n) = exact_len(cur, body, t, ids) {
        let q = body + n;
        return (q <= total && chain(cur, q, total, ids, 3)).then_some(q);
    }
    if t != tag::UTF8 {
        return None;
    }
    (body + ids..=(body + ids + MAX_UTF8).min(total)).find(|&q| chain(cur, q, total, ids, 3))
}

/// Do whole records of known kinds and believable headers follow each other from `p` to the
/// end of the data (the last may be a heap record cut by it)? At least one whole record. Walks
/// top-level headers only; on the error path.
pub(crate) fn records_to_end(cur: &mut Cursor<'_>, mut p: u64, total: u64, ids: u64) -> bool {
    let mut n = 0u64;
    while p < total {
        let h = cur.get(p, 9);
        if h.len() < 9 {
            return false;
        }
        let (t, len) = (h[0], be_u32(h, 5) as u64);
        if !tag::is_known(t) || !believable(cur, p, t, len, ids) {
            return false;
        }
        if len > total - p - 9 {
            return n > 0 && (t == tag::HEAP_DUMP || t == tag::HEAP_DUMP_SEGMENT);
        }
        n += 1;
        p += 9 + len;
    }
    n > 0
}

/// The first offset from `from` where whole records follow each other to the end of the data
/// (`records_to_end`): bytes before it that are no records are damage, not a trailer. A scan of
/// every offset to the end, rejecting most at their first byte; on the error path only, and
/// cancellable as the walk is (gigabytes of junk can follow).
fn records_resume_to_end(cur: &mut Cursor<'_>, tick: &mut Ticker<'_>, from: u64, total: u64, ids: u64) -> Result<Option<u64>, Error> {
    for q in from..total.saturating_sub(8) {
        tick.at(q)?;
        let b = cur.get(q, 1);
        if !b.is_empty() && tag::is_known(b[0]) && chain(cur, q, total, ids, 3) && records_to_end(cur, q, total, ids) {
            return Ok(Some(q));
        }
    }
    Ok(None)
}

/// How far around the end a lying record claims its search for where the records resume goes.
const RESYNC: u64 = 4096;

/// Where the records after the record whose body starts at `body` resume, when its length
/// (which puts its end at `pos`) is wrong: the nearest offset to `pos`, at most `radius` away,
/// where whole records of known kinds follow each other.
fn resume(cur: &mut Cursor<'_>, body: u64, pos: u64, total: u64, ids: u64, radius: u64) -> Option<u64> {
    for d in 1..=radius {
        if let Some(q) = pos.checked_sub(d).filter(|&q| q >= body) {
            if chain(cur, q, total, ids, 3) {
                return Some(q);
            }
        }
        let q = pos + d;
        if q < total && chain(cur, q, total, ids, 3) {
            return Some(q);
        }
    }
    None
}

/// Whether every byte from `pos` to `total` is zero (read a window at a time).
fn zeros_to_end(cur: &mut Cursor<'_>, mut pos: u64, total: u64) -> bool {
    const WINDOW: u64 = 1 << 20;
    while pos < total {
        let n = (total - pos).min(WINDOW) as usize;
        if cur.get(pos, n).iter().any(|&b| b != 0) {
            return false;
        }
        pos += n as u64;
    }
    true
}

/// The error for the record `(offset, tag, length)` whose length lies: what follows it at `next`
/// is no record (`what`), and records resume at `q` (its body then held `q - offset - 9` bytes).
fn length_lies((off, t, len): (u64, u8, u64), next: u64, what: &str, q: u64, total: u64) -> Error {
    Error::Corrupt {
        offset: off,
        reason: format!(
            "the record at byte offset {off} ({}, {len} bytes) is followed by bytes that are no record at byte offset {next} ({what}); its length is probably wrong: records resume at byte offset {q}, as if it held {} bytes. {}",
            kind(t),
            q - (off + 9),
            not_cut(total)
        ),
    }
}

/// What the errors about a length that lies say about the file and what to do.
pub(crate) fn not_cut(total: u64) -> String {
    format!("The file is not cut short (its data goes on to byte offset {total}): it was damaged after it was written (a broken copy or transfer, or a broken writer); copy it again from where the dump was taken, or take a new heap dump")
}

/// The name of a record kind in messages.
pub(crate) fn kind(t: u8) -> String {
    match tag::name(t) {
        Some(n) => n.to_string(),
        None => format!("unknown tag 0x{t:02X}"),
    }
}

/// The error for the record at `pos` (tag `t`) whose own length `len` lies: records resume
/// after `held` bytes of its body.
fn own_length_lies(pos: u64, t: u8, len: u64, left: u64, held: u64, total: u64) -> Error {
    let q = pos + 9 + held;
    Error::Corrupt {
        offset: pos,
        reason: format!(
            "the record at byte offset {pos} ({}) claims {len} bytes, {}; its length is wrong: records resume at byte offset {q}, as if it held {held} bytes. {}",
            kind(t),
            if len > left { format!("but only {left} remain") } else { "after which no record starts".to_string() },
            not_cut(total)
        ),
    }
}

/// Does the walk go on at `p` as if nothing were wrong: the end of the data, or a believable
/// header of a known kind?
fn next_reads(cur: &mut Cursor<'_>, p: u64, total: u64, ids: u64) -> bool {
    if p == total {
        return true;
    }
    let h = cur.get(p, 9);
    if h.len() < 9 || !tag::is_known(h[0]) {
        return false;
    }
    let (t, len) = (h[0], be_u32(h, 5) as u64);
    believable(cur, p, t, len, ids)
}

/// The error for the small record at `pos` (tag `t`) whose length `len`, within the file, is
/// not the `held` bytes its kind and counts give it, whole records following after `held`.
fn wrong_small_length(pos: u64, t: u8, len: u64, held: u64, total: u64) -> Error {
    let q = pos + 9 + held;
    Error::Corrupt {
        offset: pos,
        reason: format!(
            "the record at byte offset {pos} ({}) claims {len} bytes, but its kind and counts give it {held}; its length is wrong: records resume at byte offset {q}, as if it held {held} bytes ({}). {}",
            kind(t),
            if len > held { format!("read by its length it would swallow the {} bytes after that, records among them", len - held) } else { format!("read by its length the next record would start {} bytes inside its body", held - len) },
            not_cut(total)
        ),
    }
}

/// Walks every top-level record. Never fails on truncation (that is a warning); fails when
/// cancelled, and with `Corrupt` when a record's length is wrong in the middle of the file:
/// what follows it is no record (an unknown tag that leads nowhere, or a length that is
/// impossible for its kind and runs past the end) while the data goes on.
pub fn walk(src: &Source, header: &Header, ctl: Control<'_>, v: &mut dyn RecordVisitor) -> Result<Layout, Error> {
    let id = header.id_size;
    let ids = id as usize;
    let mut cur = Cursor::new(src);
    let total = cur.len();
    let mut pos = header.records_start;
    let mut out = Layout::default();
    let mut counts = vec![0u64; 256];
    // Segments collected for the dump in progress (0x1C ... 0x2C).
    let mut open: Option<Dump> = None;
    let mut tick = ctl.ticker("records", total);
    let mut unknown_tags = 0u64;
    // Records whose length leads to the next record but is not their kind's (warned of up to
    // UNKNOWN_NAMED times, then counted, as the unknown kinds are).
    let mut odd_lengths = 0u64;
    // The identifier size the header does not give, and how many records whose kind fixes their
    // length by the identifier size hold the length the header's size gives them (.0) or the
    // other size's (.1), with the first of the latter (offset, tag, length, length expected).
    let other_ids: u64 = if ids == 4 { 8 } else { 4 };
    let mut id_fits = (0u64, 0u64);
    let mut id_misfit: Option<(u64, u8, u64, u64)> = None;
    // The record before this one: (offset, tag, length).
    let mut prev: Option<(u64, u8, u64)> = None;
    // Records of unknown kinds up to here were followed to a record of a known kind (`lands`).
    let mut landed = 0u64;
    // The record before `prev`.
    let mut before_prev: Option<(u64, u8, u64)> = None;
    // A warning has said the file is cut short inside a record (no other needs to say so).
    let mut cut_said = false;
    while pos < total {
        tick.at(pos)?;
        let h = cur.get(pos, 9);
        if h.len() < 9 {
            out.warnings.push(Warning {
                offset: pos,
                message: format!("the file is cut short: a record header at byte offset {pos} is incomplete; data ends at {total}"),
            });
            cut_said = true;
            break;
        }
        let t = h[0];
        let micros = be_u32(h, 1);
        let mut len = be_u32(h, 5) as u64;
        let body = pos + 9;
        let left = total - body;
        if t == 0 && len == 0 && prev.is_some() && zeros_to_end(&mut cur, pos, total) {
            // A file written into a preallocated one, or padded by a copy: zeros, no records.
            out.warnings.push(Warning {
                offset: pos,
                message: format!("the {} bytes from byte offset {pos} to the end are zeros, not records (padding); ignored", total - pos),
            });
            break;
        }
        counts[t as usize] += 1;
        // u4 overflow of a single > 4 GiB HEAP DUMP record (§12.2).
        if t == tag::HEAP_DUMP && left >= (1u64 << 32) && (left - len).is_multiple_of(1u64 << 32) {
            len = left;
        }
        // After a record, bytes that no writer wrote as a record: an unknown tag whose length
        // leads nowhere or past the end, a known one whose length cannot be its kind's and runs
        // past the end. A file cut short ends inside a record whose header is whole and right,
        // so this is the previous record's length lying (a bit flipped in a copy, a broken
        // writer), not a cut: the walk would read garbage as records, then call it cut short.
        let misframed = if tag::is_known(t) {
            len > left && !believable(&mut cur, pos, t, len, ids as u64)
        } else if pos < landed {
            false
        } else {
            match (len <= left).then(|| lands(&mut cur, body + len, total, ids as u64)).flatten() {
                Some(e) => {
                    landed = e;
                    false
                }
                None => true,
            }
        };
        // The first record, of a known small kind, whose length cannot be its kind's and runs
        // past the end: no record before it to blame, so if whole records resume where its
        // kind and counts end it, its own length lies (else the file is cut short in it).
        if misframed && prev.is_none() && t != tag::HEAP_DUMP && t != tag::HEAP_DUMP_SEGMENT {
            if let Some(q) = true_end(&mut cur, body, t, total, ids as u64) {
                return Err(own_length_lies(pos, t, len, left, q - body, total));
            }
        }
        if let (true, Some((p_off, p_tag, p_len))) = (misframed, prev) {
            if cur.get(pos, 13) == b"JAVA PROFILE " {
                // Two files written one after the other (hprof-format.md §2).
                out.warnings.push(Warning {
                    offset: pos,
                    message: format!(
                        "a second HPROF file header at byte offset {pos}: another dump was written after this one into the same file; only the records before it are read"
                    ),
                });
                break;
            }
            let what = if len > left {
                format!("{} claiming {len} bytes, but only {left} remain", kind(t))
            } else {
                format!("{} claiming {len} bytes, after which no record starts", kind(t))
            };
            // A record of a known small kind after one that read right, with the time stamp of
            // the one before it, whose body ends where records resume: its own length lies.
            if tag::is_known(t) && t != tag::HEAP_DUMP && t != tag::HEAP_DUMP_SEGMENT && be_u32(cur.get(pos, 5), 1) == be_u32(cur.get(p_off, 5), 1) {
                if let Some(q) = true_end(&mut cur, body, t, total, ids as u64) {
                    return Err(own_length_lies(pos, t, len, left, q - body, total));
                }
            }
            // The record before is no record of its kind (its length cannot be its kind's) and
            // whole records start a few bytes from it: the one before it is the liar, its
            // length off by a little (its end fell a few bytes from the next record's header).
            if let Some((b_off, b_tag, b_len)) = before_prev.filter(|&(_, bt, _)| bt != tag::HEAP_DUMP_END) {
                if !believable(&mut cur, p_off, p_tag, p_len, ids as u64) {
                    let b_body = b_off + 9;
                    if let Some(q) = resume(&mut cur, b_body, p_off, total, ids as u64, 8) {
                        let what = format!("{} claiming {p_len} bytes, after which no record starts", kind(p_tag));
                        return Err(length_lies((b_off, b_tag, b_len), p_off, &what, q, total));
                    }
                }
            }
            let p_body = p_off + 9;
            let small = p_tag != tag::HEAP_DUMP && p_tag != tag::HEAP_DUMP_SEGMENT;
            // Where the records resume: from its body (a small record: at the length its kind
            // and counts give, or a UTF8 record's first end after which records follow), near
            // where its length puts its end (a heap record's length off by a little), or far
            // after, where whole records go on to the end of the file (the bytes between are
            // damage, not a trailer).
            let near = small
                .then(|| true_end(&mut cur, p_body, p_tag, total, ids as u64))
                .flatten()
                .or_else(|| resume(&mut cur, p_body, pos, total, ids as u64, RESYNC));
            let resumed = match near {
                Some(q) => Some(q),
                None => records_resume_to_end(&mut cur, &mut tick, pos + 1, total, ids as u64)?,
            }
            .filter(|_| p_tag != tag::HEAP_DUMP_END);
            let Some(q) = resumed else {
                // No records follow (bytes appended to a whole dump, a writer's leftovers), or
                // they follow a record whose length is always 0: nothing says a length lied.
                counts[t as usize] -= 1;
                out.warnings.push(Warning {
                    offset: pos,
                    message: format!(
                        "the {} bytes from byte offset {pos} to the end are not HPROF records (after the {} record at byte offset {p_off}); ignored: the records before them are read",
                        total - pos,
                        kind(p_tag)
                    ),
                });
                break;
            };
            // An empty heap record (length 0 and a believable header after it, read as empty by
            // `plausible_record`) just before: if the record after it leads nowhere, its 0 was
            // the lie and it held heap data.
            let zero_heap = before_prev.filter(|&(z, zt, zl)| matches!(zt, tag::HEAP_DUMP | tag::HEAP_DUMP_SEGMENT) && zl == 0 && z + 9 == p_off);
            if let Some(zero) = zero_heap {
                let what = format!("{} claiming {p_len} bytes, after which no record starts", kind(p_tag));
                return Err(length_lies(zero, p_off, &what, q, total));
            }
            return Err(length_lies((p_off, p_tag, p_len), pos, &what, q, total));
        }
        // The header's identifier size, checked against the records whose kind fixes their
        // length by it (LOAD CLASS, FRAME, START THREAD, a TRACE with frames): a dump read with
        // the wrong one would fail (or read wrong) deep in its heap data, naming the wrong cause.
        if len <= left {
            let own = exact_len(&mut cur, body, t, ids as u64);
            let other = exact_len(&mut cur, body, t, other_ids);
            if own.is_some() && own != other {
                if own == Some(len) {
                    id_fits.0 += 1;
                } else if other == Some(len) {
                    id_fits.1 += 1;
                    id_misfit.get_or_insert((pos, t, len, own.unwrap_or(0)));
                }
            }
            if id_fits.0 == 0 && id_fits.1 >= ID_SIZE_EVIDENCE {
                return Err(wrong_id_size(header, other_ids, id_fits.1, id_misfit, total));
            }
        }
        // A small record of a fixed or counted kind whose length is not the one its kind and
        // counts give, while whole records follow where that length ends it: its length lies.
        // Read by its length, it would swallow the records after it (or end inside the next
        // one) with no sign, when its whole body fits in the file and the walk goes on.
        // (When what follows its length is no record, the check above on the next record says
        // so, naming what it found there.)
        if len <= left && t != tag::UTF8 && t != tag::HEAP_DUMP && t != tag::HEAP_DUMP_SEGMENT && next_reads(&mut cur, body + len, total, ids as u64) {
            if let Some(n) = exact_len(&mut cur, body, t, ids as u64).filter(|&n| n != len) {
                if true_end(&mut cur, body, t, total, ids as u64).is_some() {
                    return Err(wrong_small_length(pos, t, len, n, total));
                }
                // Its length leads to the next record but is not its kind's: its tag (or a
                // count in it) is damaged, the record most likely another kind's.
                if len > n {
                    name_first(&mut odd_lengths, &mut out.warnings, || Warning {
                        offset: pos,
                        message: format!(
                            "the {} record at byte offset {pos} holds {len} bytes, but its kind and counts give it {n}: its tag or counts are probably damaged (it may be a record of another kind, whose content is then missing from every answer); its first {n} bytes are read as its kind, the rest skipped; copy the dump again from where it was taken",
                            kind(t)
                        ),
                    });
                }
            }
        }
        let mut truncated = false;
        if (t == tag::HEAP_DUMP || t == tag::HEAP_DUMP_SEGMENT) && len == 0 && body < total && !plausible_record(&mut cur, body, total) {
            // A length never patched by a writer that died: the data runs to the end (§12.1).
            out.warnings.push(Warning {
                offset: pos,
                message: format!("heap dump record at byte offset {pos} has length 0 but data follows; assuming the writer died before patching it, reading to the end of the file"),
            });
            len = left;
            truncated = true;
        }
        if len > left {
            // A small record (a UTF8 one: its length may be anything up to `MAX_UTF8`) running
            // past the end while whole records go on to the end of the file from where its kind
            // or its text ends it: its own length lies, the file is not cut short. Read as a
            // cut, every record after it (the heap dump included) would be dropped.
            if t != tag::HEAP_DUMP && t != tag::HEAP_DUMP_SEGMENT {
                if let Some(q) = true_end(&mut cur, body, t, total, ids as u64).filter(|&q| records_to_end(&mut cur, q, total, ids as u64)) {
                    return Err(own_length_lies(pos, t, len, left, q - body, total));
                }
            }
            out.warnings.push(Warning {
                offset: total,
                message: format!(
                    "the file is cut short: the record with tag 0x{t:02X} at byte offset {pos} claims {len} bytes but only {left} remain; data ends at byte offset {total}"
                ),
            });
            cut_said = true;
            if t == tag::HEAP_DUMP || t == tag::HEAP_DUMP_SEGMENT {
                len = left;
                truncated = true;
            } else {
                break;
            }
        }
        match t {
            tag::HEAP_DUMP => {
                if let Some(d) = open.take() {
                    out.dumps.push(d);
                }
                out.dumps.push(Dump {
                    segments: vec![Segment { offset: body, len, truncated }],
                    offset: pos,
                    bytes: len,
                    micros,
                    missing_end: false,
                });
            }
            tag::HEAP_DUMP_SEGMENT => {
                let d = open.get_or_insert_with(|| Dump { segments: Vec::new(), offset: pos, bytes: 0, micros, missing_end: false });
                d.segments.push(Segment { offset: body, len, truncated });
                d.bytes += len;
            }
            tag::HEAP_DUMP_END => {
                if let Some(d) = open.take() {
                    out.dumps.push(d);
                }
            }
            _ if !tag::is_known(t) && len > 0 && matches!(prev, Some((_, tag::HEAP_DUMP_SEGMENT | tag::HEAP_DUMP, _))) && cur.get(body, 1).first().is_some_and(|&b| sub::is_known(b)) => {
                // Among heap records, a record of an unknown kind whose body starts with a heap
                // sub-record: most likely a heap record whose tag byte was damaged. Skipped as
                // any unknown record is, but the warning says what is probably lost. Named only
                // among the first `UNKNOWN_NAMED` unknown records, as the others are (the count
                // after the walk says so; a hostile file would otherwise grow a warning per record).
                let first = cur.get(body, 1)[0];
                name_first(&mut unknown_tags, &mut out.warnings, || Warning {
                    offset: pos,
                    message: format!(
                        "unknown record tag 0x{t:02X} at byte offset {pos} ({len} bytes); skipped. It follows a heap dump record and its body starts like heap data (a sub-record with tag 0x{first:02X}): most likely a HEAP DUMP SEGMENT (0x1C) whose tag byte was damaged, so the objects and roots in those {len} bytes are missing from every answer; copy the dump again from where it was taken"
                    ),
                });
            }
            _ => {
                // Small records are read whole; a huge one on chunked input grows the window.
                let b = cur.get(body, len as usize);
                decode(t, b, body, len, id, ids, v, &mut out.warnings, &mut unknown_tags);
            }
        }
        before_prev = prev;
        prev = Some((pos, t, len));
        pos = body + len;
    }
    if let Some(mut d) = open.take() {
        d.missing_end = true;
        if !cut_said {
            out.warnings.push(Warning {
                offset: pos.min(total),
                message: format!(
                    "the heap dump starting at byte offset {} has no HEAP DUMP END record: the file may be cut short; data ends at byte offset {}",
                    d.offset,
                    pos.min(total)
                ),
            });
        }
        out.dumps.push(d);
    }
    // No heap dump at all, the records ending right at the end of the file after the names and
    // classes a JVM writes before its heap data (and no record of the agent's CPU or allocation
    // profiles, files that hold no heap dump by design): a heap dump cut between two records.
    let (names, loaded) = (counts[tag::UTF8 as usize], counts[tag::LOAD_CLASS as usize]);
    if out.dumps.is_empty()
        && pos == total
        && names + loaded > 0
        && [tag::CPU_SAMPLES, tag::ALLOC_SITES, tag::HEAP_SUMMARY].iter().all(|&t| counts[t as usize] == 0)
        && !cut_said
    {
        out.warnings.push(Warning {
            offset: total,
            message: format!(
                "the file ends at byte offset {total}, right after a whole record, with {names} UTF8 and {loaded} LOAD CLASS record(s) and no heap dump record: a JVM writes its heap data after those, so the file is most likely a heap dump cut short before its heap data; copy it again whole, or take a new heap dump"
            ),
        });
    }
    if id_fits.0 == 0 && id_fits.1 > 0 {
        return Err(wrong_id_size(header, other_ids, id_fits.1, id_misfit, total));
    }
    let end = pos.min(total);
    out.warnings.extend(more_warning(end, odd_lengths, "records whose length is not their kind's"));
    out.warnings.extend(more_warning(end, unknown_tags, "records of unknown kinds skipped"));
    out.data_end = end;
    tick.finish();
    out.record_counts = counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(t, &c)| (t as u8, c)).collect();
    Ok(out)
}

/// How many records, whose kind fixes their length by the identifier size, holding the other
/// size's length (and none the header's) the walk needs to call the header's size wrong before
/// its end (at the end of the walk, one is enough).
const ID_SIZE_EVIDENCE: u64 = 3;

/// The error for a header whose identifier size is not the one the records were written with:
/// `n` records (the first `first`: offset, tag, length, the length the header's size gives it)
/// hold the length `other`-byte identifiers give them, none the header's.
fn wrong_id_size(header: &Header, other: u64, n: u64, first: Option<(u64, u8, u64, u64)>, total: u64) -> Error {
    let at = header.records_start - 12;
    let example = first.map_or(String::new(), |(off, t, len, own)| format!(", the first the {} record at byte offset {off}: {len} bytes, not {own}", kind(t)));
    Error::Corrupt {
        offset: at,
        reason: format!(
            "the header's identifier size at byte offset {at} says {}-byte identifiers, but the records whose kind fixes their length by it hold the lengths {other}-byte identifiers give them ({n} record(s){example}) and none hold its own: the header's identifier size is damaged, so nothing in the file can be read right. {}",
            header.id_size,
            not_cut(total)
        ),
    }
}

/// How many records of one kind of trouble (an unknown kind, a length not their kind's) are
/// named one warning each (then one says how many more).
const UNKNOWN_NAMED: u64 = 20;

/// Counts one more record of a kind of trouble and names it while no more than `UNKNOWN_NAMED`
/// have been (`more_warning` speaks for the rest).
fn name_first(count: &mut u64, warnings: &mut Vec<Warning>, warning: impl FnOnce() -> Warning) {
    *count += 1;
    if *count <= UNKNOWN_NAMED {
        warnings.push(warning());
    }
}

/// The one warning for the `count - UNKNOWN_NAMED` records of a kind of trouble (`what`) past
/// those named one warning each, if there are any.
fn more_warning(offset: u64, count: u64, what: &str) -> Option<Warning> {
    (count > UNKNOWN_NAMED).then(|| Warning {
        offset,
        message: format!("…and {} more {what} ({count} in all; the first {UNKNOWN_NAMED} are named above)", count - UNKNOWN_NAMED),
    })
}

#[allow(clippy::too_many_arguments)]
fn decode(
    t: u8,
    b: &[u8],
    body: u64,
    len: u64,
    id: u32,
    ids: usize,
    v: &mut dyn RecordVisitor,
    warnings: &mut Vec<Warning>,
    unknown: &mut u64,
) {
    let short = |warnings: &mut Vec<Warning>, need: usize| {
        warnings.push(Warning {
            offset: body - 9,
            message: format!("record with tag 0x{t:02X} at byte offset {} has length {len}, too short for its {need}-byte body; skipped", body - 9),
        });
    };
    match t {
        tag::UTF8 => {
            if b.len() < ids {
                return short(warnings, ids);
            }
            v.record(Record::Utf8 { id: be_id(b, 0, id), body_off: body + ids as u64, text: &b[ids..] });
        }
        tag::LOAD_CLASS => {
            let need = 8 + 2 * ids;
            if b.len() < need {
                return short(warnings, need);
            }
            v.record(Record::LoadClass {
                serial: be_u32(b, 0),
                class_id: be_id(b, 4, id),
                trace_serial: be_u32(b, 4 + ids),
                name_id: be_id(b, 8 + ids, id),
            });
        }
        tag::UNLOAD_CLASS => {
            if b.len() < 4 {
                return short(warnings, 4);
            }
            v.record(Record::UnloadClass { serial: be_u32(b, 0) });
        }
        tag::FRAME => {
            let need = 4 * ids + 8;
            if b.len() < need {
                return short(warnings, need);
            }
            v.record(Record::Frame {
                id: be_id(b, 0, id),
                method_name_id: be_id(b, ids, id),
                signature_id: be_id(b, 2 * ids, id),
                source_file_id: be_id(b, 3 * ids, id),
                class_serial: be_u32(b, 4 * ids),
                line: be_u32(b, 4 * ids + 4) as i32,
            });
        }
        tag::TRACE => {
            if b.len() < 12 {
                return short(warnings, 12);
            }
            let declared = be_u32(b, 8);
            let room = ((b.len() - 12) / ids) as u32;
            if declared != room {
                warnings.push(Warning {
                    offset: body - 9,
                    message: format!(
                        "stack trace record at byte offset {} declares {declared} frames but its length holds {room}; using {}",
                        body - 9,
                        declared.min(room)
                    ),
                });
            }
            let count = declared.min(room);
            v.record(Record::Trace {
                serial: be_u32(b, 0),
                thread_serial: be_u32(b, 4),
                count,
                frame_ids: &b[12..12 + count as usize * ids],
            });
        }
        tag::START_THREAD => {
            let need = 8 + 4 * ids;
            if b.len() < need {
                return short(warnings, need);
            }
            v.record(Record::StartThread {
                serial: be_u32(b, 0),
                object_id: be_id(b, 4, id),
                trace_serial: be_u32(b, 4 + ids),
                name_id: be_id(b, 8 + ids, id),
                group_name_id: be_id(b, 8 + 2 * ids, id),
                parent_group_name_id: be_id(b, 8 + 3 * ids, id),
            });
        }
        tag::END_THREAD => {
            if b.len() < 4 {
                return short(warnings, 4);
            }
            v.record(Record::EndThread { serial: be_u32(b, 0) });
        }
        tag::ALLOC_SITES | tag::HEAP_SUMMARY | tag::CPU_SAMPLES | tag::CONTROL_SETTINGS => {
            v.record(Record::Other { tag: t, offset: body - 9, len });
        }
        _ => name_first(unknown, warnings, || Warning {
            offset: body - 9,
            message: format!("unknown record tag 0x{t:02X} at byte offset {} ({len} bytes); skipped", body - 9),
        }),
    }
}
