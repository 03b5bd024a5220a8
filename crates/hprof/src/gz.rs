//! gzip input (hprof-format.md §13). A file whose first member carries the JVM's
//! `HPROF BLOCKSIZE=` comment is the chunked `-gz` format: we build a member table
//! (uncompressed offset -> compressed member) in one streaming pass and serve reads by inflating
//! single members through a small LRU cache. Any other gzip file (one member, or members without
//! that comment) is inflated once, streaming, into an unlinked temporary file that is then mapped.

use crate::control::Control;
use crate::error::{Error, Warning};
use crate::source::{Compression, Source};
use flate2::{Decompress, FlushDecompress, Status};
use crate::dump_map::DumpMap;
use memmap2::Mmap;
use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex};

const FTEXT_MASK: u8 = 0x01;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const _: u8 = FTEXT_MASK;

/// A parsed gzip member header: where the deflate data starts and the comment, if any.
struct MemberHeader {
    data_start: usize,
    comment: Option<Vec<u8>>,
}

fn corrupt(offset: u64, reason: impl Into<String>) -> Error {
    Error::Corrupt { offset, reason: reason.into() }
}

/// The member header at `at`; `None` when the file ends inside it.
fn read_member_header(b: &[u8], at: usize) -> Result<Option<MemberHeader>, Error> {
    let Some(h) = b.get(at..at + 10) else { return Ok(None) };
    if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
        return Err(corrupt(at as u64, "not a gzip member header (bad magic or method)"));
    }
    let flags = h[3];
    let mut p = at + 10;
    if flags & FEXTRA != 0 {
        let Some(x) = b.get(p..p + 2) else { return Ok(None) };
        p += 2 + u16::from_le_bytes([x[0], x[1]]) as usize;
    }
    let zstring = |p: &mut usize| -> Option<Vec<u8>> {
        let rest = b.get(*p..)?;
        let n = rest.iter().position(|&c| c == 0)?;
        let s = rest[..n].to_vec();
        *p += n + 1;
        Some(s)
    };
    if flags & FNAME != 0 && zstring(&mut p).is_none() {
        return Ok(None);
    }
    let comment = if flags & FCOMMENT != 0 {
        match zstring(&mut p) {
            Some(c) => Some(c),
            None => return Ok(None),
        }
    } else {
        None
    };
    if flags & FHCRC != 0 {
        p += 2;
    }
    if p > b.len() {
        return Ok(None);
    }
    Ok(Some(MemberHeader { data_start: p, comment }))
}

pub(crate) fn open_gzip(file: File, map: DumpMap, ctl: Control<'_>) -> Result<Source, Error> {
    let file_size = map.len() as u64;
    // Cut inside its first header: not a word of it inflates, whatever kind it is.
    let Some(first) = read_member_header(&map, 0)? else { return Err(inflates_to_nothing(Some(cut_warning(map.len(), 0, 0)))) };
    let chunked = first
        .comment
        .as_deref()
        .map(|c| c.starts_with(b"HPROF BLOCKSIZE="))
        .unwrap_or(false);
    drop(file);
    if chunked {
        let c = ChunkedGz::build(map, ctl)?;
        return Ok(Source::chunked(c, file_size));
    }
    let (m, warnings) = inflate_to_temp(&map, ctl)?;
    Ok(Source::mapped(m, Compression::Gzip, file_size).with_warnings(warnings))
}

/// What to do about a damaged gzip file, said at the end of its error.
const DAMAGED: &str = "the file was damaged after it was written (a broken copy or transfer?); check it with `gzip -t`, then copy it again from where the dump was taken, or take a new heap dump";

/// How a gzip member ended.
enum MemberEnd {
    /// Inflated whole, and its CRC32 and length match its trailer. `next` is the compressed
    /// offset after the trailer.
    Complete { data_start: usize, data_len: u64, u_len: u64, next: usize },
    /// The file ends inside the member (its header, data or trailer): `u_len` bytes inflated
    /// from the deflate data at `data_start` (the end of the file when the header is cut).
    Cut { data_start: usize, u_len: u64 },
}

