/**
 * Paged query results (the terminal REPL's; the browser has its own over HTTP, ts/web/pages.ts):
 * a query's rows are read from its stream (`ReplBackend.queryBatches`, the scan paused while they
 * are not taken) until the display limit's rows are there, and shown at once; then a few more are
 * read (`READ_AHEAD_ROWS`: a result that ends there is whole, as before), and a larger one is
 * counted: by its stream when that says the count (a query that sorts, groups or removes
 * duplicates has every row before its first: its first batch says how many), else by a second
 * run that describes and keeps no row (`queryCount`). Its other rows stay in
 * the paused scan (the cursor) until a command needs them (`!sort`, `!save`…), which
 * reads them into the result first; Ctrl-C stops that reading, keeping what was read. `!tail`
 * reads only the last rows: the result is counted, and its query's stream starts there
 * (`lastRows`). Only the
 * latest paged result keeps its cursor (a paused scan holds a worker thread): the next query
 * closes it, and the rest of that result is read by running its query again (skipping the rows
 * held), should a command need it after `!undo`. Browser-safe (no Node-only imports).
 */
import { HeapqlError } from '../errors.js';
import { mergeColumns } from '../query/columns.js';
import type { Column, QueryResult, Value } from '../query/schema.js';
import type { ProgressEvent } from '../session/types.js';
import type { ReplBackend } from './backend.js';

/**
 * Rows read (and kept) after the display limit's before a result is paged: one that ends within
 * them is whole at once, without a second run to count it; a larger one keeps only these.
 */
export const READ_AHEAD_ROWS = 10_000;
/** Rows a paged result's stream hands over at a time. */
const BATCH_ROWS = 1000;

type Total = { rowCount: number; truncated: boolean };
type Batch = { columns: Column[]; rows: Value[][]; total?: Total };
type End = { columns: Column[]; note?: string; truncated: boolean };
type Batches = AsyncGenerator<Batch, End>;
export type PagingBackend = ReplBackend & Required<Pick<ReplBackend, 'queryBatches' | 'queryCount'>>;

const ABORTED = Symbol('aborted');

/** `p`, or ABORTED as soon as `signal` fires (`p` goes on). */
function untilAbort<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (!signal) return p;
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function cancelled(): HeapqlError {
  return new HeapqlError('ERR_CANCELLED', 'the query was cancelled');
}

/** The paged results not read to their end, by result. */
const paged = new WeakMap<QueryResult, PagedResult>();

/** The paged state of a result of which only the first rows are held, or null (a whole result). */
export function pagedOf(result: QueryResult | null): PagedResult | null {
  return (result && paged.get(result)) ?? null;
}

/** Whether the backend can page a result (the terminal's `HeapSession`). */
export function canPage(backend: ReplBackend): backend is PagingBackend {
  return typeof backend.queryBatches === 'function' && typeof backend.queryCount === 'function';
}

/**
 * A query result of which the first rows are held (`result.rows`, growing as more are read),
 * with the cursor of the rest and the whole result's count once known (`result.rowCount` is the
 * count then, else the rows held).
 */
export class PagedResult {
  private batches: Batches | null = null;
  private stop: AbortController | null = null;
  /** A read of the next batch that a Ctrl-C stopped waiting for: the next read takes it. */
  private pending: Promise<IteratorResult<Batch, End>> | null = null;
  /** The whole result's row count, once known (the stream said it, it ended, or it was counted). */
  total: Total | null = null;
  /** Every row is held (the stream ended): the result is whole. */
  whole = false;

  private constructor(
    private readonly backend: PagingBackend,
    readonly result: QueryResult,
    private readonly reachableOnly: boolean,
  ) {}

  /**
   * Runs `oql` and reads its rows until `wanted` are held or there are no more (then the result
   * is whole). `signal` (Ctrl-C) cancels the query: ERR_CANCELLED, nothing kept.
   */
  static async start(
    backend: PagingBackend,
    oql: string,
    meta: { name: string; reachableOnly: boolean },
    wanted: number,
    signal?: AbortSignal,
    onProgress?: (e: ProgressEvent) => void,
  ): Promise<PagedResult> {
    const result: QueryResult = { name: meta.name, oql, columns: [], rows: [], rowCount: 0, truncated: false, elapsedMs: 0 };
    const p = new PagedResult(backend, result, meta.reachableOnly);
    p.scanProgress = onProgress ?? null;
    try {
      if (!(await p.readUpTo(wanted, signal))) throw cancelled();
    } catch (err) {
      p.close();
      throw err;
    } finally {
      p.scanProgress = null;
    }
    if (!p.whole) paged.set(result, p);
    return p;
  }

  /**
   * Told the objects scanned while `start` waits for the first rows (the progress bar of a long
   * scan); not after: the loading of the rest has its own display.
   */
  private scanProgress: ((e: ProgressEvent) => void) | null = null;

  /** Whether the stream's scan is open (paused) now. */
  get open(): boolean {
    return this.batches !== null;
  }

