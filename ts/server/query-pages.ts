/**
 * Paged results (`POST /pages`, `GET /pages/<id>`, `GET /pages/<id>/count`, `DELETE
 * /pages/<id>`), which the browser REPL uses: the first page of a query's rows is answered at
 * once, as a QueryResult; when more rows follow, the server keeps the query's stream open under
 * a cursor (its scan paused: the executor runs at most a few batches ahead of what was taken,
 * and only the rows taken are described), hands out the next rows on request, and says the
 * whole result's count: the stream's own when it says it (a query that sorts, groups or removes
 * duplicates has every row before its first: `RowBatch.total`), else that of a second run that
 * neither describes nor keeps rows, which stops when the stream reaches its end first.
 *
 * A paused stream holds one of the addon's worker threads, so the server keeps few cursors
 * (MAX_OPEN: opening another closes the oldest) and closes one unused for IDLE_MS; a closed
 * cursor's next request is a 404 saying to run the query again. One read to its end holds no
 * scan, only its last page (asked for again when its answer was lost), until it is closed.
 *
 * Its rows from any row on (`GET /pages/<id>/rows?from=N`: the last rows of a result, whose
 * count `/count` said) are read by a run of the query of their own that starts there
 * (`queryBatches`' `skip`: a plain select seeks there by its scan and filter alone, the outputs
 * of the rows before never evaluated; a sorted or grouped query drops them in Rust), read to the
 * rows asked for; the cursor's own stream stays where it is. When more rows follow, that run is
 * kept paused where they end (`RowsRun`), and the next request from that row goes on with it: a
 * `!tail` of more rows than a request may ask runs the query once, not once a request. A kept
 * run is a held scan, the first stopped; stopped, the next request runs the query again.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import type { Context } from 'hono';

import { mergeColumns } from '../query/columns.js';
import { stringifyJson } from '../query/json.js';
import type { Column, QueryResult, Value } from '../query/schema.js';
import { noteWithVizWarning, vizWarning } from '../query/viz.js';
import type { PreparedQuery, RowTotal } from '../session/index.js';
import type { RowBatch, StreamSummary } from '../session/query.js';
import type { ServerContext } from './context.js';
import { ApiError, toApiError } from './errors.js';
import { HELD_MAX, holdScan } from './held-scans.js';

/** Rows of a page when the request does not say (`pageRows`), and the most it may ask. */
export const PAGE_ROWS_DEFAULT = 1000;
export const PAGE_ROWS_MAX = 10_000;
/** Cursors kept open at once (each paused scan holds a worker thread). */
export const MAX_OPEN = 2;
/** A cursor unused this long is closed. */
export const IDLE_MS = 5 * 60_000;
/** Rows the executor hands over at a time: at most this many rows are described beyond a page. */
const BATCH_ROWS_MAX = 1000;

/** What `GET /pages/<id>` answers. */
export interface PageBody {
  /** The index (0-based) of the first row of `rows` in the whole result. */
  from: number;
  rows: Value[][];
  /** No rows follow: the cursor is closed, and `truncated` (and the result's `note`) are known. */
  done: boolean;
  truncated?: boolean;
  note?: string;
}

/** What `GET /pages/<id>/rows` answers: rows read by a run of their own (the cursor is not moved). */
export interface RowsBody {
  /** The index (0-based) of the first row of `rows` in the whole result. */
  from: number;
  rows: Value[][];
  /** The columns typed over these rows (a column that is null on the first page may have its type here). */
  columns: Column[];
  /** No rows follow these in the result (`truncated` and the result's `note` are then known). */
  done: boolean;
  truncated?: boolean;
  note?: string;
}

export class PagedQuery {
  readonly id = randomUUID();
  /** Rows handed out so far. */
  sent = 0;
  /** The last page handed out (asked for again when its answer was lost). */
  private last: PageBody | null = null;
  private buffer: Value[][] = [];
  private columns: Column[] | null = null;
  private summary: StreamSummary | null = null;
  private readonly stop = new AbortController();
  private readonly batches: AsyncGenerator<RowBatch, StreamSummary>;
  /** Rows read from the stream so far (handed out or in the buffer). */
  private received = 0;
  /** The whole result's row count once known without a second run (the stream said it, or ended). */
  private known: RowTotal | null = null;
  /** The second run's count, started when `count()` is first asked and the count is not known. */
  private total: Promise<RowTotal> | null = null;
  /** Stops the second run (the count became known, or the cursor closed). */
  private readonly countStop = new AbortController();
  /** One read of the stream at a time. */
  private busy: Promise<unknown> = Promise.resolve();
  /** Requests reading the stream now, and when the last one ended (held-scans.ts). */
  private working = 0;
  private usedAt = performance.now();
  private timer: NodeJS.Timeout | null = null;
  closed = false;

