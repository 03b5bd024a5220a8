//! Top-level record walk (hprof-format.md §3, §5, §6, §12): hands the small records to a visitor
//! and returns where each heap dump's segments are. Heap data itself is not read here.

use crate::control::Control;
use crate::cursor::Cursor;
use crate::error::{Error, Warning};
use crate::header::Header;
use crate::source::Source;
use crate::types::{be_id, be_u32, tag};

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
    /// True when this body reaches the end of the data because the file is cut short.
    pub truncated: bool,
}

/// One heap dump: a 0x0C record, or the 0x1C segments up to a 0x2C.
#[derive(Clone, Debug, Default)]
pub struct Dump {
    pub segments: Vec<Segment>,
    /// File offset of the first record of this dump.
    pub offset: u64,
    pub bytes: u64,
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

/// Walks every top-level record. Never fails on truncation (that is a warning); fails only when
/// cancelled.
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
    while pos < total {
        tick.at(pos)?;
        let h = cur.get(pos, 9);
        if h.len() < 9 {
            out.warnings.push(Warning {
                offset: pos,
                message: format!("the file is cut short: a record header at byte offset {pos} is incomplete; data ends at {total}"),
            });
            break;
        }
        let t = h[0];
        let mut len = be_u32(h, 5) as u64;
        let body = pos + 9;
        let left = total - body;
        counts[t as usize] += 1;
        // u4 overflow of a single > 4 GiB HEAP DUMP record (§12.2).
        if t == tag::HEAP_DUMP && left >= (1u64 << 32) && (left - len).is_multiple_of(1u64 << 32) {
            len = left;
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
            out.warnings.push(Warning {
                offset: total,
                message: format!(
                    "the file is cut short: the record with tag 0x{t:02X} at byte offset {pos} claims {len} bytes but only {left} remain; data ends at byte offset {total}"
                ),
            });
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
                });
            }
            tag::HEAP_DUMP_SEGMENT => {
                let d = open.get_or_insert_with(|| Dump { segments: Vec::new(), offset: pos, bytes: 0 });
                d.segments.push(Segment { offset: body, len, truncated });
                d.bytes += len;
            }
            tag::HEAP_DUMP_END => {
                if let Some(d) = open.take() {
                    out.dumps.push(d);
                }
            }
            _ => {
                // Small records are read whole; a huge one on chunked input grows the window.
                let b = cur.get(body, len as usize);
                decode(t, b, body, len, id, ids, v, &mut out.warnings, &mut unknown_tags);
            }
        }
        pos = body + len;
    }
    if let Some(d) = open.take() {
        if !out.warnings.iter().any(|w| w.message.contains("cut short")) {
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
    out.data_end = pos.min(total);
    tick.finish();
    out.record_counts = counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(t, &c)| (t as u8, c)).collect();
    Ok(out)
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
        _ => {
            *unknown += 1;
            if *unknown <= 20 {
                warnings.push(Warning {
                    offset: body - 9,
                    message: format!("unknown record tag 0x{t:02X} at byte offset {} ({len} bytes); skipped", body - 9),
                });
            }
        }
    }
}
