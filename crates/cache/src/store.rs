//! The cache directory: one entry directory per dump (and dump number), its files, the lock
//! that keeps two processes from writing the same file, and least-recently-used eviction
//! under a size cap.
//!
//! ```text
//! <root>/<hash>-<dump name>/meta.json          which dump; its mtime is the last use
//!                          /index.hqc           the heap index
//!                          /analysis.<h>.hqc    the full analysis (per option set)
//!                          /report.<h>.hqc      report data (per option set)
//!                          /<file>.lock         held while a process writes <file>
//!                          /<file>.tmp.<pid>    being written; renamed when complete
//!                          /meta.json.tmp.<pid> the same for meta.json
//! ```
//!
//! A writer killed mid-write leaves its `<file>.tmp.<pid>` behind (a leftover). Its writer is
//! taken for alive while `<file>.lock` is held or process `<pid>` runs (for `meta.json`, whose
//! writer holds the lock of the file it is about to write: while any lock of the entry is
//! held); only then is it kept: `cache list` shows every leftover with that answer,
//! `cache clear` and eviction remove the ones whose writer is gone (first, before any entry)
//! and never touch a live writer's.
//!
//! A writer killed before `meta.json` was in place leaves a directory that names no dump: only
//! locks, `meta.json.tmp.<pid>` (whose text, when complete, still names it) and other
//! leftovers. Such a directory, when its name has the form of an entry's and it holds nothing
//! else, is an unfinished entry: listed (dump unknown), removed by `cache clear` and first of
//! all by eviction, unless a live writer is at work in it.
//!
//! Readers never take a lock: a file appears complete (rename) or not at all. A writer that
//! finds the lock taken leaves the writing to the other process (its own result stays private
//! to this run). Nothing here is fatal: every failure is one warning line and a run without
//! the cache.

use serde::{Deserialize, Serialize};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use xxhash_rust::xxh3::xxh3_64;

use crate::file::{read_key, EntryFile, EntryWriter, Key, OpenError, FORMAT_VERSION};
use crate::identity::DumpIdentity;

/// Default cap: this share of the cache disk's space available to the cache (free space plus
/// what the cache already holds).
const DEFAULT_SHARE: f64 = 0.20;

/// `--cache-dir`, else `HEAPQL_CACHE_DIR`, else `$XDG_CACHE_HOME/heapql`, else
/// `~/.cache/heapql`; `None` when none can be named (no home directory).
pub fn cache_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(d) = explicit {
        return Some(d.to_path_buf());
    }
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    env("HEAPQL_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("heapql")))
        .or_else(|| env("HOME").map(|h| h.join(".cache").join("heapql")))
}

/// A cache directory with its size cap.
#[derive(Clone, Debug)]
pub struct Cache {
    root: PathBuf,
    /// Bytes; `None`: the default share of the disk.
    max_bytes: Option<u64>,
}

/// What `meta.json` records about an entry.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryMeta {
    /// Canonical path of the dump.
    pub dump: String,
    pub dump_number: usize,
    pub dump_size: u64,
}

/// One entry as `heapql cache list` shows it.
#[derive(Clone, Debug)]
pub struct EntryInfo {
    pub dir: PathBuf,
    /// `None`: an unfinished entry, whose writer died before anything named its dump.
    pub meta: Option<EntryMeta>,
    /// Bytes of all its files.
    pub bytes: u64,
    /// Seconds since the epoch of the last read or write.
    pub last_used: u64,
    /// Its cache files (`index.hqc`, ...).
    pub files: Vec<String>,
    /// Files being written, or left unfinished by a writer that is gone (in `bytes` too).
    pub leftovers: Vec<Leftover>,
}

/// A temporary file of a writer, `<file>.tmp.<pid>`: being written, or left by a killed one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leftover {
    /// Its name in the entry's directory.
    pub file: String,
    pub bytes: u64,
    /// The writer's process id, from the name (`None`: no number there).
    pub pid: Option<u32>,
    /// Its writer may still be writing it: the file's lock is held, or process `pid` runs.
    /// Never removed then.
    pub writer_alive: bool,
}

