/**
 * HeapSession: the one place that talks to the addon for an open heap. Every front (the CLI
 * subcommands, the REPL, the report builder, the HTTP server, MCP) opens a dump through it and
 * asks it for queries, plans, the analysis, report data and point look-ups. It holds the state
 * of one analysis (query-only → analyzing → full / failed, the reachable mode, progress,
 * cancellation) and tells subscribers when that changes.
 */
import { statSync } from 'node:fs';

import { HeapqlError } from '../errors.js';
import { compareText } from '../text-order.js';
import { call, callSync, native, type NativeHeap } from '../native/index.js';
import { cancelTokenFor } from '../native/cancel.js';
import type { QueryResult } from '../query/schema.js';
import type { ReportModel, Waste, WasteModel } from '../report/model.js';
import { nextTurn } from './next-turn.js';
import { toClassView, toDominatorView, toObjectView, toPathStep, toReferenceList } from './convert.js';
import { cancelledError, howFar, isCancelled } from './cancelled.js';
import { noClassMessage } from './no-class.js';
import { checkOptionNames, type OptionsOf } from './options.js';
import {
  describeArgument,
  explainPrepared,
  countPrepared,
  preparedFor,
  prepareQuery,
  guardedProgress,
  runPrepared,
  streamBatchesPrepared,
  streamPrepared,
  type PreparedQuery,
  type QueryOptions,
  type PrepareCallOptions,
  type ExplainOptions,
  type CountOptions,
  type RowBatch,
  type RowTotal,
  type StreamedRow,
  type StreamSummary,
} from './query.js';
// The report and waste builders (and the schema validator they load) are imported when first
// used: a one-shot query does not pay for loading them.
import type {
  AnalysisStart,
  BuildReportOptions,
  BuildWasteOptions,
  ReportSections,
  ReportableHeap,
  SectionOptions,
  AnalysisState,
  ClassView,
  DominatorView,
  ObjectView,
  PathStep,
  ProgressEvent,
  ReferenceList,
  SessionEvent,
  SessionStatus,
} from './types.js';

export interface OpenOptions {
  /** Which heap dump of the file, 0-based (a JVMTI agent file can hold several). */
  dump?: number;
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
  /**
   * Read and write the index cache (default false in the library; the CLI turns it on): a dump
   * opened, analyzed or reported once is memory-mapped from the cache by later opens instead
   * of being rebuilt, as long as the file is unchanged.
   */
  cache?: boolean;
  /**
   * The cache's directory (implies `cache: true`); default `HEAPQL_CACHE_DIR`, else
   * `$XDG_CACHE_HOME/heapql`, else `~/.cache/heapql`.
   */
  cacheDir?: string;
  /** The cache's size cap in bytes (default: 20% of its disk's free space); older dumps go first. */
  cacheMax?: number;
  /**
   * Neither read nor write the cache: the same as `cache: false`. With either, `cacheDir` and
   * `cacheMax` are refused (`ERR_ARGUMENT`), as is `cache: true` beside `noCache: true`.
   */
  noCache?: boolean;
  /**
   * Where the big per-object arrays go (the object index; after `analyze()`, the graph, the
   * dominator tree's lists and the paths' parents). `'memory'` (default): in the process,
   * fastest for queries. `'disk'`: in unlinked, memory-mapped scratch files in `scratchDir` or
   * a disk-backed temporary directory; the kernel can write them back and evict them, so a
   * full analysis needs about a third of the memory. Choose `'disk'` before `analyze()`.
   */
  scratch?: 'memory' | 'disk';
  /** Directory for the scratch files (implies `scratch: 'disk'`). */
  scratchDir?: string;
  /** The session's reachable mode for queries (default false: all objects). */
  reachableOnly?: boolean;
}

export interface AnalyzeOptions {
  /** Leave objects unreachable from GC roots out of the dominator tree (default: keep them). */
  reachableOnly?: boolean;
  /**
   * A report follows: the report's pass over every object runs during the analysis, on the
   * core the dominator phase leaves idle, with the own sizes read there, and the next report
   * uses it (default: false).
   */
  forReport?: boolean;
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Aborting it stops this call waiting (ERR_CANCELLED). The analysis itself is cancelled when
   * every caller waiting on it has aborted, unless `startAnalysis()` started it or asked for it
   * while it ran (then only `cancelAnalysis()` stops it): one caller giving up does not fail
   * the others.
   */
  signal?: AbortSignal;
}

export interface ObjectLookupOptions {
  /** First field (array element) shown; default 0. */
  fieldOffset?: number;
  /** Fields shown; default 100. */
  fieldLimit?: number;
}

export type DumpInfo = ReturnType<NativeHeap['info']>;
export type CacheStatus = ReturnType<NativeHeap['cacheStatus']>;
export type DumpWarning = ReturnType<NativeHeap['warnings']>[number];
export type HeapCounts = ReturnType<NativeHeap['counts']>;
export type HistogramRow = ReturnType<NativeHeap['classHistogram']>[number];

/** The class histogram's order: largest shallow size first, then most instances, then by class name as Java orders texts (`compareText`). */
export function histogramOrder(a: HistogramRow, b: HistogramRow): number {
  return b.shallow - a.shallow || b.count - a.count || compareText(a.className, b.className);
}
/** One Android heap (`app`, `zygote`, `image`, `default`) with its objects and their shallow bytes. */
export type HeapShare = ReturnType<NativeHeap['heaps']>[number];
/** Android: the part of an object's retained size in one heap (`retainedByHeap`). */
export interface HeapBytes {
  name: string;
  retained: number;
}

