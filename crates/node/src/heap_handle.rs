//! The heap handle: opening a dump asynchronously, and the small summaries read from it.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use napi::bindgen_prelude::*;
use napi_derive::napi;

use heapql_heap::{Heap, OpenOptions, Placement};

use crate::analysis::SharedState;
use crate::cache::CacheState;
use crate::convert::{catch_panic, coded, heap_error, on_dump};
use crate::progress::{progress_fn, CancelToken, ProgressCallback};

#[napi(object)]
pub struct OpenHeapOptions {
    /// Which heap dump of the file (0-based).
    pub dump: Option<u32>,
    /// Big arrays in memory-mapped scratch files: in this directory, or with "" in a
    /// disk-backed temporary directory chosen by the core. Absent: in memory.
    pub scratch: Option<String>,
    /// The index cache's directory ("": HEAPQL_CACHE_DIR or the user's cache directory).
    /// Absent: no cache is read or written.
    pub cache_dir: Option<String>,
    /// The cache's size cap in bytes (default: 20% of its disk's free space).
    pub cache_max: Option<f64>,
}

pub struct OpenHeapTask {
    path: PathBuf,
    options: OpenOptions,
    cache_dir: Option<String>,
    cache_max: Option<f64>,
}

impl Task for OpenHeapTask {
    type Output = (Heap, CacheState);
    type JsValue = HeapHandle;

    fn compute(&mut self) -> Result<(Heap, CacheState)> {
        let options = self.options.clone();
        catch_panic("indexing the dump", || {
            let cache = CacheState::open(self.cache_dir.as_deref(), self.cache_max, &self.path, options.dump);
            let heap = match &cache.entry {
                Some(entry) => {
                    let mut warnings = Vec::new();
                    let (heap, used) = Heap::open_with_cache(&self.path, options, entry, &mut warnings).map_err(heap_error)?;
                    cache.note("index", used, warnings);
                    heap
                }
                None => Heap::open(&self.path, options).map_err(heap_error)?,
            };
            Ok((heap, cache))
        })
    }

    fn resolve(&mut self, _env: Env, (heap, cache): (Heap, CacheState)) -> Result<HeapHandle> {
        // A cancel sent while the index was finishing (its cache entry being written) wins: the
        // heap is dropped; a cache entry written whole stays (it is complete), a partial one
        // never was renamed into place.
        if self.options.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(heap_error(heapql_heap::HeapError::Cancelled));
        }
        Ok(HeapHandle { state: RwLock::new(Some(Arc::new(SharedState::new(heap, cache)))) })
    }
}

/// Opens and indexes a dump off the event loop.
#[napi(
    ts_args_type = "path: string, options?: OpenHeapOptions | null, onProgress?: ((event: ProgressEvent) => void) | null, cancel?: CancelToken | null",
    ts_return_type = "Promise<HeapHandle>"
)]
pub fn open_heap(
    path: String,
    options: Option<OpenHeapOptions>,
    on_progress: Option<ProgressCallback>,
    cancel: Option<&CancelToken>,
) -> AsyncTask<OpenHeapTask> {
    let (dump, scratch, cache_dir, cache_max) = options.map_or((None, None, None, None), |o| (o.dump, o.scratch, o.cache_dir, o.cache_max));
    let scratch = match scratch.as_deref() {
        None => Placement::Memory,
        Some("") => Placement::files(None),
        Some(dir) => Placement::files(Some(std::path::Path::new(dir))),
    };
    AsyncTask::new(OpenHeapTask {
        path: PathBuf::from(path),
        cache_dir,
        cache_max,
        options: OpenOptions {
            dump: dump.unwrap_or(0) as usize,
            progress: progress_fn(on_progress),
            cancel: cancel.map(|c| c.flag.clone()),
            scratch,
        },
    })
}

