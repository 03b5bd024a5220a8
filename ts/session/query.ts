/**
 * Running OQL on an open heap: plan in TypeScript (once — a prepared query carries its plan),
 * execute in Rust, convert the columnar batch into a QueryResult (object cells resolved only for
 * the rows returned, a block of objects per native call, with a turn of the event loop and a
 * look at the query's cancellation between two blocks).
 */
import { performance } from 'node:perf_hooks';

import { HeapqlError } from '../errors.js';
import { OqlNameError, OqlPlanError } from '../oql/errors.js';
import { namePosition } from '../oql/locate.js';
import { explain as explainPlan, plan, planToJson, withLimit, type PatternUse, type PlannedQuery } from '../plan/index.js';
import { call, callSync, native } from '../native/index.js';
import { cancelTokenFor } from '../native/cancel.js';
import { nextTurn } from './next-turn.js';
import { checkOptionNames } from './options.js';
import type { NativeHeap } from '../native/index.js';
import type { ProgressEvent } from './types.js';
import { batchToQueryResultPaced, firstRows, type Batch, type ObjectResolver } from '../query/convert.js';
import { mergeColumns } from '../query/columns.js';
import { extractViz } from '../query/viz.js';
import type { Column, ObjectRef, QueryResult, Value, VizSpec } from '../query/schema.js';

export interface QueryOptions {
  /** Display name of the result (default `q1`). */
  name?: string;
  /** Overrides the query's LIMIT. */
  limit?: number;
  /** Restrict every source to objects reachable from GC roots (default: the session's mode). */
  reachableOnly?: boolean;
  signal?: AbortSignal;
  /**
   * Told the objects scanned so far (phase `query`; the total grows as the query's scans start),
   * by `query()` and the streams alike; never after the call or the stream has ended. A
   * reachable-only query before the full analysis first finds the reachable objects, once per
   * heap (phase `reachability`: objects of the graph built, then the walk).
   */
  onProgress?: (event: ProgressEvent) => void;
  /** A parsed `-- @viz` directive to carry in the result (a leading directive line is also read). */
  viz?: VizSpec | null;
}

/** What `prepare()` takes: the plan's options only (it runs nothing and names no result). */
export type PrepareCallOptions = Pick<QueryOptions, 'limit' | 'reachableOnly' | 'viz'>;
/** What `explain()` takes: the options that change the plan. */
export type ExplainOptions = Pick<QueryOptions, 'limit' | 'reachableOnly'>;
/** What `queryCount()` takes: the plan's options and the run's (a count has no name or chart). */
export type CountOptions = Pick<QueryOptions, 'limit' | 'reachableOnly' | 'signal' | 'onProgress'>;

/** A query parsed and planned once; run it with `session.query(prepared)`. */
export interface PreparedQuery {
  /** The OQL without its `-- @viz` line. */
  readonly oql: string;
  readonly viz: VizSpec | null;
  /** What the query was planned for: a prepared query is re-planned if the path changed. */
  readonly fullPath: boolean;
  readonly reachableOnly: boolean;
  readonly limit: number | undefined;
  readonly planned: PlannedQuery;
}

export interface PrepareOptions {
  /** Plan for the full path (retained sizes, dominators, the reference graph). */
  fullPath: boolean;
  reachableOnly?: boolean;
  limit?: number;
  viz?: VizSpec | null;
  /** An existing plan of `text` with these options (query files plan while they are read). */
  planned?: PlannedQuery;
}

/** A wrong argument as an error message shows it: strings quoted, the rest as JavaScript writes them. */
export function describeArgument(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (value === null) return 'null';
  if (typeof value === 'function') return 'a function';
  return typeof value === 'object' ? 'an object' : String(value);
}

/**
 * Parses and plans a query without a heap. Throws OqlSyntaxError / OqlPlanError. Its regular
 * expressions are checked here by the executor's own regex engine (the planner does not load the
 * addon), so a pattern is refused before anything runs, at its literal's position.
 */