/// Inflates the gzip member whose header is at compressed offset `pos`, giving the output to
/// `sink` piece by piece, and checks the inflated data against the member's trailer (CRC32 and
/// length, RFC 1952 §2.3.1). Invalid deflate data or a trailer that does not match is an error
/// naming the compressed offset; a file that ends inside the member is `MemberEnd::Cut`.
/// `at` is told the compressed offset reached, for progress and cancellation.
fn inflate_member(
    map: &[u8],
    pos: usize,
    scratch: &mut [u8],
    sink: &mut dyn FnMut(&[u8]) -> Result<(), Error>,
    at: &mut dyn FnMut(usize) -> Result<(), Error>,
) -> Result<MemberEnd, Error> {
    // A header cut by the end of the file (its magic is there: the caller checked).
    let Some(hdr) = read_member_header(map, pos)? else { return Ok(MemberEnd::Cut { data_start: map.len(), u_len: 0 }) };
    let data = &map[hdr.data_start..];
    let mut d = Decompress::new(false);
    let mut crc = flate2::Crc::new();
    loop {
        let before_in = d.total_in() as usize;
        let before_out = d.total_out();
        let st = d.decompress(&data[before_in..], scratch, FlushDecompress::None).map_err(|e| {
            corrupt(
                (hdr.data_start + d.total_in() as usize) as u64,
                format!(
                    "the gzip data is corrupt: invalid deflate data in the member that starts at compressed offset {pos}, near compressed offset {} ({e}); {DAMAGED}",
                    hdr.data_start + d.total_in() as usize
                ),
            )
        })?;
        let produced = (d.total_out() - before_out) as usize;
        if produced > 0 {
            crc.update(&scratch[..produced]);
            sink(&scratch[..produced])?;
        }
        at(hdr.data_start + d.total_in() as usize)?;
        if st == Status::StreamEnd {
            break;
        }
        if d.total_in() as usize == before_in && produced == 0 {
            return Ok(MemberEnd::Cut { data_start: hdr.data_start, u_len: d.total_out() });
        }
    }
    let data_len = d.total_in();
    let u_len = d.total_out();
    let t = hdr.data_start + data_len as usize;
    let Some(trailer) = map.get(t..t + 8) else {
        return Ok(MemberEnd::Cut { data_start: hdr.data_start, u_len });
    };
    let stored_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let stored_len = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    if stored_crc != crc.sum() {
        return Err(corrupt(
            t as u64,
            format!(
                "the gzip data is corrupt: the member that starts at compressed offset {pos} fails its CRC check (the inflated data's CRC32 is {:08x}, the trailer at compressed offset {t} says {stored_crc:08x}); {DAMAGED}",
                crc.sum()
            ),
        ));
    }
    if stored_len != u_len as u32 {
        return Err(corrupt(
            t as u64 + 4,
            format!(
                "the gzip data is corrupt: the member that starts at compressed offset {pos} inflates to {u_len} bytes but its trailer at compressed offset {t} says {stored_len} (modulo 2^32); {DAMAGED}"
            ),
        ));
    }
    Ok(MemberEnd::Complete { data_start: hdr.data_start, data_len, u_len, next: t + 8 })
}

/// The warning for bytes after the last member (from compressed offset `pos`) that are not a
/// gzip member: ignored, as gzip does.
fn trailing_bytes(map: &[u8], pos: usize, u_off: u64) -> Warning {
    let rest = &map[pos..];
    let zeros = rest.iter().all(|&b| b == 0);
    Warning {
        offset: u_off,
        message: format!(
            "the {} bytes after the last gzip member (from compressed offset {pos} to the end of the file) are {}; ignored",
            rest.len(),
            if zeros { "zeros (padding)" } else { "not gzip data" }
        ),
    }
}

/// After the member whose trailer ends at compressed offset `pos`, bytes that are no gzip
/// member: a trailer to ignore (zeros, bytes appended by a copy), or a member header that was
/// damaged, which an error names. Damaged: two of its three magic bytes are there (one was hit),
/// or a gzip member starts again further on (its header parses and its deflate data inflates),
/// so the members go on after these bytes. Only on this path, once per file.
fn after_members(map: &[u8], pos: usize, u_off: u64) -> Result<Warning, Error> {
    let rest = &map[pos..];
    let magic = [0x1f, 0x8b, 8];
    let hits = rest.iter().zip(magic).filter(|(a, b)| **a == *b).count();
    let again = if hits >= 2 && rest.len() >= 18 {
        None
    } else {
        match (1..rest.len().saturating_sub(2)).find(|&i| rest[i..i + 3] == magic && inflates(map, pos + i)) {
            Some(i) => Some(pos + i),
            None => return Ok(trailing_bytes(map, pos, u_off)),
        }
    };
    let head: Vec<String> = rest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    Err(corrupt(
        pos as u64,
        format!(
            "the gzip data is corrupt: a gzip member ends at compressed offset {pos}, but the bytes there ({}) are no gzip member header{}, while the file goes on for {} bytes; {DAMAGED}",
            head.join(" "),
            match again {
                Some(q) => format!(" and a gzip member starts again at compressed offset {q}"),
                None => " (a damaged one)".to_string(),
            },
            rest.len()
        ),
    ))
}