#[napi(object)]
pub struct JsDumpInfo {
    pub path: String,
    pub file_size: f64,
    pub format: String,
    pub id_size: u32,
    pub timestamp_ms: f64,
    pub dump_count: u32,
    pub dump: u32,
    pub compression: String,
    pub reference_size: u32,
    pub object_header_size: u32,
    pub array_header_size: u32,
    pub object_alignment: u32,
    /// True when the object layout is assumed (no object addresses in the dump): sizes are estimates.
    pub sizes_estimated: bool,
    /// True when the dump is cut short: the GC root records written after the cut are missing,
    /// so an object no root reaches is unreachable in this dump, not shown to be garbage.
    pub cut_short: bool,
    /// How the layout was chosen (`assumed: 32-bit VM layout (ids are not addresses)`, ...).
    pub size_model_source: String,
    pub jvm_version: Option<String>,
    pub object_count: u32,
    pub class_count: u32,
}

#[napi(object)]
pub struct JsWarning {
    pub offset: f64,
    pub message: String,
}

#[napi(object)]
pub struct JsHistogramRow {
    pub class_name: String,
    pub class_object_id: u32,
    pub count: f64,
    pub shallow: f64,
}

#[napi(object)]
pub struct JsRootCount {
    pub kind: String,
    pub count: f64,
}

#[napi(object)]
pub struct JsCounts {
    pub instances: f64,
    pub object_arrays: f64,
    pub primitive_arrays: f64,
    pub classes: f64,
    pub total_shallow: f64,
    /// GC root records per kind (an object can be the target of several).
    pub roots_by_kind: Vec<JsRootCount>,
    /// Distinct objects among the root records' targets (MAT's "number of GC roots").
    pub root_objects: f64,
}

/// One Android heap (`app`, `zygote`, `image`, or `default` for objects before the dump's first
/// HEAP DUMP INFO) with its objects and their shallow bytes.
#[napi(object)]
pub struct JsHeapStats {
    pub name: String,
    pub objects: f64,
    pub shallow: f64,
}

#[napi(object)]
pub struct JsObjectLabels {
    pub addresses: Vec<String>,
    pub class_names: Vec<String>,
    pub labels: Vec<String>,
}

#[napi]
pub struct HeapHandle {
    /// Behind a lock, not `&mut self`: `close()` must work while calls are running (they hold
    /// their own reference and finish, or stop at their cancel flag).
    state: RwLock<Option<Arc<SharedState>>>,
}

impl HeapHandle {
    /// The open heap, for one piece of work; refused once closed, or when the dump file was
    /// changed on disk since, or a read of it faulted (`on_dump` asks again after the work).
    pub(crate) fn state(&self) -> Result<Arc<SharedState>> {
        let state = self.state.read().unwrap_or_else(|e| e.into_inner());
        let state = state.clone().ok_or_else(|| coded("ERR_CLOSED", "the heap was closed; open the dump again"))?;
        state.heap.check_dump_unchanged().map_err(crate::convert::heap_error)?;
        Ok(state)
    }
}

#[napi]
impl HeapHandle {
    #[napi]
    pub fn info(&self) -> Result<JsDumpInfo> {
        let state = self.state()?;
        let heap = &state.heap;
        let i = heap.info();
        Ok(JsDumpInfo {
            path: i.path.clone(),
            file_size: i.file_size as f64,
            format: i.format.clone(),
            id_size: i.id_size,
            timestamp_ms: i.timestamp_ms as f64,
            dump_count: i.dump_count as u32,
            dump: i.dump as u32,
            compression: i.compression.to_string(),
            reference_size: i.reference_size,
            object_header_size: i.object_header_size,
            array_header_size: i.array_header_size,
            object_alignment: i.object_alignment,
            sizes_estimated: heap.summary().sizes_estimated,
            cut_short: heap.summary().cut_short,
            size_model_source: i.size_model_source.clone(),
            jvm_version: i.jvm_version.clone(),
            object_count: heap.object_count(),
            class_count: heap.class_count(),
        })
    }

