//! Heap dump sub-records (hprof-format.md §7–§9): a scanner over one segment that hands each
//! sub-record's header to a visitor and skips payloads by length (primitive array data and
//! instance field bytes are never read here).

use crate::control::Ticker;
use crate::cursor::Cursor;
use crate::error::{Error, Warning};
use crate::records::Segment;
use crate::types::{be_id, be_u16, be_u32, be_value, sub, BasicType};

/// A static field as written in a CLASS DUMP: name string id, type, raw value bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawStatic {
    pub name_id: u64,
    pub ty: BasicType,
    pub value: u64,
}

/// CLASS DUMP (0x20), fully decoded (classes are few; their records are small).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassDump {
    pub offset: u64,
    pub id: u64,
    pub trace_serial: u32,
    pub super_id: u64,
    pub loader_id: u64,
    pub signers_id: u64,
    pub protection_domain_id: u64,
    pub instance_size: u32,
    pub statics: Vec<RawStatic>,
    /// Instance fields declared by this class only: (name string id, type).
    pub fields: Vec<(u64, BasicType)>,
}

/// One sub-record. Offsets are file offsets of the sub-record's tag byte.
#[derive(Debug)]
pub enum Sub {
    /// Any GC root except THREAD OBJECT. `thread`/`frame` are present for the kinds that have
    /// them (JNI LOCAL, JAVA FRAME, NATIVE STACK, THREAD BLOCK, JNI MONITOR).
    Root { tag: u8, id: u64, thread: Option<u32>, frame: Option<i32> },
    ThreadObject { id: u64, thread_serial: u32, trace_serial: u32 },
    Class(ClassDump),
    /// Field bytes are at `offset + 1 + 2*id_size + 8`, `data_len` long.
    Instance { offset: u64, id: u64, class_id: u64, data_len: u32 },
    /// Elements (ids) are at `offset + 1 + 2*id_size + 8`.
    ObjArray { offset: u64, id: u64, len: u32, class_id: u64 },
    /// Elements at `offset + 1 + id_size + 9` unless `nodata` (Android 0xC3).
    PrimArray { offset: u64, id: u64, len: u32, ty: BasicType, nodata: bool },
    /// Android HEAP DUMP INFO at `offset`: the heap the objects after it belong to.
    HeapInfo { offset: u64, heap_id: u32, name_id: u64 },
}

pub trait SubVisitor {
    fn sub(&mut self, s: Sub);
}

/// Where instance field bytes start relative to the sub-record.
#[inline]
pub fn instance_data_offset(id_size: u32) -> u64 {
    1 + 2 * id_size as u64 + 8
}
/// Where object array elements start relative to the sub-record.
#[inline]
pub fn obj_array_data_offset(id_size: u32) -> u64 {
    1 + 2 * id_size as u64 + 8
}
/// Where primitive array elements start relative to the sub-record.
#[inline]
pub fn prim_array_data_offset(id_size: u32) -> u64 {
    1 + id_size as u64 + 9
}

enum Parse {
    Done(ClassDump, usize),
    Need(usize),
    Bad(String),
}

