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

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
    #[error("the file has {available} heap dump(s); dump {requested} does not exist")]
    NoSuchDump { requested: usize, available: usize },
    #[error("cancelled")]
    Cancelled,
}

impl HeapError {
    /// The stable code used by the CLI and the JS error (`ERR_NOT_HPROF`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            HeapError::NotHprof { .. } => "ERR_NOT_HPROF",
            HeapError::Io { .. } => "ERR_IO",
            HeapError::Corrupt { .. } => "ERR_CORRUPT",
            HeapError::NoSuchDump { .. } => "ERR_NO_SUCH_DUMP",
            HeapError::Cancelled => "ERR_CANCELLED",
        }
    }
}

/// Non-fatal findings (printed on stderr by the CLI): truncated file, skipped unknown record, ...
#[derive(Clone, Debug)]
pub struct Warning {
    pub offset: u64,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
#[derive(Clone, Copy, Debug, PartialEq)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    Object,
    Prim(PrimType),
}

#[derive(Clone, Debug)]
pub struct FieldDef {
    pub name: String,
    pub ty: FieldType,
}

#[derive(Clone, Debug)]
pub struct StaticField {
    pub name: String,
    pub value: Value,
}

#[derive(Clone, Debug)]
pub struct ClassInfo {
    /// Java form: `java.lang.String`, `byte[]`, `java.lang.Object[]`, `Outer$Inner`.
    pub name: String,
    /// The class object (a node of kind ObjectKind::Class) describing this class.
    pub object: ObjIdx,
    pub super_class: Option<ClassIdx>,
    /// Class loader object id (0 = bootstrap).
    pub loader_id: u64,
    /// Instance fields declared by this class only, in dump order.
    pub fields: Vec<FieldDef>,
    pub statics: Vec<StaticField>,
    /// Instance size as written in the CLASS DUMP (not the JVM's real size).
    pub dump_instance_size: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    Unreachable,
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
        }
    }
}

/// One GC root record whose object exists in the dump.
#[derive(Clone, Copy, Debug)]
pub struct GcRoot {
    pub kind: RootKind,
    pub object: ObjIdx,
    /// Thread serial number for thread-bound roots (Java Local, JNI Local, Native Stack, ...).
    pub thread_serial: Option<u32>,
    /// Frame depth for Java Local / JNI Local (-1 or None when unknown).
    pub frame: Option<i32>,
}

#[derive(Clone, Debug)]
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

#[derive(Clone, Debug)]
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
#[derive(Clone, Debug)]
pub struct DumpInfo {
    pub path: String,
    pub file_size: u64,
    /// `JAVA PROFILE 1.0.2` etc.
    pub format: String,
    pub id_size: u32,
    /// Milliseconds since the epoch, from the header.
    pub timestamp_ms: u64,
    /// Number of HEAP DUMPs found in the file and which one this index is of.
    pub dump_count: usize,
    pub dump: usize,
    /// `gzip` (single member), `gzip-chunked` (the JVM's -gz) or `none`.
    pub compression: &'static str,
    /// The shallow-size model detected from the dump (hprof-format.md §16).
    pub reference_size: u32,
    pub object_header_size: u32,
    pub array_header_size: u32,
    pub object_alignment: u32,
    /// `java.version` / `java.vm.version` etc. if the system properties were found.
    pub jvm_version: Option<String>,
}

/// Per-class instance count and shallow bytes, for histograms.
#[derive(Clone, Copy, Debug)]
pub struct ClassHistogramRow {
    pub class: ClassIdx,
    pub count: u64,
    pub shallow: u64,
}

/// The index itself. Resident memory: at most 12 bytes per object beyond the mapped file.
pub struct Heap {
    _private: (),
}

impl Heap {
    pub fn open(path: &Path, options: OpenOptions) -> Result<Heap, HeapError> {
        let _ = (path, options);
        unimplemented!("heap index")
    }

    pub fn info(&self) -> &DumpInfo {
        unimplemented!()
    }
    pub fn warnings(&self) -> &[Warning] {
        unimplemented!()
    }

