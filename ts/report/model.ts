/**
 * The report model: ONE JSON Schema definition (TypeBox) from which the TypeScript types derive,
 * the JSON renderer validates, and `heapql schema report` prints. The Rust analysis fills it (the
 * integrator converts across the native boundary); every renderer reads only this model.
 *
 * Conventions: sizes are integers in bytes; percentages are numbers 0..100 of the total heap
 * (`overview.heap.usedHeap`); every heap object is an ObjectRef; lists are already sorted in the
 * order a person reads them (biggest first) — renderers never re-sort, so output is deterministic.
 * Field reference: docs/report-model.md.
 */
import { Type, type Static } from '@sinclair/typebox';

import { ObjectRefSchema, QueryResultSchema } from './query-result.js';
import { Bytes, Count, Nullable, Obj } from './schema-builders.js';

export { ObjectRefSchema, QueryResultSchema };
export type { Column, ObjectRef, QueryResult, Value, VizKind, VizSpec } from './query-result.js';

/** Bumped on any incompatible change; a reader refuses a model newer than it knows. */
export const REPORT_SCHEMA_VERSION = 10;

const Percent = (description?: string) =>
  Type.Number({ minimum: 0, maximum: 100, description: description ?? 'percent of the total heap (0..100)' });

// ---------------------------------------------------------------------------------------------
// System overview

export const KindCountSchema = Obj({ kind: Type.String(), count: Count() });

export const ClassHeapShareSchema = Obj(
  {
    name: Type.String({ description: 'the heap, as `overview.heaps` names it' }),
    instances: Count('instances of the class in this heap'),
    shallow: Bytes('their shallow size'),
    retained: Bytes(
      'the retained size of these instances taken together: the retained sizes of those that no other instance of the class in this heap dominates, summed. The heaps\' figures add up to at least the row\'s `retained` (more where an instance in one heap dominates one in another)',
    ),
  },
  "Android: a class's instances in one heap",
);
export type ClassHeapShare = Static<typeof ClassHeapShareSchema>;

export const HistogramRowSchema = Obj(
  {
    className: Type.String(),
    /** Several classes may share a name (different loaders); the loader tells them apart. */
    classLoader: Nullable(Type.String({ description: 'label of the defining loader; null for the bootstrap loader' })),
    instances: Count(),
    shallow: Bytes('sum of the shallow sizes of the instances'),
    retained: Bytes("MAT's minimum retained size of the instances: the retained sizes of those no other instance of the class dominates, summed (no double counting; less than the retained set of all instances together when several instances together keep an object alive)"),
    retainedPercent: Percent(),
    heaps: Type.Optional(
      Type.Array(ClassHeapShareSchema, {
        description:
          'Android dumps only (absent for a dump without HEAP DUMP INFO records): the heaps the instances are in, in the order `overview.heaps` lists them; `instances` and `shallow` add up to the row\'s',
      }),
    ),
  },
  'one class of the class histogram',
);
export type HistogramRow = Static<typeof HistogramRowSchema>;

export const ClassLoaderRowSchema = Obj(
  {
    loader: Nullable(ObjectRefSchema),
    name: Type.String({ description: 'loader label, `<bootstrap>` for the bootstrap loader' }),
    definedClasses: Count('classes this loader defined (0 for a loader instance that defines none)'),
    instances: Count('instances of those classes'),
    shallow: Bytes('shallow size of those instances'),
    retained: Bytes(
      "the classes this loader defined, taken together: the sum of the retained sizes of their class objects that no other class object of this loader dominates — what those classes keep alive (their statics and what only those hold), each object counted once: MAT's minimum retained size of the set, as the class histogram's per class. The same meaning for every loader, the bootstrap loader included; 0 for a loader that defines no class. Instances of the classes are in it only where the classes' statics alone hold them",
    ),
    retainedPercent: Percent('`retained` as a percent of the total heap (0..100)'),
    loaderRetained: Nullable(
      Bytes(
        "retained size of the loader object alone (MAT's class loader explorer): what only it keeps alive, its classes only where nothing but the loader holds them; null for the bootstrap loader, which has no object, and for a loader whose object is not in the report's heap",
      ),
    ),
  },
  'one class loader: each loader that defines a class and each class loader instance, so the rows are `heap.classLoaders` (before the limit cuts them)',
);
export type ClassLoaderRow = Static<typeof ClassLoaderRowSchema>;