fn parse_class_dump(b: &[u8], offset: u64, id: u32) -> Parse {
    let ids = id as usize;
    let fixed = 1 + 7 * ids + 8;
    if b.len() < fixed + 2 {
        return Parse::Need(fixed + 2);
    }
    let mut p = 1;
    let cid = be_id(b, p, id);
    p += ids;
    let trace_serial = be_u32(b, p);
    p += 4;
    let super_id = be_id(b, p, id);
    p += ids;
    let loader_id = be_id(b, p, id);
    p += ids;
    let signers_id = be_id(b, p, id);
    p += ids;
    let protection_domain_id = be_id(b, p, id);
    p += 3 * ids; // + reserved 1, reserved 2
    let instance_size = be_u32(b, p);
    p += 4;
    let cp = be_u16(b, p) as usize;
    p += 2;
    for _ in 0..cp {
        if b.len() < p + 3 {
            return Parse::Need(p + 3);
        }
        let Some(ty) = BasicType::from_code(b[p + 2]) else {
            return Parse::Bad(format!("a constant pool entry has invalid type code {} at byte offset {}", b[p + 2], offset + p as u64 + 2));
        };
        p += 3 + ty.file_size(id) as usize;
    }
    if b.len() < p + 2 {
        return Parse::Need(p + 2);
    }
    let ns = be_u16(b, p) as usize;
    p += 2;
    let mut statics = Vec::with_capacity(ns);
    for _ in 0..ns {
        if b.len() < p + ids + 1 {
            return Parse::Need(p + ids + 1);
        }
        let name_id = be_id(b, p, id);
        let Some(ty) = BasicType::from_code(b[p + ids]) else {
            return Parse::Bad(format!("a static field has invalid type code {} at byte offset {}", b[p + ids], offset + (p + ids) as u64));
        };
        p += ids + 1;
        let w = ty.file_size(id) as usize;
        if b.len() < p + w {
            return Parse::Need(p + w);
        }
        statics.push(RawStatic { name_id, ty, value: be_value(b, p, ty, id) });
        p += w;
    }
    if b.len() < p + 2 {
        return Parse::Need(p + 2);
    }
    let nf = be_u16(b, p) as usize;
    p += 2;
    if b.len() < p + nf * (ids + 1) {
        return Parse::Need(p + nf * (ids + 1));
    }
    let mut fields = Vec::with_capacity(nf);
    for _ in 0..nf {
        let name_id = be_id(b, p, id);
        let Some(ty) = BasicType::from_code(b[p + ids]) else {
            return Parse::Bad(format!("an instance field has invalid type code {} at byte offset {}", b[p + ids], offset + (p + ids) as u64));
        };
        fields.push((name_id, ty));
        p += ids + 1;
    }
    Parse::Done(
        ClassDump {
            offset,
            id: cid,
            trace_serial,
            super_id,
            loader_id,
            signers_id,
            protection_domain_id,
            instance_size,
            statics,
            fields,
        },
        p,
    )
}

/// When the sub-records of a segment stop making sense at `p` (its data cut, an unknown tag, a
/// sub-record running past its end), is that because the segment's length is wrong? It is when
/// whole top-level records follow each other from `p` to the end of the file: the heap data
/// ended at `p` and the records after it were read as heap data. Only on the error path.
fn framed_wrong(cur: &mut Cursor<'_>, seg: &Segment, p: u64, ids: u64) -> Option<Error> {
    let total = cur.len();
    let at = seg.offset.checked_sub(9)?;
    if p <= seg.offset || !crate::records::records_to_end(cur, p, total, ids) {
        return None;
    }
    let h = cur.get(at, 9);
    if h.len() < 9 {
        return None;
    }
    let (t, claimed) = (h[0], be_u32(h, 5) as u64);
    let next = cur.get(p, 1)[0];
    let why = if claimed == 0 && seg.truncated {
        "0 bytes (read as a length its writer never patched, running to the end of the file)".to_string()
    } else if seg.offset + claimed > total {
        format!("{claimed} bytes (past the end of the file, read as a file cut short)")
    } else {
        format!("{claimed} bytes")
    };
    Some(Error::Corrupt {
        offset: at,
        reason: format!(
            "the {} record at byte offset {at} claims {why}, but its heap data ends at byte offset {p}, where whole records of known kinds ({} first) follow each other to the end of the file; its length is wrong: it holds {} bytes. {}",
            crate::records::kind(t),
            crate::records::kind(next),
            p - seg.offset,
            crate::records::not_cut(total)
        ),
    })
}

/// How a segment scan ended when it did not fail.
#[derive(Debug, Default)]
pub struct ScanEnd {
    /// Set when the segment's data stops inside a sub-record (a cut file).
    pub warning: Option<Warning>,
}

/// Scans one segment. Fails with `Corrupt` on an unknown sub-record tag or a sub-record that
/// runs past its segment, unless the segment is the cut end of the file (then a warning).
pub fn scan_segment<V: SubVisitor>(
    cur: &mut Cursor<'_>,
    seg: &Segment,
    id_size: u32,
    v: &mut V,
    tick: &mut Ticker<'_>,
) -> Result<ScanEnd, Error> {
    debug_assert!(id_size == 4 || id_size == 8, "identifier size {id_size}");
    // One copy of the loop per identifier size (the header allows only 4 and 8): every id
    // read and record size then compiles to a fixed-width load and constant offsets.
    if id_size == 8 {
        scan_with::<V, 8>(cur, seg, v, tick)
    } else {
        scan_with::<V, 4>(cur, seg, v, tick)
    }
}

