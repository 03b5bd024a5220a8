//! The heap index of the query-only path.
//!
//! A few streaming passes over an HPROF file build a dense `u32` index of every object
//! (instances, object arrays, primitive arrays, class objects), the class table, GC roots,
//! threads with their frames and locals, the dumped process's system properties, and each
//! object's real (JVM) shallow size. Object bytes stay in the file (mmap or positioned reads);
//! field values are decoded on demand.
//!
//! THIS FILE IS THE CONTRACT other crates code against (graph, exec, the N-API door).
//! Signatures may grow, but do not change their meaning without updating the callers.

mod describe;
pub use describe::describe;
/// Point look-ups: one object's fields and references, one class's description.
pub mod inspect;

mod builder;
mod exercise;
pub use exercise::exercise;
mod classes;
/// Java-form class name (`byte[]`, `java.lang.Object[]`) from the VM's or the JVM tools' spelling.
pub use classes::java_name;
mod heaps;
pub use heaps::{HeapStats, DEFAULT_HEAP};
mod ids;
mod layout;
#[doc(hidden)]
pub use layout::blocks_kept as layout_blocks_kept;
mod merge;
mod persist;
pub use heapql_cache::CacheUse;
pub use persist::{cache_watch, stop_if_cancelled, CACHE_LAYOUT, VERIFYING_CACHE, WRITING_CACHE};
mod props;
mod stack_chunks;
mod threads;
mod values;
pub use values::{ArrayRecord, StringUnits, Units};

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use heapql_hprof::Source;
use rustc_hash::FxHashMap;

pub use layout::Model as SizeModel;

pub use heapql_scratch::{both, Appender, PieceArray, memory_fallbacks, memory_to_spare, rss_anon_bytes, BigArray, GrowArray, Laps, Pages, Placement};

/// Dense object index: 0..Heap::object_count().
pub type ObjIdx = u32;
/// Index into the class table: 0..Heap::class_count().
pub type ClassIdx = u32;

/// Progress of a long phase, reported to the caller's callback.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub phase: &'static str,
    pub done: u64,
    pub total: u64,
}

pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

#[derive(Clone, Default)]
pub struct OpenOptions {
    /// Which HEAP DUMP in the file (0-based; default the first).
    pub dump: usize,
    pub progress: Option<ProgressFn>,
    /// Set to true from another thread to stop; open() then returns HeapError::Cancelled.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Where the index's per-object arrays and, later, the full analysis's big arrays go:
    /// `Placement::files(None)` before a full analysis (page cache the kernel can evict),
    /// memory (the default) for the query-only path, where writing them out costs more than
    /// it saves.
    pub scratch: Placement,
}

/// Stable error codes cross the native boundary as the JS error's `code`.
#[derive(Debug, thiserror::Error)]
pub enum HeapError {
    /// Not an HPROF file at all (empty, random bytes, text, cut inside the header).
    #[error("{path} is not an HPROF heap dump ({reason})")]
    NotHprof { path: String, reason: String },
    #[error("cannot open {path}: {reason}")]
    Io { path: String, reason: String },
    /// Structurally broken data that cannot be read past (lying length, unknown sub-record).
    #[error("{path}: corrupt dump at byte offset {offset}: {reason}")]
    Corrupt { path: String, offset: u64, reason: String },
    #[error("the file has {available} heap dump(s); there is no heap dump number {} (counting from 1)", .requested + 1)]
    NoSuchDump { requested: usize, available: usize },
    #[error("cancelled")]
    Cancelled,
    /// The mapped dump file was cut short on disk after it was opened (`Heap::check_dump_unchanged`).
    #[error("{path}: {reason}")]
    Changed { path: String, reason: String },
    /// More objects than 32-bit object numbers (design.md: u32 indices) can count.
    #[error("{path} holds {objects} objects; heapql numbers objects with 32 bits and indexes at most {MAX_OBJECTS} in one heap dump (a heap of roughly 100 GB or more): take a dump of a smaller heap, or of the process earlier, before it grew")]
    TooManyObjects { path: String, objects: u64 },
}

/// A cached step stopped while its cache file was verified ends as any step stopped does.
impl From<heapql_cache::Cancelled> for HeapError {
    fn from(_: heapql_cache::Cancelled) -> HeapError {
        HeapError::Cancelled
    }
}

/// The most UTF-16 units one JavaScript string holds (V8 on 64-bit machines, 2^29 − 24): the
/// bound of every text the addon hands to Node whole (a result cell, a report's JSON).
pub const JS_STRING_MAX_UNITS: usize = (1 << 29) - 24;

/// Is `text` more than `max_units` UTF-16 units (too long for one JavaScript string)? Counts
/// the units only of a text whose UTF-8 bytes (never fewer) pass the bound.
pub fn too_long_for_js(text: &str, max_units: usize) -> bool {
    text.len() > max_units && text.encode_utf16().count() > max_units
}