export const DuplicateClassSchema = Obj(
  {
    className: Type.String(),
    loaders: Type.Array(Type.String({ description: 'label of a loader that defines the class' })),
    instances: Count('instances over all copies'),
  },
  'a class name defined by more than one class loader',
);

export const HeapShareSchema = Obj(
  {
    name: Type.String({ description: '`app`, `zygote`, `image` (as the dump names them), or `default` for objects before its first HEAP DUMP INFO record' }),
    objects: Count('objects of this heap the report covers'),
    shallow: Bytes('their shallow size'),
    shallowPercent: Percent('`shallow` as a percent of `heap.usedHeap` (0..100)'),
  },
  "one Android heap: zygote and image objects are shared with the system's other processes (the zygote's preloaded classes, the boot image), which the app cannot free; the app's own are in `app`",
);
export type HeapShare = Static<typeof HeapShareSchema>;

export const SystemOverviewSchema = Obj({
  file: Obj({
    path: Type.String(),
    size: Bytes('file size on disk'),
    compression: Type.String({ description: '`none`, `gzip` or `chunked-gzip`' }),
  }),
  format: Type.String({ description: 'header text, e.g. `JAVA PROFILE 1.0.2`' }),
  identifierSize: Type.Integer({ minimum: 4, maximum: 8, description: 'bytes per object id (4 or 8)' }),
  compressedOops: Nullable(Type.Boolean({ description: 'compressed references inferred from the dump; null when 4-byte ids' })),
  dumpTime: Nullable(Type.String({ description: 'ISO 8601 UTC, from the header' })),
  dumpIndex: Obj({ index: Count('0-based'), count: Count('heap dumps in the file') }),
  jvmVersion: Nullable(Type.String()),
  systemProperties: Type.Array(Obj({ key: Type.String(), value: Type.String() }), {
    description: 'every system property of the dumped JVM, sorted by key',
  }),
  sizeModel: Obj({
    referenceSize: Type.Integer({ minimum: 1 }),
    objectHeaderSize: Type.Integer({ minimum: 1 }),
    arrayHeaderSize: Type.Integer({ minimum: 1 }),
    alignment: Type.Integer({ minimum: 1 }),
    estimated: Type.Boolean({
      description: 'true when the layout is assumed, not read from the dump (a JVMTI agent dump has no object addresses: every size is an estimate; a Dalvik or early ART dump records no array header: array sizes are estimates)',
    }),
    source: Type.String({ description: 'how the layout was chosen, e.g. `assumed: 32-bit VM layout (ids are not addresses)`' }),
  }),
  heap: Obj({
    usedHeap: Bytes('total shallow size of the objects the report covers; the base of every percentage'),
    objects: Count('objects the report covers (all, or reachable only)'),
    instances: Count(),
    objectArrays: Count(),
    primitiveArrays: Count(),
    classes: Count('class objects'),
    classLoaders: Count('loaders that define a class (the bootstrap loader included) and class loader instances, counted once each: the rows of `classLoaders` before the limit'),
    unreachableObjects: Count('objects no GC root reaches (kept in their own forest unless --reachable-only)'),
    unreachableShallow: Bytes(),
    unreachablePseudoRoots: Count(
      'the pseudo-roots the analysis hangs the unreachable objects from (MAT: "Unreachable" roots with keep-unreachable-objects); not GC roots, not in gcRoots; 0 with --reachable-only',
    ),
  }),
  heaps: Type.Optional(
    Type.Array(HeapShareSchema, {
      description:
        "Android dumps only (absent for a dump without HEAP DUMP INFO records): the heaps the report's objects are in, in the order the dump first names them; the objects and shallow sizes add up to `heap.objects` and `heap.usedHeap`",
    }),
  ),
  reachableOnly: Type.Boolean({ description: 'true when unreachable objects were excluded (--reachable-only)' }),
  gcRoots: Obj(
    {
      total: Count("the dump's GC root records whose object is in the dump (the figure of `heapql summary`)"),
      objects: Count('the distinct objects those records are on (an object may have several)'),
      byKind: Type.Array(KindCountSchema, { description: 'root records by kind, biggest count first; the counts add up to total' }),
    },
    "the dump's GC roots, the same in either mode",
  ),
  classHistogram: Obj({
    classes: Count('classes in the histogram (rows may be fewer)'),
    rows: Type.Array(HistogramRowSchema, { description: 'largest retained first' }),
  }),
  classLoaders: Type.Array(ClassLoaderRowSchema, {
    description: 'largest `retained` first, then largest `loaderRetained`, then by name; may be capped: `heap.classLoaders` is the full count',
  }),
  duplicateClasses: Type.Array(DuplicateClassSchema, { description: 'sorted by class name' }),
});
export type SystemOverview = Static<typeof SystemOverviewSchema>;

