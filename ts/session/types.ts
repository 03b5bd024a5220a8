/**
 * The session core's public types: its state, its events, and the shapes of point look-ups.
 * Fronts (CLI, REPL, HTTP server, MCP) code against these; none of them is the addon's own type.
 */
import type { ObjectRef, Value } from '../query/schema.js';
import type { QueryResult, ReportModel, ReportWarning, Waste } from '../report/model.js';

/** One progress report of a long native call. */
export interface ProgressEvent {
  /** What runs now (`index`, `graph`, `dominators`, `retained`, `report`…). */
  phase: string;
  done: number;
  total: number;
}

/**
 * Where a session's analysis stands:
 * - `query-only`: the index is built; OQL without full-path features works.
 * - `analyzing`: the full analysis runs (queries keep working on the query-only path).
 * - `full`: the object graph, dominator tree and retained sizes are there.
 * - `failed`: the last analysis failed (see `SessionStatus.error`); queries stay on the query-only path.
 * A cancelled analysis returns to `query-only` (or stays `full` when an earlier one finished).
 */
export type AnalysisState = 'query-only' | 'analyzing' | 'full' | 'failed';

export interface SessionStatus {
  /** The dump's path as opened. */
  path: string;
  state: AnalysisState;
  /** Queries see only objects reachable from GC roots unless they say otherwise (`!reachable`/`!all`). */
  reachableOnly: boolean;
  /** The finished analysis's mode (null before one finished). */
  analysis: { reachableOnly: boolean } | null;
  /** The running analysis's latest progress (null unless `analyzing`). */
  progress: ProgressEvent | null;
  /** Why the last analysis failed (null unless `failed`). */
  error: string | null;
  objects: number;
  classes: number;
}

/** What a session reports to its subscribers. */
export type SessionEvent =
  | { type: 'state'; status: SessionStatus }
  | ({ type: 'progress'; task: 'analyze' | 'report' | 'waste' } & ProgressEvent);

/** Result of `startAnalysis()` (the server's POST /analyze answers with it). */
export type AnalysisStart = 'started' | 'already_running' | 'already_done';

/** One field of an object (an array element `[i]`, a static of a class object). */
export interface FieldView {
  name: string;
  /** `object`, `int`, `long`, `boolean`, … (HPROF records the basic type only). */
  type: string;
  /** The declaring class; null for array elements. */
  declaredBy: string | null;
  /**
   * The value: null, boolean, number, an object reference, or a string (a char, a long beyond
   * 2^53, a dangling reference as `0x… (not in the dump)`). Null for `describeClass` fields.
   */
  value: Value;
}

export type ObjectKind = 'instance' | 'object-array' | 'primitive-array' | 'class';

/** One object: what `!obj` shows. */
export interface ObjectView {
  object: ObjectRef;
  kind: ObjectKind;
  shallowSize: number;
  /** After the full analysis only, and only for an object in the dominator tree: null for an unreachable one when the analysis left those out (`reachable` false). */
  retainedSize: number | null;
  /** After the full analysis only: reachable from a GC root. */
  reachable: boolean | null;
  arrayLength: number | null;
  /** For a class object: the class it describes. */
  describedClass: string | null;
  /** The kinds of GC root records that name this object. */
  gcRoots: string[];
  /** Android: the heap the object is in (`app`, `zygote`, `image`); null for a dump that records no heaps. */
  heap: string | null;
  /** The window of fields asked for (default the first 100). */
  fields: FieldView[];
  /** Fields (array elements, statics) in all. */
  fieldCount: number;
  /** An array dumped without its contents (Android PRIMITIVE ARRAY NODATA): no elements listed, `fieldCount` 0. */
  contentsMissing: boolean;
}

/** A reference between two objects and the field that holds it. */
export interface ReferenceView {
  /** The other object; null for a reference to an id that is not in the dump. */
  object: ObjectRef | null;
  address: string;
  /** `next`, `[3]`, `<class>`, a static's name, `<super>`, `<classloader>`. */
  field: string;
}

export interface ReferenceList {
  items: ReferenceView[];
  /** References in all (`items` holds the first `limit`). */
  total: number;
}