#[cfg(test)]
mod js_text_tests {
    use super::too_long_for_js;

    #[test]
    fn texts_are_measured_in_utf16_units() {
        // 60 two-byte characters: 120 bytes of UTF-8, 60 units.
        assert!(!too_long_for_js(&"é".repeat(60), 64));
        assert!(too_long_for_js(&"é".repeat(65), 64));
        assert!(too_long_for_js(&"x".repeat(65), 64));
        assert!(!too_long_for_js(&"x".repeat(64), 64));
    }
}

/// The most objects one index holds: object numbers are `u32`, and the graph numbers node
/// `o + 1` and keeps a few values above every node for markers (`NONE`, …).
pub const MAX_OBJECTS: u64 = u32::MAX as u64 - 16;

impl HeapError {
    /// The stable code used by the CLI and the JS error (`ERR_NOT_HPROF`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            HeapError::NotHprof { .. } => "ERR_NOT_HPROF",
            HeapError::Io { .. } => "ERR_IO",
            HeapError::Corrupt { .. } => "ERR_CORRUPT",
            HeapError::NoSuchDump { .. } => "ERR_NO_SUCH_DUMP",
            HeapError::Cancelled => "ERR_CANCELLED",
            HeapError::Changed { .. } => "ERR_DUMP_CHANGED",
            HeapError::TooManyObjects { .. } => "ERR_TOO_LARGE",
        }
    }
}

