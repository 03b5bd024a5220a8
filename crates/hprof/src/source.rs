//! The bytes of an (uncompressed) HPROF file, wherever they come from: a memory-mapped plain
//! file, a single-member gzip inflated once to an unlinked temporary file (then mapped), or the
//! JVM's chunked `-gz` format served member by member through a small cache.

use crate::file_state::{ChangeKind, FileChange, FileState};
use crate::control::Control;
use crate::dump_map::DumpMap;
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

/// How the dump's pages are about to be read: what the kernel reads ahead of a fault on a page
/// that is not in the page cache (a dump larger than memory, or not read since boot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// In file order (a pass over the heap): read well ahead of the faults.
    InOrder,
    /// A page here and there (the record walk, which touches one header per heap segment;
    /// samples spread over the dump): read only the page touched. Read ahead, each of them
    /// brings in megabytes around it, and together they read the whole file.
    HereAndThere,
}

enum Inner {
    Empty,
    Mapped(DumpMap),
    Chunked(ChunkedGz),
}

impl Inner {
    /// The registration of the user's dump file's mapping, where one is read (a plain or a
    /// chunked gzip dump; a file of our own or memory has none that counts).
    #[cfg(unix)]
    fn watch(&self) -> Option<&crate::sigbus::Watch> {
        match self {
            Inner::Empty => None,
            Inner::Mapped(m) => Some(m.watch()),
            Inner::Chunked(c) => Some(c.map.watch()),
        }
    }
}

/// Random-access view of the uncompressed dump.
pub struct Source {
    inner: Inner,
    compression: Compression,
    /// Size of the file on disk (compressed size for gzip input).
    file_size: u64,
    /// Findings made while opening (a cut gzip file, bytes after its last member).
    warnings: Vec<crate::error::Warning>,
    /// The user's file when it stays mapped (plain and chunked gzip dumps), with its state
    /// then: a mapped file cut short on disk faults (SIGBUS) at the first read past its new
    /// end, and one written over in place would be read through an index of its old bytes, so
    /// `check_unchanged` looks before and after each piece of work (and a fault during one is
    /// recovered from and noted by `sigbus`). Declared after `inner`, so its descriptor, which
    /// the mapping's registration names, is closed after the mapping is gone.
    watched: Option<Watched>,
}

/// The user's dump file and its state when opened (`FileState`).
struct Watched {
    file: File,
    state: FileState,
}

/// An error opening or reading the dump, said in words with what to do where the cause is a
/// common one (a wrong path, a file of another user) rather than in the system's terms.
fn io_err(what: &str, e: std::io::Error) -> Error {
    let reason = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file: check the path (a heap dump written by `jcmd <pid> GC.heap_dump <file>`, `jmap -dump` or -XX:+HeapDumpOnOutOfMemoryError)".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied: heapql needs to read the file (check its mode and owner, or copy it somewhere readable)".to_string(),
        _ => format!("{what}: {e}"),
    };
    Error::Io { reason }
}