/** The door's form: absent = memory, '' = a directory the core picks, else the directory. */
function scratchOption(options: OpenOptions): string | undefined {
  if (options.scratchDir !== undefined) return options.scratchDir;
  return options.scratch === 'disk' ? '' : undefined;
}

/**
 * Refuses what the addon would take wrongly (its u32 wraps -1 and cuts 1.5) or only much later
 * (a scratch directory that does not exist fails the analysis, not the open).
 */
function checkOpenOptions(path: unknown, options: OpenOptions): void {
  const bad = (message: string) => new HeapqlError('ERR_ARGUMENT', message);
  if (typeof path !== 'string') throw bad(`the dump's path is a string, not ${describeArgument(path)}`);
  if (options === null || typeof options !== 'object') throw bad(`openHeap's options are an object, not ${describeArgument(options)}`);
  checkOptionNames('openHeap', options);
  if (options.dump !== undefined) count('dump', options.dump);
  // A string such as 'no' would otherwise read as true (`cache`) or reach the plans (`reachableOnly`).
  for (const name of ['cache', 'noCache', 'reachableOnly'] as const) optionType(name, options[name], 'boolean', 'true or false');
  optionType('onProgress', options.onProgress, 'function', 'a function');
  signalOption(options.signal);
  if (options.scratch !== undefined && options.scratch !== 'memory' && options.scratch !== 'disk') {
    throw bad(`scratch is 'memory' or 'disk', not ${describeArgument(options.scratch)}`);
  }
  if (options.cacheMax !== undefined && !(Number.isSafeInteger(options.cacheMax) && options.cacheMax > 0)) {
    throw bad(`cacheMax is a size in bytes (a whole number > 0), not ${describeArgument(options.cacheMax)}`);
  }
  // `noCache: true` and `cache: false` are one thing, the cache off: what only the cache heeds
  // would do nothing with it, and `cache: true` beside it says the opposite.
  const off = options.noCache === true ? 'noCache: true' : options.cache === false ? 'cache: false' : undefined;
  if (off !== undefined) {
    if (options.noCache === true && options.cache === true) {
      throw bad('cache: true and noCache: true contradict each other: give one of them');
    }
    for (const name of ['cacheDir', 'cacheMax'] as const) {
      if (options[name] !== undefined) {
        throw bad(`${name} is for the index cache, which ${off} turns off: leave out ${name}, or drop ${off} to use the cache`);
      }
    }
  }
  // Alone it capped nothing (the library's cache is off unless asked for) and said nothing.
  if (options.cacheMax !== undefined && cacheDirOption(options) === undefined) {
    throw bad('cacheMax caps the index cache, which this open does not use: the library reads and writes the cache only with cache: true or a cacheDir');
  }
  for (const [name, dir] of [['scratchDir', options.scratchDir], ['cacheDir', options.cacheDir]] as const) {
    if (dir !== undefined && typeof dir !== 'string') throw bad(`${name} is a directory's path, not ${describeArgument(dir)}`);
  }
  // An empty one (an unset variable) took the default directory without a word.
  if (options.cacheDir === '') throw bad("cacheDir is a directory's path, not '' (cache: true alone takes the default directory)");
  if (options.scratchDir !== undefined && options.scratchDir !== '') {
    let isDir = false;
    try {
      isDir = statSync(options.scratchDir).isDirectory();
    } catch {
      // Reported below.
    }
    if (!isDir) throw bad(`scratchDir ${options.scratchDir} is not a directory: give an existing directory on a disk with room for the scratch files`);
  }
}

/** The door's form: absent = no cache, '' = the default directory, else the directory. */
function cacheDirOption(options: OpenOptions): string | undefined {
  if (options.noCache || options.cache === false) return undefined;
  if (options.cacheDir !== undefined) return options.cacheDir;
  return options.cache ? '' : undefined;
}

interface RunningAnalysis {
  promise: Promise<void>;
  controller: AbortController;
  reachableOnly: boolean;
  /** Callers of `analyze()` waiting on it that have not aborted. */
  waiters: number;
  /** `startAnalysis()` asked for it: it runs on when every waiting caller aborts. */
  detached: boolean;
  /** Its last progress report, also one that trails its end: a cancel says how far it got. */
  last: ProgressEvent | null;
}

/** A `signal` option: absent, or an AbortSignal (by its shape: one of another realm is fine), else ERR_ARGUMENT. */
function signalOption(value: unknown): void {
  if (value === undefined) return;
  const s = value as { aborted?: unknown; addEventListener?: unknown } | null;
  if (typeof s === 'object' && s !== null && typeof s.aborted === 'boolean' && typeof s.addEventListener === 'function') return;
  throw new HeapqlError('ERR_ARGUMENT', `signal is an AbortSignal, not ${describeArgument(value)}`);
}

/** What a check of an option says when the value is of the wrong type. */
function optionType(name: string, value: unknown, type: 'boolean' | 'function', what: string): void {
  if (value !== undefined && typeof value !== type) {
    throw new HeapqlError('ERR_ARGUMENT', `${name} is ${what}, not ${describeArgument(value)}`);
  }
}

/**
 * The options of a query call (`query`, `queryCount`, `explain`, `prepare`, and with `batchRows`
 * the streams), checked before anything reads them: `null` or a signal that is no AbortSignal
 * failed as a TypeError from inside (`signal.addEventListener is not a function`), and
 * `batchRows: 'x'` as an internal error of the addon's conversion. `limit` and `reachableOnly`
 * are checked where the query is planned.
 */