/// Non-fatal findings (printed on stderr by the CLI): truncated file, skipped unknown record, ...
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Warning {
    pub offset: u64,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PrimType {
    Boolean,
    Char,
    Float,
    Double,
    Byte,
    Short,
    Int,
    Long,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    Instance,
    ObjectArray,
    PrimitiveArray(PrimType),
    /// A java.lang.Class object (a CLASS DUMP record).
    Class,
}

/// A decoded field or array element.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Value {
    Null,
    /// A reference to an object id (address). May point outside the dump (dangling).
    Object(u64),
    Boolean(bool),
    Char(u16),
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum FieldType {
    Object,
    Prim(PrimType),
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FieldDef {
    pub name: String,
    pub ty: FieldType,
}

/// Where one instance field of a class lies in its instances' data: found by name once per
/// class (`Heap::field_slot`), then read per object with no name lookup (`Heap::field_at`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldSlot {
    pub(crate) offset: u32,
    pub(crate) ty: FieldType,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StaticField {
    pub name: String,
    pub value: Value,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ClassInfo {
    /// Java form: `java.lang.String`, `byte[]`, `java.lang.Object[]`, `Outer$Inner`.
    pub name: String,
    /// The class object (a node of kind ObjectKind::Class) describing this class.
    pub object: ObjIdx,
    /// Never on a cycle (the index cuts the cycles of a damaged dump, with a warning), so a
    /// walk up the supers ends.
    pub super_class: Option<ClassIdx>,
    /// Class loader object id (0 = bootstrap).
    pub loader_id: u64,
    /// Instance fields declared by this class only, in dump order.
    pub fields: Vec<FieldDef>,
    pub statics: Vec<StaticField>,
    /// Instance size as written in the CLASS DUMP (not the JVM's real size).
    pub dump_instance_size: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum RootKind {
    Unknown,
    JniGlobal,
    JniLocal,
    JavaFrame,
    NativeStack,
    StickyClass,
    ThreadBlock,
    MonitorUsed,
    ThreadObject,
    InternedString,
    Finalizing,
    Debugger,
    ReferenceCleanup,
    VmInternal,
    JniMonitor,
    /// heapql's own pseudo-root of an unreachable object (the full analysis's forest of
    /// garbage, design.md §4.2; MAT's "Unreachable" with keep-unreachable-objects): never a root
    /// record of the dump.
    Unreachable,
    /// Dalvik's UNREACHABLE root record (0x90): an object the VM marked unreachable. Read as a
    /// GC root like any other record (hprof-conv turns it into ROOT UNKNOWN, which MAT and the
    /// other tools take as a root), under its own name.
    VmUnreachable,
}

impl RootKind {
    /// Display name as MAT and the report use it (`Java Local`, `System Class`, ...).
    pub fn label(self) -> &'static str {
        match self {
            RootKind::Unknown => "Unknown",
            RootKind::JniGlobal => "JNI Global",
            RootKind::JniLocal => "JNI Local",
            RootKind::JavaFrame => "Java Local",
            RootKind::NativeStack => "Native Stack",
            RootKind::StickyClass => "System Class",
            RootKind::ThreadBlock => "Thread Block",
            RootKind::MonitorUsed => "Busy Monitor",
            RootKind::ThreadObject => "Thread",
            RootKind::InternedString => "Interned String",
            RootKind::Finalizing => "Finalizable",
            RootKind::Debugger => "Debugger",
            RootKind::ReferenceCleanup => "Reference Cleanup",
            RootKind::VmInternal => "VM Internal",
            RootKind::JniMonitor => "JNI Monitor",
            RootKind::Unreachable => "Unreachable",
            RootKind::VmUnreachable => "Unreachable (Dalvik)",
        }
    }
}

/// One GC root record whose object exists in the dump.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct GcRoot {
    pub kind: RootKind,
    pub object: ObjIdx,
    /// Thread serial number for thread-bound roots (Java Local, JNI Local, Native Stack, ...).
    pub thread_serial: Option<u32>,
    /// Frame depth for Java Local / JNI Local (-1 or None when unknown).
    pub frame: Option<i32>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StackFrame {
    pub method: String,
    pub signature: String,
    pub class_name: String,
    pub source_file: String,
    /// >0 line number; 0 no info; -1 unknown; -2 compiled; -3 native.
    pub line: i32,
    /// Objects held by this frame (from ROOT JAVA FRAME records).
    pub locals: Vec<ObjIdx>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ThreadInfo {
    pub serial: u32,
    /// The java.lang.Thread object.
    pub object: Option<ObjIdx>,
    pub name: Option<String>,
    pub daemon: Option<bool>,
    pub frames: Vec<StackFrame>,
    /// Objects held by the thread outside frames (JNI locals without a frame, native stack, ...).
    pub other_locals: Vec<ObjIdx>,
}

/// Facts about the file and the dumping JVM.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DumpInfo {
    pub path: String,
    pub file_size: u64,
    /// `JAVA PROFILE 1.0.2` etc.
    pub format: String,
    pub id_size: u32,
    /// Milliseconds since the epoch, from the header; 0 when the header records none or holds
    /// no valid time (past the year 9999, `heapql_hprof::MAX_TIMESTAMP_MS`: a warning says so).
    pub timestamp_ms: u64,
    /// Number of HEAP DUMPs found in the file and which one this index is of.
    pub dump_count: usize,
    pub dump: usize,
    /// `gzip` (single member), `gzip-chunked` (the JVM's -gz) or `none`.
    /// (The cache stores it beside, as text: see `persist`.)
    #[serde(skip)]
    pub compression: &'static str,
    /// The shallow-size model detected from the dump (hprof-format.md §16).
    pub reference_size: u32,
    pub object_header_size: u32,
    pub array_header_size: u32,
    pub object_alignment: u32,
    /// `java.version` / `java.vm.version` etc. if the system properties were found.
    pub jvm_version: Option<String>,
    /// Length of the uncompressed dump (the file size unless gzip).
    pub uncompressed_size: u64,
    /// The JDK feature release (8, 17, 25, ...) when it could be read from the dump.
    pub jdk_feature: Option<u32>,
    /// How the size model was chosen (`detected from object addresses`, `Android (sizes in the
    /// dump)`, `assumed: ...`).
    pub size_model_source: String,
}

/// Per-class instance count and shallow bytes, for histograms.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct ClassHistogramRow {
    pub class: ClassIdx,
    pub count: u64,
    pub shallow: u64,
}

/// Counts for the summary the CLI prints (computed once at open).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct HeapSummary {
    pub objects: u64,
    pub instances: u64,
    pub object_arrays: u64,
    pub primitive_arrays: u64,
    pub class_objects: u64,
    pub classes: u64,
    /// GC root records resolved to an object of the dump, and the distinct objects among them.
    pub gc_roots: u64,
    pub gc_root_objects: u64,
    /// Root records per kind, in `RootKind` order.
    pub roots_by_kind: Vec<(RootKind, u64)>,
    /// Sum of every object's shallow size.
    pub total_shallow: u64,
    /// Bytes of heap data in the dump (sub-records), an exact figure independent of any model.
    pub dump_heap_bytes: u64,
    /// True when the shallow-size model is a guess (old agent dumps, Android without sizes).
    pub sizes_estimated: bool,
    /// True when the chosen dump's heap records run past the end of the file (a file cut
    /// short, or a length its writer never patched), or the file ends among its segments with no
    /// HEAP DUMP END (cut between two records): the objects and GC root records after the
    /// cut are missing (HotSpot writes the root records last), so what no root reaches is
    /// unreachable *in this dump*, not shown to be garbage.
    pub cut_short: bool,
    /// The System Class roots heapql made because the dump records none (MAT's fallback, one
    /// per non-array class of the bootstrap loader, `builder::roots::system_class_fallback`);
    /// 0 when the dump has its own.
    pub fallback_system_class_roots: u64,
}

/// Per-class facts the index derives (beside the public `ClassInfo`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ClassExt {
    /// Instance layout: own fields first, then super's, ... (names, types): this class's
    /// slice of `Layouts::fields` (start, length), which its superclass's layout ends.
    pub layout: (u32, u32),
    /// The reference fields: this class's slice of `Layouts::refs` (start, length).
    pub refs: (u32, u32),
    /// Total field bytes of an instance, saturated at `u32::MAX` (a damaged dump).
    pub data_len: u32,
    /// Total field bytes of an instance, exact (the offsets are counted back from it).
    pub data_total: u64,
    /// Real shallow size of an instance.
    pub instance_size: u32,
    /// Real shallow size of this class's `java.lang.Class` object.
    pub mirror_size: u32,
    /// Element type if this is an array class (`None` for object arrays and non-arrays).
    pub array_elem: Option<PrimType>,
    pub is_array: bool,
    /// For Android: the array header size from the array class's CLASS DUMP.
    pub dump_array_header: u32,
    /// Android: the fake `byte[]` the class's `$classOverhead` (or older `$staticOverhead`)
    /// static refers to.
    pub overhead_array: Option<ObjIdx>,
}