fn scan_with<V: SubVisitor, const ID: u32>(cur: &mut Cursor<'_>, seg: &Segment, v: &mut V, tick: &mut Ticker<'_>) -> Result<ScanEnd, Error> {
    let id = ID;
    let ids = id as u64;
    let end = seg.offset + seg.len;
    let mut p = seg.offset;
    // Cancellation/progress is checked every few thousand sub-records.
    let mut countdown = 0u32;
    let stop = |cur: &mut Cursor<'_>, p: u64, what: String| -> Result<ScanEnd, Error> {
        if let Some(e) = framed_wrong(cur, seg, p, ids) {
            return Err(e);
        }
        if seg.truncated {
            Ok(ScanEnd {
                warning: Some(Warning {
                    offset: p,
                    message: format!("the dump data ends inside a heap sub-record at byte offset {p} ({what}); everything before it was read"),
                }),
            })
        } else {
            // The segment is whole in the file: its bytes were damaged, here or in the sub-record
            // before (a damaged tag or length reads the bytes after it as the next one).
            Err(Error::Corrupt {
                offset: p,
                reason: format!(
                    "{what}; the heap data of the {} record at byte offset {} is damaged here or in the sub-record before it. {}",
                    crate::records::kind(cur.get(seg.offset - 9, 1).first().copied().unwrap_or(0)),
                    seg.offset - 9,
                    crate::records::not_cut(cur.len())
                ),
            })
        }
    };
    while p < end {
        if countdown == 0 {
            countdown = 4096;
            tick.at(p)?;
        }
        countdown -= 1;
        let room = end - p;
        let h = cur.get(p, (2 * ids + 10).min(room) as usize);
        let Some(&t) = h.first() else {
            return stop(cur, p, format!("the data ends at byte offset {p}, inside a segment that should run to byte offset {end}"));
        };
        // Size of the fixed part each tag needs before its length can be known.
        let (fixed, size): (u64, u64) = match t {
            sub::ROOT_UNKNOWN
            | sub::ROOT_STICKY_CLASS
            | sub::ROOT_MONITOR_USED
            | sub::ROOT_INTERNED_STRING
            | sub::ROOT_FINALIZING
            | sub::ROOT_DEBUGGER
            | sub::ROOT_REFERENCE_CLEANUP
            | sub::ROOT_VM_INTERNAL
            | sub::UNREACHABLE => (1 + ids, 1 + ids),
            sub::ROOT_JNI_GLOBAL => (1 + 2 * ids, 1 + 2 * ids),
            sub::ROOT_JNI_LOCAL | sub::ROOT_JAVA_FRAME | sub::ROOT_JNI_MONITOR | sub::ROOT_THREAD_OBJECT => {
                (1 + ids + 8, 1 + ids + 8)
            }
            sub::ROOT_NATIVE_STACK | sub::ROOT_THREAD_BLOCK => (1 + ids + 4, 1 + ids + 4),
            sub::HEAP_DUMP_INFO => (1 + 4 + ids, 1 + 4 + ids),
            sub::INSTANCE_DUMP => {
                let f = 1 + 2 * ids + 8;
                if (h.len() as u64) < f {
                    return stop(cur, p, format!("instance dump header at byte offset {p} is cut by the end of its segment at byte offset {end}"));
                }
                (f, f + be_u32(h, (1 + 2 * ids + 4) as usize) as u64)
            }
            sub::OBJ_ARRAY_DUMP => {
                let f = 1 + 2 * ids + 8;
                if (h.len() as u64) < f {
                    return stop(cur, p, format!("object array header at byte offset {p} is cut by the end of its segment at byte offset {end}"));
                }
                (f, f + be_u32(h, (1 + ids + 4) as usize) as u64 * ids)
            }
            sub::PRIM_ARRAY_DUMP | sub::PRIM_ARRAY_NODATA => {
                let f = 1 + ids + 9;
                if (h.len() as u64) < f {
                    return stop(cur, p, format!("primitive array header at byte offset {p} is cut by the end of its segment at byte offset {end}"));
                }
                let code = h[(1 + ids + 8) as usize];
                let Some(ty) = BasicType::from_code(code).filter(|t| *t != BasicType::Object) else {
                    return stop(cur, p, format!("primitive array at byte offset {p} has invalid element type {code}"));
                };
                let n = be_u32(h, (1 + ids + 4) as usize) as u64;
                let data = if t == sub::PRIM_ARRAY_NODATA { 0 } else { n * ty.file_size(id) as u64 };
                (f, f + data)
            }
            sub::CLASS_DUMP => {
                let mut want = 4096u64.min(room);
                loop {
                    let b = cur.get(p, want as usize);
                    match parse_class_dump(b, p, id) {
                        Parse::Done(cd, n) => {
                            v.sub(Sub::Class(cd));
                            p += n as u64;
                            break;
                        }
                        Parse::Need(n) if (n as u64) <= room => want = (n as u64).max(want * 2).min(room),
                        Parse::Need(_) => {
                            return stop(cur, p, format!("class dump at byte offset {p} runs past the end of its segment at byte offset {end}"));
                        }
                        Parse::Bad(why) => return stop(cur, p, format!("class dump at byte offset {p}: {why}")),
                    }
                }
                continue;
            }
            _ => {
                return stop(
                    cur,
                    p,
                    format!("unknown heap sub-record tag 0x{t:02X} at byte offset {p} (its length cannot be known, so the rest of the segment cannot be read)"),
                );
            }
        };
        if size > room || (h.len() as u64) < fixed {
            return stop(
                cur,
                p,
                format!("heap sub-record with tag 0x{t:02X} at byte offset {p} is {size} bytes long and runs past the end of its segment at byte offset {end}"),
            );
        }
        let i = ids as usize;
        match t {
            sub::INSTANCE_DUMP => v.sub(Sub::Instance {
                offset: p,
                id: be_id(h, 1, id),
                class_id: be_id(h, 1 + i + 4, id),
                data_len: (size - fixed) as u32,
            }),
            sub::OBJ_ARRAY_DUMP => v.sub(Sub::ObjArray {
                offset: p,
                id: be_id(h, 1, id),
                len: be_u32(h, 1 + i + 4),
                class_id: be_id(h, 1 + i + 8, id),
            }),
            sub::PRIM_ARRAY_DUMP | sub::PRIM_ARRAY_NODATA => v.sub(Sub::PrimArray {
                offset: p,
                id: be_id(h, 1, id),
                len: be_u32(h, 1 + i + 4),
                ty: BasicType::from_code(h[1 + i + 8]).unwrap_or(BasicType::Byte),
                nodata: t == sub::PRIM_ARRAY_NODATA,
            }),
            sub::ROOT_THREAD_OBJECT => v.sub(Sub::ThreadObject {
                id: be_id(h, 1, id),
                thread_serial: be_u32(h, 1 + i),
                trace_serial: be_u32(h, 1 + i + 4),
            }),
            sub::ROOT_JNI_LOCAL | sub::ROOT_JAVA_FRAME | sub::ROOT_JNI_MONITOR => v.sub(Sub::Root {
                tag: t,
                id: be_id(h, 1, id),
                thread: Some(be_u32(h, 1 + i)),
                frame: Some(be_u32(h, 1 + i + 4) as i32),
            }),
            sub::ROOT_NATIVE_STACK | sub::ROOT_THREAD_BLOCK => v.sub(Sub::Root {
                tag: t,
                id: be_id(h, 1, id),
                thread: Some(be_u32(h, 1 + i)),
                frame: None,
            }),
            sub::HEAP_DUMP_INFO => v.sub(Sub::HeapInfo { offset: p, heap_id: be_u32(h, 1), name_id: be_id(h, 5, id) }),
            _ => v.sub(Sub::Root { tag: t, id: be_id(h, 1, id), thread: None, frame: None }),
        }
        p += size;
    }
    Ok(ScanEnd::default())
}