export function prepareQuery(text: string, options: PrepareOptions): PreparedQuery {
  // The library's callers are not type-checked: a wrong argument is named, not a TypeError
  // from deep inside or a 'malformed plan' from the executor.
  if (typeof text !== 'string') throw new HeapqlError('ERR_ARGUMENT', `a query is OQL text or a prepared query, not ${describeArgument(text)}`);
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new HeapqlError('ERR_ARGUMENT', `prepareQuery's options are an object ({fullPath, …}), not ${describeArgument(options)}`);
  }
  checkOptionNames('prepareQuery', options);
  if (options.limit !== undefined && !(Number.isSafeInteger(options.limit) && options.limit >= 0)) {
    throw new HeapqlError('ERR_ARGUMENT', `limit must be a whole number ≥ 0, not ${describeArgument(options.limit)}`);
  }
  if (options.reachableOnly !== undefined && typeof options.reachableOnly !== 'boolean') {
    throw new HeapqlError('ERR_ARGUMENT', `reachableOnly is true or false, not ${describeArgument(options.reachableOnly)}`);
  }
  const extracted = extractViz(text);
  const reachableOnly = options.reachableOnly ?? false;
  let planned = options.planned ?? plan(extracted.oql, { fullPath: options.fullPath, reachableOnly });
  checkPatterns(planned.patterns);
  if (options.limit !== undefined) {
    // The limit overrides the query's own LIMIT (the specification's rule). One row past it is
    // asked for, so that `truncated` says whether more existed (`firstRows` cuts it).
    const limited = withLimit(planned.plan, options.limit + 1);
    planned = { ...planned, plan: limited, json: planToJson(limited) };
  }
  return {
    oql: extracted.oql,
    viz: options.viz ?? extracted.viz,
    fullPath: options.fullPath,
    reachableOnly,
    limit: options.limit,
    planned,
  };
}

function checkPatterns(patterns: readonly PatternUse[]): void {
  if (patterns.length === 0) return;
  const reasons = callSync(() => native().checkPatterns(patterns.map((p) => p.pattern)));
  patterns.forEach((p, i) => {
    const reason = reasons[i];
    if (reason == null) return;
    if (p.kind === 'method') {
      // contains / startsWith / endsWith escape their text: a refusal is heapql's mistake.
      throw new OqlPlanError(`internal error: the text of this method call made the pattern "${p.pattern}", which the regex engine refuses (${reason}); please report it`, p.pos, 'meanwhile write the match with LIKE');
    }
    throw new OqlPlanError(
      `invalid regular expression "${p.pattern}": ${reason}`,
      p.pos,
      /look-around|backreference/.test(reason)
        ? 'look-around and back-references are not supported: use classes, alternation and repetition'
        : 'FROM "<regex>", INSTANCEOF "<regex>" and LIKE take a regular expression (Rust regex syntax) matched against the whole text, e.g. "java\\.util\\..*Map"',
    );
  });
}

export function isPreparedQuery(q: string | PreparedQuery): q is PreparedQuery {
  return typeof q === 'object' && q !== null && typeof q.oql === 'string' && typeof q.planned === 'object';
}

/** The prepared query to run now: planned again only when the path or options changed. */
export function preparedFor(handle: NativeHeap, q: string | PreparedQuery, options: QueryOptions, defaultReachable: boolean): PreparedQuery {
  const reachableOnly = options.reachableOnly ?? (isPreparedQuery(q) ? q.reachableOnly : defaultReachable);
  const limit = options.limit ?? (isPreparedQuery(q) ? q.limit : undefined);
  const fullPath = handle.analyzed;
  if (isPreparedQuery(q) && q.fullPath === fullPath && q.reachableOnly === reachableOnly && q.limit === limit) {
    return options.viz === undefined ? q : { ...q, viz: options.viz };
  }
  const text = isPreparedQuery(q) ? q.oql : q;
  const viz = options.viz ?? (isPreparedQuery(q) ? q.viz : undefined);
  return prepareQuery(text, { fullPath, reachableOnly, ...(limit !== undefined ? { limit } : {}), ...(viz !== undefined ? { viz } : {}) });
}

export function resolverFor(handle: NativeHeap): ObjectResolver {
  return (indices: Uint32Array): ObjectRef[] => {
    const d = callSync(() => handle.describe(indices));
    return Array.from(indices, (objectId, i) => ({
      objectId,
      address: d.addresses[i]!,
      className: d.classNames[i]!,
      label: d.labels[i]!,
    }));
  };
}