function checkQueryOptions(call: OptionsOf, options: unknown, stream = false): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new HeapqlError('ERR_ARGUMENT', `the query's options are an object, not ${describeArgument(options)}`);
  }
  checkOptionNames(call, options);
  const o = options as QueryOptions & { batchRows?: unknown };
  if (o.name !== undefined && typeof o.name !== 'string') throw new HeapqlError('ERR_ARGUMENT', `name is text, not ${describeArgument(o.name)}`);
  optionType('onProgress', o.onProgress, 'function', 'a function');
  signalOption(o.signal);
  if (o.viz !== undefined && o.viz !== null && (typeof o.viz !== 'object' || Array.isArray(o.viz))) {
    throw new HeapqlError('ERR_ARGUMENT', `viz is a parsed -- @viz directive (an object) or null, not ${describeArgument(o.viz)}`);
  }
  const rows = o.batchRows;
  if (stream && rows !== undefined && !(typeof rows === 'number' && Number.isInteger(rows) && rows >= 1 && rows <= 0xffff_ffff)) {
    throw new HeapqlError('ERR_ARGUMENT', `batchRows must be a whole number from 1 to 4294967295, not ${describeArgument(rows)}`);
  }
}

/** The analysis's options of the wrong type (`reachableOnly: 'yes'` would reach the addon). */
function checkAnalyzeOptions(call: 'analyze' | 'startAnalysis', options: AnalyzeOptions): void {
  if (options === null || typeof options !== 'object') throw new HeapqlError('ERR_ARGUMENT', `the analysis's options are an object, not ${describeArgument(options)}`);
  checkOptionNames(call, options);
  optionType('reachableOnly', options.reachableOnly, 'boolean', 'true or false');
  optionType('forReport', options.forReport, 'boolean', 'true or false');
  optionType('onProgress', options.onProgress, 'function', 'a function');
  signalOption(options.signal);
}

/**
 * The options of the report and waste calls, checked before anything runs: the addon's u32 would
 * take `limit: -1` wrapped and refuse `'x'` only as an internal error, and a wrong value must not
 * cost an analysis first. The report's `queries` and `warnings` are checked by `buildReport`.
 */
function checkSectionOptions(call: 'report' | 'reportData' | 'waste' | 'wasteData', options: unknown): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new HeapqlError('ERR_ARGUMENT', `the options are an object, not ${describeArgument(options)}`);
  }
  checkOptionNames(call, options);
  const o = options as BuildReportOptions;
  for (const name of ['limit', 'topStrings'] as const) if (o[name] !== undefined) count(name, o[name]);
  optionType('reachableOnly', o.reachableOnly, 'boolean', 'true or false');
  optionType('onProgress', o.onProgress, 'function', 'a function');
  signalOption(o.signal);
}

/**
 * Waits for a cancelled analysis to end (`running.promise`, however it ends), or until `signal`
 * aborts (ERR_CANCELLED, for `what`: the new analysis, which did not start): a caller that gives
 * up is not held until the wind-down is over.
 */
function windDown(running: RunningAnalysis, signal: AbortSignal | undefined, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () =>
      reject(new HeapqlError('ERR_CANCELLED', `${what} was cancelled before it started (while the one cancelled before it wound down)`));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    void running.promise
      .catch(() => {})
      .then(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
  });
}

/** A count or limit argument: a whole number from 0 to 2^32 - 1 (the addon's u32), else ERR_ARGUMENT. */
function count(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new HeapqlError('ERR_ARGUMENT', `${name} must be a whole number from 0 to 4294967295, not ${describeArgument(value)}`);
  }
  return value;
}

export class HeapSession implements ReportableHeap {
  readonly path: string;
  /** @internal the native handle; only this module and its helpers use it. */
  readonly handle: NativeHeap;

  private state: AnalysisState = 'query-only';
  private analyzedReachable: boolean | null = null;
  private progress: ProgressEvent | null = null;
  private error: string | null = null;
  private running: RunningAnalysis | null = null;
  /**
   * A `startAnalysis()` that waits for a cancelled analysis to wind down before it starts anew:
   * `cancelAnalysis()` (or `close()`) aborts it, so that no analysis starts after the cancel.
   */
  private pendingStart: AbortController | null = null;
  private listeners = new Set<(event: SessionEvent) => void>();
  private classNameCache: string[] | null = null;
  /** Aborted by `close()`: stops the streams still running. */
  private readonly closed = new AbortController();
  /** The session's reachable mode for queries; `!reachable` / `!all` switch it. */
  reachableOnly: boolean;

  private constructor(path: string, handle: NativeHeap, reachableOnly: boolean) {
    this.path = path;
    this.handle = handle;
    this.reachableOnly = reachableOnly;
  }

  /** Opens a dump and builds its index (the query-only path). */
  static async open(path: string, options: OpenOptions = {}): Promise<HeapSession> {
    checkOpenOptions(path, options);
    const before = options.signal?.aborted === true;
    const { token, dispose } = cancelTokenFor(options.signal);
    // Always listened to: a cancelled open says how far it got (the addon says only "cancelled").
    let last: ProgressEvent | null = null;
    // Progress reaches JavaScript through a queue and may trail the result (a cached open's
    // `verifying cache` reports often all do): those are heard before the open returns, and
    // none is passed on after it.
    let live = true;
    // What the caller's callback throws stops the open and is its error.
    const guarded = options.onProgress ? guardedProgress(options.onProgress, () => token.cancel()) : undefined;
    const onProgress = (e: ProgressEvent) => {
      last = e;
      if (live) guarded?.progress(e);
    };
    try {
      const handle = await call(() =>
        native().openHeap(
          path,
          { dump: options.dump, scratch: scratchOption(options), cacheDir: cacheDirOption(options), cacheMax: options.cacheMax },
          onProgress, token),
      );
      await nextTurn();
      if (guarded?.thrown()) handle.close();
      guarded?.rethrow();
      return new HeapSession(path, handle, options.reachableOnly ?? false);
    } catch (err) {
      guarded?.rethrow();
      if (!isCancelled(err)) throw err;
      // Progress reports queued before the cancel arrive first.
      await nextTurn();
      throw cancelledError(`opening ${path}`, last, { before, cause: err });
    } finally {
      live = false;
      dispose();
    }
  }

