//! The bytes of an (uncompressed) HPROF file, wherever they come from: a memory-mapped plain
//! file, a single-member gzip inflated once to an unlinked temporary file (then mapped), or the
//! JVM's chunked `-gz` format served member by member through a small cache.

use crate::control::Control;
use crate::error::Error;
use crate::gz::{self, ChunkedGz};
use memmap2::Mmap;
use std::borrow::Cow;
use std::fs::File;
use std::path::Path;

/// How the file was stored on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    /// One gzip stream (`gzip file.hprof`): inflated once to a temporary file.
    Gzip,
    /// The JVM's `-gz` output: many independent members, read randomly.
    GzipChunked,
}

impl Compression {
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::GzipChunked => "gzip-chunked",
        }
    }
}

enum Inner {
    Empty,
    Mapped(Mmap),
    Chunked(ChunkedGz),
}

/// Random-access view of the uncompressed dump.
pub struct Source {
    inner: Inner,
    compression: Compression,
    /// Size of the file on disk (compressed size for gzip input).
    file_size: u64,
}

fn io_err(what: &str, e: std::io::Error) -> Error {
    Error::Io { reason: format!("{what}: {e}") }
}

impl Source {
    /// Opens a file, detecting gzip by its magic bytes (never by the extension).
    pub fn open(path: &Path, ctl: Control<'_>) -> Result<Source, Error> {
        let meta = std::fs::metadata(path).map_err(|e| io_err("cannot read file metadata", e))?;
        if meta.is_dir() {
            return Err(Error::Io { reason: "is a directory, not a heap dump file".into() });
        }
        let file = File::open(path).map_err(|e| io_err("cannot open file", e))?;
        let file_size = meta.len();
        if file_size == 0 {
            return Ok(Source { inner: Inner::Empty, compression: Compression::None, file_size });
        }
        // SAFETY: the map is read-only; a concurrent truncation by another process is the
        // documented hazard of every mmap reader and is outside our control.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| io_err("cannot map file", e))?;
        #[cfg(unix)]
        {
            let _ = map.advise(memmap2::Advice::Sequential);
        }
        if map.len() >= 3 && map[0] == 0x1f && map[1] == 0x8b && map[2] == 8 {
            return gz::open_gzip(file, map, ctl);
        }
        Ok(Source { inner: Inner::Mapped(map), compression: Compression::None, file_size })
    }

    /// A source over bytes already in memory (tests, fuzzing): copied into an anonymous map.
    pub fn from_bytes(bytes: &[u8]) -> Source {
        if bytes.is_empty() {
            return Source { inner: Inner::Empty, compression: Compression::None, file_size: 0 };
        }
        let mut m = memmap2::MmapMut::map_anon(bytes.len()).expect("anonymous map");
        m.copy_from_slice(bytes);
        let map = m.make_read_only().expect("read-only anonymous map");
        Source { inner: Inner::Mapped(map), compression: Compression::None, file_size: bytes.len() as u64 }
    }

    pub(crate) fn mapped(map: Mmap, compression: Compression, file_size: u64) -> Source {
        Source { inner: Inner::Mapped(map), compression, file_size }
    }

    pub(crate) fn chunked(c: ChunkedGz, file_size: u64) -> Source {
        Source { inner: Inner::Chunked(c), compression: Compression::GzipChunked, file_size }
    }

    /// Length of the uncompressed dump.
    #[inline]
    pub fn len(&self) -> u64 {
        match &self.inner {
            Inner::Empty => 0,
            Inner::Mapped(m) => m.len() as u64,
            Inner::Chunked(c) => c.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// Size of the file on disk.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// The whole uncompressed dump as one slice, when it is mapped.
    #[inline]
    pub fn as_slice(&self) -> Option<&[u8]> {
        match &self.inner {
            Inner::Empty => Some(&[]),
            Inner::Mapped(m) => Some(&m[..]),
            Inner::Chunked(_) => None,
        }
    }

    /// Up to `len` bytes at `off`; shorter at the end of the data, empty past it.
    #[inline]
    pub fn bytes(&self, off: u64, len: usize) -> Cow<'_, [u8]> {
        let total = self.len();
        if off >= total {
            return Cow::Borrowed(&[]);
        }
        let end = off.saturating_add(len as u64).min(total);
        match &self.inner {
            Inner::Empty => Cow::Borrowed(&[]),
            Inner::Mapped(m) => Cow::Borrowed(&m[off as usize..end as usize]),
            Inner::Chunked(c) => Cow::Owned(c.read(off, (end - off) as usize)),
        }
    }
}

impl Source {
    /// Findings made while opening (a cut chunked gzip file).
    pub fn warnings(&self) -> &[crate::error::Warning] {
        match &self.inner {
            Inner::Chunked(c) => &c.warnings,
            _ => &[],
        }
    }
}