// ---------------------------------------------------------------------------------------------
// Leak suspects

/** How the previous step of a path references this object. */
export const ViaSchema = Obj({
  kind: Type.Union(
    [
      Type.Literal('field'),
      Type.Literal('staticField'),
      Type.Literal('arrayElement'),
      Type.Literal('local'),
      Type.Literal('classLoader'),
      Type.Literal('superclass'),
      Type.Literal('other'),
    ],
    { description: 'field: instance field; staticField: static of a class object; local: stack local of a thread' },
  ),
  name: Type.String({ description: 'field name, `[index]` for an array element, frame text for a local' }),
});
export type Via = Static<typeof ViaSchema>;

export const PathStepSchema = Obj({
  object: ObjectRefSchema,
  via: Nullable(ViaSchema),
  shallow: Bytes(),
  retained: Bytes(),
});
export type PathStep = Static<typeof PathStepSchema>;

export const PathToRootSchema = Obj(
  {
    rootKinds: Type.Array(Type.String(), { description: 'GC root kinds of the first step, e.g. `sticky class`, `thread`' }),
    steps: Type.Array(PathStepSchema, { description: 'from the GC root (first, via null) down to the suspect (last)' }),
  },
  'shortest path from a GC root, honouring MAT\'s excludes (Reference.referent and friends)',
);
export type PathToRoot = Static<typeof PathToRootSchema>;

export const ClassBreakdownRowSchema = Obj({
  className: Type.String(),
  objects: Count(),
  shallow: Bytes('summed shallow size of those objects'),
});
export type ClassBreakdownRow = Static<typeof ClassBreakdownRowSchema>;

export const SizedObjectSchema = Obj({
  object: ObjectRefSchema,
  shallow: Bytes(),
  retained: Bytes(),
  retainedPercent: Percent(),
});
export type SizedObject = Static<typeof SizedObjectSchema>;

export const LeakSuspectSchema = Obj({
  rank: Type.Integer({ minimum: 1, description: 'Problem Suspect <rank>; 1 is the biggest' }),
  kind: Type.Union([Type.Literal('single'), Type.Literal('group')], {
    description: 'single: one top-level dominator; group: the top-level instances of one class',
  }),
  subjectKind: Type.Union(
    [Type.Literal('thread'), Type.Literal('class'), Type.Literal('classLoader'), Type.Literal('object'), Type.Literal('instances')],
    { description: 'what the suspect is, for the wording' },
  ),
  title: Type.String({
    description: 'the name a person recognises: a thread by its name, a class by its name, a collection by its owner field (`Demo.cache`)',
  }),
  explanation: Type.String({ description: 'one line: what it is, how much it keeps, where it accumulates' }),
  object: Nullable(ObjectRefSchema),
  className: Type.String({ description: 'class of the suspect object, or of the group' }),
  classLoader: Nullable(Type.String({ description: 'label of the loader of that class' })),
  instances: Count('1 for a single suspect'),
  shallow: Bytes(),
  retained: Bytes(),
  retainedPercent: Percent(),
  accumulationPoint: Nullable(
    Obj({ object: ObjectRefSchema, retained: Bytes(), retainedPercent: Percent() }, 'where the memory piles up (MAT big-drop walk, ratio 0.7)'),
  ),
  pathToRoot: Nullable(PathToRootSchema),
  retainedByClass: Obj({
    rows: Type.Array(ClassBreakdownRowSchema, { description: 'classes of the retained set, biggest shallow first' }),
    classes: Count('classes in the retained set (rows may be fewer)'),
    objects: Count('objects in the retained set'),
  }),
  biggestInstances: Type.Array(SizedObjectSchema, { description: 'group suspects: the biggest instances; empty for single' }),
  keywords: Type.Array(Type.String()),
  heaps: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'Android dumps only (absent for a dump without HEAP DUMP INFO records): the heaps the suspect object (single) or its instances (group) are in, as `overview.heaps` names them; a zygote or image suspect is memory shared with the system, which the app cannot free',
    }),
  ),
});
export type LeakSuspect = Static<typeof LeakSuspectSchema>;