impl Source {
    /// Opens a file, detecting gzip by its magic bytes (never by the extension).
    pub fn open(path: &Path, ctl: Control<'_>) -> Result<Source, Error> {
        let meta = std::fs::metadata(path).map_err(|e| io_err("cannot read file metadata", e))?;
        if meta.is_dir() {
            return Err(Error::Io { reason: "is a directory, not a heap dump file".into() });
        }
        if !meta.is_file() {
            // A FIFO would block the open or the reads forever; a device has no length.
            return Err(Error::Io { reason: "is not a regular file (a pipe, socket or device): heapql reads heap dump files; save the dump to a file first".into() });
        }
        let file = File::open(path).map_err(|e| io_err("cannot open file", e))?;
        // The opened file's own (the path may have been renamed over meanwhile).
        let meta = file.metadata().map_err(|e| io_err("cannot read file metadata", e))?;
        let file_size = meta.len();
        if file_size == 0 {
            return Ok(Source { inner: Inner::Empty, compression: Compression::None, file_size, warnings: Vec::new(), watched: None });
        }
        // SAFETY: the map is read-only; a concurrent truncation by another process is the
        // documented hazard of every mmap reader and is outside our control.
        // Registered at once: opening a gzip dump reads the whole mapping (its members'
        // index, or its single member inflated) before any source exists.
        let map = DumpMap::watched(unsafe { Mmap::map(&file) }.map_err(|e| io_err("cannot map file", e))?);
        #[cfg(unix)]
        {
            let _ = map.map().advise(memmap2::Advice::Sequential);
        }
        if map.len() >= 3 && map[0] == 0x1f && map[1] == 0x8b && map[2] != 8 {
            // gzip's magic, but a compression method no gzip tool writes (8 is deflate, the
            // only one defined): damaged at byte 2, or not gzip at all.
            return Err(Error::NotHprof {
                reason: format!(
                    "the file starts like gzip data (1f 8b) but names compression method {} at byte offset 2, where gzip has only 8 (deflate): it is damaged there, or no gzip file; copy it again",
                    map[2]
                ),
            });
        }
        if map.len() >= 3 && map[0] == 0x1f && map[1] == 0x8b && map[2] == 8 {
            let watch = file.try_clone().ok();
            // The mapping stays where it is when the map is moved (kept by a chunked source).
            let mut source = gz::open_gzip(file, map, ctl)?;
            // A single gzip member was inflated into a file of our own: the user's is not read
            // again (its mapping is gone).
            if source.compression == Compression::GzipChunked {
                if let Some(f) = watch {
                    source.watch_file(f, &meta);
                }
            }
            return Ok(source);
        }
        let mut source = Source { inner: Inner::Mapped(map), compression: Compression::None, file_size, warnings: Vec::new(), watched: None };
        source.watch_file(file, &meta);
        Ok(source)
    }

    /// Keeps `file` (the mapped dump, as `meta` describes it) for `check_unchanged`, and names
    /// it to the mapping's registration, which tells a cut from a read error by its size.
    fn watch_file(&mut self, file: File, meta: &std::fs::Metadata) {
        #[cfg(unix)]
        if let Some(w) = self.inner.watch() {
            w.set_file(std::os::unix::io::AsRawFd::as_raw_fd(&file));
        }
        self.watched = Some(Watched { file, state: FileState::of(meta) });
    }

    /// Why a read of the dump's mapping faulted, if one did (`sigbus`): every read there since
    /// gave zeros, so nothing read from it since counts.
    pub fn read_fault(&self) -> Option<crate::Fault> {
        #[cfg(unix)]
        return self.inner.watch().and_then(|w| w.fault());
        #[cfg(not(unix))]
        None
    }

    /// An error when the mapped dump file was written to since it was opened (copied over in
    /// place, truncated): shorter, reading it past its new end would fault (SIGBUS; read as
    /// zeros, `sigbus`); otherwise the index built from the old bytes would be read over the
    /// new ones, a silent wrong answer. Also when a read of its mapping faulted since.
    /// Told by its length, modification time and status-change time (which also moves when
    /// the file is renamed or its mode or owner change: then too the dump must be opened
    /// again, as the index cache would rebuild it; a link removed is no change). A file
    /// changed while a read is under way cannot be caught this way (a cut can: `sigbus`
    /// counts the fault for the work under way, `sigbus::FaultCheck`); replacing it (a new file
    /// renamed over it, or deleted) is harmless, as the mapping keeps the old one.
    pub fn check_unchanged(&self) -> Result<(), Error> {
        let Some(w) = &self.watched else { return Ok(()) };
        let meta = w.file.metadata().map_err(|e| io_err("cannot read the dump file's metadata", e))?;
        let Some(FileChange { kind, now, then: opened }) = w.state.change(&meta) else {
            // A read of its mapping that faulted (its pages there now read as zeros), with the
            // file looking as it did: a device that failed, or a cut undone since.
            if let Some(fault) = self.read_fault() {
                return Err(Error::Io { reason: fault.message().to_string() });
            }
            return Ok(());
        };
        const ADVICE: &str = "open it again (to keep a dump while writing a new one, write the new one elsewhere and rename it over the old)";
        let why = match kind {
            ChangeKind::CutShort => {
                return Err(Error::Io {
                    reason: format!("the dump file was cut short on disk since it was opened ({now} bytes now, {opened} then), so it cannot be read any more; {ADVICE}"),
                })
            }
            ChangeKind::Grown => format!("written to on disk since it was opened ({now} bytes now, {opened} then)"),
            ChangeKind::Modified => "written to on disk since it was opened (its modification time changed)".to_string(),
            ChangeKind::StatusChanged => "changed on disk since it was opened (its status-change time, ctime, moved with its links unchanged: rewritten with its modification time set back, renamed, or its mode or owner changed)".to_string(),
        };
        Err(Error::Io { reason: format!("the dump file was {why}, so its index may no longer describe it; {ADVICE}") })
    }