/// What `Cache::clear` did.
#[derive(Clone, Debug, Default)]
pub struct Cleared {
    /// Entries removed (all but the files of live writers, when there are some).
    pub entries: usize,
    /// Bytes removed, leftovers included.
    pub bytes: u64,
    /// Leftovers of writers that were gone, removed (their directory, and themselves).
    pub leftovers_removed: Vec<(PathBuf, Leftover)>,
    /// Files of live writers, kept (with their entry's `meta.json` and the file's lock).
    pub being_written: Vec<(PathBuf, Leftover)>,
}

/// What removing one entry did.
struct Removed {
    bytes: u64,
    leftovers: Vec<Leftover>,
    kept: Vec<Leftover>,
}

/// The result of looking a file up.
pub enum Lookup {
    Hit(EntryFile),
    /// Not cached (or being written by another process right now).
    Miss,
    /// Present but unusable (the reason, for one warning line); the file was removed.
    Invalid(String),
    /// Stopped by the entry's cancel flag while the file was verified; the file stays.
    Cancelled,
}

/// The result of writing a file.
#[derive(Debug)]
pub enum Written {
    /// Bytes written.
    Done(u64),
    /// Another process is writing the same file; this one left it to that process.
    Busy,
    /// Could not write (the reason, for one warning line); nothing was left behind.
    Failed(String),
    /// Stopped by the entry's cancel flag (`Entry::watched`); nothing was left behind.
    Interrupted,
}

/// What a write, and the verification of a file opened, tell and heed (`Entry::watched`).
#[derive(Clone, Default)]
pub struct WriteWatch {
    /// The bytes written so far, told as they go (first 0, once the writing starts).
    pub progress: Option<Arc<dyn Fn(u64) + Send + Sync>>,
    /// The bytes verified so far and the total to verify, told per checksum block (first 0)
    /// while a file is opened.
    pub verifying: Option<Arc<dyn Fn(u64, u64) + Send + Sync>>,
    /// Stops a write (nothing is left) or a verification (the file is left as it is).
    pub cancel: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for WriteWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteWatch")
            .field("progress", &self.progress.is_some())
            .field("verifying", &self.verifying.is_some())
            .field("cancel", &self.cancel)
            .finish()
    }
}

impl Cache {
    pub fn new(root: PathBuf, max_bytes: Option<u64>) -> Cache {
        Cache { root, max_bytes }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The entry of dump number `dump_no` of the file at `dump`. `layout` names the data
    /// layout of the writer (bump it when what is stored changes meaning); with the format
    /// version it makes the key's version. Fails (a warning line) when the dump cannot be read.
    pub fn entry(&self, dump: &Path, dump_no: usize, layout: &str) -> Result<Entry, String> {
        let identity = DumpIdentity::of(dump).map_err(|e| format!("cache not used: cannot identify {}: {e}", dump.display()))?;
        let dir = self.root.join(entry_dir_name(&identity.path, dump_no));
        Ok(Entry { cache: self.clone(), dir, identity, dump_no, version: format!("{FORMAT_VERSION}/{layout}"), watch: WriteWatch::default() })
    }

    /// Every entry, most recently used first, for a cache's own upkeep: a directory that cannot
    /// be read holds none it can use.
    pub fn list(&self) -> Vec<EntryInfo> {
        self.entries().unwrap_or_default()
    }

    /// Every entry, most recently used first, for someone asking what the cache holds: a
    /// directory that cannot be listed (a file, one without read permission) is an error that
    /// says why, where `list` would answer as for an empty cache; one that does not exist is an
    /// empty cache.
    pub fn entries(&self) -> Result<Vec<EntryInfo>, String> {
        let dirs = match std::fs::read_dir(&self.root) {
            Ok(dirs) => dirs,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                let why = match e.kind() {
                    std::io::ErrorKind::NotADirectory => "it is a file, not a directory (give --cache-dir a directory)".to_string(),
                    std::io::ErrorKind::PermissionDenied => "permission denied (check its mode and owner, or give another with --cache-dir)".to_string(),
                    _ => e.to_string(),
                };
                return Err(format!("cannot read the cache directory {}: {why}", self.root.display()));
            }
        };
        let mut out: Vec<EntryInfo> = dirs.flatten().filter_map(|d| entry_info(&d.path())).collect();
        out.sort_by(|a, b| b.last_used.cmp(&a.last_used).then_with(|| a.dir.cmp(&b.dir)));
        Ok(out)
    }

