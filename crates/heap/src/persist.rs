//! The heap index in the cache (`heapql_cache`): the object index's arrays are written as
//! they are and memory-mapped back; the class table, roots, threads and the other small
//! structures go in one serialized section. `open_with_cache` is the whole policy: use a valid
//! cached index, else build the index and write it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use heapql_cache::{CacheUse, Entry, EntryFile, EntryWriter, WriteWatch};
use heapql_hprof::{Control, Source};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::{ids, layout, ClassExt, Layouts, ClassHistogramRow, ClassIdx, ClassInfo, DumpInfo, GcRoot, Heap, HeapError, HeapSummary, ObjIdx, OpenOptions, ThreadInfo, Warning};

/// Bump when what this file writes changes meaning (part of every cache key). heap5: super
/// cycles of damaged dumps cut when the index is built (an older entry may hold one). heap7:
/// names read as modified UTF-8 (an older entry holds `Sup������` for `Sup𝔘`). heap8: the
/// Android heaps (`heap_names`, `heap_marks`; an older entry has none, and would read as a
/// dump without them). heap9: instance sizes of `@Contended` JDK classes (groups, whole
/// classes) and of `VirtualThread`, and stack chunks' sizes in the histogram (an older entry
/// holds the unpadded sizes). heap10: instance layouts of classes more than 257 superclasses
/// deep (an older entry lacks the fields declared above that). heap11: the warning about
/// virtual threads with frames but no thread record (an older entry of such a dump lacks it).
/// heap12: instance layouts in shared storage (`Layouts`; an older entry holds one per class).
/// heap13: the dump time of a file's second and later dumps is their own (the header's, before).
/// heap14: instance sizes of JDK 8–14 dumps (the older layout's `@Contended` padding, the
/// fork-join pool's, no field in the gap of a class whose references come first; an older
/// entry holds the sizes before); MAT's System Class roots for a dump that records none (an
/// older entry of such a dump, e.g. one cut short, has no roots at all),
/// `HeapSummary::cut_short` and `fallback_system_class_roots`. heap15: `cut_short` also for a
/// file that ends among its segments with no HEAP DUMP END (an older entry says not cut).
pub const CACHE_LAYOUT: &str = "heap15";

/// Everything but the per-object arrays.
#[derive(Serialize, Deserialize)]
struct Small<'a> {
    info: Cow<'a, DumpInfo>,
    compression: Cow<'a, str>,
    warnings: Cow<'a, [Warning]>,
    id_size: u32,
    runs: Cow<'a, [(u32, u32)]>,
    shift: u32,
    base: u64,
    classes: Cow<'a, [ClassInfo]>,
    ext: Cow<'a, [ClassExt]>,
    layouts: Cow<'a, Layouts>,
    class_by_id: Cow<'a, FxHashMap<u64, ClassIdx>>,
    class_by_obj: Cow<'a, FxHashMap<ObjIdx, ClassIdx>>,
    by_name: Cow<'a, HashMap<String, Vec<ClassIdx>>>,
    subclasses: Cow<'a, [Vec<ClassIdx>]>,
    prim_class: [ClassIdx; 8],
    class_class: ClassIdx,
    model: layout::Model,
    roots: Cow<'a, [GcRoot]>,
    threads: Cow<'a, [ThreadInfo]>,
    props: Cow<'a, [(String, String)]>,
    histogram: Cow<'a, [ClassHistogramRow]>,
    summary: Cow<'a, HeapSummary>,
    utf16_big_endian: bool,
    /// `HeapTable::names` and `HeapTable::marks`.
    heap_names: Vec<Cow<'a, str>>,
    heap_marks: Cow<'a, [(u64, u32)]>,
}

impl Heap {
    /// Writes the index into a cache file.
    pub fn write_cache(&self, w: &mut EntryWriter) -> std::io::Result<()> {
        w.array("objects.places", &self.objs.places.entries)?;
        w.array("objects.bases", &self.objs.places.bases)?;
        w.array("objects.wide", &self.objs.places.wide)?;
        w.array("objects.id_lo", &self.objs.id_lo)?;
        w.array("objects.buckets", &self.objs.buckets)?;
        w.blob(
            "heap",
            &Small {
                info: Cow::Borrowed(&self.info),
                compression: Cow::Borrowed(self.info.compression),
                warnings: Cow::Borrowed(&self.warnings),
                id_size: self.id_size,
                runs: Cow::Borrowed(&self.objs.runs),
                shift: self.objs.shift,
                base: self.objs.base,
                classes: Cow::Borrowed(&self.classes),
                ext: Cow::Borrowed(&self.ext),
                layouts: Cow::Borrowed(&self.layouts),
                class_by_id: Cow::Borrowed(&self.class_by_id),
                class_by_obj: Cow::Borrowed(&self.class_by_obj),
                by_name: Cow::Borrowed(&self.by_name),
                subclasses: Cow::Borrowed(&self.subclasses),
                prim_class: self.prim_class,
                class_class: self.class_class,
                model: self.model,
                roots: Cow::Borrowed(&self.roots),
                threads: Cow::Borrowed(&self.threads),
                props: Cow::Borrowed(&self.props),
                histogram: Cow::Borrowed(&self.histogram),
                summary: Cow::Borrowed(&self.summary),
                utf16_big_endian: self.utf16_big_endian,
                heap_names: self.heaps.names.iter().map(|n| Cow::Borrowed(&**n)).collect(),
                heap_marks: Cow::Borrowed(&self.heaps.marks),
            },
        )
    }