/**
 * What a conversion does between two of its blocks (ts/query/convert.ts, `CONVERT_BLOCK`): lets
 * one turn of the event loop through (a Ctrl-C, a timer, another request is heard: resolving a
 * million objects takes seconds), then ends with ERR_CANCELLED if `signal` aborted meanwhile.
 */
function betweenBlocks(signal: AbortSignal | undefined): () => Promise<void> {
  return async () => {
    await nextTurn();
    if (signal?.aborted) throw new HeapqlError('ERR_CANCELLED', 'the query was cancelled');
  };
}

/**
 * The executor's refusal of a field or class the dump lacks, saying where the query names it
 * (`… (line 1, column 10)`, an `OqlNameError`); any other error as it is. The name is the
 * executor's data (`unknownName`), found in the text (ts/oql/locate.ts, `namePosition`).
 */
function placed(err: unknown, oql: string): unknown {
  if (!(err instanceof HeapqlError) || err.unknownName === undefined) return err;
  const where = namePosition(err.unknownName, oql);
  if (!where) return err;
  return new OqlNameError(err.message, err.unknownName, where, { cause: err });
}

/** The executor's notes on a whole result (a SUM beyond a long, a field no object read had). */
interface ExecutorNotes {
  notes?: string[] | null;
}

/** A result's one note: the executor's notes (INSTANCEOF an interface, a SUM beyond a long, …), in their order. */
function joinNotes(executor: string[] | null | undefined): string | undefined {
  return executor && executor.length > 0 ? executor.join('; ') : undefined;
}

