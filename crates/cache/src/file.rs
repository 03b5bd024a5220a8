//! One cache file: the arrays and small structures of one result (the heap index, the full
//! analysis, a report), self-describing and checksummed.
//!
//! Layout: a 4 KiB header page — magic, header length, xxh3 of the header, the header (key:
//! format version, dump identity, options; where the table of contents is, its xxh3, the file
//! length) — then the sections, each at a page boundary so arrays can be memory-mapped in
//! place, then the table of contents (each section's name, place and one xxh3 per 16 MiB
//! block). The writer fills a temporary file and renames it only when complete.
//!
//! Checksums are verified when the file is opened, all of them, on all cores: xxh3 runs at
//! many GB/s, so a whole index costs tens of milliseconds from the page cache, and a flipped
//! byte anywhere (a bad disk, a stray write) is a rebuild rather than a wrong answer. Checking
//! lazily per block would need a check in every array access, which the rest of the code reads
//! through plain slices. From disk a multi-GB file takes seconds: the verification tells the
//! bytes verified per block (`WriteWatch::verifying`) and stops at the cancel flag between
//! blocks, leaving the file as it is.

use heapql_scratch::{as_bytes, BigArray, Plain};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use xxhash_rust::xxh3::xxh3_64;

use crate::identity::DumpIdentity;
use crate::store::WriteWatch;

/// Bump when the layout of this file changes (2: the key's dump identity has the ctime).
pub const FORMAT_VERSION: u32 = 2;
const MAGIC: [u8; 8] = *b"HEAPQLC\0";
const PAGE: u64 = 4096;
/// Magic, header length (u32), reserved (u32), header xxh3 (u64).
const PREFIX: usize = 24;
/// Granularity of the checksums (and of the parallel verification).
const BLOCK: usize = 16 << 20;

/// What a file was written for; a file is used only when all of it matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    /// Cache format and the writer's data layout (see `Cache::entry`).
    pub version: String,
    pub identity: DumpIdentity,
    /// `index`, `analysis`, `report`.
    pub kind: String,
    /// The options that change the result (`dump=0`, `reachable-only`, report limits).
    pub options: String,
}

#[derive(Serialize, Deserialize)]
struct Header {
    key: Key,
    toc_offset: u64,
    toc_len: u64,
    toc_hash: u64,
    file_len: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Section {
    name: String,
    offset: u64,
    len: u64,
    /// xxh3 of each `BLOCK` bytes.
    blocks: Vec<u64>,
}

/// Why a file cannot be used (becomes one warning line; the file is then rebuilt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(pub String);

/// An opening stopped by the cancel flag while the file was verified; the file is untouched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// Why `EntryFile::open` returned no file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// The file cannot be used.
    Invalid(Invalid),
    /// Stopped by the cancel flag (the file may well be valid).
    Cancelled,
}

impl From<Invalid> for OpenError {
    fn from(i: Invalid) -> OpenError {
        OpenError::Invalid(i)
    }
}

fn invalid(reason: impl Into<String>) -> Invalid {
    Invalid(reason.into())
}

/// Writes one cache file under a temporary name; `finish` renames it into place.
pub struct EntryWriter {
    file: File,
    tmp: PathBuf,
    dest: PathBuf,
    pos: u64,
    sections: Vec<Section>,
    key: Key,
    watch: WriteWatch,
}

impl EntryWriter {
    pub(crate) fn create(tmp: PathBuf, dest: PathBuf, key: Key, watch: WriteWatch) -> std::io::Result<EntryWriter> {
        let mut file = File::create(&tmp)?;
        file.write_all(&[0u8; PAGE as usize])?;
        Ok(EntryWriter { file, tmp, dest, pos: PAGE, sections: Vec::new(), key, watch })
    }