  constructor(
    private readonly ctx: ServerContext,
    readonly prepared: PreparedQuery,
    readonly pageRows: number,
    private readonly onClose: (p: PagedQuery) => void,
  ) {
    this.batches = ctx.session.queryBatches(prepared, { signal: this.stop.signal, batchRows: Math.min(pageRows, BATCH_ROWS_MAX) });
  }

  get done(): boolean {
    return this.summary !== null && this.buffer.length === 0;
  }

  /** Reads one more batch into the buffer (false at the end of the stream). */
  private async fill(): Promise<boolean> {
    while (this.buffer.length === 0 && !this.summary) {
      const next = await this.batches.next();
      if (next.done) {
        this.summary = next.value;
        // Every row was read: that is the count (a second run still counting stops).
        this.settle({ rowCount: this.received, truncated: next.value.truncated });
        return false;
      }
      const { rows, columns, total } = next.value;
      if (total) this.settle(total);
      this.received += rows.length;
      if (rows.length === 0) continue;
      this.buffer = rows;
      this.columns = mergeColumns(this.columns, columns);
    }
    return this.buffer.length > 0;
  }

  /**
   * The next `n` rows, and whether the stream ended with them (it is read one batch past the
   * page when needed, so that the last page says it is the last).
   */
  private async take(n: number): Promise<Value[][]> {
    if (this.failed) throw this.failure;
    const out: Value[][] = [];
    while (out.length < n && (await this.fill())) {
      const part = this.buffer.length <= n - out.length ? this.buffer : this.buffer.slice(0, n - out.length);
      this.buffer = part === this.buffer ? [] : this.buffer.slice(part.length);
      for (const row of part) out.push(row);
    }
    // The look past the page: a failure there is the next page's (these rows are good).
    try {
      await this.fill();
    } catch (err) {
      this.failed = true;
      this.failure = err;
    }
    this.sent += out.length;
    return out;
  }

  /** The stream failed past the rows handed out: the next page says so. */
  private failed = false;
  private failure: unknown;

  private serial<T>(work: () => Promise<T>): Promise<T> {
    this.working++;
    const run = this.busy.then(work, work).finally(() => {
      this.working--;
      this.usedAt = performance.now();
    });
    this.busy = run.catch(() => {});
    return run;
  }

  /** Since when its scan waits, paused, for the next request (null: reading, or its scan ended). */
  waitingSince(): number | null {
    return this.closed || this.summary !== null || this.working > 0 ? null : this.usedAt;
  }

  /** The first page as a QueryResult (`truncated` when more rows follow). */
  first(name: string, oql: string, directiveWarning: string | null): Promise<QueryResult> {
    return this.serial(async () => {
      const started = performance.now();
      const rows = await this.take(this.pageRows);
      const note = this.summary ? noteWithVizWarning(this.summary.note, vizWarning(this.prepared.viz, this.summary.columns, directiveWarning)) : undefined;
      const result: QueryResult = {
        name,
        oql,
        // Typed over all the rows when they are all here (as POST /query types them), else over this page's.
        columns: this.summary ? this.summary.columns : this.columns!,
        rows,
        rowCount: rows.length,
        truncated: !this.done || (this.summary?.truncated ?? false),
        elapsedMs: Math.round((performance.now() - started) * 10) / 10,
      };
      if (note !== undefined) result.note = note;
      if (this.prepared.viz) result.viz = this.prepared.viz;
      this.touch();
      return result;
    });
  }

  /** The rows from `from` on (`from` is where the last page ended, or where it began: sent again). */
  page(from: number, n: number): Promise<PageBody> {
    return this.serial(async () => {
      if (this.last && from === this.last.from && from !== this.sent) return this.last;
      if (from !== this.sent) {
        throw new ApiError(409, 'query', `this paged result is at row ${this.sent}, not ${from}: ask for ?from=${this.sent} (rows before it are not kept), or run the query again`);
      }
      const rows = await this.take(n);
      const body: PageBody = { from, rows, done: this.done };
      if (this.done) {
        body.truncated = this.summary!.truncated;
        if (this.summary!.note !== undefined) body.note = this.summary!.note;
      }
      this.last = body;
      // Read to its end, the cursor holds no scan any more; it stays (its last page can be asked
      // for again) until DELETE, newer cursors or the idle time close it.
      this.touch();
      return body;
    });
  }

  /**
   * The run of `rowsFrom` left paused where its last answer ended, more rows following (null:
   * none). The next request from that row goes on with it instead of running the query again to
   * there: the browser REPL reads a `!tail` of more than PAGE_ROWS_MAX rows in requests of
   * PAGE_ROWS_MAX, one run in all. A request from any other row closes it and starts its own.
   */
  private reader: RowsRun | null = null;
  /** One `rowsFrom` at a time (the kept run is read by one request at a time). */
  private reading: Promise<unknown> = Promise.resolve();