    /// Removes every entry, or those of the dump at `dump` (matched by its canonical path, or
    /// by the path as given when the dump no longer exists). Files a live writer is writing
    /// stay (see `Leftover::writer_alive`), with their entry's `meta.json` and lock. The error
    /// says what went wrong (`entries`, or a removal).
    pub fn clear(&self, dump: Option<&Path>) -> Result<Cleared, String> {
        let wanted = dump.map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| std::path::absolute(d).unwrap_or(d.to_path_buf())));
        let mut out = Cleared::default();
        for e in self.entries()? {
            if wanted.as_ref().is_some_and(|w| e.meta.as_ref().is_none_or(|m| Path::new(&m.dump) != w)) {
                continue;
            }
            let r = remove_entry(&e).map_err(|err| format!("cannot clear the cache: {err}"))?;
            out.entries += 1;
            out.bytes += r.bytes;
            out.leftovers_removed.extend(r.leftovers.into_iter().map(|l| (e.dir.clone(), l)));
            out.being_written.extend(r.kept.into_iter().map(|l| (e.dir.clone(), l)));
        }
        Ok(out)
    }

    /// The cap in bytes: the given one, or the default share of the disk.
    pub fn max_bytes(&self) -> u64 {
        self.cap(|| self.list().iter().map(|e| e.bytes).sum())
    }

    /// The cap, `held` (the bytes the cache holds) asked for only when the cap is the default.
    fn cap(&self, held: impl FnOnce() -> u64) -> u64 {
        self.max_bytes.unwrap_or_else(|| ((free_bytes(&self.root) + held()) as f64 * DEFAULT_SHARE) as u64)
    }

    /// Removes the leftovers of writers that are gone and the entries holding no cache file,
    /// then least recently used entries (never `keep`) until the cache fits its cap; `Err(cap)`
    /// when it cannot (`keep` alone is larger). The files of live writers are neither counted nor removed: each such writer
    /// evicts for itself once its file is complete.
    fn evict(&self, keep: &Path) -> Result<(), u64> {
        let mut entries = self.list();
        for e in &mut entries {
            e.leftovers.retain(|l| {
                if !l.writer_alive && remove_leftover(&e.dir, l) {
                    e.bytes -= l.bytes;
                    return false;
                }
                true
            });
        }
        // Then entries holding no cache file (unfinished ones, whose writer died before it
        // named their dump, or ones whose files all went): nothing in them is of use. They go
        // whole, but for what a live writer is at.
        entries.retain_mut(|e| {
            if (!e.files.is_empty() && e.meta.is_some()) || e.dir == keep {
                return true;
            }
            match remove_entry(e) {
                Ok(r) => {
                    e.bytes = e.bytes.saturating_sub(r.bytes);
                    e.dir.exists()
                }
                Err(_) => true,
            }
        });
        let live = |e: &EntryInfo| e.leftovers.iter().filter(|l| l.writer_alive).map(|l| l.bytes).sum::<u64>();
        let mut total: u64 = entries.iter().map(|e| e.bytes - live(e)).sum();
        let cap = self.cap(|| total);
        // An entry larger than the cap on its own cannot be kept whatever goes (the caller
        // removes it): the others are evicted only as far as the cap needs without it, not
        // all of them first for a file the cache could never hold.
        let alone = entries.iter().find(|e| e.dir == keep).map_or(0, |e| e.bytes - live(e));
        if alone > cap {
            total -= alone;
            entries.retain(|e| e.dir != keep);
        }
        while total > cap {
            let Some(i) = entries.iter().rposition(|e| e.dir != keep) else { return Err(cap) };
            let e = entries.remove(i);
            if let Ok(r) = remove_entry(&e) {
                total = total.saturating_sub(r.bytes);
            }
        }
        if alone > cap {
            return Err(cap);
        }
        Ok(())
    }
}