    /// Between two blocks: stopped when the cancel flag is set (`ErrorKind::Interrupted`),
    /// else the bytes so far told.
    fn tick(&self, pos: u64) -> std::io::Result<()> {
        if self.watch.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted"));
        }
        if let Some(p) = &self.watch.progress {
            p(pos);
        }
        Ok(())
    }

    /// An array, to be mapped back with `EntryFile::array`.
    pub fn array<T: Plain>(&mut self, name: &str, data: &[T]) -> std::io::Result<()> {
        self.bytes(name, as_bytes(data))
    }

    /// A small structure (serde, postcard encoding), read back with `EntryFile::blob`.
    pub fn blob<S: Serialize + ?Sized>(&mut self, name: &str, value: &S) -> std::io::Result<()> {
        let bytes = postcard::to_stdvec(value).map_err(std::io::Error::other)?;
        self.bytes(name, &bytes)
    }

    fn bytes(&mut self, name: &str, data: &[u8]) -> std::io::Result<()> {
        self.pad()?;
        let mut blocks = Vec::with_capacity(data.len().div_ceil(BLOCK));
        let mut at = self.pos;
        for chunk in data.chunks(BLOCK) {
            self.tick(at)?;
            blocks.push(xxh3_64(chunk));
            heapql_scratch::write_in_pieces(&mut self.file, chunk)?;
            at += chunk.len() as u64;
        }
        self.tick(at)?;
        self.sections.push(Section { name: name.to_string(), offset: self.pos, len: data.len() as u64, blocks });
        self.pos += data.len() as u64;
        Ok(())
    }

    fn pad(&mut self) -> std::io::Result<()> {
        let pad = (PAGE - self.pos % PAGE) % PAGE;
        self.file.write_all(&vec![0u8; pad as usize])?;
        self.pos += pad;
        Ok(())
    }

    /// Writes the table of contents and the header, then renames the file into place;
    /// returns its size. On error the temporary file is left for the caller to remove.
    pub(crate) fn finish(mut self) -> std::io::Result<u64> {
        self.pad()?;
        let toc = postcard::to_stdvec(&self.sections).map_err(std::io::Error::other)?;
        self.file.write_all(&toc)?;
        let file_len = self.pos + toc.len() as u64;
        let header = Header { key: self.key.clone(), toc_offset: self.pos, toc_len: toc.len() as u64, toc_hash: xxh3_64(&toc), file_len };
        let body = postcard::to_stdvec(&header).map_err(std::io::Error::other)?;
        if PREFIX + body.len() > PAGE as usize {
            return Err(std::io::Error::other("cache header too long"));
        }
        let mut page = Vec::with_capacity(PREFIX + body.len());
        page.extend_from_slice(&MAGIC);
        page.extend_from_slice(&(body.len() as u32).to_le_bytes());
        page.extend_from_slice(&0u32.to_le_bytes());
        page.extend_from_slice(&xxh3_64(&body).to_le_bytes());
        page.extend_from_slice(&body);
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(&page)?;
        self.file.flush()?;
        std::fs::rename(&self.tmp, &self.dest)?;
        Ok(file_len)
    }
}

/// An opened, fully verified cache file.
pub struct EntryFile {
    file: File,
    sections: Vec<Section>,
}

impl EntryFile {
    /// Opens `path` and checks it against `expect` and all its checksums, telling the bytes
    /// verified to `watch.verifying` and stopping at `watch.cancel` between blocks.
    pub fn open(path: &Path, expect: &Key, watch: &WriteWatch) -> Result<EntryFile, OpenError> {
        let (file, sections) = EntryFile::check_layout(path, expect)?;
        verify(&file, &sections, watch)?;
        Ok(EntryFile { file, sections })
    }

    /// Opens `path` and checks its header, key and table of contents (not the sections).
    fn check_layout(path: &Path, expect: &Key) -> Result<(File, Vec<Section>), Invalid> {
        let file = File::open(path).map_err(|e| invalid(format!("cannot open {}: {e}", path.display())))?;
        let actual_len = file.metadata().map_err(|e| invalid(e.to_string()))?.len();
        let header = read_header(&file, Some(&expect.version))?;
        check_key(&header.key, expect)?;
        if header.file_len != actual_len {
            return Err(invalid(format!("it is {actual_len} bytes long instead of {} (cut short or extended)", header.file_len)));
        }
        if header.toc_offset.checked_add(header.toc_len) != Some(header.file_len) {
            return Err(invalid("its table of contents is out of place"));
        }
        let mut toc = vec![0u8; header.toc_len as usize];
        read_full(&file, &mut toc, header.toc_offset).map_err(|e| invalid(e.to_string()))?;
        if xxh3_64(&toc) != header.toc_hash {
            return Err(invalid("its table of contents is damaged"));
        }
        let sections: Vec<Section> = postcard::from_bytes(&toc).map_err(|_| invalid("its table of contents is damaged"))?;
        for s in &sections {
            let end = s.offset.checked_add(s.len);
            if s.offset % PAGE != 0 || end.is_none_or(|e| e > header.toc_offset) || s.blocks.len() != (s.len as usize).div_ceil(BLOCK) {
                return Err(invalid(format!("section {} is out of place", s.name)));
            }
        }
        Ok((file, sections))
    }

    fn section(&self, name: &str) -> Result<&Section, Invalid> {
        self.sections.iter().find(|s| s.name == name).ok_or_else(|| invalid(format!("section {name} is missing")))
    }

    /// The section `name` as a memory-mapped array.
    pub fn array<T: Plain>(&self, name: &str) -> Result<BigArray<T>, Invalid> {
        let s = self.section(name)?;
        let size = std::mem::size_of::<T>() as u64;
        if s.len % size != 0 {
            return Err(invalid(format!("section {name} does not hold whole values")));
        }
        BigArray::map_file(&self.file, s.offset, (s.len / size) as usize).map_err(|e| invalid(format!("cannot map section {name}: {e}")))
    }

    /// The section `name` decoded as `D`.
    pub fn blob<D: DeserializeOwned>(&self, name: &str) -> Result<D, Invalid> {
        let s = self.section(name)?;
        let mut bytes = vec![0u8; s.len as usize];
        read_full(&self.file, &mut bytes, s.offset).map_err(|e| invalid(e.to_string()))?;
        postcard::from_bytes(&bytes).map_err(|e| invalid(format!("section {name} cannot be decoded: {e}")))
    }
}