/** One step of a path from a GC root: the object and how it is reached. */
export interface PathStep {
  object: ObjectRef;
  /** For the first step the GC root kinds (`System Class`, `Thread`…), then the referrer's field. */
  via: string;
  /** Steps of a long path left out just before this one (0 for none; see `pathToRoot`). */
  skipped: number;
}

export interface DominatedView {
  object: ObjectRef;
  retainedSize: number;
  shallowSize: number;
}

/**
 * Why an object of the dominator tree has only the virtual root above it: a GC root of the
 * analysis, reachable through more than one GC root (no object lies on every path to it), or
 * unreachable (a pseudo-root of its own tree).
 */
export type TopOfTree = 'root' | 'shared' | 'unreachable';

/** Where an object sits in the dominator tree: what `!dom` shows. */
export interface DominatorView {
  object: ObjectRef;
  /** Null for an object outside the tree (`inTree` false). */
  retainedSize: number | null;
  /** The immediate dominator; null for a GC root (or an object outside the tree). */
  dominator: ObjectRef | null;
  /** False for an unreachable object when the analysis left those out. */
  inTree: boolean;
  /** Why an object of the tree has no dominator; null when it has one or is outside the tree. */
  top: TopOfTree | null;
  /** The biggest dominated objects, biggest retained size first. */
  children: DominatedView[];
  childCount: number;
}

/** One class: what `!describe` shows. */
export interface ClassView {
  name: string;
  classObject: ObjectRef;
  /** Superclass names, nearest first. */
  superChain: string[];
  /** Instance fields in layout order (own first, then inherited); `value` is null. */
  fields: FieldView[];
  statics: FieldView[];
  instanceSize: number;
  /** Instances of exactly this class, and their shallow bytes. */
  instances: number;
  instanceBytes: number;
  /** Instances of this class and all its subclasses. */
  instancesWithSubclasses: number;
  subclasses: number;
  /** The class loader's address (`0x0` = the bootstrap loader). */
  loader: string;
}

/** Options of the report's and the waste checks' native section calls. */
export interface SectionOptions {
  /** Longest list of each section, the threads included (ts/report/limit.ts); default 25 rows, every thread. */
  limit?: number;
  /** Duplicate string values shown; default `limit` when it is given, else 20. */
  topStrings?: number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

/** The report's computed sections, as the native core returns them. */
export type ReportSections = Pick<ReportModel, 'overview' | 'leakSuspects' | 'topConsumers' | 'threads' | 'waste'>;

export interface BuildReportOptions extends SectionOptions {
  /** Query results folded into the report, in this order. */
  queries?: QueryResult[];
  /** Leave objects unreachable from GC roots out (analyzes again when the heap was analyzed otherwise). */
  reachableOnly?: boolean;
  /** Longest list of each section (histogram rows, class loaders, consumers…); default 25. */
  limit?: number;
  /** Extra non-fatal findings (e.g. from the query layer) appended after the dump's. */
  warnings?: ReportWarning[];
}

export interface BuildWasteOptions extends SectionOptions {
  /** Leave objects unreachable from GC roots out (analyzes again when the heap was analyzed otherwise). */
  reachableOnly?: boolean;
  /** Holder rows shown per check; default 25. */
  limit?: number;
  /** Duplicate string values shown; default 20 (`limit` counts holder rows only here). */
  topStrings?: number;
}

/**
 * What the report and waste builders ask of a session (a `HeapSession` is one); named here so
 * those builders, which the session loads on first use, do not import the session back.
 */
export interface ReportableHeap {
  readonly status: SessionStatus;
  info(): { path: string; fileSize: number };
  warnings(): { message: string; offset: number }[];
  /** What the full analysis found wrong with the dump (none before it). */
  analysisWarnings(): { message: string; offset: number }[];
  analyze(options: { reachableOnly?: boolean; forReport?: boolean; onProgress?: (event: ProgressEvent) => void; signal?: AbortSignal }): Promise<void>;
  reportData(options: SectionOptions): Promise<ReportSections>;
  wasteData(options: SectionOptions): Promise<Waste>;
}