/// The process `pid` is running (or may be: `kill(pid, 0)` is refused only for a process of
/// another user). Not a pid (0, or beyond the kernel's): no.
#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(p) = libc::pid_t::try_from(pid) else { return false };
    if p <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    unsafe { libc::kill(p, 0) == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM) }
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    true // cannot tell: kept
}

/// `file` (a name in `dir`) as a leftover, when it is one (`<file>.tmp.<pid>`).
fn leftover(dir: &Path, file: &str, bytes: u64) -> Option<Leftover> {
    let (target, pid) = file.rsplit_once(".tmp.")?;
    let pid = pid.parse::<u32>().ok();
    let writer_alive = target_lock_held(dir, target) || pid.is_some_and(process_alive);
    Some(Leftover { file: file.to_string(), bytes, pid, writer_alive })
}

/// Some process holds the lock of `target` (a file of the entry in `dir`): it is writing it.
/// `meta.json` has no lock of its own: its writer holds the lock of the file it writes next.
fn target_lock_held(dir: &Path, target: &str) -> bool {
    if target == "meta.json" {
        return !held_locks(dir).is_empty();
    }
    lock_held(dir, &format!("{target}.lock"))
}

/// Some process holds the lock file `name` in `dir`.
fn lock_held(dir: &Path, name: &str) -> bool {
    let Ok(lock) = File::open(dir.join(name)) else { return false };
    matches!(lock.try_lock(), Err(std::fs::TryLockError::WouldBlock))
}

/// The lock files in `dir` some process holds.
fn held_locks(dir: &Path) -> Vec<String> {
    let Ok(files) = std::fs::read_dir(dir) else { return Vec::new() };
    files.flatten().map(|f| f.file_name().to_string_lossy().to_string()).filter(|n| n.ends_with(".lock") && lock_held(dir, n)).collect()
}

/// Removes the leftover `l` of the entry in `dir` when its writer is (still) gone, holding
/// its file's lock meanwhile so that no writer starts on it; whether it was removed.
fn remove_leftover(dir: &Path, l: &Leftover) -> bool {
    let Some((target, _)) = l.file.rsplit_once(".tmp.") else { return false };
    let lock = File::open(dir.join(format!("{target}.lock"))).ok();
    if let Some(lock) = &lock {
        if lock.try_lock().is_err() {
            return false;
        }
    }
    if (target == "meta.json" && target_lock_held(dir, target)) || l.pid.is_some_and(process_alive) {
        return false;
    }
    std::fs::remove_file(dir.join(&l.file)).is_ok()
}

/// Removes the entry `e`: the whole directory, or, when live writers are writing some of its
/// files (or hold a lock in it, about to), all but those files, their locks and `meta.json`.
fn remove_entry(e: &EntryInfo) -> std::io::Result<Removed> {
    let mut removed = Removed { bytes: 0, leftovers: Vec::new(), kept: Vec::new() };
    for l in &e.leftovers {
        if !l.writer_alive && remove_leftover(&e.dir, l) {
            removed.bytes += l.bytes;
            removed.leftovers.push(l.clone());
        } else {
            removed.kept.push(l.clone());
        }
    }
    let held = held_locks(&e.dir);
    if removed.kept.is_empty() && held.is_empty() {
        std::fs::remove_dir_all(&e.dir)?;
        removed.bytes = e.bytes;
        return Ok(removed);
    }
    let mut keep: Vec<String> = vec!["meta.json".into()];
    keep.extend(held);
    for l in &removed.kept {
        keep.push(l.file.clone());
        if let Some((target, _)) = l.file.rsplit_once(".tmp.") {
            keep.push(format!("{target}.lock"));
        }
    }
    for f in std::fs::read_dir(&e.dir)?.flatten() {
        let name = f.file_name().to_string_lossy().to_string();
        if keep.contains(&name) {
            continue;
        }
        let len = f.metadata().map_or(0, |m| m.len());
        let gone = if f.file_type().is_ok_and(|t| t.is_dir()) { std::fs::remove_dir_all(f.path()) } else { std::fs::remove_file(f.path()) };
        if gone.is_ok() {
            removed.bytes += len;
        }
    }
    Ok(removed)
}