export const LeakSuspectsSchema = Obj({
  thresholdPercent: Type.Number({ minimum: 0, maximum: 100, description: 'a suspect retains more than this (MAT: 10)' }),
  suspects: Type.Array(LeakSuspectSchema, { description: 'by rank; every one (the report\'s limit caps the lists inside a suspect, never the suspects)' }),
});
export type LeakSuspects = Static<typeof LeakSuspectsSchema>;

// ---------------------------------------------------------------------------------------------
// Top consumers

export const ConsumerGroupSchema = Obj({
  name: Type.String(),
  objects: Count('top-level dominators in the group'),
  shallow: Bytes(),
  retained: Bytes(),
  retainedPercent: Percent(),
});
export type ConsumerGroup = Static<typeof ConsumerGroupSchema>;

export const PackageNodeSchema = Obj({
  name: Type.String({ description: 'full dotted prefix, e.g. `com.example.cache`' }),
  parent: Nullable(Type.String({ description: 'name of the parent prefix; null at the top level' })),
  depth: Count('0 at the top level'),
  objects: Count(),
  retained: Bytes(),
  retainedPercent: Percent(),
});
export type PackageNode = Static<typeof PackageNodeSchema>;

export const TopConsumersSchema = Obj({
  thresholdPercent: Type.Number({ minimum: 0, maximum: 100, description: 'entries retain more than this (MAT: 1)' }),
  biggestObjects: Type.Array(SizedObjectSchema),
  biggestClasses: Type.Array(ConsumerGroupSchema),
  biggestClassLoaders: Type.Array(ConsumerGroupSchema),
  biggestPackages: Type.Array(PackageNodeSchema, { description: 'a tree in pre-order; children biggest first' }),
});
export type TopConsumers = Static<typeof TopConsumersSchema>;

// ---------------------------------------------------------------------------------------------
// Threads

export const LocalSchema = Obj(
  { object: ObjectRefSchema, shallow: Bytes(), retained: Bytes() },
  'an object a stack holds; a thread\'s label says it is one: `thread "main"`, `thread (unnamed)`',
);
export type Local = Static<typeof LocalSchema>;

export const StackFrameSchema = Obj({
  depth: Count('0 is the top of the stack'),
  method: Type.String({ description: 'class and method, e.g. `Demo$RequestHandler.awaitNextRequest`' }),
  signature: Nullable(Type.String()),
  source: Nullable(Type.String({ description: '`File.java:123`, `Native Method`, `Unknown Source`' })),
  locals: Type.Array(LocalSchema, { description: 'objects this frame holds, biggest retained first' }),
});
export type StackFrame = Static<typeof StackFrameSchema>;

export const ThreadSchema = Obj({
  object: ObjectRefSchema,
  name: Nullable(Type.String({ description: 'as the dump has it: null when it has none, "" kept (a virtual thread\'s default); the Markdown and HTML reports write both `(unnamed)`' })),
  daemon: Nullable(Type.Boolean({ description: 'a virtual thread: true, by specification (not read from the dump)' })),
  priority: Nullable(Type.Integer({ description: 'a virtual thread: 5 (NORM_PRIORITY), by specification (not read from the dump)' })),
  state: Nullable(
    Type.String({
      description: 'e.g. RUNNABLE, TIMED_WAITING: from threadStatus (holder.threadStatus on JDK 19+); a virtual thread\'s from VirtualThread.state, as Thread.getState() maps it',
    }),
  ),
  contextClassLoader: Nullable(Type.String({ description: 'label of the context class loader' })),
  shallow: Bytes(),
  retained: Bytes('includes objects only its locals hold'),
  retainedPercent: Percent(),
  maxLocalRetained: Bytes('largest retained size among its locals (in frames or not)'),
  frames: Type.Array(StackFrameSchema, { description: 'the top 1024 frames of its stack (as many as the JVM\'s own thread dump shows)' }),
  framesLeftOut: Count('frames below those, not listed (their locals count in maxLocalRetained)'),
  otherLocals: Type.Array(LocalSchema, {
    description: 'objects its stack holds in no frame the dump names (a JNI local of frame -1; every local of a dump without stack traces), biggest retained first',
  }),
});
export type ThreadInfo = Static<typeof ThreadSchema>;