    // ---- objects ----
    pub fn object_count(&self) -> u32 {
        unimplemented!()
    }
    pub fn object_kind(&self, o: ObjIdx) -> ObjectKind {
        let _ = o;
        unimplemented!()
    }
    /// The object's id (its address in HotSpot dumps).
    pub fn object_id(&self, o: ObjIdx) -> u64 {
        let _ = o;
        unimplemented!()
    }
    /// id -> dense index; None when the id is not an object of this dump.
    pub fn index_of(&self, id: u64) -> Option<ObjIdx> {
        let _ = id;
        unimplemented!()
    }
    /// The class of an object. For a class object this is java.lang.Class.
    pub fn class_of(&self, o: ObjIdx) -> ClassIdx {
        let _ = o;
        unimplemented!()
    }
    /// The JVM's real shallow size of the object, in bytes.
    pub fn shallow_size(&self, o: ObjIdx) -> u64 {
        let _ = o;
        unimplemented!()
    }
    /// For a class object (ObjectKind::Class): the class it describes.
    pub fn class_described_by(&self, o: ObjIdx) -> Option<ClassIdx> {
        let _ = o;
        unimplemented!()
    }

    // ---- classes ----
    pub fn class_count(&self) -> u32 {
        unimplemented!()
    }
    pub fn class(&self, c: ClassIdx) -> &ClassInfo {
        let _ = c;
        unimplemented!()
    }
    /// Every class with this Java-form name (several loaders may define the same name).
    pub fn classes_named(&self, name: &str) -> &[ClassIdx] {
        let _ = name;
        unimplemented!()
    }
    /// Direct subclasses.
    pub fn subclasses(&self, c: ClassIdx) -> &[ClassIdx] {
        let _ = c;
        unimplemented!()
    }
    /// Instance field layout in the order of the instance bytes: own fields, then super's, ...
    pub fn instance_layout(&self, c: ClassIdx) -> &[FieldDef] {
        let _ = c;
        unimplemented!()
    }
    /// Instances and shallow bytes per class (class objects counted under java.lang.Class).
    pub fn class_histogram(&self) -> Vec<ClassHistogramRow> {
        unimplemented!()
    }

    // ---- values ----
    /// Field of an instance by name (the most derived declaration wins); None if no such field.
    pub fn field(&self, o: ObjIdx, name: &str) -> Option<Value> {
        let _ = (o, name);
        unimplemented!()
    }
    /// All instance fields (layout order) with their values; for a class object, its statics.
    pub fn fields(&self, o: ObjIdx) -> Vec<(&str, Value)> {
        let _ = o;
        unimplemented!()
    }
    pub fn array_length(&self, o: ObjIdx) -> Option<u32> {
        let _ = o;
        unimplemented!()
    }
    pub fn array_element(&self, o: ObjIdx, i: u32) -> Option<Value> {
        let _ = (o, i);
        unimplemented!()
    }
    /// Raw bytes of a primitive array's data (for strings, hashing, slicing).
    pub fn primitive_array_bytes(&self, o: ObjIdx) -> Option<std::borrow::Cow<'_, [u8]>> {
        let _ = o;
        unimplemented!()
    }
    /// Text of a java.lang.String (JDK 8 char[], JDK 9+ byte[] + coder, Android); None otherwise.
    pub fn string_value(&self, o: ObjIdx) -> Option<String> {
        let _ = o;
        unimplemented!()
    }
    /// Every outbound reference of an object, as target ids (not yet resolved), with no
    /// allocation per call: instance reference fields, object array elements, and for a class
    /// object its super class, loader, and static references. Null references are skipped.
    /// `f(target_id, field_slot)`: field_slot is the layout position (instances), element
    /// index (arrays) or static index (classes; super = u32::MAX-1, loader = u32::MAX-2).
    pub fn for_each_reference<F: FnMut(u64, u32)>(&self, o: ObjIdx, f: F) {
        let _ = (o, f);
        unimplemented!()
    }

    // ---- roots, threads, process ----
    pub fn gc_roots(&self) -> &[GcRoot] {
        unimplemented!()
    }
    pub fn threads(&self) -> &[ThreadInfo] {
        unimplemented!()
    }
    /// System properties of the dumped process (java.lang.System's props), in key order.
    pub fn system_properties(&self) -> &[(String, String)] {
        unimplemented!()
    }
}