  /**
   * Reads rows until `wanted` are held or the stream ends (the result is then whole: its columns
   * typed over every row, its note and `truncated` those of the whole query). `onRows` is told
   * the rows held after each batch. False when `signal` fired first: the rows read are kept, the
   * cursor too (the next read goes on from there).
   */
  async readUpTo(wanted: number, signal?: AbortSignal, onRows?: (held: number) => void): Promise<boolean> {
    const rows = this.result.rows;
    while (!this.whole && rows.length < wanted) {
      if (!this.batches) this.reopen();
      if (!this.pending) {
        this.pending = this.batches!.next();
        // A read left waiting (Ctrl-C) that fails later is seen by the next read, not unhandled.
        this.pending.catch(() => {});
      }
      let next: IteratorResult<Batch, End> | typeof ABORTED;
      try {
        next = await untilAbort(this.pending, signal);
      } catch (err) {
        // The stream failed (or was closed): it is over; a later read runs the query again.
        this.pending = null;
        this.close();
        throw err;
      }
      if (next === ABORTED) return false;
      this.pending = null;
      if (next.done) {
        this.finish(next.value);
        break;
      }
      // The stream says the whole count: no second run will be needed.
      if (next.value.total && !this.total) this.counted(next.value.total);
      const batch = next.value.rows;
      if (batch.length === 0) continue;
      const cols = next.value.columns;
      this.result.columns = mergeColumns(this.result.columns.length === 0 ? null : this.result.columns, cols);
      for (const row of batch) rows.push(row);
      if (!this.total) this.result.rowCount = rows.length;
      onRows?.(rows.length);
    }
    return true;
  }

  private counted(total: Total): void {
    this.total = total;
    this.result.rowCount = total.rowCount;
    this.result.truncated = total.truncated;
  }

  /**
   * Counts the whole result, once: nothing to do when its stream said the count (or ended),
   * else a second run of the query that describes and keeps no row. False when `signal` fired
   * first (the count stops).
   */
  async count(signal?: AbortSignal): Promise<boolean> {
    if (this.total) return true;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) return false;
      const total = await this.backend.queryCount(this.result.oql, { reachableOnly: this.reachableOnly, signal: stop.signal });
      // Every row came meanwhile? Then that count stands.
      if (!this.total) this.counted(total);
      return true;
    } catch (err) {
      if (signal?.aborted && err instanceof HeapqlError && err.code === 'ERR_CANCELLED') return false;
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The result's last `n` rows (all of them when it has fewer) and its columns typed over the
   * rows held and those, without reading the rows between: the result is counted (`count`),
   * then a stream of its query starts at row `count - n` (`queryBatches`' `skip`: a plain
   * select seeks there by its scan and filter alone, the output columns of the rows before it
   * never evaluated; a sorted or grouped query has its count from its first batch and drops
   * the rows before in Rust). 'held' when those rows follow on from the rows held (then reading
   * on, `readUpTo`, reads no row more); null when `signal` fired first. The cursor is closed
   * first: one scan is open at a time (a later read runs the query again).
   */
  async lastRows(n: number, signal?: AbortSignal, onRows?: (read: number) => void): Promise<{ columns: Column[]; rows: Value[][] } | 'held' | null> {
    if (this.whole) return 'held';
    if (!(await this.count(signal))) return null;
    const total = this.total!.rowCount;
    const from = Math.max(0, total - n);
    if (from <= this.result.rows.length) return 'held';
    this.close();
    const stop = new AbortController();
    const batches = this.backend.queryBatches(this.result.oql, {
      name: this.result.name,
      reachableOnly: this.reachableOnly,
      batchRows: BATCH_ROWS,
      signal: stop.signal,
      skip: from,
    });
    const rows: Value[][] = [];
    let columns = this.result.columns;
    try {
      while (rows.length < total - from) {
        const next = await untilAbort(batches.next(), signal);
        if (next === ABORTED) return null;
        if (next.done) break;
        for (const row of next.value.rows) rows.push(row);
        if (next.value.rows.length > 0) columns = mergeColumns(columns.length === 0 ? null : columns, next.value.columns);
        onRows?.(rows.length);
      }
    } finally {
      stop.abort();
      void batches.return({ columns: [], truncated: false }).catch(() => {});
    }
    return { columns, rows: rows.slice(0, total - from) };
  }

  /** Closes the cursor: the scan stops (the rows held stay; a later read runs the query again). */
  close(): void {
    const batches = this.batches;
    this.stop?.abort();
    this.pending?.catch(() => {});
    void batches?.return({ columns: [], truncated: false }).catch(() => {});
    this.batches = null;
    this.stop = null;
    this.pending = null;
  }

  /**
   * The stream of the query again, from the first row not held (`queryBatches`' `skip`: the rows
   * held are found again by the scan and filter, or dropped in Rust, never handed over).
   */
  private reopen(): void {
    this.stop = new AbortController();
    this.batches = this.backend.queryBatches(this.result.oql, {
      name: this.result.name,
      reachableOnly: this.reachableOnly,
      batchRows: BATCH_ROWS,
      signal: this.stop.signal,
      onProgress: (e) => this.scanProgress?.(e),
      skip: this.result.rows.length,
    });
  }

  private finish(end: End): void {
    this.whole = true;
    this.batches = null;
    this.stop = null;
    const r = this.result;
    // Typed over every row, as a whole result is.
    r.columns = end.columns;
    r.rowCount = r.rows.length;
    r.truncated = end.truncated;
    if (end.note !== undefined) r.note = end.note;
    this.total = { rowCount: r.rowCount, truncated: r.truncated };
    paged.delete(r);
  }
}
