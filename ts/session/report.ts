/**
 * Assembles the report model. Every per-object number comes from the native door in one JSON
 * string (`reportData`: overview, leak suspects, top consumers, threads, waste —
 * computed in Rust, the file facts and dump time included); this file adds the envelope (schema
 * version, generator, time), the dump's warnings and the folded-in query results, and validates
 * the whole against the schema before anyone renders it.
 */
import type { ErrorObject } from 'ajv';

import { HeapqlError } from '../errors.js';
import { call, type Addon, type NativeHeap } from '../native/index.js';
import { cancelTokenFor } from '../native/cancel.js';
import { VERSION } from '../version.js';
import { validateQueryResult } from '../query/validate.js';
import { describeSchemaErrors, validateReportModel } from '../report/json.js';
import { capSections } from '../report/limit.js';
import { REPORT_SCHEMA_VERSION, type ReportModel, type ReportWarning } from '../report/model.js';
import { describeArgument } from './query.js';
import type { BuildReportOptions, ProgressEvent, ReportableHeap, ReportSections, SectionOptions } from './types.js';

type CancelToken = InstanceType<Addon['CancelToken']>;

/** The sections as the native core writes them: the threads all listed, with no count. */
type NativeSections = Omit<ReportSections, 'threads'> & { threads: Omit<ReportSections['threads'], 'threadCount'> };

/**
 * The sections of an analyzed heap (ERR_NEEDS_ANALYSIS before the analysis), every list capped
 * at `options.limit` as ts/report/limit.ts says (the core leaves the threads whole: they are
 * counted, then capped here); the duplicate string values at `topStrings`, else at `limit`.
 */
export async function reportSections(handle: NativeHeap, options: SectionOptions): Promise<ReportSections> {
  const topStrings = options.topStrings ?? options.limit;
  const s = await sectionJson<NativeSections>({ ...options, topStrings }, (limits, onProgress, token) => handle.reportData(limits, onProgress, token));
  const sections: ReportSections = { ...s, threads: { threadCount: s.threads.threads.length, threads: s.threads.threads } };
  return capSections(sections, options.limit, topStrings);
}

type NativeProgress = ((e: ProgressEvent) => void) | undefined;

/**
 * One of the door's JSON sections (the report's, the waste checks'), cancelled by
 * `options.signal`; its errors are translated like every addon call's.
 */
export async function sectionJson<T>(
  options: SectionOptions,
  fetch: (limits: { limit?: number; topStrings?: number }, onProgress: NativeProgress, token: CancelToken) => string | Promise<string>,
): Promise<T> {
  const { token, dispose } = cancelTokenFor(options.signal);
  try {
    const onProgress: NativeProgress = options.onProgress ? (e) => options.onProgress!(e) : undefined;
    const json = await call(() => fetch({ limit: options.limit, topStrings: options.topStrings }, onProgress, token));
    return JSON.parse(json) as T;
  } finally {
    dispose();
  }
}

/**
 * Analyzes the heap for a report or the waste checks when needed: in the mode the caller names,
 * else in the mode of the analysis already there (it is kept), else with every object.
 * `forReport`: the full report follows (its object pass, with the waste checks' first step, is made
 * during the analysis).
 */
export async function analyzeForReport(heap: ReportableHeap, options: Pick<BuildReportOptions, 'reachableOnly' | 'onProgress' | 'signal'>, forReport = false): Promise<void> {
  const mode = options.reachableOnly ?? heap.status.analysis?.reachableOnly ?? false;
  await heap.analyze({ reachableOnly: mode, forReport, onProgress: options.onProgress, signal: options.signal });
}

/** The head every model the report builders write starts with. */
export function modelHeader(): Pick<ReportModel, 'schemaVersion' | 'generator' | 'generatedAt'> {
  return { schemaVersion: REPORT_SCHEMA_VERSION, generator: { name: 'heapql', version: VERSION }, generatedAt: new Date().toISOString() };
}

/**
 * The report's `queries` and `warnings`, checked before the analysis: a value of the wrong shape
 * is the caller's error (ERR_ARGUMENT naming it), not a model heapql built wrong (ERR_INTERNAL).
 */
