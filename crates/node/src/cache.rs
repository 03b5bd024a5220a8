//! The index cache across the door: the entry of an opened dump, what the cache did for each
//! step with its warning lines, and `cache list` / `cache clear`. The policy lives in
//! `heapql_cache` and the crates' `persist` modules.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use heapql_cache::{Cache, CacheUse, Entry};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::convert::coded;
use crate::heap_handle::HeapHandle;

/// The cache of one opened dump and what it did so far.
pub struct CacheState {
    pub entry: Option<Entry>,
    log: Mutex<CacheLog>,
}

#[derive(Default)]
struct CacheLog {
    uses: Vec<(String, CacheUse)>,
    warnings: Vec<String>,
}

impl CacheState {
    /// The entry of dump `dump` of `path` in the cache directory `dir` (`""`: the default),
    /// or no cache (`dir` absent, or the cache cannot be set up: then a warning).
    pub fn open(dir: Option<&str>, max_bytes: Option<f64>, path: &Path, dump: usize) -> CacheState {
        let mut log = CacheLog::default();
        let entry = dir.and_then(|d| {
            let root = heapql_cache::cache_dir((!d.is_empty()).then(|| Path::new(d)));
            let Some(root) = root else {
                log.warnings.push("cache: no cache directory (set HEAPQL_CACHE_DIR or --cache-dir); running without the cache".into());
                return None;
            };
            let cache = Cache::new(root, max_bytes.map(|m| m.max(0.0) as u64));
            cache.entry(path, dump, &layout()).map_err(|w| log.warnings.push(w)).ok()
        });
        CacheState { entry, log: Mutex::new(log) }
    }

    /// One more warning line, from outside the cache (the scratch files of the analysis),
    /// printed with the cache's.
    pub fn warn(&self, warning: String) {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).warnings.push(warning);
    }

    /// Records what the cache did for `step` and its warning lines.
    pub fn note(&self, step: &str, used: CacheUse, warnings: Vec<String>) {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        log.uses.retain(|(s, _)| s != step);
        log.uses.push((step.to_string(), used));
        log.warnings.extend(warnings);
    }
}

/// What the data written depends on: the crates' layouts and this very binary (a hash of its
/// bytes: the single-file binary extracts the addon afresh on every run, so its time stamp
/// says nothing), so a rebuilt addon never reads what another build wrote.
fn layout() -> String {
    static LAYOUT: OnceLock<String> = OnceLock::new();
    LAYOUT
        .get_or_init(|| {
            format!("{}+{}+{}+{}", env!("CARGO_PKG_VERSION"), heapql_heap::CACHE_LAYOUT, heapql_graph::CACHE_LAYOUT, binary_stamp())
        })
        .clone()
}

/// Works out this binary's part of the cache layout now, while its file is there to hash: the
/// single-file binary deletes the addon it extracted right after loading it (`ts/native`), and
/// a stamp made later read `unknown-build`, so two builds of the binary shared cache files.
#[napi]
pub fn fix_cache_stamp() {
    let _ = layout();
}

fn binary_stamp() -> String {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address of a function of this library.
    let found = unsafe { libc::dladdr(binary_stamp as *const libc::c_void, &mut info) } != 0 && !info.dli_fname.is_null();
    let path = found.then(|| {
        // SAFETY: dladdr returned a NUL-terminated path.
        PathBuf::from(unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy().to_string())
    });
    match path.and_then(|p| heapql_cache::file_hash(&p).ok()) {
        Some(hash) => format!("{hash:016x}"),
        None => "unknown-build".into(),
    }
}

#[napi(object)]
pub struct JsCacheUse {
    /// `index`, `analysis`, `report`.
    pub step: String,
    /// `hit`, `written`, `built` (not written), `off`.
    pub used: String,
}

#[napi(object)]
pub struct JsCacheStatus {
    /// The dump's entry directory; absent without the cache.
    pub dir: Option<String>,
    pub uses: Vec<JsCacheUse>,
    /// Warning lines so far (damaged or stale files rebuilt, files that could not be written).
    pub warnings: Vec<String>,
}