  /**
   * The result's rows from row `from` on, `n` at most, read by a run of the query of their own
   * that starts at `from` (`queryBatches`' `skip`), or by the run the last request left paused at
   * `from` (`reader`): the cursor's stream is neither moved nor waited for. Rows read, the run is
   * paused where they end when more follow (kept for the next request: see `RowsRun` for what it
   * holds), else closed. `signal` (the client gone) stops and drops the run; the cursor closed
   * stops it too.
   */
  rowsFrom(from: number, n: number, signal: AbortSignal): Promise<RowsBody> {
    this.usedAt = performance.now();
    this.touch();
    const run = this.reading.then(() => this.readRows(from, n, signal));
    this.reading = run.catch(() => {});
    return run;
  }

  private async readRows(from: number, n: number, signal: AbortSignal): Promise<RowsBody> {
    // Closed meanwhile, or the client gone while it waited for the request before it: the kept run stays.
    if (this.closed) throw new ApiError(404, 'not_found', 'this paged result was closed');
    if (signal.aborted) throw new ApiError(503, 'cancelled', 'the client went away');
    let run = this.reader;
    this.reader = null;
    try {
      if (run && (run.at !== from || run.closed)) {
        run.close();
        run = null;
      }
      run ??= new RowsRun(this.ctx, this.prepared, from, Math.min(n, BATCH_ROWS_MAX), this.stop.signal);
      const body = await run.read(n, signal, this.columns);
      if (!body.done && !this.closed) {
        run.park();
        this.reader = run;
        run = null;
      }
      return body;
    } finally {
      // Not kept (its rows ended, the request failed, the cursor closed): it stops.
      run?.close();
      this.usedAt = performance.now();
      if (!this.closed) this.touch();
    }
  }

  /** Settles a count waiting for the second run with the count known meanwhile. */
  private counted: ((total: RowTotal) => void) | null = null;

  /**
   * The whole result's count is known (the stream said it, or reached its end): a `count()`
   * waiting for the second run has it, and the second run stops.
   */
  private settle(total: RowTotal): void {
    if (this.known) return;
    this.known = total;
    this.counted?.(total);
    this.countStop.abort();
  }

  /**
   * The whole result's row count: the stream's when known (it said it, or its rows ran out),
   * else a second run of the query that only counts (once), which the stream's count settles
   * and stops should it come first.
   */
  count(): Promise<RowTotal> {
    if (this.known) return Promise.resolve(this.known);
    if (!this.total) {
      const run = this.ctx.session.queryCount(this.prepared, { signal: this.countStop.signal });
      const read = new Promise<RowTotal>((resolve) => (this.counted = resolve));
      run.catch(() => {});
      this.total = Promise.race([run, read]);
    }
    return this.total;
  }

  private touch(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.close(), IDLE_MS);
    this.timer.unref();
  }

  /** Stops the scan and the count. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stop.abort();
    this.countStop.abort();
    this.reader?.close();
    this.reader = null;
    this.total?.catch(() => {});
    void this.busy.then(() => this.batches.return({ columns: [], truncated: false })).catch(() => {});
    this.onClose(this);
  }
}

/**
 * A run of a paged result's query from a row on (`PagedQuery.rowsFrom`), read a request at a
 * time: paused between them (its executor at most a few batches ahead), it holds one of the
 * addon's worker threads, so it counts among the held scans, the first to be stopped (`first`:
 * stopping it costs its client only a run from its row again, while a cursor stopped is gone),
 * and it is stopped when its cursor closes. Stopped, the next request from its row starts a run
 * of its own, as any other.
 */
class RowsRun {
  private readonly stop = new AbortController();
  private readonly batches: AsyncGenerator<RowBatch, StreamSummary>;
  /** Rows of the last batch read not handed out yet, and that batch's columns. */
  private buffer: Value[][] = [];
  private bufferColumns: Column[] | null = null;
  private end: StreamSummary | null = null;
  /** Since when it waits, paused, for the next request (null: reading). */
  private waiting: number | null = null;
  private release = () => {};
  closed = false;

  constructor(
    private readonly ctx: ServerContext,
    prepared: PreparedQuery,
    /** The row (of the whole result) the next row handed out is. */
    public at: number,
    batchRows: number,
    cursorStop: AbortSignal,
  ) {
    this.batches = ctx.session.queryBatches(prepared, { signal: AbortSignal.any([cursorStop, this.stop.signal]), batchRows, skip: at });
  }