/// The key a cache file was written for, from its header alone (its checksum checked, the
/// sections not): enough to tell which dump an entry belongs to when its `meta.json` is lost.
pub(crate) fn read_key(path: &Path) -> Option<Key> {
    read_header(&File::open(path).ok()?, None).ok().map(|h| h.key)
}

/// The header of `file`. With `version`, a header of another version is reported as such
/// before the rest is decoded (it leads the header in every format; what follows it may be laid
/// out otherwise and would read as damaged).
fn read_header(file: &File, version: Option<&str>) -> Result<Header, Invalid> {
    let mut page = vec![0u8; PAGE as usize];
    let n = read_full(file, &mut page, 0).map_err(|e| invalid(e.to_string()))?;
    if n < PREFIX || page[..8] != MAGIC {
        return Err(invalid("not a heapql cache file (bad magic or cut short)"));
    }
    let body_len = u32::from_le_bytes(page[8..12].try_into().unwrap()) as usize;
    let hash = u64::from_le_bytes(page[16..24].try_into().unwrap());
    if PREFIX + body_len > n || xxh3_64(&page[PREFIX..PREFIX + body_len]) != hash {
        return Err(invalid("its header is damaged"));
    }
    if let (Some(expect), Ok((found, _))) = (version, postcard::take_from_bytes::<String>(&page[PREFIX..PREFIX + body_len])) {
        if found != expect {
            return Err(another_version(&found, expect));
        }
    }
    postcard::from_bytes(&page[PREFIX..PREFIX + body_len]).map_err(|_| invalid("its header is damaged"))
}

fn check_key(found: &Key, expect: &Key) -> Result<(), Invalid> {
    if found.version != expect.version {
        return Err(another_version(&found.version, &expect.version));
    }
    let (f, e) = (&found.identity, &expect.identity);
    if f != e {
        let what = if f.size != e.size {
            "its size differs"
        } else if f.mtime_ns != e.mtime_ns {
            "its modification time differs"
        } else if f.sample_hash != e.sample_hash {
            "its contents differ"
        } else if f.ctime_ns != e.ctime_ns {
            // Same size, mtime and sampled bytes: written in place with its mtime set back, or
            // only its mode, owner or links changed; the two cannot be told apart.
            "its status-change time, ctime, differs: rewritten with its modification time set back, or its mode, owner or links changed"
        } else {
            "its place on disk differs"
        };
        return Err(invalid(format!("the dump changed since it was cached ({what})")));
    }
    if found.kind != expect.kind || found.options != expect.options {
        return Err(invalid(format!("it holds {} ({}) instead of {} ({})", found.kind, found.options, expect.kind, expect.options)));
    }
    Ok(())
}

fn another_version(found: &str, expect: &str) -> Invalid {
    invalid(format!("it was written by another heapql version (cache format {found}, this one reads {expect})"))
}

/// Checks every block of every section, spread over the cores. Each block verified adds its
/// bytes to the count told to `watch.verifying` (first 0, then rising to the sections' total);
/// the cancel flag is looked at before each block.
fn verify(file: &File, sections: &[Section], watch: &WriteWatch) -> Result<(), OpenError> {
    let jobs: Vec<(&Section, usize)> = sections.iter().flat_map(|s| (0..s.blocks.len()).map(move |b| (s, b))).collect();
    if jobs.is_empty() {
        return Ok(());
    }
    let total: u64 = sections.iter().map(|s| s.len).sum();
    let cancelled = || watch.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
    // Under the lock, so that the counts are told in increasing order whichever thread adds.
    let done = std::sync::Mutex::new(0u64);
    let tell = |bytes: u64| {
        let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
        *d += bytes;
        if let Some(p) = &watch.verifying {
            p(*d, total);
        }
    };
    tell(0);
    // SAFETY: read-only view of a file that is replaced by rename, never written in place.
    let map = unsafe { memmap2::Mmap::map(file) }.map_err(|e| invalid(format!("cannot map: {e}")))?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let first_bad = std::sync::Mutex::new(None::<String>);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8).min(jobs.len());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                if stop.load(Ordering::Relaxed) || cancelled() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= jobs.len() {
                    break;
                }
                let (s, b) = jobs[i];
                let start = s.offset as usize + b * BLOCK;
                let end = (start + BLOCK).min((s.offset + s.len) as usize);
                if xxh3_64(&map[start..end]) != s.blocks[b] {
                    stop.store(true, Ordering::Relaxed);
                    let mut slot = first_bad.lock().unwrap();
                    slot.get_or_insert_with(|| format!("section {} is damaged near byte {start}", s.name));
                } else {
                    tell((end - start) as u64);
                }
            });
        }
    });
    if let Some(reason) = first_bad.into_inner().unwrap() {
        return Err(invalid(reason).into());
    }
    if *done.lock().unwrap_or_else(|e| e.into_inner()) < total {
        // Not every block was checked: the cancel flag stopped it.
        return Err(OpenError::Cancelled);
    }
    Ok(())
}

pub(crate) fn read_full(file: &File, buf: &mut [u8], off: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], off + done as u64)? {
            0 => break,
            n => done += n,
        }
    }
    Ok(done)
}
