//! The data of the full-analysis report, shaped exactly like the `overview`, `leakSuspects`,
//! `topConsumers`, `threads` and `waste` sections of `ts/report/model.ts` (field
//! reference: docs/report-model.md). serde writes camelCase names; the TypeScript side adds the
//! envelope (schema version, generator, time, queries, warnings) and validates the whole.

use serde::Serialize;

/// A heap object as the report shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    pub object_id: u32,
    /// The dump's id, lower-case `0x…` hex.
    pub address: String,
    /// Java form; a class object's is the class it describes (its label is `class Name`), as
    /// in query results.
    pub class_name: String,
    pub label: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportData {
    pub overview: SystemOverview,
    pub leak_suspects: LeakSuspects,
    pub top_consumers: TopConsumers,
    pub threads: ThreadOverview,
    pub waste: crate::waste::Waste,
}

// ---- overview ----

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileFacts {
    pub path: String,
    pub size: u64,
    /// `none`, `gzip` or `chunked-gzip`.
    pub compression: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DumpIndex {
    pub index: u64,
    pub count: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyValue {
    pub key: String,
    pub value: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SizeModelFacts {
    pub reference_size: u32,
    pub object_header_size: u32,
    pub array_header_size: u32,
    pub alignment: u32,
    /// True when the layout is assumed, not read from the dump (a JVMTI agent's dump has no
    /// object addresses): every shallow and retained size is an estimate.
    pub estimated: bool,
    /// How the layout was chosen (`assumed: 32-bit VM layout (ids are not addresses)`, ...).
    pub source: String,
}

#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeapFacts {
    pub used_heap: u64,
    pub objects: u64,
    pub instances: u64,
    pub object_arrays: u64,
    pub primitive_arrays: u64,
    pub classes: u64,
    pub class_loaders: u64,
    pub unreachable_objects: u64,
    pub unreachable_shallow: u64,
    /// The pseudo-roots the analysis hangs the unreachable objects' forest from (design.md
    /// §4.2; MAT's `Unreachable` roots with "keep unreachable objects"): not GC roots, and 0
    /// with `--reachable-only`.
    pub unreachable_pseudo_roots: u64,
}

/// One Android heap (`app`, `zygote`, `image`; `default` before the dump's first HEAP DUMP
/// INFO): the objects of it the report covers and their shallow bytes.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct HeapShare {
    pub name: String,
    pub objects: u64,
    pub shallow: u64,
    /// `shallow` as a percent of the used heap.
    pub shallow_percent: f64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KindCount {
    pub kind: String,
    pub count: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GcRootFacts {
    /// The dump's GC root records whose object is in the dump (`heapql summary`'s figure).
    pub total: u64,
    /// The distinct objects those records are on.
    pub objects: u64,
    /// Records per kind; the counts add up to `total`.
    pub by_kind: Vec<KindCount>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistogramRow {
    pub class_name: String,
    pub class_loader: Option<String>,
    pub instances: u64,
    pub shallow: u64,
    pub retained: u64,
    pub retained_percent: f64,
    /// Android: the class's instances in each heap they are in, in heap-number order (they
    /// add up to `instances` and `shallow`); None (no field) for a dump that records no heaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heaps: Option<Vec<ClassHeapShare>>,
}

/// Android: a class's instances in one heap.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ClassHeapShare {
    pub name: String,
    pub instances: u64,
    pub shallow: u64,
    /// The retained size of these instances taken together: the sum of the retained sizes of
    /// those that no other instance of the class in this heap dominates. The heaps' figures
    /// may add up to more than the row's `retained` (an instance in one heap may dominate one
    /// in another), never to less.
    pub retained: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassHistogram {
    pub classes: u64,
    pub rows: Vec<HistogramRow>,
}

/// One class loader: every loader that defines a class (the bootstrap loader included) and
/// every class loader instance, as the overview's `class_loaders` count counts them.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassLoaderRow {
    /// The loader object; None for the bootstrap loader and a loader not in the report's heap.
    pub loader: Option<ObjectRef>,
    pub name: String,
    /// Classes it defined (0 for a loader instance that defines none).
    pub defined_classes: u64,
    /// Instances of those classes, and their shallow size.
    pub instances: u64,
    pub shallow: u64,
    /// The classes it defined, taken together: the sum of the retained sizes of their class
    /// objects that no other class object of this loader dominates (MAT's minimum retained
    /// size of that set, as the class histogram's per class). Same meaning for every loader.
    pub retained: u64,
    pub retained_percent: f64,
    /// Retained size of the loader object alone (MAT's class loader explorer); None when
    /// there is no loader object (the bootstrap loader, or one not in the report's heap).
    pub loader_retained: Option<u64>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateClass {
    pub class_name: String,
    pub loaders: Vec<String>,
    pub instances: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemOverview {
    pub file: FileFacts,
    pub format: String,
    pub identifier_size: u32,
    pub compressed_oops: Option<bool>,
    pub dump_time: Option<String>,
    pub dump_index: DumpIndex,
    pub jvm_version: Option<String>,
    pub system_properties: Vec<KeyValue>,
    pub size_model: SizeModelFacts,
    pub heap: HeapFacts,
    /// Android: the heaps of the covered objects; None (no field) for a dump that records no
    /// heaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heaps: Option<Vec<HeapShare>>,
    pub reachable_only: bool,
    pub gc_roots: GcRootFacts,
    pub class_histogram: ClassHistogram,
    pub class_loaders: Vec<ClassLoaderRow>,
    pub duplicate_classes: Vec<DuplicateClass>,
}

// ---- leak suspects ----

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum ViaKind {
    Field,
    StaticField,
    ArrayElement,
    Local,
    ClassLoader,
    Superclass,
    Other,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Via {
    pub kind: ViaKind,
    pub name: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PathStep {
    pub object: ObjectRef,
    pub via: Option<Via>,
    pub shallow: u64,
    pub retained: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PathToRoot {
    pub root_kinds: Vec<String>,
    pub steps: Vec<PathStep>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassBreakdownRow {
    pub class_name: String,
    pub objects: u64,
    pub shallow: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassBreakdown {
    pub rows: Vec<ClassBreakdownRow>,
    pub classes: u64,
    pub objects: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SizedObject {
    pub object: ObjectRef,
    pub shallow: u64,
    pub retained: u64,
    pub retained_percent: f64,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum SuspectKind {
    Single,
    Group,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum SubjectKind {
    Thread,
    Class,
    ClassLoader,
    Object,
    Instances,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccumulationPoint {
    pub object: ObjectRef,
    pub retained: u64,
    pub retained_percent: f64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeakSuspect {
    pub rank: u32,
    pub kind: SuspectKind,
    pub subject_kind: SubjectKind,
    pub title: String,
    pub explanation: String,
    pub object: Option<ObjectRef>,
    pub class_name: String,
    pub class_loader: Option<String>,
    pub instances: u64,
    pub shallow: u64,
    pub retained: u64,
    pub retained_percent: f64,
    pub accumulation_point: Option<AccumulationPoint>,
    pub path_to_root: Option<PathToRoot>,
    pub retained_by_class: ClassBreakdown,
    pub biggest_instances: Vec<SizedObject>,
    pub keywords: Vec<String>,
    /// Android: the heaps the suspect's object (a single suspect) or instances (a group) are
    /// in, in heap-number order; None (no field) for a dump that records no heaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heaps: Option<Vec<String>>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeakSuspects {
    pub threshold_percent: f64,
    pub suspects: Vec<LeakSuspect>,
}

// ---- top consumers ----

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroup {
    pub name: String,
    pub objects: u64,
    pub shallow: u64,
    pub retained: u64,
    pub retained_percent: f64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageNode {
    pub name: String,
    pub parent: Option<String>,
    pub depth: u32,
    pub objects: u64,
    pub retained: u64,
    pub retained_percent: f64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopConsumers {
    pub threshold_percent: f64,
    pub biggest_objects: Vec<SizedObject>,
    pub biggest_classes: Vec<ConsumerGroup>,
    pub biggest_class_loaders: Vec<ConsumerGroup>,
    pub biggest_packages: Vec<PackageNode>,
}

// ---- threads ----

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Local {
    pub object: ObjectRef,
    pub shallow: u64,
    pub retained: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    pub depth: u32,
    pub method: String,
    pub signature: Option<String>,
    pub source: Option<String>,
    pub locals: Vec<Local>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    pub object: ObjectRef,
    pub name: Option<String>,
    pub daemon: Option<bool>,
    pub priority: Option<i32>,
    pub state: Option<String>,
    pub context_class_loader: Option<String>,
    pub shallow: u64,
    pub retained: u64,
    pub retained_percent: f64,
    pub max_local_retained: u64,
    /// The top `threads::FRAMES_LISTED` frames of its stack.
    pub frames: Vec<StackFrame>,
    /// Frames below those, not listed (their locals count in `max_local_retained`).
    pub frames_left_out: u64,
    /// Objects its stack holds in no frame the dump names (a JNI local of frame -1, every
    /// local of a dump without stack traces), biggest retained first: `max_local_retained`
    /// counts them, so they are listed.
    pub other_locals: Vec<Local>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadOverview {
    pub threads: Vec<Thread>,
}

// ---- duplicate strings ----

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateString {
    pub value: String,
    pub truncated: bool,
    pub length: u64,
    pub count: u64,
    pub wasted_bytes: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateStrings {
    pub strings: u64,
    pub distinct: u64,
    pub duplicated_values: u64,
    pub wasted_bytes: u64,
    pub top: Vec<DuplicateString>,
}