export const ThreadOverviewSchema = Obj({
  threadCount: Count('threads in the dump; `threads` lists at most the report\'s limit of them'),
  threads: Type.Array(ThreadSchema, { description: 'biggest retained first, ties by address; capped by the report\'s limit (every thread without one)' }),
});
export type ThreadOverview = Static<typeof ThreadOverviewSchema>;

// ---------------------------------------------------------------------------------------------
// Beyond MAT

export const DuplicateStringSchema = Obj({
  value: Type.String({ description: 'the text, cut to 200 characters' }),
  truncated: Type.Boolean({ description: 'true when value was cut' }),
  length: Count('length of the full text in characters'),
  count: Type.Integer({ minimum: 2 }),
  wastedBytes: Bytes('(count - 1) × (String shallow + backing array shallow)'),
});
export type DuplicateString = Static<typeof DuplicateStringSchema>;

export const DuplicateStringsSchema = Obj({
  strings: Count('java.lang.String objects'),
  distinct: Count('distinct values'),
  duplicatedValues: Count('values held by two or more strings'),
  wastedBytes: Bytes('over all duplicated values'),
  top: Type.Array(DuplicateStringSchema, { description: 'most wasted bytes first' }),
});
export type DuplicateStrings = Static<typeof DuplicateStringsSchema>;

// ---------------------------------------------------------------------------------------------
// Waste (formulas: docs/report-model.md, "waste")

export const WASTE_CHECKS = [
  'emptyCollections',
  'smallCollections',
  'sparseCollections',
  'sparseArrays',
  'boxedPrimitives',
  'duplicateStrings',
  'duplicateArrays',
  'zeroTailArrays',
  'latin1Strings',
  'pendingFinalization',
] as const;
export type WasteCheck = (typeof WASTE_CHECKS)[number];

export const WasteHolderSchema = Obj(
  {
    kind: Type.Union([Type.Literal('field'), Type.Literal('staticField'), Type.Literal('indirect'), Type.Literal('root'), Type.Literal('unreachable'), Type.Literal('local')], {
      description:
        'field / staticField: the owner field that references them; indirect: the owner dominates them through several paths; root: held from the GC roots; unreachable: garbage the dump still holds; local: a local variable of a frame on one thread\'s stack (one row per thread, named in the label)',
    }),
    owner: Type.String({ description: 'the holding class; for root and unreachable, the class of the topmost container; for local, the thread\'s class' }),
    field: Nullable(Type.String({ description: 'the field name; null for indirect, root, unreachable and local' })),
    label: Type.String({ description: '`com.acme.Cache.entries → java.util.HashMap`' }),
  },
  'the field through which the application keeps the objects (walk up the dominator tree past java.util.* and object arrays)',
);
export type WasteHolder = Static<typeof WasteHolderSchema>;

export const WasteRowSchema = Obj({
  holder: WasteHolderSchema,
  className: Type.String({ description: 'class of the wasteful objects' }),
  objects: Count(),
  overhead: Bytes('bytes wasted by these objects (the check\'s formula)'),
  overheadPercent: Percent(),
  example: ObjectRefSchema,
  heap: Type.Optional(
    Type.String({
      description:
        'Android dumps only (absent for a dump without HEAP DUMP INFO records): the heap these objects are in, as `overview.heaps` names them; a holder whose objects are in several heaps has a row per heap',
    }),
  ),
});
export type WasteRow = Static<typeof WasteRowSchema>;

export const WasteHeapSchema = Obj(
  {
    name: Type.String({ description: 'as `overview.heaps` names it' }),
    objects: Count('wasteful objects of this heap, every check together'),
    overhead: Bytes('their overhead'),
    overheadPercent: Percent('`overhead` as a percent of the used heap (every heap), as the rows\' percentages'),
    reachableOverhead: Bytes('the part of `overhead` in objects a GC root reaches'),
    reachableShallow: Bytes("the shallow sizes of this heap's objects a GC root reaches, wasteful or not: the heap's live bytes"),
    percentOfReachable: Type.Number({
      minimum: 0,
      description:
        "`reachableOverhead` as a percent of `reachableShallow` (0 when that is 0): how much of what this heap's live objects take a change in the code would save. A finding counts in the heap of its own object, also for any part of its overhead in another heap's objects (an empty collection's retained size, a duplicate String's array), so it is not capped at 100",
    }),
  },
  "the waste in one Android heap's objects: zygote and image waste is in memory shared with the system's other processes, which the app cannot free",
);
export type WasteHeap = Static<typeof WasteHeapSchema>;