/// Every class's instance layout in shared storage. A class's layout is its own fields
/// followed by its superclass's layout, so one slice serves a whole chain of classes: a
/// subclass's layout starts a few fields before its super's and ends with it (a class whose
/// super's slice is already so extended by another subclass gets a copy). Each field's
/// position is kept counted from the end of the instance data, the same in every class whose
/// layout holds it.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Layouts {
    pub fields: Vec<FieldDef>,
    /// Per field of `fields`: the instance data's length minus the field's byte offset.
    pub from_end: Vec<u64>,
    /// Per reference field: (the data's length minus its byte offset, the layout's length
    /// minus its layout slot).
    pub refs: Vec<(u64, u32)>,
}

impl ClassExt {
    /// The byte offset in the instance data of the field `from_end` bytes before its end.
    #[inline]
    pub(crate) fn offset(&self, from_end: u64) -> u32 {
        (self.data_total - from_end).min(u32::MAX as u64) as u32
    }
}

/// The index itself. Resident memory: about 8 bytes per object beyond the mapped file.
pub struct Heap {
    pub(crate) src: Source,
    pub(crate) info: DumpInfo,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) id_size: u32,
    pub(crate) objs: ids::ObjIndex,
    pub(crate) classes: Vec<ClassInfo>,
    pub(crate) ext: Vec<ClassExt>,
    pub(crate) layouts: Layouts,
    pub(crate) class_by_id: FxHashMap<u64, ClassIdx>,
    pub(crate) class_by_obj: FxHashMap<ObjIdx, ClassIdx>,
    pub(crate) by_name: HashMap<String, Vec<ClassIdx>>,
    pub(crate) subclasses: Vec<Vec<ClassIdx>>,
    /// Class of each primitive array type (PrimType order).
    pub(crate) prim_class: [ClassIdx; 8],
    pub(crate) class_class: ClassIdx,
    /// `jdk.internal.vm.StackChunk` and its `size` field: its objects' sizes follow their stack
    /// (`stack_chunks`). Derived from the classes, not stored in the cache.
    pub(crate) stack_chunks: Option<(ClassIdx, FieldSlot)>,
    pub(crate) model: layout::Model,
    pub(crate) roots: Vec<GcRoot>,
    pub(crate) threads: Vec<ThreadInfo>,
    pub(crate) props: Vec<(String, String)>,
    pub(crate) histogram: Vec<ClassHistogramRow>,
    pub(crate) summary: HeapSummary,
    /// JDK 9+ UTF-16 strings: true when the dumping VM was big-endian.
    pub(crate) utf16_big_endian: bool,
    /// Android: the heaps and where in the file each begins (`heaps`; empty for other dumps).
    pub(crate) heaps: heaps::HeapTable,
    /// `Heap::heaps`, counted the first time it is asked for.
    pub(crate) heap_stats: OnceLock<Vec<HeapStats>>,
    pub(crate) scratch: Placement,
}

const NO_CLASSES: &[ClassIdx] = &[];

const MEMO_SLOTS: usize = 256;

/// A pass's memo of class ids met lately and their classes (`Heap::class_of_memo`).
pub struct ClassMemo([(u64, ClassIdx); MEMO_SLOTS]);

impl Default for ClassMemo {
    fn default() -> Self {
        ClassMemo([(0, 0); MEMO_SLOTS])
    }
}

/// `HeapError::Changed` when the dump file opened as `file` is no longer as `before` saw it
/// (`FileState::change`, the rule an open source checks by) after its index failed. Asked of the
/// open file, not of the path: a new dump renamed over the old one (the safe way to replace a
/// dump) leaves the file read unchanged.
fn changed_while_indexed(path: &Path, file: &std::fs::File, before: &heapql_hprof::FileState) -> Option<HeapError> {
    let change = before.change(&file.metadata().ok()?)?;
    let (now, then) = (change.now, change.then);
    let what = if change.kind == heapql_hprof::ChangeKind::CutShort {
        format!("cut short on disk while it was being indexed ({now} bytes now, {then} then)")
    } else {
        format!("written to or replaced on disk while it was being indexed ({now} bytes now, {then} then)")
    };
    Some(HeapError::Changed {
        path: path.display().to_string(),
        reason: format!(
            "the dump file was {what}, so what was read is no one dump and nothing can be said of it; open it again once it is complete (to keep a dump while writing a new one, write the new one elsewhere and rename it over the old)"
        ),
    })
}