function checkReportInputs(options: BuildReportOptions): void {
  const list = (name: string, value: unknown, takes: string, problem: (item: object) => string | null) => {
    if (value === undefined) return;
    const bad = (detail: string) => new HeapqlError('ERR_ARGUMENT', `${name} is an array of ${takes}${detail}`);
    if (!Array.isArray(value)) throw bad(`, not ${describeArgument(value)}`);
    for (const [i, item] of (value as unknown[]).entries()) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) throw bad(`; ${name}[${i}] is ${describeArgument(item)}`);
      const wrong = problem(item);
      if (wrong !== null) throw bad(`; ${name}[${i}] is no ${wrong}`);
    }
  };
  list('queries', options.queries, 'query results (QueryResult: what heap.query() returns)', (q) => {
    const { ok, errors } = validateQueryResult(q);
    return ok ? null : `query result: ${describeSchemaErrors(errors.slice(0, 1)).trim()}`;
  });
  list('warnings', options.warnings, `{source, message} (source ${WARNING_SOURCES.map((w) => `'${w}'`).join(', ')})`, (w) => {
    const { source, message, ...rest } = w as Record<string, unknown>;
    if (!WARNING_SOURCES.includes(source as ReportWarning['source'])) return `warning: /source must be equal to one of ${WARNING_SOURCES.join(', ')}, not ${describeArgument(source)}`;
    if (typeof message !== 'string') return `warning: /message must be a string, not ${describeArgument(message)}`;
    const extra = Object.keys(rest);
    return extra.length ? `warning: it has ${extra.map((k) => `'${k}'`).join(', ')} besides source and message` : null;
  });
}

/**
 * The options of `reportData()` / `wasteData()` of a report's or the waste model's: those calls
 * refuse the options they do not take (`queries`, `warnings`, `reachableOnly`).
 */
export function sectionOptions(options: SectionOptions): SectionOptions {
  const { limit, topStrings, signal, onProgress } = options;
  return {
    ...(limit !== undefined ? { limit } : {}),
    ...(topStrings !== undefined ? { topStrings } : {}),
    ...(signal !== undefined ? { signal } : {}),
    ...(onProgress !== undefined ? { onProgress } : {}),
  };
}

const WARNING_SOURCES: ReportWarning['source'][] = ['dump', 'analysis', 'query', 'viz'];

/** The full report of an opened dump; analyzes it first when needed. */
export async function buildReport(heap: ReportableHeap, options: BuildReportOptions = {}): Promise<ReportModel> {
  checkReportInputs(options);
  await analyzeForReport(heap, options, true);
  const data = await heap.reportData(sectionOptions(options));
  const model: ReportModel = {
    ...modelHeader(),
    overview: data.overview,
    leakSuspects: data.leakSuspects,
    topConsumers: data.topConsumers,
    threads: data.threads,
    waste: data.waste,
    queries: options.queries ?? [],
    warnings: [...dumpWarnings(heap), ...analysisWarnings(heap), ...(options.warnings ?? [])],
  };
  checkModel('report', validateReportModel(model));
  return model;
}

/** The dump's own warnings as report warnings. */
export function dumpWarnings(heap: ReportableHeap): ReportWarning[] {
  return heap.warnings().map((w) => ({
    source: 'dump' as const,
    // The offset is added unless the message names it already (as the CLI's stderr does).
    message: w.offset > 0 && !/offset/i.test(w.message) ? `${w.message} (at byte ${w.offset})` : w.message,
  }));
}

/** What the full analysis found wrong with the dump, as report warnings (they name their offset). */
export function analysisWarnings(heap: ReportableHeap): ReportWarning[] {
  return heap.analysisWarnings().map((w) => ({ source: 'analysis' as const, message: w.message }));
}

/** A model that fails its schema is a bug in heapql: ERR_INTERNAL naming every mismatch. */
export function checkModel(what: string, { ok, errors }: { ok: boolean; errors: ErrorObject[] }): void {
  if (ok) return;
  throw new HeapqlError(
    'ERR_INTERNAL',
    `internal error: the ${what} data does not match its schema (a bug in heapql; please report it with the dump's producer and version):\n${describeSchemaErrors(errors)}`,
  );
}
