//! gzip input (hprof-format.md §13). A file whose first member carries the JVM's
//! `HPROF BLOCKSIZE=` comment is the chunked `-gz` format: we build a member table
//! (uncompressed offset -> compressed member) in one streaming pass and serve reads by inflating
//! single members through a small LRU cache. Any other gzip file (one member, or members without
//! that comment) is inflated once, streaming, into an unlinked temporary file that is then mapped.

use crate::control::Control;
use crate::error::{Error, Warning};
use crate::source::{Compression, Source};
use flate2::{Decompress, FlushDecompress, Status};
use memmap2::Mmap;
use std::fs::File;
use std::io::{Read, Write};
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

fn parse_member_header(b: &[u8], at: usize) -> Result<MemberHeader, Error> {
    let h = b.get(at..at + 10).ok_or_else(|| corrupt(at as u64, "gzip member header cut short"))?;
    if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
        return Err(corrupt(at as u64, "not a gzip member header (bad magic or method)"));
    }
    let flags = h[3];
    let mut p = at + 10;
    let cut = || corrupt(at as u64, "gzip member header cut short");
    if flags & FEXTRA != 0 {
        let x = b.get(p..p + 2).ok_or_else(cut)?;
        p += 2 + u16::from_le_bytes([x[0], x[1]]) as usize;
    }
    let zstring = |p: &mut usize| -> Result<Vec<u8>, Error> {
        let rest = b.get(*p..).ok_or_else(cut)?;
        let n = rest.iter().position(|&c| c == 0).ok_or_else(cut)?;
        let s = rest[..n].to_vec();
        *p += n + 1;
        Ok(s)
    };
    if flags & FNAME != 0 {
        zstring(&mut p)?;
    }
    let comment = if flags & FCOMMENT != 0 { Some(zstring(&mut p)?) } else { None };
    if flags & FHCRC != 0 {
        p += 2;
    }
    if p > b.len() {
        return Err(cut());
    }
    Ok(MemberHeader { data_start: p, comment })
}

pub(crate) fn open_gzip(file: File, map: Mmap, ctl: Control<'_>) -> Result<Source, Error> {
    let file_size = map.len() as u64;
    let first = parse_member_header(&map, 0)?;
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
    inflate_to_temp(&map, ctl).map(|m| Source::mapped(m, Compression::Gzip, file_size))
}

/// Counts the compressed bytes consumed so progress can be reported against the file size.
struct Counting<'a> {
    data: &'a [u8],
    pos: usize,
}
impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn inflate_to_temp(data: &[u8], ctl: Control<'_>) -> Result<Mmap, Error> {
    let tmp = tempfile::tempfile()
        .map_err(|e| Error::Io { reason: format!("cannot create a temporary file to inflate into: {e}") })?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, &tmp);
    let mut dec = flate2::bufread::MultiGzDecoder::new(std::io::BufReader::with_capacity(
        1 << 20,
        Counting { data, pos: 0 },
    ));
    let total = data.len() as u64;
    let mut buf = vec![0u8; 1 << 20];
    let mut written: u64 = 0;
    let mut tick = ctl.ticker("inflate", total);
    loop {
        let n = match dec.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                if written == 0 {
                    return Err(corrupt(0, format!("gzip data cannot be inflated: {e}")));
                }
                // A cut gzip file: keep what inflated; the HPROF walk reports where data ends.
                break;
            }
        };
        out.write_all(&buf[..n])
            .map_err(|e| Error::Io { reason: format!("cannot write the inflated dump to a temporary file: {e}") })?;
        written += n as u64;
        tick.at(dec.get_ref().get_ref().pos as u64)?;
    }
    out.flush().map_err(|e| Error::Io { reason: format!("cannot write the inflated dump: {e}") })?;
    drop(out);
    tick.finish();
    if written == 0 {
        return Err(Error::NotHprof { reason: "the gzip file inflates to nothing".into() });
    }
    // SAFETY: the temporary file is unlinked and private to this process.
    unsafe { Mmap::map(&tmp) }.map_err(|e| Error::Io { reason: format!("cannot map the inflated dump: {e}") })
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
    map: Mmap,
    members: Vec<Member>,
    total: u64,
    cache: Mutex<Vec<(usize, Arc<Vec<u8>>)>>,
    pub(crate) warnings: Vec<Warning>,
}

impl ChunkedGz {
    fn build(map: Mmap, ctl: Control<'_>) -> Result<ChunkedGz, Error> {
        let mut members = Vec::new();
        let mut warnings = Vec::new();
        let mut pos = 0usize;
        let mut u_off = 0u64;
        let mut scratch = vec![0u8; 1 << 20];
        let mut tick = ctl.ticker("gzip member table", map.len() as u64);
        while pos < map.len() {
            tick.at(pos as u64)?;
            let hdr = match parse_member_header(&map, pos) {
                Ok(h) => h,
                Err(e) if members.is_empty() => return Err(e),
                Err(_) => {
                    warnings.push(Warning {
                        offset: pos as u64,
                        message: format!(
                            "bytes after the last complete gzip member at compressed offset {pos} are not gzip data; ignored"
                        ),
                    });
                    break;
                }
            };
            let mut d = Decompress::new(false);
            let data = &map[hdr.data_start..];
            let mut ended = false;
            loop {
                let before_in = d.total_in() as usize;
                let before_out = d.total_out();
                let st = d
                    .decompress(&data[before_in..], &mut scratch, FlushDecompress::None)
                    .map_err(|e| corrupt(pos as u64, format!("gzip member cannot be inflated: {e}")))?;
                if st == Status::StreamEnd {
                    ended = true;
                    break;
                }
                if d.total_in() as usize == before_in && d.total_out() == before_out {
                    break; // input exhausted: a cut member
                }
            }
            let data_len = d.total_in();
            let u_len = d.total_out();
            if !ended {
                warnings.push(Warning {
                    offset: u_off,
                    message: format!(
                        "the gzip file is cut inside the member at compressed offset {pos}; the dump data ends at uncompressed offset {u_off}"
                    ),
                });
                break;
            }
            members.push(Member { data_off: hdr.data_start as u64, data_len, u_off, u_len });
            u_off += u_len;
            pos = hdr.data_start + data_len as usize + 8;
        }
        tick.finish();
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
        // The table was built by inflating this very member, so it inflates again; a failure
        // here would mean the file changed under us, and then we serve zeros of the right size.
        let _ = d.decompress_vec(data, &mut out, FlushDecompress::Finish);
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