impl Heap {
    /// Indexes the dump at `path`. A dump written to or grown on disk while it was being
    /// indexed is `HeapError::Changed`: what was read is no one dump, so neither the index
    /// built nor an error about its bytes would be true; so is one cut short while it was read
    /// (its reads past the new end gave zeros: `heapql_hprof`'s `sigbus`).
    pub fn open(path: &Path, options: OpenOptions) -> Result<Heap, HeapError> {
        // Only a regular file is opened here: opening a named pipe would wait for a writer (the
        // build refuses it with a clear error).
        let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        let before = regular.then(|| std::fs::File::open(path).ok()).flatten().and_then(|f| f.metadata().ok().map(|m| (heapql_hprof::FileState::of(&m), f)));
        match builder::build(path, options) {
            Ok(heap) => {
                heap.check_dump_unchanged()?;
                Ok(heap)
            }
            Err(HeapError::Cancelled) => Err(HeapError::Cancelled),
            Err(e) => Err(before.and_then(|(state, f)| changed_while_indexed(path, &f, &state)).unwrap_or(e)),
        }
    }

    /// Indexes a dump held in memory (tests, fuzzing); `name` stands for the path in messages.
    pub fn open_bytes(bytes: &[u8], name: &str, options: OpenOptions) -> Result<Heap, HeapError> {
        builder::build_from_source(Source::from_bytes(bytes), name, options)
    }

    /// Drops the heap, the dump's mapping and the object index taken down by both cores
    /// (`heapql_scratch::release_pages`): an ordinary drop leaves it all to one.
    pub fn release(self) {
        let dump = self.src.as_slice().unwrap_or(&[]);
        let regions = [dump, heapql_scratch::as_bytes(&self.objs.places.entries), heapql_scratch::as_bytes(&self.objs.id_lo)];
        // SAFETY: `self` is dropped when this returns; nothing reads the regions before.
        unsafe { heapql_scratch::release_pages(&regions) };
    }

    pub fn info(&self) -> &DumpInfo {
        &self.info
    }

    /// Where big arrays go (`OpenOptions::scratch`): the full analysis places its own there.
    pub fn scratch(&self) -> &Placement {
        &self.scratch
    }
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
    /// An error when the dump file was changed on disk since it was opened, or a read of its
    /// mapping faulted (cut short while read, a failing device: those reads gave zeros). Asked
    /// before and after each piece of work, so that no answer read from zeros goes out.
    pub fn check_dump_unchanged(&self) -> Result<(), HeapError> {
        self.src.check_unchanged().map_err(|e| HeapError::Changed { path: self.info.path.clone(), reason: e.to_string() })
    }
    /// Whether a read of the dump's mapping faulted (its reads there since gave zeros): the
    /// cheap test a stream makes before each batch it sends.
    pub fn dump_read_faulted(&self) -> bool {
        self.src.read_fault().is_some()
    }
    /// Object counts by kind, roots by kind, total shallow heap.
    pub fn summary(&self) -> &HeapSummary {
        &self.summary
    }
    /// The shallow-size model in use (header, reference size, alignment, layout generation).
    pub fn size_model(&self) -> SizeModel {
        self.model
    }
    /// Whether the object index was asked to go to scratch files and could not (the open's
    /// warning "could not make scratch files in …" said so): the analysis then says nothing more.
    pub fn index_fell_back_to_memory(&self) -> bool {
        matches!(self.scratch, Placement::Files(_)) && self.objs.in_memory()
    }

    /// Resident bytes of the per-object index (for memory reports).
    pub fn index_memory(&self) -> usize {
        self.objs.memory()
    }