export async function runPrepared(handle: NativeHeap, q: PreparedQuery, options: QueryOptions): Promise<QueryResult> {
  const started = performance.now();
  const { token, dispose } = cancelTokenFor(options.signal);
  const { progress, settle, end, rethrow } = progressUntilEnd(options.onProgress, () => token.cancel());
  try {
    const whole = (await call(() => handle.execute(q.planned.json, token, progress)).catch((err) => Promise.reject(placed(err, q.oql)))) as Batch & ExecutorNotes;
    await settle();
    rethrow();
    // Aborted while it ran but heard only now (a progress report's callback, a timer): as queryCount.
    if (options.signal?.aborted) throw new HeapqlError('ERR_CANCELLED', 'the query was cancelled');
    const batch = q.limit === undefined ? whole : firstRows(whole, q.limit);
    const note = joinNotes(whole.notes);
    const meta = {
      name: options.name ?? 'q1',
      oql: q.oql,
      elapsedMs: 0,
      truncated: batch.rowCount < whole.rowCount,
      ...(note !== undefined ? { note } : {}),
      ...(q.viz ? { viz: q.viz } : {}),
    };
    // A large result's objects are resolved a block at a time: a cancel is heard between two.
    const result = await batchToQueryResultPaced(batch, resolverFor(handle), meta, betweenBlocks(options.signal));
    // The time to the whole answer: describing a large result's objects can take longer than the scan.
    return { ...result, elapsedMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (err) {
    rethrow();
    throw err;
  } finally {
    end();
    dispose();
  }
}

/** One streamed row: column name → value, as the columns are named (a repeated name numbered: `rowKeys`). */
export type StreamedRow = Record<string, Value>;

/**
 * One batch of a streamed query: its rows, and its columns typed over this batch alone (a
 * column may be `null` in one batch and `number` in the next; the whole result's type follows
 * the typing rule of docs/physical-plan.md over every batch).
 */
export interface RowBatch {
  columns: Column[];
  rows: Value[][];
  /**
   * The whole result's row count (up to the row cap, and whether more existed), when the
   * executor knew it as it made this batch: a query that has every row before its first one
   * (ORDER BY, GROUP BY, DISTINCT, aggregates, set operations) says it from its first batch on,
   * so no second run (`countPrepared`) is needed; absent while the rows come as the scan goes.
   */
  total?: RowTotal;
}

/** Batches a stream hands out between two turns of the event loop it lets through. */
const TURN_EVERY = 8;

/** How a streamed query ended (a cancelled one throws ERR_CANCELLED instead). */
export interface StreamSummary {
  /**
   * The result's columns typed over all its rows, as `query` types them at once (also when
   * there was no row: a list of objects has its `object` column, a table's columns the types
   * the query fixes for them, else `null`).
   */
  columns: Column[];
  /** The result's note, as `query` gives it (INSTANCEOF a class that looks like an interface). */
  note?: string;
  /** More rows existed than the query's row cap (`limit`) let through. */
  truncated: boolean;
}

/** What a caller's callback threw (any value can be), kept to end its call with. */
export interface Thrown {
  error: unknown;
}

/**
 * A caller's progress callback as the addon's: what it throws is kept (`thrown()`) and `stop()`
 * is called, so that the call ends with that error (`rethrow()`). Thrown in the addon's callback, it was an
 * uncaught exception, which no `catch` of the call could take and which ended the process.
 */
export function guardedProgress(
  onProgress: (event: ProgressEvent) => void,
  stop: () => void,
): { progress: (event: ProgressEvent) => void; thrown: () => Thrown | null; rethrow: () => void } {
  let thrown: Thrown | null = null;
  return {
    progress: (e) => {
      if (thrown) return;
      try {
        onProgress(e);
      } catch (error) {
        thrown = { error };
        stop();
      }
    },
    thrown: () => thrown,
    rethrow: () => {
      if (thrown) throw thrown.error;
    },
  };
}

/**
 * A call's `onProgress` as the executor's callback, told nothing after `end()`. Progress events
 * come through the event loop, on their own handle: those the scan sent before it ended are
 * delivered in the turn that tells of its end, possibly after it. `settle()` (one turn more)
 * lets them through; none comes after the call returned. What the callback throws stops the
 * call (`stop`) and is its error (`rethrow`, `guardedProgress`).
 */
function progressUntilEnd(onProgress: ((event: ProgressEvent) => void) | undefined, stop: () => void): {
  progress: ((event: ProgressEvent) => void) | undefined;
  settle: () => Promise<void>;
  end: () => void;
  rethrow: () => void;
} {
  let reporting = true;
  const guarded = onProgress ? guardedProgress(onProgress, stop) : undefined;
  return {
    progress: guarded ? (e) => void (reporting && guarded.progress(e)) : undefined,
    settle: async () => {
      if (onProgress) await nextTurn();
      reporting = false;
    },
    end: () => void (reporting = false),
    rethrow: () => guarded?.rethrow(),
  };
}

/** Batches a stream's scan may produce before its reader has taken them. */
const STREAM_AHEAD = 8;

/**
 * The cancel tokens of the streams still running. `process.exit()` makes libuv wait for its
 * worker threads, and a scan waiting for a reader that is gone would never end: they are
 * cancelled on 'exit', which runs before that wait.
 */
const runningStreams = new Set<{ cancel(): void }>();
let cancelOnExit = false;

function runUntilExit(token: { cancel(): void }): () => void {
  if (!cancelOnExit) {
    process.once('exit', () => runningStreams.forEach((t) => t.cancel()));
    cancelOnExit = true;
  }
  runningStreams.add(token);
  return () => runningStreams.delete(token);
}

/**
 * Batches as the executor produces them (plain selects stream while the scan runs), each
 * converted on its own, with the whole result's count when the executor knows it already
 * (`RowBatch.total`); the generator's return value says how the stream ended. The scan
 * waits while the reader does not take batches; returning early, or `signal`, cancels it.
 * With `skip`, the result's rows from row `skip` (from 0) on: a select without DISTINCT,
 * GROUP BY, aggregates, HAVING or ORDER BY seeks there (its scan and filter find the row, the
 * outputs of the rows before it are never evaluated); any other query makes every row and
 * drops the first `skip` in Rust (`execute_stream_from`).
 */
export async function* streamBatchesPrepared(
  handle: NativeHeap,
  q: PreparedQuery,
  options: QueryOptions & { batchRows?: number; skip?: number } = {},
): AsyncGenerator<RowBatch, StreamSummary> {
  const skip = options.skip ?? 0;
  if (!Number.isSafeInteger(skip) || skip < 0) throw new HeapqlError('ERR_ARGUMENT', `skip must be a whole number of rows, at least 0, not ${String(options.skip)}`);
  const { token, dispose } = cancelTokenFor(options.signal);
  // The scan runs at most STREAM_AHEAD batches ahead of this reader: a slow consumer holds it.
  const gate = new (native().StreamGate)(STREAM_AHEAD);
  const forget = runUntilExit(token);
  const queue: Batch[] = [];
  let wake: (() => void) | undefined;
  // Batches arrive through a thread-safe callback that may be delivered after the task's own
  // completion: the stream ends once the rows the executor reported have all been received.
  let expectedRows: number | undefined;
  let end: ({ columns: string[]; objectRows: boolean; stopped: boolean; types?: string[] } & ExecutorNotes) | undefined;
  let typed: Column[] | null = null;
  let receivedRows = 0;
  // Rows of the result before this batch's first: the row cap counts from the result's start.
  let delivered = skip;
  let truncated = false;
  let failure: unknown;
  let failed = false;
  /** The executor's count of the whole result, once a batch said it. */
  let total: RowTotal | undefined;
  const { progress, settle, end: endProgress, rethrow } = progressUntilEnd(options.onProgress, () => {
    token.cancel();
    wake?.();
  });
  const done = call(() =>
    handle.executeStream(q.planned.json, options.batchRows ?? 1000, (batch) => {
      queue.push(batch as Batch);
      receivedRows += (batch as Batch).rowCount;
      wake?.();
    }, token, gate, progress, skip),
  ).then(
    (e) => {
      expectedRows = e.rows;
      end = e;
      wake?.();
    },
    (err) => {
      failure = placed(err, q.oql);
      failed = true;
      wake?.();
    },
  );
  const resolve = resolverFor(handle);
  const pause = betweenBlocks(options.signal);
  const cancelled = () => new HeapqlError('ERR_CANCELLED', 'the query was cancelled');
  // A reader waiting for the next batch hears of an abort at once, not when the scan ends.
  const onAbort = () => wake?.();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let complete = false;
  let handedOut = 0;
  try {
    for (;;) {
      rethrow();
      // Once cancelled, batches still queued are not handed out, and the executor's count of
      // rows (which includes a batch it made but could not deliver) is not waited for. A
      // cancel that comes after every row was handed out and the scan ended cancels nothing:
      // the stream ends as it would have (a reader that wrote the last rows writes its end).
      if (options.signal?.aborted) {
        const ended = queue.length === 0 && !failed && end !== undefined && !end.stopped && expectedRows !== undefined && receivedRows >= expectedRows;
        if (!ended) throw cancelled();
        break;
      }
      const whole = queue.shift();
      if (whole) {
        gate.release();
        const said = (whole as Batch & StreamTotal).total;
        if (total === undefined && typeof said === 'number') total = rowTotal(q, said);
        // Past the row cap (the executor was asked for one row more): cut, and say so.
        const batch = q.limit === undefined ? whole : firstRows(whole, Math.max(0, q.limit - delivered));
        if (batch.rowCount < whole.rowCount) truncated = true;
        delivered += batch.rowCount;
        // A batch larger than a block (`batchRows`) is converted a block at a time, as `query`'s.
        const { columns, rows } = await batchToQueryResultPaced(batch, resolve, { name: 'stream', oql: q.oql, elapsedMs: 0 }, pause);
        if (rows.length > 0) typed = mergeColumns(typed, columns);
        yield total ? { columns, rows, total } : { columns, rows };
        // A reader that takes each batch at once (a terminal's writes are synchronous) would
        // otherwise keep this loop in one turn of the event loop while the scan keeps the
        // queue full: signals (Ctrl-C) and timers would wait for the whole result. Every few
        // batches, one turn is let through.
        if (++handedOut % TURN_EVERY === 0) await nextTurn();
        continue;
      }
      if (failed) throw failure;
      if (end?.stopped) throw cancelled();
      if (expectedRows !== undefined && receivedRows >= expectedRows) break;
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
    complete = true;
    await settle();
    rethrow();
    const { columns, objectRows, types } = end!;
    const note = joinNotes(end!.notes);
    return {
      // No row: each column has the type the query fixes for it (the executor's), else `null`.
      columns: typed ?? columns.map((name, i) => ({ name, type: objectRows ? 'object' : ((types?.[i] ?? 'null') as Column['type']) })),
      ...(note !== undefined ? { note } : {}),
      truncated,
    };
  } finally {
    endProgress();
    options.signal?.removeEventListener('abort', onAbort);
    if (!complete) token.cancel();
    await done;
    forget();
    dispose();
  }
}

/** What a stream's batch may say besides its rows: the whole result's row count (`JsBatch.total`). */
interface StreamTotal {
  total?: number | null;
}

/**
 * The count the caller sees of `rows` the executor gives: the executor is asked for one row
 * more than the row cap (`limit`), so more than the cap says that more existed.
 */
function rowTotal(q: PreparedQuery, rows: number): RowTotal {
  const rowCount = q.limit === undefined ? rows : Math.min(rows, q.limit);
  return { rowCount, truncated: rowCount < rows };
}

/** How many rows a query gives (`countPrepared`). */
export interface RowTotal {
  /** The rows the query gives, up to its row cap (`limit`). */
  rowCount: number;
  /** More rows existed than the row cap let through. */
  truncated: boolean;
}

/**
 * How many rows a query gives, without describing or keeping any: the executor counts them
 * (`executeCount`: a select without DISTINCT, GROUP BY, aggregates, HAVING or ORDER BY counts
 * the rows its filter lets through and evaluates of its output columns only what could fail,
 * so that it fails where reading the rows would; any other query is run and its batches
 * counted in Rust, none crossing to JavaScript). The paged results of the REPLs and the server
 * say their total with it, unless their stream said it first (`RowBatch.total`). `signal`
 * cancels it (ERR_CANCELLED).
 */
export async function countPrepared(handle: NativeHeap, q: PreparedQuery, options: Pick<QueryOptions, 'signal' | 'onProgress'> = {}): Promise<RowTotal> {
  const { token, dispose } = cancelTokenFor(options.signal);
  const forget = runUntilExit(token);
  const { progress, settle, end: endProgress, rethrow } = progressUntilEnd(options.onProgress, () => token.cancel());
  try {
    const rows = await call(() => handle.executeCount(q.planned.json, token, progress)).catch((err) => Promise.reject(placed(err, q.oql)));
    await settle();
    rethrow();
    if (options.signal?.aborted) throw new HeapqlError('ERR_CANCELLED', 'the query was cancelled');
    return rowTotal(q, rows);
  } catch (err) {
    rethrow();
    throw err;
  } finally {
    endProgress();
    forget();
    dispose();
  }
}

/**
 * The keys of a streamed row: the column names, a repeated one numbered from its second use on
 * (`SELECT s.hash AS a, s.coder AS a` gives `a` and `a#2`), so that no column's value is lost.
 */
export function rowKeys(names: string[]): string[] {
  // Every name keeps its first use; a number never takes a name some column has.
  const used = new Set(names);
  const first = new Set<string>();
  return names.map((name) => {
    if (!first.has(name)) {
      first.add(name);
      return name;
    }
    let n = 2;
    while (used.has(`${name}#${n}`)) n++;
    used.add(`${name}#${n}`);
    return `${name}#${n}`;
  });
}

/**
 * Rows as the executor produces them (plain selects stream while the scan runs), keyed by
 * `rowKeys`. The scan waits while the reader does not take rows; breaking out of the loop, or
 * `signal`, cancels it.
 */
export async function* streamPrepared(
  handle: NativeHeap,
  q: PreparedQuery,
  options: QueryOptions & { batchRows?: number } = {},
): AsyncGenerator<StreamedRow> {
  let keys: string[] | undefined;
  for await (const { columns, rows } of streamBatchesPrepared(handle, q, options)) {
    keys ??= rowKeys(columns.map((c) => c.name));
    for (const row of rows) {
      if (options.signal?.aborted) throw new HeapqlError('ERR_CANCELLED', 'the query was cancelled');
      const named: StreamedRow = {};
      keys.forEach((k, i) => (named[k] = row[i] as Value));
      yield named;
    }
  }
}

/** The execution plan's text (`explain`), without running it. */
export function explainPrepared(q: PreparedQuery): string {
  // The limit the caller set, not the one row more the executor is asked for.
  return explainPlan(q.limit === undefined ? q.planned.plan : withLimit(q.planned.plan, q.limit));
}