/// The directory name of the entry of dump number `dump_no` of the dump at canonical `path`.
fn entry_dir_name(path: &str, dump_no: usize) -> String {
    let name = Path::new(path).file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let safe: String = name.chars().take(60).map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' { c } else { '_' }).collect();
    let hash = xxh3_64(format!("{path}\0{dump_no}").as_bytes());
    format!("{hash:016x}-{safe}")
}

fn entry_info(dir: &Path) -> Option<EntryInfo> {
    let meta_path = dir.join("meta.json");
    let (mut bytes, mut files, mut leftovers, mut newest) = (0, Vec::new(), Vec::new(), None::<SystemTime>);
    // Only what a writer makes: locks, leftovers, `meta.json` (a directory holding anything
    // else is taken for an entry only when its metadata or a cache file names it).
    let mut writers_only = true;
    // Only what the cache makes: that, and cache files (whole or damaged).
    let mut ours_only = true;
    for f in std::fs::read_dir(dir).ok()?.flatten() {
        let m = f.metadata().ok();
        let len = m.as_ref().map_or(0, |m| m.len());
        bytes += len;
        let name = f.file_name().to_string_lossy().to_string();
        let plain = m.as_ref().is_some_and(|m| m.is_file());
        if let Some(l) = leftover(dir, &name, len) {
            let writers = plain && l.pid.is_some();
            writers_only &= writers;
            ours_only &= writers;
            leftovers.push(l);
        } else if name.ends_with(".hqc") {
            writers_only = false;
            ours_only &= plain;
            newest = newest.max(m.and_then(|m| m.modified().ok()));
            files.push(name);
        } else {
            let writers = plain && (name.ends_with(".lock") || name == "meta.json");
            writers_only &= writers;
            ours_only &= writers;
        }
    }
    files.sort();
    leftovers.sort_by(|a: &Leftover, b| a.file.cmp(&b.file));
    let meta = match read_meta(&meta_path) {
        Some(meta) => Some(meta),
        None => match meta_from_files(dir, &files) {
            // Lost or damaged: the entry's files still say which dump they belong to. Written
            // again, dated as its newest file, so that eviction keeps its order.
            Some(meta) => {
                if write_meta(dir, &meta).is_ok() {
                    if let (Ok(f), Some(t)) = (File::options().append(true).open(&meta_path), newest) {
                        let _ = f.set_modified(t);
                    }
                }
                Some(meta)
            }
            // Nothing in place names the dump: an unfinished entry, named by the text its
            // writer left in `meta.json.tmp.<pid>` when that is whole, else of an unknown dump.
            None if writers_only && is_entry_dir_name(dir) => meta_from_leftovers(dir, &leftovers),
            // Cache files whose headers are damaged too (cut short, a flipped byte): nothing
            // names the dump, and `meta.json` is written before any file, so the files are
            // damage no run can use. Listed with no dump, cleared and evicted first, rather
            // than left on disk unseen and uncounted for ever. (A whole file naming another
            // directory's dump is no damage: that directory is left alone.)
            None if ours_only && is_entry_dir_name(dir) && files.iter().all(|f| read_key(&dir.join(f)).is_none()) => None,
            None => return None,
        },
    };
    let dir_time = || std::fs::metadata(dir).ok().and_then(|m| m.modified().ok());
    let last_used = std::fs::metadata(&meta_path).ok().and_then(|m| m.modified().ok()).or(newest).or_else(dir_time)?;
    let last_used = last_used.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    Some(EntryInfo { dir: dir.to_path_buf(), meta, bytes, last_used, files, leftovers })
}

fn read_meta(path: &Path) -> Option<EntryMeta> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// The name `entry_dir_name` gives: 16 hex digits, `-`, the dump's name made safe.
fn is_entry_dir_name(dir: &Path) -> bool {
    let Some(name) = dir.file_name().and_then(|n| n.to_str()) else { return false };
    let Some((hash, rest)) = name.split_once('-') else { return false };
    hash.len() == 16
        && hash.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        && rest.chars().count() <= 60
        && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_')
}

/// The metadata a writer left whole in `meta.json.tmp.<pid>` (it died before the rename), when
/// it names this very directory.
fn meta_from_leftovers(dir: &Path, leftovers: &[Leftover]) -> Option<EntryMeta> {
    leftovers.iter().filter(|l| l.file.starts_with("meta.json.tmp.")).find_map(|l| {
        let meta = read_meta(&dir.join(&l.file))?;
        (dir.file_name()? == entry_dir_name(&meta.dump, meta.dump_number).as_str()).then_some(meta)
    })
}