    #[napi]
    pub fn warnings(&self) -> Result<Vec<JsWarning>> {
        Ok(self.state()?.heap.warnings().iter().map(|w| JsWarning { offset: w.offset as f64, message: w.message.clone() }).collect())
    }

    /// Instances and shallow bytes per class (one row per class, unsorted).
    #[napi]
    pub fn class_histogram(&self) -> Result<Vec<JsHistogramRow>> {
        let state = self.state()?;
        let heap = &state.heap;
        on_dump(heap, "building the class histogram", || {
            Ok(heap
                .class_histogram()
                .into_iter()
                .map(|r| JsHistogramRow {
                    class_name: heap.class(r.class).name.clone(),
                    class_object_id: heap.class(r.class).object,
                    count: r.count as f64,
                    shallow: r.shallow as f64,
                })
                .collect())
        })
    }

    /// Object counts by kind, GC roots by kind, total shallow heap.
    #[napi]
    pub fn counts(&self) -> Result<JsCounts> {
        let state = self.state()?;
        let heap = &state.heap;
        on_dump(heap, "counting objects", || {
            let c = heap.summary();
            Ok(JsCounts {
                instances: c.instances as f64,
                object_arrays: c.object_arrays as f64,
                primitive_arrays: c.primitive_arrays as f64,
                classes: c.class_objects as f64,
                total_shallow: c.total_shallow as f64,
                roots_by_kind: c
                    .roots_by_kind
                    .iter()
                    .map(|&(kind, count)| JsRootCount { kind: kind.label().to_string(), count: count as f64 })
                    .collect(),
                root_objects: c.gc_root_objects as f64,
            })
        })
    }

    /// The dump's Android heaps with objects, in the order they first appear in the dump; empty
    /// for a dump without HEAP DUMP INFO records (any non-Android dump). One pass over the
    /// objects the first time.
    #[napi]
    pub fn heaps(&self) -> Result<Vec<JsHeapStats>> {
        let state = self.state()?;
        let heap = &state.heap;
        on_dump(heap, "counting the heaps", || {
            Ok(heap.heaps().iter().map(|s| JsHeapStats { name: s.name.clone(), objects: s.objects as f64, shallow: s.shallow as f64 }).collect())
        })
    }

    /// Every class name, for completion and did-you-mean.
    #[napi]
    pub fn class_names(&self) -> Result<Vec<String>> {
        let state = self.state()?;
        let heap = &state.heap;
        Ok((0..heap.class_count()).map(|c| heap.class(c).name.clone()).collect())
    }

    /// Addresses and class names of the given objects (only rows that are shown are resolved).
    #[napi]
    pub fn describe(&self, objects: Uint32Array) -> Result<JsObjectLabels> {
        let state = self.state()?;
        let heap = &state.heap;
        let count = heap.object_count();
        on_dump(heap, "labelling objects", || {
            let mut addresses = Vec::with_capacity(objects.len());
            let mut class_names = Vec::with_capacity(objects.len());
            let mut labels = Vec::with_capacity(objects.len());
            for &o in objects.iter() {
                if o >= count {
                    return Err(coded("ERR_ARGUMENT", format!("object index {o} is out of range (the heap has {count} objects)")));
                }
                let (address, class_name, label) = heapql_exec::describe(heap, o);
                addresses.push(address);
                class_names.push(class_name);
                labels.push(label);
            }
            Ok(JsObjectLabels { addresses, class_names, labels })
        })
    }

    /// Releases the index and the mapping; later calls fail with ERR_CLOSED.
    #[napi]
    pub fn close(&self) {
        let state = self.state.write().unwrap_or_else(|e| e.into_inner()).take();
        // A query still running keeps its own reference; the last one drops the state normally.
        if let Some(only) = state.and_then(Arc::into_inner) {
            only.release();
        }
    }
}