  /** Takes up to `n` − `rows.length` rows of the buffer into `rows`; the columns typed over them. */
  private take(rows: Value[][], n: number, columns: Column[] | null): Column[] | null {
    const part = this.buffer.slice(0, n - rows.length);
    if (part.length === 0) return columns;
    this.buffer = this.buffer.slice(part.length);
    for (const row of part) rows.push(row);
    return mergeColumns(columns, this.bufferColumns!);
  }

  /**
   * The next `n` rows at most (the run's rows to `n`, then a batch more when needed to know
   * whether they end the result). `signal` aborted stops the run and fails the read.
   */
  async read(n: number, signal: AbortSignal, fallbackColumns: Column[] | null): Promise<RowsBody> {
    this.waiting = null;
    const from = this.at;
    const rows: Value[][] = [];
    let columns = this.take(rows, n, null);
    let fail = () => {};
    const gone = new Promise<never>((_, reject) => (fail = () => reject(new ApiError(503, 'cancelled', 'the client went away'))));
    gone.catch(() => {});
    if (signal.aborted) fail();
    signal.addEventListener('abort', fail, { once: true });
    try {
      while (!this.end && (rows.length < n || this.buffer.length === 0)) {
        const next = await Promise.race([this.batches.next(), gone]);
        if (next.done) {
          this.end = next.value;
          break;
        }
        if (next.value.rows.length === 0) continue;
        this.buffer = next.value.rows;
        this.bufferColumns = next.value.columns;
        columns = this.take(rows, n, columns);
      }
    } finally {
      signal.removeEventListener('abort', fail);
    }
    this.at += rows.length;
    const done = this.end !== null && this.buffer.length === 0;
    const body: RowsBody = { from, rows, columns: columns ?? this.end?.columns ?? fallbackColumns ?? [], done };
    if (done) {
      body.truncated = this.end!.truncated;
      if (this.end!.note !== undefined) body.note = this.end!.note;
    }
    return body;
  }

  /** Paused for the next request: among the held scans from now. */
  park(): void {
    this.waiting = performance.now();
    this.release();
    this.release = holdScan(this.ctx, { waitingSince: () => this.waiting, stallMs: 0, first: true, stop: () => this.close() });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.waiting = null;
    this.release();
    this.stop.abort();
    void this.batches.return({ columns: [], truncated: false }).catch(() => {});
  }
}

/** The cursors of one server, oldest first. */
const open = new WeakMap<ServerContext, Map<string, PagedQuery>>();

function cursors(ctx: ServerContext): Map<string, PagedQuery> {
  let m = open.get(ctx);
  if (!m) open.set(ctx, (m = new Map()));
  return m;
}

function gone(id: string): ApiError {
  return new ApiError(
    404,
    'not_found',
    `no paged result ${JSON.stringify(id)}: it was closed (DELETE, replaced by newer ones: the server keeps ${MAX_OPEN}, unused for ${IDLE_MS / 60_000} minutes, or the oldest of more than ${HELD_MAX} scans waiting for their clients); run the query again`,
  );
}

export function cursorOf(ctx: ServerContext, id: string): PagedQuery {
  const p = cursors(ctx).get(id);
  if (!p) throw gone(id);
  return p;
}

/**
 * Runs a query for `POST /pages`: its first `pageRows` rows as a QueryResult, and the cursor of
 * the rest (null when there is no rest: the result is then whole, as `POST /query` answers it).
 * The client going away before the answer closes it.
 */
export async function startPages(
  c: Context,
  ctx: ServerContext,
  prepared: PreparedQuery,
  pageRows: number,
  show: { name: string; oql: string; directiveWarning: string | null },
): Promise<Response> {
  const all = cursors(ctx);
  let release = () => {};
  const paged = new PagedQuery(ctx, prepared, pageRows, (p) => {
    all.delete(p.id);
    release();
  });
  const onClientGone = () => paged.close();
  c.req.raw.signal.addEventListener('abort', onClientGone, { once: true });
  let result: QueryResult;
  try {
    result = await paged.first(show.name, show.oql, show.directiveWarning);
  } catch (err) {
    paged.close();
    throw toApiError(err, ctx.session, prepared.oql);
  } finally {
    c.req.raw.signal.removeEventListener('abort', onClientGone);
  }
  let cursor: string | null = null;
  if (paged.done || paged.closed) paged.close();
  else {
    all.set(paged.id, paged);
    for (const [id, older] of all) {
      if (all.size <= MAX_OPEN) break;
      if (id !== paged.id) older.close();
    }
    cursor = paged.id;
    // Its paused scan holds a worker thread: it counts among the scans waiting for their clients.
    release = holdScan(ctx, { waitingSince: () => paged.waitingSince(), stallMs: 0, stop: () => paged.close() });
  }
  return c.body(stringifyJson({ cursor, pageRows, result }), 200, { 'content-type': 'application/json' });
}
