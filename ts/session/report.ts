/**
 * Assembles the report model. Every per-object number comes from the native door in one JSON
 * string (`reportData`: overview, leak suspects, top consumers, threads, waste —
 * computed in Rust, the file facts and dump time included); this file adds the envelope (schema
 * version, generator, time), the dump's warnings and the folded-in query results, and validates
 * the whole against the schema before anyone renders it.
 */
import type { ErrorObject } from 'ajv';

import { HeapqlError } from '../errors.js';
import { call, type NativeHeap } from '../native/index.js';
import { cancelTokenFor } from '../native/cancel.js';
import { VERSION } from '../version.js';
import { describeSchemaErrors, validateReportModel } from '../report/json.js';
import { REPORT_SCHEMA_VERSION, type QueryResult, type ReportModel, type ReportWarning } from '../report/model.js';
import type { HeapSession } from './session.js';
import type { ProgressEvent } from './types.js';

export interface BuildReportOptions {
  /** Query results folded into the report, in this order. */
  queries?: QueryResult[];
  /** Leave objects unreachable from GC roots out (analyzes again when the heap was analyzed otherwise). */
  reachableOnly?: boolean;
  /** Longest list of each section (histogram rows, class loaders, consumers…); default 25. */
  limit?: number;
  /** Duplicate string values shown; default 20. */
  topStrings?: number;
  /** Extra non-fatal findings (e.g. from the query layer) appended after the dump's. */
  warnings?: ReportWarning[];
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
}

/** The report's computed sections, as the native core returns them. */
export type ReportSections = Pick<ReportModel, 'overview' | 'leakSuspects' | 'topConsumers' | 'threads' | 'waste'>;

/** The sections of an analyzed heap (ERR_NEEDS_ANALYSIS before the analysis). */
export async function reportSections(
  handle: NativeHeap,
  options: Pick<BuildReportOptions, 'limit' | 'topStrings' | 'onProgress' | 'signal'>,
): Promise<ReportSections> {
  const { token, dispose } = cancelTokenFor(options.signal);
  try {
    const json = await call(() =>
      handle.reportData(
        { limit: options.limit, topStrings: options.topStrings },
        options.onProgress ? (e) => options.onProgress!(e) : undefined,
        token,
      ),
    );
    return JSON.parse(json) as ReportSections;
  } finally {
    dispose();
  }
}

/** The full report of an opened dump; analyzes it first when needed. */
export async function buildReport(heap: HeapSession, options: BuildReportOptions = {}): Promise<ReportModel> {
  // An analysis in the other mode is kept unless the caller names a mode.
  const mode = options.reachableOnly ?? heap.status.analysis?.reachableOnly ?? false;
  await heap.analyze({ reachableOnly: mode, onProgress: options.onProgress, signal: options.signal });
  const data = await heap.reportData(options);
  const model: ReportModel = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'heapql', version: VERSION },
    generatedAt: new Date().toISOString(),
    overview: data.overview,
    leakSuspects: data.leakSuspects,
    topConsumers: data.topConsumers,
    threads: data.threads,
    waste: data.waste,
    queries: options.queries ?? [],
    warnings: [...dumpWarnings(heap), ...(options.warnings ?? [])],
  };
  checkModel('report', validateReportModel(model));
  return model;
}

/** The dump's own warnings as report warnings. */
export function dumpWarnings(heap: HeapSession): ReportWarning[] {
  return heap.warnings().map((w) => ({
    source: 'dump' as const,
    message: w.offset > 0 ? `${w.message} (at byte ${w.offset})` : w.message,
  }));
}

/** A model that fails its schema is a bug in heapql: ERR_INTERNAL naming every mismatch. */
export function checkModel(what: string, { ok, errors }: { ok: boolean; errors: ErrorObject[] }): void {
  if (ok) return;
  throw new HeapqlError(
    'ERR_INTERNAL',
    `internal error: the ${what} data does not match its schema (a bug in heapql; please report it with the dump's producer and version):\n${describeSchemaErrors(errors)}`,
  );
}