#[napi]
impl HeapHandle {
    /// What the index cache did for this dump so far.
    #[napi]
    pub fn cache_status(&self) -> Result<JsCacheStatus> {
        let shared = self.state()?;
        let state = &shared.cache;
        let log = state.log.lock().unwrap_or_else(|e| e.into_inner());
        Ok(JsCacheStatus {
            dir: state.entry.as_ref().map(|e| e.dir().display().to_string()),
            uses: log.uses.iter().map(|(s, u)| JsCacheUse { step: s.clone(), used: u.name().to_string() }).collect(),
            warnings: log.warnings.clone(),
        })
    }
}

#[napi(object)]
pub struct JsCacheEntry {
    pub dir: String,
    /// Canonical path of the dump; null (with the dump's number and size) for an unfinished
    /// entry, whose writer died before anything named its dump.
    pub dump: Option<String>,
    pub dump_number: Option<u32>,
    pub dump_size: Option<f64>,
    /// Bytes of the entry's files.
    pub bytes: f64,
    /// Milliseconds since the epoch of the last use.
    pub last_used_ms: f64,
    pub files: Vec<String>,
    /// Files being written, or left unfinished by a writer that is gone (counted in `bytes`).
    pub leftovers: Vec<JsCacheLeftover>,
}

/// A writer's temporary file, `<file>.tmp.<pid>` (`meta.json.tmp.<pid>` too).
#[napi(object)]
pub struct JsCacheLeftover {
    /// Its path.
    pub path: String,
    pub bytes: f64,
    /// The writer's process id (from the file's name).
    pub pid: Option<u32>,
    /// Its writer may still be writing it (the file's lock is held, or the process runs):
    /// never removed then.
    pub writer_alive: bool,
}

#[napi(object)]
pub struct JsCacheCleared {
    pub entries: u32,
    /// Bytes removed, leftovers included.
    pub bytes: f64,
    /// Leftovers of writers that were gone, removed.
    pub leftovers_removed: Vec<JsCacheLeftover>,
    /// Files live writers are writing, kept.
    pub being_written: Vec<JsCacheLeftover>,
}

fn leftover_to_js(dir: &Path, l: heapql_cache::Leftover) -> JsCacheLeftover {
    JsCacheLeftover { path: dir.join(&l.file).display().to_string(), bytes: l.bytes as f64, pid: l.pid, writer_alive: l.writer_alive }
}

fn cache_at(dir: Option<String>) -> Result<Cache> {
    let root = heapql_cache::cache_dir(dir.as_deref().filter(|d| !d.is_empty()).map(Path::new))
        .ok_or_else(|| coded("ERR_ARGUMENT", "no cache directory: set HEAPQL_CACHE_DIR or pass --cache-dir"))?;
    Ok(Cache::new(root, None))
}

/// The cache directory in use: `dir`, else HEAPQL_CACHE_DIR, else the user's cache directory.
#[napi]
pub fn cache_directory(dir: Option<String>) -> Result<String> {
    Ok(cache_at(dir)?.root().display().to_string())
}

/// Every entry of the cache, most recently used first.
#[napi]
pub fn cache_list(dir: Option<String>) -> Result<Vec<JsCacheEntry>> {
    Ok(cache_at(dir)?
        .entries()
        .map_err(|e| coded("ERR_IO", e))?
        .into_iter()
        .map(|e| JsCacheEntry {
            dir: e.dir.display().to_string(),
            dump: e.meta.as_ref().map(|m| m.dump.clone()),
            dump_number: e.meta.as_ref().map(|m| m.dump_number as u32),
            dump_size: e.meta.as_ref().map(|m| m.dump_size as f64),
            bytes: e.bytes as f64,
            last_used_ms: e.last_used as f64 * 1000.0,
            files: e.files,
            leftovers: e.leftovers.into_iter().map(|l| leftover_to_js(&e.dir, l)).collect(),
        })
        .collect())
}

/// Removes every entry, or the entries of one dump.
#[napi]
pub fn cache_clear(dir: Option<String>, dump: Option<String>) -> Result<JsCacheCleared> {
    let c = cache_at(dir)?
        .clear(dump.as_deref().map(Path::new))
        .map_err(|e| coded("ERR_IO", e))?;
    Ok(JsCacheCleared {
        entries: c.entries as u32,
        bytes: c.bytes as f64,
        leftovers_removed: c.leftovers_removed.into_iter().map(|(d, l)| leftover_to_js(&d, l)).collect(),
        being_written: c.being_written.into_iter().map(|(d, l)| leftover_to_js(&d, l)).collect(),
    })
}