/// An entry's metadata from the key of one of its cache files, when the directory is the one
/// that key's dump would have (nothing else in the cache directory is taken for an entry).
fn meta_from_files(dir: &Path, files: &[String]) -> Option<EntryMeta> {
    files.iter().find_map(|name| {
        let key: Key = read_key(&dir.join(name))?;
        let dump_number: usize = key.options.strip_prefix("dump=")?.split(';').next()?.parse().ok()?;
        let meta = EntryMeta { dump: key.identity.path, dump_number, dump_size: key.identity.size };
        (dir.file_name()? == entry_dir_name(&meta.dump, dump_number).as_str()).then_some(meta)
    })
}

/// What to do about a cache file that could not be written (after its reason), for the causes
/// the user can mend; empty for the others.
fn what_to_do(e: &std::io::Error, root: &Path) -> String {
    use std::io::ErrorKind::*;
    let root = root.display();
    match e.kind() {
        NotADirectory => format!(": {root}, or a directory above it, is a file; give --cache-dir (the library's cacheDir) a directory"),
        ReadOnlyFilesystem | PermissionDenied => format!(": give --cache-dir (the library's cacheDir) a directory you may write to instead of {root}, or --no-cache (noCache)"),
        StorageFull | QuotaExceeded => format!(": free some space on the disk of {root}, or give --cache-dir (the library's cacheDir) a directory on another disk"),
        _ => String::new(),
    }
}

/// Writes `meta.json` of the entry in `dir` (whole, by rename).
fn write_meta(dir: &Path, meta: &EntryMeta) -> std::io::Result<()> {
    let tmp = dir.join(format!("meta.json.tmp.{}", std::process::id()));
    std::fs::write(&tmp, serde_json::to_vec(meta).map_err(std::io::Error::other)?)?;
    std::fs::rename(&tmp, dir.join("meta.json"))
}

#[cfg(unix)]
fn free_bytes(dir: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    let mut probe = dir.to_path_buf();
    while !probe.exists() {
        if !probe.pop() {
            return 0;
        }
    }
    let Ok(c) = std::ffi::CString::new(probe.as_os_str().as_bytes()) else { return 0 };
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid NUL-terminated path and a zeroed out-parameter of the right type.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return 0;
    }
    st.f_bavail as u64 * st.f_frsize as u64
}

#[cfg(not(unix))]
fn free_bytes(_dir: &Path) -> u64 {
    0
}

/// The cache of one dump (file and dump number).
#[derive(Clone, Debug)]
pub struct Entry {
    cache: Cache,
    dir: PathBuf,
    identity: DumpIdentity,
    dump_no: usize,
    version: String,
    watch: WriteWatch,
}

impl Entry {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// This entry with its writes told to `watch.progress`, the verification of the files it
    /// opens to `watch.verifying`, both stopped by `watch.cancel`.
    pub fn watched(&self, watch: WriteWatch) -> Entry {
        Entry { watch, ..self.clone() }
    }

    pub fn identity(&self) -> &DumpIdentity {
        &self.identity
    }

    fn key(&self, kind: &str, options: &str) -> Key {
        Key { version: self.version.clone(), identity: self.identity.clone(), kind: kind.to_string(), options: format!("dump={};{options}", self.dump_no) }
    }

    /// File name of (kind, options).
    fn file_name(kind: &str, options: &str) -> String {
        if options.is_empty() {
            format!("{kind}.hqc")
        } else {
            format!("{kind}.{:016x}.hqc", xxh3_64(options.as_bytes()))
        }
    }