    // ---- objects ----
    pub fn object_count(&self) -> u32 {
        self.objs.len()
    }
    pub fn object_kind(&self, o: ObjIdx) -> ObjectKind {
        match self.objs.kind(o) {
            ids::K_INSTANCE => ObjectKind::Instance,
            ids::K_OBJ_ARRAY => ObjectKind::ObjectArray,
            ids::K_CLASS | ids::K_SYNTH_CLASS => ObjectKind::Class,
            ids::K_PRIM_NODATA => ObjectKind::PrimitiveArray(self.nodata_type(o)),
            k => ObjectKind::PrimitiveArray(values::prim_from_code(k as u8)),
        }
    }
    /// The object's id (its address in HotSpot dumps).
    pub fn object_id(&self, o: ObjIdx) -> u64 {
        self.objs.id(o)
    }
    /// Byte offset (in the uncompressed dump) of the sub-record that dumps the object; None for
    /// a class object the index synthesized (no CLASS DUMP).
    pub fn record_offset(&self, o: ObjIdx) -> Option<u64> {
        (self.objs.kind(o) != ids::K_SYNTH_CLASS).then(|| self.objs.offset(o))
    }
    /// id -> dense index; None when the id is not an object of this dump.
    #[inline]
    pub fn index_of(&self, id: u64) -> Option<ObjIdx> {
        self.objs.index_of(id)
    }
    /// The class of an object. For a class object this is java.lang.Class.
    pub fn class_of(&self, o: ObjIdx) -> ClassIdx {
        match self.objs.kind(o) {
            k @ (ids::K_INSTANCE | ids::K_OBJ_ARRAY) => self.class_by_id(self.class_id_in_record(o, k)),
            ids::K_CLASS | ids::K_SYNTH_CLASS => self.class_class,
            ids::K_PRIM_NODATA => self.prim_class[self.nodata_type(o) as usize],
            k => self.prim_class[(k - ids::K_PRIM_FIRST) as usize],
        }
    }
    /// `class_of` in a pass over many objects: the class ids read from the dump go through
    /// the caller's `memo` before the id table (most objects share a few classes).
    #[inline]
    pub fn class_of_memo(&self, o: ObjIdx, memo: &mut ClassMemo) -> ClassIdx {
        match self.objs.kind(o) {
            k @ (ids::K_INSTANCE | ids::K_OBJ_ARRAY) => {
                let cid = self.class_id_in_record(o, k);
                let slot = &mut memo.0[(cid as usize >> 3 ^ cid as usize >> 13) % MEMO_SLOTS];
                if slot.0 != cid || cid == 0 {
                    *slot = (cid, self.class_by_id(cid));
                }
                slot.1
            }
            _ => self.class_of(o),
        }
    }
    /// The JVM's real shallow size of the object, in bytes.
    pub fn shallow_size(&self, o: ObjIdx) -> u64 {
        match self.objs.kind(o) {
            ids::K_INSTANCE | ids::K_OBJ_ARRAY => self.shallow_size_of_class(o, self.class_of(o)),
            ids::K_CLASS => match self.class_described_by(o) {
                Some(c) => self.ext[c as usize].mirror_size as u64,
                None => 0,
            },
            ids::K_SYNTH_CLASS => 0,
            _ => {
                let ObjectKind::PrimitiveArray(t) = self.object_kind(o) else { return 0 };
                let c = self.prim_class[t as usize];
                self.array_size(c, Some(t), self.array_length(o).unwrap_or(0) as u64)
            }
        }
    }
    /// `shallow_size` of an object whose class (`class_of(o)`) the caller already knows: an
    /// instance's or object array's class is not read from the dump again.
    pub fn shallow_size_of_class(&self, o: ObjIdx, c: ClassIdx) -> u64 {
        match self.objs.kind(o) {
            ids::K_INSTANCE => self.instance_shallow(o, c),
            ids::K_OBJ_ARRAY => self.array_size(c, None, self.array_length(o).unwrap_or(0) as u64),
            _ => self.shallow_size(o),
        }
    }
    /// For a class object (ObjectKind::Class): the class it describes.
    /// `java.lang.Class`: the class of every class object (and of objects whose class id the
    /// dump does not resolve).
    pub fn class_class(&self) -> ClassIdx {
        self.class_class
    }

    pub fn class_described_by(&self, o: ObjIdx) -> Option<ClassIdx> {
        match self.objs.kind(o) {
            ids::K_CLASS => self.class_by_obj.get(&o).copied(),
            ids::K_SYNTH_CLASS => Some((self.objs.offset(o)) as ClassIdx),
            _ => None,
        }
    }