/// Does a gzip member whose deflate data inflates (its first 64 KiB at least) start at `at`?
fn inflates(map: &[u8], at: usize) -> bool {
    let Ok(Some(h)) = read_member_header(map, at) else { return false };
    let mut out = vec![0u8; 1 << 16];
    let mut d = Decompress::new(false);
    let data = &map[h.data_start..];
    d.decompress(&data[..data.len().min(1 << 16)], &mut out, FlushDecompress::None).is_ok() && d.total_out() > 0
}

/// True when a gzip member starts at `pos` (its magic bytes, as far as the file goes).
fn member_starts(map: &[u8], pos: usize) -> bool {
    let magic = [0x1f, 0x8b, 8];
    let n = (map.len() - pos).min(3);
    map[pos..pos + n] == magic[..n]
}

/// The warning for a gzip file that ends inside the member at compressed offset `pos`.
fn cut_warning(file_len: usize, pos: usize, u_end: u64) -> Warning {
    Warning {
        offset: u_end,
        message: format!(
            "the gzip file is cut short: it ends at compressed offset {file_len}, inside the gzip member that starts at compressed offset {pos}, so that member's CRC cannot be checked; the dump is read as far as it inflates ({u_end} bytes; the byte offsets of other messages are in the inflated dump). If the file was cut in a copy or transfer, copy it again"
        ),
    }
}

/// The error for a gzip file that inflates to no byte at all (cut inside its first member).
fn inflates_to_nothing(cut: Option<Warning>) -> Error {
    let why = cut.map_or(String::new(), |w| format!(": {}", w.message));
    Error::NotHprof { reason: format!("the gzip file inflates to nothing{why}") }
}

/// Inflates every member, checking each one's CRC32 and length, into an unlinked temporary
/// file, and maps it. A cut file keeps what inflated, with a warning.
fn inflate_to_temp(data: &[u8], ctl: Control<'_>) -> Result<(Mmap, Vec<Warning>), Error> {
    let tmp = tempfile::tempfile()
        .map_err(|e| Error::Io { reason: format!("cannot create a temporary file to inflate into: {e}") })?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, &tmp);
    let mut scratch = vec![0u8; 1 << 20];
    let mut warnings = Vec::new();
    let mut cut = None;
    let mut written: u64 = 0;
    let mut tick = ctl.ticker("inflate", data.len() as u64);
    let mut pos = 0usize;
    while pos < data.len() {
        if pos > 0 && !member_starts(data, pos) {
            warnings.push(after_members(data, pos, written)?);
            break;
        }
        let mut sink = |b: &[u8]| {
            out.write_all(b)
                .map_err(|e| Error::Io { reason: format!("cannot write the inflated dump to a temporary file: {e}") })
        };
        let end = inflate_member(data, pos, &mut scratch, &mut sink, &mut |p| tick.at(p as u64))?;
        match end {
            MemberEnd::Complete { u_len, next, .. } => {
                written += u_len;
                pos = next;
            }
            MemberEnd::Cut { u_len, .. } => {
                written += u_len;
                cut = Some(cut_warning(data.len(), pos, written));
                break;
            }
        }
    }
    out.flush().map_err(|e| Error::Io { reason: format!("cannot write the inflated dump: {e}") })?;
    drop(out);
    tick.finish();
    if written == 0 {
        return Err(inflates_to_nothing(cut));
    }
    warnings.extend(cut);
    // SAFETY: the temporary file is unlinked and private to this process.
    let m = unsafe { Mmap::map(&tmp) }.map_err(|e| Error::Io { reason: format!("cannot map the inflated dump: {e}") })?;
    Ok((m, warnings))
}