  /**
   * What the index cache did (per step: `index`, `analysis`, `report` → `hit`, `written`,
   * `built`) and its warning lines (stale or damaged files rebuilt, files not written).
   */
  cacheStatus(): CacheStatus {
    this.live();
    return callSync(() => this.handle.cacheStatus());
  }

  // ---- state and events ----

  get status(): SessionStatus {
    this.live();
    const info = this.info();
    return {
      path: this.path,
      state: this.state,
      reachableOnly: this.reachableOnly,
      analysis: this.analyzedReachable === null ? null : { reachableOnly: this.analyzedReachable },
      progress: this.progress,
      error: this.error,
      objects: info.objectCount,
      classes: info.classCount,
    };
  }

  /** True once a full analysis has finished (queries may use the full path). */
  get analyzed(): boolean {
    this.live();
    return this.handle.analyzed;
  }

  /**
   * After `close()` every method (and `status`, `analyzed`) throws ERR_CLOSED, as the addon's
   * own calls do, also those that would need nothing of it (a plan, a cached list, a listener).
   */
  private live(): void {
    if (this.closed.signal.aborted) throw new HeapqlError('ERR_CLOSED', 'the heap was closed; open the dump again');
  }

  /**
   * Calls `listener` on every state change and progress report; returns the unsubscribe
   * function. What it throws is an uncaught exception, as from any event handler (`emit`).
   */
  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.live();
    if (typeof listener !== 'function') throw new HeapqlError('ERR_ARGUMENT', `a listener is a function, not ${describeArgument(listener)}`);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Tells every listener. One that throws disturbs neither the others nor the session: thrown
   * into the state change (`analyzing` as an analysis began), it failed the analyze() call and
   * left the state `analyzing` for good, so that a later analyze() joined an analysis that was
   * never running and returned without one. Its error is raised as an event handler's is, an
   * uncaught exception (`process.on('uncaughtException')` hears it).
   */
  private emit(event: SessionEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch (err) {
        process.nextTick(() => {
          throw err;
        });
      }
    }
  }

  private setState(state: AnalysisState): void {
    this.state = state;
    // A closed heap has no status to tell (its listeners were dropped with it).
    if (this.closed.signal.aborted) return;
    this.emit({ type: 'state', status: this.status });
  }

  // ---- the index ----

  info(): DumpInfo {
    this.live();
    return callSync(() => this.handle.info());
  }

  /** Non-fatal findings: a truncated file, skipped unknown records, roots to missing objects. */
  warnings(): DumpWarning[] {
    this.live();
    return callSync(() => this.handle.warnings());
  }

  /**
   * What the full analysis found wrong with the dump: references to ids that are no object
   * in it (they read as null), counted as the object graph is built. Empty before `analyze()`.
   */
  analysisWarnings(): DumpWarning[] {
    this.live();
    return callSync(() => this.handle.analysisWarnings());
  }

  /** Instances and shallow bytes per class, largest shallow size first. */
  classHistogram(): HistogramRow[] {
    this.live();
    const rows = callSync(() => this.handle.classHistogram());
    return rows.sort(histogramOrder);
  }

  /** Object counts by kind, GC roots by kind and the total shallow heap. */
  counts(): HeapCounts {
    this.live();
    return callSync(() => this.handle.counts());
  }

  /**
   * Android: the heaps the dump's objects are in (`app`, `zygote`, `image`; `default` for objects
   * before its first HEAP DUMP INFO), in the order they first appear, each with its objects and
   * their shallow bytes. Empty for a dump that records no heaps (any non-Android dump).
   */
  heaps(): HeapShare[] {
    this.live();
    return callSync(() => this.handle.heaps());
  }

  /** Every class name, sorted, each once (read once per session). */
  classNames(): string[] {
    this.live();
    this.classNameCache ??= [...new Set(callSync(() => this.handle.classNames()))].sort();
    return this.classNameCache;
  }

  /** Class names containing `pattern` (case-insensitive), sorted; all without a pattern. */
  classes(pattern?: string): string[] {
    this.live();
    if (!pattern) return this.classNames();
    const p = pattern.toLowerCase();
    return this.classNames().filter((n) => n.toLowerCase().includes(p));
  }

  /**
   * What every front says of a class name this dump does not have (`describeClass` gave none):
   * `no class named '<name>' in this dump; classes containing '<simple name>': …` (ten at most),
   * or the nearest names (`; did you mean …?`) when no class contains the simple name. The
   * front adds how to search its own way.
   */
  noClassMessage(name: string): string {
    this.live();
    if (typeof name !== 'string') throw new HeapqlError('ERR_ARGUMENT', `a class is named by a string, not ${describeArgument(name)}`);
    return noClassMessage(name, this.classNames());
  }

  // ---- queries ----

  /** Parses and plans a query for the session's current path and mode (throws OQL errors). */
  prepare(text: string, options: PrepareCallOptions = {}): PreparedQuery {
    this.live();
    checkQueryOptions('prepare', options);
    return prepareQuery(text, {
      fullPath: this.analyzed,
      reachableOnly: options.reachableOnly ?? this.reachableOnly,
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.viz !== undefined ? { viz: options.viz } : {}),
    });
  }

  /** Runs one OQL query (text or prepared); full-path features work once analyzed. */
  async query(q: string | PreparedQuery, options: QueryOptions = {}): Promise<QueryResult> {
    this.live();
    checkQueryOptions('query', options);
    return runPrepared(this.handle, preparedFor(this.handle, q, options, this.reachableOnly), options);
  }

  /**
   * Rows as they are produced, keyed by column name; breaking out of the loop stops the scan.
   * The scan waits while the loop does not take rows; `close()` stops it too (an iterator left
   * neither finished nor returned would otherwise hold its worker thread).
   */
  queryStream(q: string | PreparedQuery, options: QueryOptions & { batchRows?: number } = {}): AsyncGenerator<StreamedRow> {
    this.live();
    checkQueryOptions('queryStream', options, true);
    return this.rowStream(q, options);
  }

  private async *rowStream(q: string | PreparedQuery, options: QueryOptions & { batchRows?: number }): AsyncGenerator<StreamedRow> {
    const signal = options.signal ? AbortSignal.any([options.signal, this.closed.signal]) : this.closed.signal;
    try {
      yield* streamPrepared(this.handle, preparedFor(this.handle, q, options, this.reachableOnly), { ...options, signal });
    } catch (err) {
      throw this.closedInstead(err, options.signal);
    }
  }

  /**
   * A stream or a count stopped by `close()` ends with ERR_CLOSED, as `query()` does, not with the
   * ERR_CANCELLED ("the query was cancelled") of the closed signal, which reads as the caller's
   * own abort; an abort of the caller's own signal stays ERR_CANCELLED.
   */
  private closedInstead(err: unknown, own: AbortSignal | undefined): unknown {
    const cancelled = err instanceof HeapqlError && err.code === 'ERR_CANCELLED';
    if (cancelled && this.closed.signal.aborted && !own?.aborted) return new HeapqlError('ERR_CLOSED', 'the heap was closed; open the dump again');
    return err;
  }

  /**
   * `queryStream` a batch at a time: each batch's rows and its columns (typed over that batch
   * alone); the generator's return value (`StreamSummary`) gives the columns typed over every
   * row, the note and whether the row cap cut the result (the row count is the batches'
   * `total`, or `queryCount`'s). `skip` starts at the result's row `skip` (from 0): a plain
   * select seeks there without evaluating the output columns of the rows before it
   * (`streamBatchesPrepared`).
   */
  queryBatches(q: string | PreparedQuery, options: QueryOptions & { batchRows?: number; skip?: number } = {}): AsyncGenerator<RowBatch, StreamSummary> {
    this.live();
    checkQueryOptions('queryBatches', options, true);
    return this.batchStream(q, options);
  }

  private async *batchStream(q: string | PreparedQuery, options: QueryOptions & { batchRows?: number; skip?: number }): AsyncGenerator<RowBatch, StreamSummary> {
    const signal = options.signal ? AbortSignal.any([options.signal, this.closed.signal]) : this.closed.signal;
    try {
      return yield* streamBatchesPrepared(this.handle, preparedFor(this.handle, q, options, this.reachableOnly), { ...options, signal });
    } catch (err) {
      throw this.closedInstead(err, options.signal);
    }
  }

  /**
   * How many rows a query gives (up to its `limit`, and whether more existed), its rows neither
   * described nor kept: a second run of the query that only counts. `signal` cancels it;
   * `onProgress` is told the objects scanned, as by `query`. A
   * reader of the query's stream (`queryBatches`) whose batch says the total (`RowBatch.total`:
   * a query that sorts, groups or removes duplicates has every row before its first) needs none.
   */
  async queryCount(q: string | PreparedQuery, options: CountOptions = {}): Promise<RowTotal> {
    this.live();
    checkQueryOptions('queryCount', options);
    const signal = options.signal ? AbortSignal.any([options.signal, this.closed.signal]) : this.closed.signal;
    try {
      return await countPrepared(this.handle, preparedFor(this.handle, q, options, this.reachableOnly), { signal, onProgress: options.onProgress });
    } catch (err) {
      throw this.closedInstead(err, options.signal);
    }
  }

  /** The execution plan of a query, without running it. */
  explain(q: string | PreparedQuery, options: ExplainOptions = {}): string {
    this.live();
    checkQueryOptions('explain', options);
    return explainPrepared(preparedFor(this.handle, q, options, this.reachableOnly));
  }

  // ---- the full analysis ----

  /**
   * Runs the full analysis (object graph, dominator tree, retained sizes) or joins the one
   * running. Afterwards queries may use `@retainedHeapSize`, `dominators()`, `@inbounds`,
   * `path()` and `AS RETAINED SET`, and the look-ups `referrers`, `pathToRoot`, `dominator`.
   * A finished analysis in the same mode is kept; another mode analyzes again. An aborted
   * `signal` stops this call waiting; the analysis is cancelled only when no caller waits on it
   * any more (see `AnalyzeOptions.signal`). One cancelled by `cancelAnalysis()` that is still
   * winding down is waited for, then a new one starts.
   */
  async analyze(options: AnalyzeOptions = {}): Promise<void> {
    this.live();
    // Checked before anything reads them: `analyze(null)` is ERR_ARGUMENT, not a TypeError.
    checkAnalyzeOptions('analyze', options);
    const reachableOnly = options.reachableOnly ?? false;
    for (;;) {
      const running = this.running;
      if (running) {
        if (running.controller.signal.aborted) {
          // Cancelled, still winding down: it is no analysis to join.
          await windDown(running, options.signal, this.analysisName());
          continue;
        }
        await this.wait(running, options);
        if (running.reachableOnly === reachableOnly) return;
        continue;
      }
      if (this.handle.analyzed && this.analyzedReachable === reachableOnly) return;
      if (options.signal?.aborted) throw cancelledError(this.analysisName(), null, { before: true });
      const started = this.begin(reachableOnly, options.forReport ?? false);
      // One that ended as it began (a file with no heap dump) is not running: its error is the answer.
      if (this.running !== started) await started.promise;
    }
  }

  /**
   * Waits for `running` as one of its callers: relays its progress to `onProgress`, and on an
   * abort of `signal` stops waiting (ERR_CANCELLED). The last caller to stop cancels the
   * analysis, unless `startAnalysis()` asked for it, and sees it wind down.
   */
  private async wait(running: RunningAnalysis, { signal, onProgress }: AnalyzeOptions): Promise<void> {
    if (signal?.aborted) throw cancelledError(this.analysisName(), null, { before: true });
    running.waiters++;
    let waiting = true;
    let stopWaiting = () => {};
    const stopped = new Promise<'stopped'>((resolve) => (stopWaiting = () => resolve('stopped')));
    const onAbort = () => {
      if (!waiting) return;
      waiting = false;
      running.waiters--;
      if (running.waiters === 0 && !running.detached) running.controller.abort();
      else stopWaiting();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // What the caller's callback throws stops this caller waiting, as an abort does, and is its error.
    const guarded = onProgress ? guardedProgress(onProgress, () => onAbort()) : undefined;
    const forward = guarded ? this.subscribe((e) => e.type === 'progress' && e.task === 'analyze' && guarded.progress(e)) : undefined;
    try {
      // Settled either way, so that a caller that stopped waiting leaves no rejection unhandled.
      const outcome = await Promise.race([running.promise.then(() => ({ error: null }), (error: unknown) => ({ error })), stopped]);
      guarded?.rethrow();
      if (outcome === 'stopped') {
        throw new HeapqlError(
          'ERR_CANCELLED',
          `stopped waiting for ${this.analysisName()} (${howFar(running.last)}), which goes on for the others waiting on it`,
          running.last ? { progress: { ...running.last } } : {},
        );
      }
      if (outcome.error !== null) throw outcome.error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      forward?.();
      if (waiting) running.waiters--;
    }
  }

  /**
   * Starts the analysis without waiting (failures show in `status`); for servers. It runs until
   * it ends or `cancelAnalysis()`, whoever else waits on it; one cancelled and still winding
   * down is replaced by a new one once it has.
   */
  startAnalysis(options: Pick<AnalyzeOptions, 'reachableOnly' | 'forReport'> = {}): AnalysisStart {
    this.live();
    checkAnalyzeOptions('startAnalysis', options);
    const reachableOnly = options.reachableOnly ?? false;
    const running = this.running;
    if (running && running.controller.signal.aborted) {
      // Started once the cancelled one has wound down, unless cancelAnalysis() comes first.
      if (this.pendingStart) return 'started';
      const pending = new AbortController();
      this.pendingStart = pending;
      void running.promise
        .catch(() => {})
        .then(() => {
          if (this.pendingStart === pending) this.pendingStart = null;
          if (pending.signal.aborted || this.closed.signal.aborted) return;
          this.startAnalysis(options);
        });
      return 'started';
    }
    if (running) {
      running.detached = true;
      return 'already_running';
    }
    if (this.handle.analyzed && this.analyzedReachable === reachableOnly) return 'already_done';
    this.begin(reachableOnly, options.forReport ?? false, true).promise.catch(() => {});
    return 'started';
  }

  /**
   * Stops a running analysis for every caller waiting on it, and one `startAnalysis()` would
   * start once a cancelled one has wound down; the session stays usable on the query-only path.
   * False when there is none (or it is already being cancelled).
   */
  cancelAnalysis(): boolean {
    this.live();
    return this.cancelRunning();
  }

  private cancelRunning(): boolean {
    const pending = this.pendingStart;
    this.pendingStart = null;
    pending?.abort();
    if (!this.running || this.running.controller.signal.aborted) return pending !== null;
    this.running.controller.abort();
    return true;
  }

  /**
   * Resolves once the analysis running now has ended, however it ends (at once when none
   * runs): after `cancelAnalysis()`, which takes a moment to wind down, the state is then no
   * longer `analyzing` (unless another analysis started meanwhile).
   */
  async analysisSettled(): Promise<void> {
    this.live();
    await this.running?.promise.catch(() => {});
  }

  private begin(reachableOnly: boolean, forReport: boolean, detached = false): RunningAnalysis {
    const controller = new AbortController();
    const { token, dispose } = cancelTokenFor(controller.signal);
    this.progress = null;
    this.error = null;
    // Progress reaches JavaScript through a queue and may trail the end: late reports are dropped.
    let live = true;
    // Running from here on: an analysis that fails before its first await finishes after this.
    const running: RunningAnalysis = { promise: Promise.resolve(), controller, reachableOnly, waiters: 0, detached, last: null };
    this.running = running;
    this.setState('analyzing');
    running.promise = (async () => {
      try {
        // A file with no heap dump record (cut before its heap data, a CPU-sampling hprof file),
        // or whose heap dump holds no object (cut right after the record's header or inside its
        // first sub-record), has no objects: an "analysis" of nothing would report an empty heap
        // with no suspects.
        const info = this.info();
        const nothing =
          info.dumpCount === 0
            ? "holds no heap dump (no HEAP DUMP or HEAP DUMP SEGMENT record; the dump's warnings say where its records end)"
            : info.objectCount === 0
              ? "holds a heap dump with no objects (its heap data ends before the first object is whole; the dump's warnings say where)"
              : null;
        if (nothing !== null) {
          throw new HeapqlError(
            'ERR_NO_SUCH_DUMP',
            `${this.path} ${nothing}: there are no objects to analyze. ` +
              '`heapql summary` shows what the file holds; if it was cut short, copy it again whole or take a new heap dump.',
          );
        }
        const summary = await call(() =>
          this.handle.analyze({ reachableOnly, forReport }, (e) => {
            running.last = e;
            if (!live) return;
            this.progress = e;
            this.emit({ type: 'progress', task: 'analyze', ...e });
          }, token),
        );
        // Let progress reports already queued behind the result arrive first.
        await nextTurn();
        live = false;
        this.analyzedReachable = summary.reachableOnly;
        this.finish(running, 'full', null);
      } catch (err) {
        live = false;
        const cancelled = isCancelled(err);
        if (cancelled) {
          // Progress reports queued before the cancel arrive first: the error says how far it got.
          await nextTurn();
        }
        this.finish(running, this.handle.analyzed ? 'full' : cancelled ? 'query-only' : 'failed', cancelled ? null : (err as Error).message);
        throw cancelled ? cancelledError(this.analysisName(), running.last, { cause: err }) : err;
      } finally {
        live = false;
        dispose();
      }
    })();
    return running;
  }

  /** What a cancelled analysis's error names: `the analysis of <path>`. */
  private analysisName(): string {
    return `the analysis of ${this.path}`;
  }

  private finish(running: RunningAnalysis, state: AnalysisState, error: string | null): void {
    if (this.running !== running) return;
    this.running = null;
    this.progress = null;
    this.error = error;
    this.setState(state);
  }

  // ---- the report ----

  /**
   * The report's computed sections (overview, leak suspects, top consumers, threads,
   * waste); needs the full analysis (ERR_NEEDS_ANALYSIS before).
   */
  async reportData(options: SectionOptions = {}): Promise<ReportSections> {
    this.live();
    checkSectionOptions('reportData', options);
    const { reportSections } = await import('./report.js');
    return this.sectionCall(`computing the report of ${this.path}`, 'report', options, (o) => reportSections(this.handle, o));
  }

  /**
   * The full report (the sections, the given query results, the dump's warnings) as the
   * validated report model; analyzes the dump first when needed.
   */
  async report(options: BuildReportOptions = {}): Promise<ReportModel> {
    this.live();
    checkSectionOptions('report', options);
    const { buildReport } = await import('./report.js');
    return buildReport(this, options);
  }

  /** The waste section (docs/report-model.md, "waste"); needs the full analysis (ERR_NEEDS_ANALYSIS before). */
  async wasteData(options: SectionOptions = {}): Promise<Waste> {
    this.live();
    checkSectionOptions('wasteData', options);
    const { wasteSection } = await import('./waste.js');
    return this.sectionCall(`computing the waste checks of ${this.path}`, 'waste', options, (o) => wasteSection(this.handle, o));
  }

  /**
   * Runs a report or waste computation with its progress also told to the session's subscribers
   * (as `task`); cancelled, it says what (`what`) and how far it got, as the analysis does.
   */
  private async sectionCall<T>(what: string, task: 'report' | 'waste', options: SectionOptions, run: (options: SectionOptions) => Promise<T>): Promise<T> {
    const before = options.signal?.aborted === true;
    let last: ProgressEvent | null = null;
    // Reports queued behind the result are heard before it is returned, none after (as `open`).
    let live = true;
    // What the caller's callback throws stops the computation and is its error.
    const stop = new AbortController();
    const guarded = options.onProgress ? guardedProgress(options.onProgress, () => stop.abort()) : undefined;
    const relayed: SectionOptions = {
      ...options,
      ...(guarded ? { signal: options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal } : {}),
      onProgress: (e) => {
        last = e;
        if (!live) return;
        guarded?.progress(e);
        this.emit({ type: 'progress', task, ...e });
      },
    };
    try {
      const result = await run(relayed);
      await nextTurn();
      guarded?.rethrow();
      return result;
    } catch (err) {
      guarded?.rethrow();
      if (!isCancelled(err)) throw err;
      await nextTurn();
      throw cancelledError(what, last, { before, cause: err });
    } finally {
      live = false;
    }
  }

  /** The waste checks as the validated waste model (`heapql waste`); analyzes the dump first when needed. */
  async waste(options: BuildWasteOptions = {}): Promise<WasteModel> {
    this.live();
    checkSectionOptions('waste', options);
    const { buildWaste } = await import('./waste.js');
    return buildWaste(this, options);
  }

  // ---- point look-ups (each reads one object or class; no heap scan) ----

  /** One object: class, address, sizes, GC roots, and its fields with names, types and values. */
  async object(objectId: number, options: ObjectLookupOptions = {}): Promise<ObjectView> {
    this.live();
    const id = this.objectIndex(objectId);
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw new HeapqlError('ERR_ARGUMENT', `the look-up's options are an object ({fieldOffset, fieldLimit}), not ${describeArgument(options)}`);
    }
    checkOptionNames('object', options);
    const fieldOffset = options.fieldOffset === undefined ? undefined : count('fieldOffset', options.fieldOffset);
    const fieldLimit = options.fieldLimit === undefined ? undefined : count('fieldLimit', options.fieldLimit);
    return toObjectView(await call(() => this.handle.object(id, { fieldOffset, fieldLimit })));
  }

  /** The objects `objectId` refers to (its class object first), with the holding field. */
  async referents(objectId: number, limit = 25): Promise<ReferenceList> {
    this.live();
    const id = this.objectIndex(objectId);
    const n = count('limit', limit);
    return toReferenceList(await call(() => this.handle.referents(id, n)));
  }

  /** The objects that refer to `objectId`, with the field of each; needs the full analysis. */
  async referrers(objectId: number, limit = 25): Promise<ReferenceList> {
    this.live();
    const id = this.objectIndex(objectId);
    const n = count('limit', limit);
    return toReferenceList(await call(() => this.handle.referrers(id, n)));
  }

  /**
   * A shortest path from a GC root to the object (root first); null if it hangs off none. A
   * path longer than `maxSteps` (default 100; below 2 it is 2, the root and the object) keeps its first and last halves, and the step
   * after the gap has `skipped` > 0. Needs the full analysis.
   */
  async pathToRoot(objectId: number, maxSteps = 100): Promise<PathStep[] | null> {
    this.live();
    const id = this.objectIndex(objectId);
    const n = count('maxSteps', maxSteps);
    const steps = await call(() => this.handle.pathToRoot(id, n));
    return steps ? steps.map(toPathStep) : null;
  }

  /** The immediate dominator and the `limit` biggest dominated objects; needs the full analysis. */
  async dominator(objectId: number, limit = 10): Promise<DominatorView> {
    this.live();
    const id = this.objectIndex(objectId);
    const n = count('limit', limit);
    return toDominatorView(await call(() => this.handle.dominatorOf(id, n)));
  }

  /**
   * Android: the retained size of each object split by heap — for each, the shallow sizes of
   * the objects it retains (itself included) summed per heap they are in, the heaps with bytes
   * in the order `heaps()` lists them. One list per object, in the order given; empty lists on
   * a dump that records no heaps and for an object outside the dominator tree. One walk of the
   * objects' dominator subtrees in Rust (a subtree nested in another's is walked once); needs
   * the full analysis.
   */
  async retainedByHeap(objectIds: number[]): Promise<HeapBytes[][]> {
    this.live();
    if (!Array.isArray(objectIds)) throw new HeapqlError('ERR_ARGUMENT', `objects are given as an array of object ids, not ${describeArgument(objectIds)}`);
    const ids = objectIds.map((o) => this.objectIndex(o));
    return call(() => this.handle.retainedByHeap(ids));
  }

  /** Every class of this name (one per defining class loader); empty when there is none. */
  async describeClass(name: string): Promise<ClassView[]> {
    this.live();
    if (typeof name !== 'string') throw new HeapqlError('ERR_ARGUMENT', `a class is named by a string, not ${describeArgument(name)}`);
    return (await call(() => this.handle.describeClass(name))).map(toClassView);
  }

  /** The object at an address (`0x…`), or null. */
  objectAt(address: string): number | null {
    this.live();
    return callSync(() => this.handle.objectAt(address)) ?? null;
  }

  /**
   * An object named the way people write it: `123` or `#123` (object index), `0x7f…` (address),
   * or `<class>#<index>` (the class is checked). Throws ERR_NO_SUCH_OBJECT with what to do, and
   * ERR_ARGUMENT for what is none of these: the index is digits right after the `#` (not
   * `#-1`, `#+5`, `# 5`, `#0x5`), and the class part has no `#` or white space (`$`, `.`, `[]`
   * and any letters are fine).
   */
  resolveObject(spec: string): number {
    this.live();
    if (typeof spec !== 'string') throw new HeapqlError('ERR_ARGUMENT', `an object is named by a string, not ${describeArgument(spec)}`);
    const text = spec.trim();
    if (/^0x[0-9a-f]+$/i.test(text)) {
      const at = this.objectAt(text);
      if (at === null) throw new HeapqlError('ERR_NO_SUCH_OBJECT', `no object at address ${text}`);
      return at;
    }
    const m = /^(?:([^#\s]*)#)?(\d+)$/.exec(text);
    if (!m) {
      throw new HeapqlError('ERR_ARGUMENT', `'${spec}' names no object: write <class>#<index>, #<index> or an address 0x…`);
    }
    const objectId = this.objectIndex(Number(m[2]), m[2]);
    const className = m[1] ?? '';
    if (className !== '') {
      const actual = callSync(() => this.handle.describe(Uint32Array.of(objectId))).classNames[0]!;
      if (actual !== className) {
        throw new HeapqlError('ERR_NO_SUCH_OBJECT', `object ${objectId} is a ${actual}, not a ${className} (write ${actual}#${objectId})`);
      }
    }
    return objectId;
  }

  /**
   * `objectId` checked before it reaches the addon, whose conversion to u32 would silently
   * wrap 2^32 + n to n and cut 1.5 to 1: a whole number below the object count, else
   * ERR_NO_SUCH_OBJECT (ERR_ARGUMENT for what is not a whole number at all).
   */
  private objectIndex(objectId: unknown, written: string = String(objectId)): number {
    if (typeof objectId !== 'number' || !Number.isInteger(objectId)) {
      throw new HeapqlError('ERR_ARGUMENT', `an object id is a whole number (the object's index from 0), not ${typeof objectId === 'string' ? `'${objectId}'` : written}`);
    }
    const objects = this.info().objectCount;
    if (objectId < 0 || objectId >= objects) {
      const has = objects === 0 ? 'the heap has no objects' : `the heap has objects 0 to ${objects - 1}`;
      throw new HeapqlError('ERR_NO_SUCH_OBJECT', `object ${written} does not exist (${has})`);
    }
    return objectId;
  }

  /** Releases the index and the mapping (a running analysis is cancelled first). */
  close(): void {
    this.closed.abort();
    this.listeners.clear();
    this.cancelRunning();
    this.handle.close();
  }
}

/** Opens a dump and builds its index (query-only path). */
export function openHeap(path: string, options: OpenOptions = {}): Promise<HeapSession> {
  return HeapSession.open(path, options);
}