export const WasteCategorySchema = Obj({
  check: Type.Union(WASTE_CHECKS.map((c) => Type.Literal(c))),
  title: Type.String(),
  rule: Type.String({ description: 'what the check finds and how the overhead is counted' }),
  objects: Count(),
  overhead: Bytes(),
  overheadPercent: Percent(),
  rows: Type.Array(WasteRowSchema, { description: 'by holder, biggest overhead first; capped' }),
  holders: Count('rows before the cap'),
});
export type WasteCategory = Static<typeof WasteCategorySchema>;

export const WasteSchema = Obj({
  usedHeap: Bytes('the base of the percentages'),
  overhead: Bytes('sum over the checks (no object is counted by two checks): reachableOverhead + unreachableOverhead'),
  overheadPercent: Percent(),
  reachableOverhead: Bytes('the part of overhead in objects a GC root reaches: what a change in the code would save (the headline figure)'),
  reachableOverheadPercent: Percent(),
  unreachableOverhead: Bytes(
    'the part of overhead in objects no GC root reaches (garbage the dump still holds, e.g. the GC\'s filler arrays in a dump taken without a collection): the next garbage collection frees it, unless dumpCutShort (then no recorded GC root reaches it); 0 with --reachable-only',
  ),
  unreachableOverheadPercent: Percent(),
  dumpCutShort: Type.Boolean({
    description:
      'true when the dump is cut short: the GC root records written after the cut are missing, so unreachableOverhead is in objects no GC root the dump records reaches, not shown to be garbage',
  }),
  categories: Type.Array(WasteCategorySchema, { description: 'every check, in a fixed order' }),
  heaps: Type.Optional(
    Type.Array(WasteHeapSchema, {
      description:
        'Android dumps only (absent for a dump without HEAP DUMP INFO records): every heap the dump has objects in, in the order it names them, with the waste in its objects; they add up to `overhead` and `reachableOverhead`',
    }),
  ),
  duplicateStrings: DuplicateStringsSchema,
});
export type Waste = Static<typeof WasteSchema>;

export const ReportWarningSchema = Obj({
  source: Type.Union([Type.Literal('dump'), Type.Literal('analysis'), Type.Literal('query'), Type.Literal('viz')]),
  message: Type.String(),
});
export type ReportWarning = Static<typeof ReportWarningSchema>;

// ---------------------------------------------------------------------------------------------

export const ReportModelSchema = Type.Object(
  {
    schemaVersion: Type.Literal(REPORT_SCHEMA_VERSION),
    generator: Obj({ name: Type.Literal('heapql'), version: Type.String() }),
    generatedAt: Type.String({ description: 'ISO 8601; the only field that differs between two runs on one dump' }),
    overview: SystemOverviewSchema,
    leakSuspects: LeakSuspectsSchema,
    topConsumers: TopConsumersSchema,
    threads: ThreadOverviewSchema,
    waste: WasteSchema,
    queries: Type.Array(QueryResultSchema, { description: 'folded-in query results, in the order given' }),
    warnings: Type.Array(ReportWarningSchema, { description: 'non-fatal findings; the CLI prints them on stderr' }),
  },
  {
    $id: 'urn:heapql:schema:report',
    title: 'heapql report',
    additionalProperties: false,
  },
);
export type ReportModel = Static<typeof ReportModelSchema>;

/** `heapql waste <dump> --format json`: the waste section with the report's envelope. */
export const WasteModelSchema = Type.Object(
  {
    schemaVersion: Type.Literal(REPORT_SCHEMA_VERSION),
    generator: Obj({ name: Type.Literal('heapql'), version: Type.String() }),
    generatedAt: Type.String({ description: 'ISO 8601' }),
    file: Obj({ path: Type.String(), size: Bytes() }),
    waste: WasteSchema,
    warnings: Type.Array(ReportWarningSchema),
  },
  { $id: 'urn:heapql:schema:waste', title: 'heapql waste', additionalProperties: false },
);
export type WasteModel = Static<typeof WasteModelSchema>;