#[derive(Clone, Copy, Debug)]
struct Member {
    /// Start of the deflate data in the compressed file.
    data_off: u64,
    data_len: u64,
    /// Offset of this member's first byte in the uncompressed dump.
    u_off: u64,
    u_len: u64,
}

const CACHE_MEMBERS: usize = 16;

/// The JVM's chunked gzip: random reads by member.
pub struct ChunkedGz {
    /// The user's file, mapped (its registration read by `Source::read_fault`).
    pub(crate) map: DumpMap,
    members: Vec<Member>,
    total: u64,
    cache: Mutex<Vec<(usize, Arc<Vec<u8>>)>>,
    pub(crate) warnings: Vec<Warning>,
}

impl ChunkedGz {
    /// One pass over the file inflating every member once: the member table, and each member's
    /// CRC32 and length checked against its trailer, so that the reads later (at random, a
    /// member inflated again each time it leaves the cache) serve verified data.
    fn build(map: DumpMap, ctl: Control<'_>) -> Result<ChunkedGz, Error> {
        let mut members = Vec::new();
        let mut warnings = Vec::new();
        let mut cut = None;
        let mut pos = 0usize;
        let mut u_off = 0u64;
        let mut scratch = vec![0u8; 1 << 20];
        let mut tick = ctl.ticker("gzip member table", map.len() as u64);
        while pos < map.len() {
            if pos > 0 && !member_starts(&map, pos) {
                warnings.push(after_members(&map, pos, u_off)?);
                break;
            }
            let end = inflate_member(&map, pos, &mut scratch, &mut |_| Ok(()), &mut |p| tick.at(p as u64))?;
            match end {
                MemberEnd::Complete { data_start, data_len, u_len, next } => {
                    members.push(Member { data_off: data_start as u64, data_len, u_off, u_len });
                    u_off += u_len;
                    pos = next;
                }
                MemberEnd::Cut { data_start, u_len } => {
                    // The cut member is served as far as it inflates, as a plain gzip file is
                    // (its CRC cannot be checked; the warning says so). Left out, a file cut in
                    // its first member would read as an empty file.
                    if u_len > 0 {
                        let data_len = (map.len() - data_start) as u64;
                        members.push(Member { data_off: data_start as u64, data_len, u_off, u_len });
                        u_off += u_len;
                    }
                    cut = Some(cut_warning(map.len(), pos, u_off));
                    break;
                }
            }
        }
        tick.finish();
        if u_off == 0 {
            return Err(inflates_to_nothing(cut));
        }
        warnings.extend(cut);
        Ok(ChunkedGz { map, members, total: u_off, cache: Mutex::new(Vec::new()), warnings })
    }

    pub fn len(&self) -> u64 {
        self.total
    }

    fn member(&self, k: usize) -> Arc<Vec<u8>> {
        {
            let mut c = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = c.iter().position(|(m, _)| *m == k) {
                let e = c.remove(i);
                let v = e.1.clone();
                c.insert(0, e);
                return v;
            }
        }
        let m = self.members[k];
        let mut out = Vec::with_capacity(m.u_len as usize);
        let data = &self.map[m.data_off as usize..(m.data_off + m.data_len) as usize];
        let mut d = Decompress::new(false);
        // The table was built by inflating this very member, so it inflates again (a member cut
        // by the end of the file as far as it did then); a failure here would mean the file
        // changed under us, and then we serve zeros of the right size.
        let _ = d.decompress_vec(data, &mut out, FlushDecompress::None);
        out.resize(m.u_len as usize, 0);
        let v = Arc::new(out);
        let mut c = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        c.insert(0, (k, v.clone()));
        c.truncate(CACHE_MEMBERS);
        v
    }

    /// Copies `len` bytes at uncompressed offset `off` (the caller clamps to `len()`).
    pub fn read(&self, off: u64, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        let mut at = off;
        let end = off + len as u64;
        let mut k = match self.members.binary_search_by(|m| m.u_off.cmp(&off)) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        while at < end && k < self.members.len() {
            let m = self.members[k];
            let data = self.member(k);
            let s = (at - m.u_off) as usize;
            let e = ((end - m.u_off) as usize).min(data.len());
            if s < e {
                out.extend_from_slice(&data[s..e]);
                at = m.u_off + e as u64;
            }
            k += 1;
        }
        out
    }
}