    // ---- classes ----
    pub fn class_count(&self) -> u32 {
        self.classes.len() as u32
    }
    pub fn class(&self, c: ClassIdx) -> &ClassInfo {
        &self.classes[c as usize]
    }
    /// The object of class `c`'s defining loader, as its CLASS DUMP names it; None for the
    /// bootstrap loader (id 0) and for a loader id the dump has no object for.
    pub fn defining_loader(&self, c: ClassIdx) -> Option<ObjIdx> {
        match self.class(c).loader_id {
            0 => None,
            id => self.index_of(id),
        }
    }
    /// Android dumps: the `byte[]` of class `c`'s `$classOverhead` static (`$staticOverhead`
    /// in Dalvik and early ART dumps). ART's hprof writer adds that static to a class whose
    /// native part (embedded vtable) is larger than 4 bytes, pointing at a zero-filled `byte[]`
    /// of that size that is no Java object: it only makes the class's size count in the dump.
    /// None for other classes and other dumps.
    pub fn class_overhead_array(&self, c: ClassIdx) -> Option<ObjIdx> {
        self.ext.get(c as usize)?.overhead_array
    }
    /// Every class with this Java-form name (several loaders may define the same name).
    pub fn classes_named(&self, name: &str) -> &[ClassIdx] {
        self.by_name.get(name).map(|v| v.as_slice()).unwrap_or(NO_CLASSES)
    }
    /// Direct subclasses.
    pub fn subclasses(&self, c: ClassIdx) -> &[ClassIdx] {
        &self.subclasses[c as usize]
    }
    /// Instance field layout in the order of the instance bytes: own fields, then super's, ...
    pub fn instance_layout(&self, c: ClassIdx) -> &[FieldDef] {
        let (at, n) = self.ext[c as usize].layout;
        &self.layouts.fields[at as usize..(at + n) as usize]
    }
    /// How many field definitions the instance layouts of all classes store together (a
    /// chain of classes shares one copy; see `Layouts`).
    #[doc(hidden)]
    pub fn layout_storage(&self) -> usize {
        self.layouts.fields.len()
    }
    /// The real shallow size of an instance of class `c` (for a `jdk.internal.vm.StackChunk`,
    /// whose size follows its stack, the part before the stack: see `instance_shallow`).
    pub fn instance_size(&self, c: ClassIdx) -> u64 {
        self.ext[c as usize].instance_size as u64
    }
    /// The shallow size of instance `o` of class `c`: its class's, except a stack chunk's.
    #[inline]
    pub fn instance_shallow(&self, o: ObjIdx, c: ClassIdx) -> u64 {
        match self.stack_chunks {
            Some((sc, slot)) if sc == c => stack_chunks::size(self, o, c, slot),
            _ => self.ext[c as usize].instance_size as u64,
        }
    }
    /// Instances and shallow bytes per class (class objects counted under java.lang.Class).
    pub fn class_histogram(&self) -> Vec<ClassHistogramRow> {
        self.histogram.clone()
    }