    /// Tells the kernel how the next reads go (see `Access`); a hint, for a mapped file only.
    pub fn expect(&self, access: Access) {
        #[cfg(unix)]
        if let Inner::Mapped(m) = &self.inner {
            let advice = match access {
                Access::InOrder => memmap2::Advice::Sequential,
                Access::HereAndThere => memmap2::Advice::Random,
            };
            let _ = m.map().advise(advice);
        }
        #[cfg(not(unix))]
        let _ = access;
    }

    /// A source over bytes already in memory (tests, fuzzing): copied into an anonymous map.
    pub fn from_bytes(bytes: &[u8]) -> Source {
        if bytes.is_empty() {
            return Source { inner: Inner::Empty, compression: Compression::None, file_size: 0, warnings: Vec::new(), watched: None };
        }
        let mut m = memmap2::MmapMut::map_anon(bytes.len()).expect("anonymous map");
        m.copy_from_slice(bytes);
        let map = m.make_read_only().expect("read-only anonymous map");
        Source { inner: Inner::Mapped(DumpMap::own(map)), compression: Compression::None, file_size: bytes.len() as u64, warnings: Vec::new(), watched: None }
    }

    pub(crate) fn mapped(map: Mmap, compression: Compression, file_size: u64) -> Source {
        Source { inner: Inner::Mapped(DumpMap::own(map)), compression, file_size, warnings: Vec::new(), watched: None }
    }

    pub(crate) fn with_warnings(mut self, warnings: Vec<crate::error::Warning>) -> Source {
        self.warnings = warnings;
        self
    }

    pub(crate) fn chunked(mut c: ChunkedGz, file_size: u64) -> Source {
        let warnings = std::mem::take(&mut c.warnings);
        Source { inner: Inner::Chunked(c), compression: Compression::GzipChunked, file_size, warnings, watched: None }
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
    /// Findings made while opening (a cut gzip file, bytes after its last member).
    pub fn warnings(&self) -> &[crate::error::Warning] {
        &self.warnings
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;

    /// The mapping's flags in /proc/self/smaps: `sr` for sequential, `rr` for random reads.
    fn vm_flags(start: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((a, _)) = range.split_once('-') {
                    if let Ok(a) = usize::from_str_radix(a, 16) {
                        inside = a == start;
                        continue;
                    }
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return flags.to_string();
                }
            }
        }
        panic!("no mapping at {start:#x}");
    }

    #[test]
    fn the_kernel_is_told_how_the_dump_is_read() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&vec![1u8; 1 << 20]).unwrap();
        let src = Source::open(f.path(), Control::default()).unwrap();
        let start = src.as_slice().unwrap().as_ptr() as usize;
        let has = |flag: &str| vm_flags(start).split_whitespace().any(|f| f == flag);
        assert!(has("sr") && !has("rr"), "opened for a pass in file order");
        src.expect(Access::HereAndThere);
        assert!(has("rr") && !has("sr"), "no readahead for a page here and there");
        src.expect(Access::InOrder);
        assert!(has("sr") && !has("rr"));
    }
}