    /// The file of `kind` written with `options`, fully verified (told to and stopped by the
    /// entry's watch); a damaged, stale or foreign file is removed and reported; leftovers of
    /// a killed writer are removed and reported.
    pub fn open(&self, kind: &str, options: &str) -> Lookup {
        let name = Entry::file_name(kind, options);
        let path = self.dir.join(&name);
        if !path.exists() {
            return match self.remove_stale_temporaries(&name) {
                Some(n) if n > 0 => Lookup::Invalid(format!("cache: removed {name} left unfinished by an interrupted heapql run; rebuilding")),
                _ => Lookup::Miss,
            };
        }
        match EntryFile::open(&path, &self.key(kind, options), &self.watch) {
            Ok(f) => {
                self.touch();
                Lookup::Hit(f)
            }
            Err(OpenError::Cancelled) => Lookup::Cancelled,
            Err(OpenError::Invalid(reason)) => {
                let _ = std::fs::remove_file(&path);
                Lookup::Invalid(format!("cache: {} not used: {}; rebuilding", path.display(), reason.0))
            }
        }
    }

    /// Writes the file of `kind` with `options` through `fill`, unless another process is
    /// writing it; then evicts older entries beyond the cap.
    pub fn write<F>(&self, kind: &str, options: &str, fill: F) -> Written
    where
        F: FnOnce(&mut EntryWriter) -> std::io::Result<()>,
    {
        let name = Entry::file_name(kind, options);
        let failed = |e: &std::io::Error| {
            Written::Failed(format!("cache: cannot write {} ({e}{}); this run continues without caching it", self.dir.join(&name).display(), what_to_do(e, self.cache.root())))
        };
        if let Err(e) = std::fs::create_dir_all(&self.dir) {
            return failed(&e);
        }
        let lock = match File::create(self.dir.join(format!("{name}.lock"))) {
            Ok(f) => f,
            Err(e) => return failed(&e),
        };
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Written::Busy,
            Err(std::fs::TryLockError::Error(e)) => return failed(&e),
        }
        let _ = self.remove_stale_temporaries_locked(&name);
        if let Err(e) = self.write_meta() {
            return failed(&e);
        }
        let tmp = self.dir.join(format!("{name}.tmp.{}", std::process::id()));
        if let Some(p) = &self.watch.progress {
            p(0);
        }
        let result = EntryWriter::create(tmp.clone(), self.dir.join(&name), self.key(kind, options), self.watch.clone()).and_then(|mut w| {
            fill(&mut w)?;
            w.finish()
        });
        match result {
            Ok(bytes) => match self.cache.evict(&self.dir) {
                Ok(()) => Written::Done(bytes),
                Err(cap) => {
                    let _ = std::fs::remove_dir_all(&self.dir);
                    Written::Failed(format!("cache: {} needs more than the cache's cap of {cap} bytes (--cache-max); not cached", self.dir.display()))
                }
            },
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                if e.kind() == std::io::ErrorKind::Interrupted && self.watch.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
                    return Written::Interrupted;
                }
                failed(&e)
            }
        }
    }

    fn write_meta(&self) -> std::io::Result<()> {
        write_meta(&self.dir, &EntryMeta { dump: self.identity.path.clone(), dump_number: self.dump_no, dump_size: self.identity.size })
    }

    /// Marks the entry used now (least-recently-used eviction reads it); a lost or damaged
    /// `meta.json` is written again (`cache list`, `cache clear` and the cap go by it).
    fn touch(&self) {
        if read_meta(&self.dir.join("meta.json")).is_none() {
            let _ = self.write_meta();
        } else if let Ok(f) = File::options().append(true).open(self.dir.join("meta.json")) {
            let _ = f.set_modified(SystemTime::now());
        }
    }

    /// Removes temporaries of `name` whose writer is gone (its lock is free); how many.
    fn remove_stale_temporaries(&self, name: &str) -> Option<usize> {
        let lock = File::open(self.dir.join(format!("{name}.lock"))).ok()?;
        lock.try_lock().ok()?;
        self.remove_stale_temporaries_locked(name)
    }

    /// As above, with the lock of `name` held by this process.
    fn remove_stale_temporaries_locked(&self, name: &str) -> Option<usize> {
        let prefix = format!("{name}.tmp.");
        let mut n = 0;
        for f in std::fs::read_dir(&self.dir).ok()?.flatten() {
            if f.file_name().to_string_lossy().starts_with(&prefix) && std::fs::remove_file(f.path()).is_ok() {
                n += 1;
            }
        }
        Some(n)
    }
}