    // ---- values ----
    /// Field of an instance by name (the most derived declaration wins); None if no such field.
    /// For a class object, its static fields.
    pub fn field(&self, o: ObjIdx, name: &str) -> Option<Value> {
        values::field(self, o, name)
    }
    /// The instance field `name` of class `c`'s instances (the most derived declaration wins,
    /// as in `field`); None if the class has no such field.
    pub fn field_slot(&self, c: ClassIdx, name: &str) -> Option<FieldSlot> {
        values::field_slot(self, c, name)
    }
    /// The value of instance `o`'s field at `slot`, which must come from `o`'s class
    /// (`field_slot`): `field` without resolving the class and the name per object. None when
    /// `o` is not an instance or its data is too short.
    pub fn field_at(&self, o: ObjIdx, slot: FieldSlot) -> Option<Value> {
        values::field_at(self, o, slot)
    }
    /// All instance fields (layout order) with their values; for a class object, its statics.
    pub fn fields(&self, o: ObjIdx) -> Vec<(&str, Value)> {
        values::fields(self, o)
    }
    pub fn array_length(&self, o: ObjIdx) -> Option<u32> {
        let off = match self.objs.kind(o) {
            ids::K_OBJ_ARRAY | ids::K_PRIM_NODATA => self.objs.offset(o),
            k if (ids::K_PRIM_FIRST..ids::K_PRIM_NODATA).contains(&k) => self.objs.offset(o),
            _ => return None,
        };
        let b = self.src.bytes(off + 1 + self.id_size as u64 + 4, 4);
        (b.len() == 4).then(|| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn array_element(&self, o: ObjIdx, i: u32) -> Option<Value> {
        values::array_element(self, o, i)
    }
    /// Raw bytes of a primitive array's data (for strings, hashing, slicing), big-endian elements.
    /// None for another kind, and for an Android array dumped without its data (PRIMITIVE ARRAY
    /// NODATA): its length (`array_length`) is known, its contents are not.
    pub fn primitive_array_bytes(&self, o: ObjIdx) -> Option<Cow<'_, [u8]>> {
        values::primitive_array_bytes(self, o)
    }
    /// Where primitive array `o`'s record lies (None for another kind): read it again with
    /// `primitive_array_at`, without the object index.
    pub fn primitive_array_record(&self, o: ObjIdx) -> Option<ArrayRecord> {
        values::primitive_array_record(self, o)
    }
    /// The length and data of the primitive array whose record is `r` (`primitive_array_record`
    /// of this heap): `array_length` and `primitive_array_bytes` without the object index (None,
    /// as there, for an array dumped without its data).
    pub fn primitive_array_at(&self, r: ArrayRecord) -> Option<(u32, Cow<'_, [u8]>)> {
        values::primitive_array_at(self, r)
    }
    /// True when the dumping JVM stores UTF-16 strings' `byte[]` big-endian (its native order).
    pub fn utf16_big_endian(&self) -> bool {
        self.utf16_big_endian
    }
    /// Text of a java.lang.String (JDK 8 char[], JDK 9+ byte[] + coder, Android); None otherwise,
    /// and for a String whose value is null or an array dumped without its data (Android
    /// NODATA: the text is unknown).
    pub fn string_value(&self, o: ObjIdx) -> Option<String> {
        values::string_value(self, o)
    }
    /// Name of a thread object from its `name` field, whether or not the thread is in
    /// [`Heap::threads`]: a String, or the `char[]` JDK ≤ 6 kept it in; None otherwise.
    pub fn thread_name(&self, o: ObjIdx) -> Option<String> {
        threads::thread_name(self, o)
    }
    /// Every outbound reference of an object, as target ids (not yet resolved), with no
    /// allocation per call: instance reference fields, object array elements, and for a class
    /// object its super class, loader, and static references. Null references are skipped.
    /// `f(target_id, field_slot)`: field_slot is the layout position (instances), element
    /// index (arrays) or static index (classes; super = u32::MAX-1, loader = u32::MAX-2).
    pub fn for_each_reference<F: FnMut(u64, u32)>(&self, o: ObjIdx, f: F) {
        values::for_each_reference(self, o, f)
    }

    // ---- Android heaps ----
    /// The number of the heap (`app`, `zygote`, `image`, ...: an index into `heap_names`)
    /// object `o` is in, from the dump's HEAP DUMP INFO records (hprof-format.md §9; the rules
    /// are in `heaps.rs`). None for a dump without them (any non-Android dump, an
    /// `hprof-conv` output) and for a class object the index made up (no CLASS DUMP). Found
    /// from the object's record offset by a binary search over the heaps' starts: no
    /// per-object data.
    #[inline]
    pub fn heap_of(&self, o: ObjIdx) -> Option<u32> {
        if self.heaps.names.is_empty() || self.objs.kind(o) == ids::K_SYNTH_CLASS {
            return None;
        }
        Some(self.heaps.heap_at(self.objs.offset(o)))
    }
    /// The name of the heap object `o` is in (`heap_of`): `app`, `zygote`, `image`, or
    /// `default` for objects before the dump's first HEAP DUMP INFO. None as for `heap_of`.
    pub fn heap_name_of(&self, o: ObjIdx) -> Option<&str> {
        self.heap_of(o).map(|k| &*self.heaps.names[k as usize])
    }
    /// The dump's heap names by heap number (`heap_of`), `default` first; empty for a dump
    /// without HEAP DUMP INFO. A name may have no object (`heaps` lists those that have).
    pub fn heap_names(&self) -> &[Arc<str>] {
        &self.heaps.names
    }
    /// Every heap with objects, in heap-number order, with its objects and their shallow
    /// bytes; empty for a dump without HEAP DUMP INFO. Counted in one pass over the objects
    /// the first time it is asked for.
    pub fn heaps(&self) -> &[HeapStats] {
        self.heap_stats.get_or_init(|| heaps::heap_stats(self))
    }

    // ---- roots, threads, process ----
    pub fn gc_roots(&self) -> &[GcRoot] {
        &self.roots
    }
    pub fn threads(&self) -> &[ThreadInfo] {
        &self.threads
    }
    /// System properties of the dumped process (java.lang.System's props), in key order.
    pub fn system_properties(&self) -> &[(String, String)] {
        &self.props
    }

    // ---- internals ----
    /// The class id an instance's or object array's record (`kind`) names.
    #[inline]
    fn class_id_in_record(&self, o: ObjIdx, kind: u64) -> u64 {
        self.read_id(self.objs.offset(o) + 1 + self.id_size as u64 + 4 + if kind == ids::K_OBJ_ARRAY { 4 } else { 0 })
    }

    #[inline]
    fn class_by_id(&self, cid: u64) -> ClassIdx {
        self.class_by_id.get(&cid).copied().unwrap_or(self.class_class)
    }

    #[inline]
    pub(crate) fn read_id(&self, off: u64) -> u64 {
        let b = self.src.bytes(off, self.id_size as usize);
        if b.len() < self.id_size as usize {
            return 0;
        }
        heapql_hprof::types::be_id(&b, 0, self.id_size)
    }

    fn nodata_type(&self, o: ObjIdx) -> PrimType {
        let b = self.src.bytes(self.objs.offset(o) + 1 + self.id_size as u64 + 8, 1);
        values::prim_from_code(b.first().copied().unwrap_or(8))
    }

    pub(crate) fn array_size(&self, c: ClassIdx, elem: Option<PrimType>, n: u64) -> u64 {
        let m = &self.model;
        let e = match elem {
            Some(t) => values::prim_size(t),
            None => m.ref_size,
        };
        if m.android {
            let h = self.ext.get(c as usize).map(|x| x.dump_array_header).unwrap_or(0);
            let h = if h > 0 { h } else if e == 8 { 16 } else { 12 };
            return h as u64 + n * e as u64;
        }
        m.array_size(e, n)
    }
}