    /// The index of the dump at `path` from a verified cache file (arrays mapped in place).
    /// `Err` with a reason when the file does not fit the dump.
    pub fn read_cache(path: &Path, f: &EntryFile, options: &OpenOptions) -> Result<Heap, String> {
        let src = Source::open(path, Control { progress: None, cancel: None }).map_err(|e| e.to_string())?;
        let s: Small = f.blob("heap").map_err(|e| e.0)?;
        let entries = f.array::<u32>("objects.places").map_err(|e| e.0)?;
        let bases = f.array::<u64>("objects.bases").map_err(|e| e.0)?.to_vec();
        let wide = f.array::<u64>("objects.wide").map_err(|e| e.0)?.to_vec();
        let places = ids::Places { entries, bases, wide };
        let id_lo = f.array::<u32>("objects.id_lo").map_err(|e| e.0)?;
        let buckets = f.array::<u32>("objects.buckets").map_err(|e| e.0)?.to_vec();
        let mut info = s.info.into_owned();
        let heaps = crate::heaps::HeapTable { names: s.heap_names.iter().map(|n| Arc::from(&**n)).collect(), marks: s.heap_marks.into_owned() };
        if src.len() != info.uncompressed_size || places.entries.len() != id_lo.len() || !places.fits() || info.dump != options.dump || !heaps.fits() {
            return Err("it does not match the dump".into());
        }
        info.path = path.display().to_string();
        info.compression = compression_named(&s.compression).ok_or("unknown compression")?;
        let mut heap = Heap {
            src,
            info,
            warnings: s.warnings.into_owned(),
            id_size: s.id_size,
            objs: ids::ObjIndex { places, id_lo, runs: s.runs.into_owned(), buckets, shift: s.shift, base: s.base },
            classes: s.classes.into_owned(),
            ext: s.ext.into_owned(),
            layouts: s.layouts.into_owned(),
            class_by_id: s.class_by_id.into_owned(),
            class_by_obj: s.class_by_obj.into_owned(),
            by_name: s.by_name.into_owned(),
            subclasses: s.subclasses.into_owned(),
            prim_class: s.prim_class,
            class_class: s.class_class,
            stack_chunks: None,
            model: s.model,
            roots: s.roots.into_owned(),
            threads: s.threads.into_owned(),
            props: s.props.into_owned(),
            histogram: s.histogram.into_owned(),
            summary: s.summary.into_owned(),
            utf16_big_endian: s.utf16_big_endian,
            heaps,
            heap_stats: Default::default(),
            scratch: options.scratch.clone(),
        };
        heap.stack_chunks = crate::stack_chunks::find(&heap);
        Ok(heap)
    }

    /// Opens the dump through the cache entry: the cached index when valid, else a fresh
    /// build that is then written. Cache problems become lines in `warnings`, never errors.
    pub fn open_with_cache(path: &Path, options: OpenOptions, entry: &Entry, warnings: &mut Vec<String>) -> Result<(Heap, CacheUse), HeapError> {
        let read_options = options.clone();
        let cancel = options.cancel.clone();
        let entry = entry.watched(cache_watch(&options.progress, &options.cancel));
        let done = entry.load_or_build(
            "index",
            "",
            warnings,
            |f| Heap::read_cache(path, f, &read_options),
            || Heap::open(path, options),
            |heap, w| heap.write_cache(w),
        )?;
        stop_if_cancelled(&cancel)?;
        Ok(done)
    }
}

/// The progress phase of writing a cache file: bytes written, no total (the size is known
/// only once it is written).
pub const WRITING_CACHE: &str = "writing cache";

/// The progress phase of verifying the checksums of a cache file as it is opened: bytes
/// verified of the file's sections.
pub const VERIFYING_CACHE: &str = "verifying cache";

/// What a cache write (`WRITING_CACHE`) and the verification of a cache file opened
/// (`VERIFYING_CACHE`) tell and heed, from a step's progress and cancel.
pub fn cache_watch(progress: &Option<crate::ProgressFn>, cancel: &Option<Arc<AtomicBool>>) -> WriteWatch {
    WriteWatch {
        progress: progress.clone().map(|p| Arc::new(move |done: u64| p(crate::Progress { phase: WRITING_CACHE, done, total: 0 })) as Arc<dyn Fn(u64) + Send + Sync>),
        verifying: progress
            .clone()
            .map(|p| Arc::new(move |done: u64, total: u64| p(crate::Progress { phase: VERIFYING_CACHE, done, total })) as Arc<dyn Fn(u64, u64) + Send + Sync>),
        cancel: cancel.clone(),
    }
}

/// `HeapError::Cancelled` once `cancel` is set (a cached step stopped while it wrote the cache
/// ends as any step stopped does).
pub fn stop_if_cancelled(cancel: &Option<Arc<AtomicBool>>) -> Result<(), HeapError> {
    if cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(HeapError::Cancelled);
    }
    Ok(())
}

/// `DumpInfo::compression` from its name.
fn compression_named(name: &str) -> Option<&'static str> {
    use heapql_hprof::Compression;
    [Compression::None, Compression::Gzip, Compression::GzipChunked].into_iter().map(|c| c.name()).find(|n| *n == name)
}
