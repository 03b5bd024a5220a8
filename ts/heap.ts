/**
 * The library's heap: opening a dump (the query-only index) and what can be read from it.
 * Everything per object happens in the native addon; this class holds the handle and turns
 * options, progress and AbortSignals into what the door expects.
 */
import { call, callSync, native } from './native/index.js';
import { cancelTokenFor } from './native/cancel.js';
import type { NativeHeap } from './native/index.js';
import { explainQuery, runQuery, streamQuery, type QueryOptions, type StreamedRow } from './query/session.js';
import type { QueryResult } from './query/schema.js';
import { buildReport, type BuildReportOptions } from './report/build.js';
import type { ReportModel, WasteModel } from './report/model.js';
import { buildWaste, type BuildWasteOptions } from './report/waste.js';

export interface ProgressEvent {
  phase: string;
  done: number;
  total: number;
}

export interface OpenOptions {
  /** Which heap dump of the file, 0-based (a JVMTI agent file can hold several). */
  dump?: number;
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
  /** Do not read or write the index cache (accepted now; the cache comes later). */
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
}

/** The door's form: absent = memory, '' = a directory the core picks, else the directory. */
function scratchOption(options: OpenOptions): string | undefined {
  if (options.scratchDir !== undefined) return options.scratchDir;
  return options.scratch === 'disk' ? '' : undefined;
}

export type DumpInfo = ReturnType<NativeHeap['info']>;
export type DumpWarning = ReturnType<NativeHeap['warnings']>[number];
export interface AnalyzeOptions {
  /** Leave objects unreachable from GC roots out of the dominator tree (default: keep them). */
  reachableOnly?: boolean;
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
}

export type HeapCounts = ReturnType<NativeHeap['counts']>;
export type HistogramRow = ReturnType<NativeHeap['classHistogram']>[number];

export class Heap {
  readonly path: string;
  /** @internal the native handle; only the query and analysis layers use it. */
  readonly handle: NativeHeap;

  private constructor(path: string, handle: NativeHeap) {
    this.path = path;
    this.handle = handle;
  }

  /** @internal use openHeap(). */
  static async open(path: string, options: OpenOptions = {}): Promise<Heap> {
    const { token, dispose } = cancelTokenFor(options.signal);
    try {
      const handle = await call(() =>
        native().openHeap(path, { dump: options.dump, scratch: scratchOption(options) }, options.onProgress ? (e) => options.onProgress!(e) : undefined, token),
      );
      return new Heap(path, handle);
    } finally {
      dispose();
    }
  }

  info(): DumpInfo {
    return callSync(() => this.handle.info());
  }

  /** Non-fatal findings: a truncated file, skipped unknown records, roots to missing objects. */
  warnings(): DumpWarning[] {
    return callSync(() => this.handle.warnings());
  }

  /** Instances and shallow bytes per class, largest shallow size first. */
  classHistogram(): HistogramRow[] {
    const rows = callSync(() => this.handle.classHistogram());
    return rows.sort((a, b) => b.shallow - a.shallow || b.count - a.count || a.className.localeCompare(b.className));
  }

  /** Object counts by kind, GC roots by kind and the total shallow heap. */
  counts(): HeapCounts {
    return callSync(() => this.handle.counts());
  }

  classNames(): string[] {
    return callSync(() => this.handle.classNames());
  }

  /** Runs one OQL query. Full-path features work after `analyze()`. */
  query(oql: string, options: QueryOptions = {}): Promise<QueryResult> {
    return runQuery(this.handle, oql, options);
  }

  /** Rows as they are produced, keyed by column name; breaking out of the loop stops the scan. */
  queryStream(oql: string, options: QueryOptions & { batchRows?: number } = {}): AsyncGenerator<StreamedRow> {
    return streamQuery(this.handle, oql, options);
  }

  /** The execution plan of a query, without running it. */
  explain(oql: string, options: QueryOptions = {}): string {
    return explainQuery(this.handle, oql, options);
  }

  /** True once `analyze()` has finished. */
  get analyzed(): boolean {
    return this.handle.analyzed;
  }

  /**
   * The full analysis: object graph, dominator tree, retained sizes. Afterwards queries may use
   * `@retainedHeapSize`, `dominators()`, `@inbounds`, `path()` and `AS RETAINED SET`.
   */
  async analyze(options: AnalyzeOptions = {}): Promise<void> {
    const { token, dispose } = cancelTokenFor(options.signal);
    try {
      await call(() =>
        this.handle.analyze(
          { reachableOnly: options.reachableOnly ?? false },
          options.onProgress ? (e) => options.onProgress!(e) : undefined,
          token,
        ),
      );
    } finally {
      dispose();
    }
  }

  /**
   * The full report (overview, leak suspects, top consumers, threads, waste, the
   * given query results) as the validated report model; analyzes the dump first when needed.
   */
  report(options: BuildReportOptions = {}): Promise<ReportModel> {
    return buildReport(this, options);
  }

  /** The waste checks (docs/report-model.md, "waste") as the validated waste model; analyzes first when needed. */
  waste(options: BuildWasteOptions = {}): Promise<WasteModel> {
    return buildWaste(this, options);
  }

  close(): void {
    this.handle.close();
  }
}

/** Opens a dump and builds its index (query-only path). */
export function openHeap(path: string, options: OpenOptions = {}): Promise<Heap> {
  return Heap.open(path, options);
}
