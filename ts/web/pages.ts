/**
 * The browser REPL's paged results. A query goes to `POST /pages`: the server answers its first
 * `pageRows` rows at once and keeps a cursor for the rest; the page holds the rows fetched so
 * far (the result's `rows`), asks for the total count in the background (`GET /pages/<id>/count`:
 * answered at once for a query whose stream said it, a sorted or grouped one; else once a second
 * run has counted), and fetches further rows only when asked: to show them (`more`), or for a
 * command that needs them (`!sort`, `!save`…: whole.ts fetches the rest first). `!tail` and
 * `!row last` fetch only the last rows (`lastRows`): once counted, they are read from the row
 * where they start by a run of the query of their own (`GET /pages/<id>/rows?from=N`, which
 * seeks there; the server goes on with that run for the next request from where it ended, so
 * that more than ROWS_PER_REQUEST_MAX last rows run the query once), the cursor left where it is; `!row N` far past the rows held reads its row
 * alone so (`rowAt`). One paged result is open at a time: a new query closes the previous one's
 * cursor (`DELETE /pages/<id>`: its scan and its count stop in the server), as does the page's
 * stop control.
 */
import { mergeColumns } from '../query/columns.js';
import { restoreNonFinite } from '../query/json.js';
import type { Column, QueryResult, Value } from '../query/schema.js';
import { AnswerError, cancelledError, type Api } from './api.js';

/** Rows of a page when the page's URL does not say (`/repl?pageRows=N`). */
export const PAGE_ROWS_DEFAULT = 1000;
/** The most rows one `GET /pages/<id>` may ask (the server's PAGE_ROWS_MAX). */
const ROWS_PER_REQUEST_MAX = 10_000;

/** Why a result's rest cannot be fetched when the server closed its cursor (its 404). */
export const SERVER_CLOSED =
  "the server has closed this result's cursor (unused for a while, or replaced by newer results of this or another tab): run the query again to fetch the rest";

/** A promise that resolves when `signal` fires. */
function abortOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** What `POST /pages` answers. */
export interface PagesStart {
  cursor: string | null;
  pageRows: number;
  result: QueryResult;
}

/** What `GET /pages/<id>/rows` answers: rows from `from` on, read by a run of their own. */
interface RowsBody {
  from: number;
  rows: Value[][];
  columns: Column[];
  done: boolean;
  truncated?: boolean;
}

/** A result's last rows (`Pages.lastRows`), typed over the rows held and these. */
export interface LastRows {
  rows: Value[][];
  columns: Column[];
  /** The whole result's count and whether it was cut (its `limit`). */
  total: { rowCount: number; truncated: boolean };
}

/** One row of a paged result read alone (`Pages.rowAt`). */
export interface RowAt {
  /** The row, or null: the result ends before it. */
  row: Value[] | null;
  /** The result's columns, typed over the rows held and this one. */
  columns: Column[];
  /** No rows follow it; `truncated` then says whether the result was cut (its `limit`). */
  last: boolean;
  truncated: boolean;
}

interface PageBody {
  from: number;
  rows: Value[][];
  done: boolean;
  truncated?: boolean;
  note?: string;
}

/** A paged result's state, as its table shows it. */
export interface PagedState {
  readonly pageRows: number;
  /** The server holds the rest (false once every row came, or the cursor was closed). */
  open: boolean;
  /** Every row came (the last page said so). */
  done: boolean;
  /** The whole result's row count, once known. */
  total: { rowCount: number; truncated: boolean } | null;
  /** Why the rest cannot be fetched any more (closed, failed), or null. */
  closedWhy: string | null;
  /** Why the server could not count the result (its count run failed), or null. */
  countFailed: string | null;
  /** A fetch of more rows is running. */
  fetching: boolean;
}

interface Entry {
  result: QueryResult;
  cursor: string;
  state: PagedState;
  /** Aborts the fetch of more rows and the wait for the count. */
  stop: AbortController;
  listeners: Set<() => void>;
  /** The fetch of more rows running (settled, never failing), or null. */
  fetch: Promise<void> | null;
}

export class Pages {
  private readonly entries = new WeakMap<QueryResult, Entry>();
  private current: Entry | null = null;

  constructor(private readonly api: Api) {}

  /** The page size the page's URL sets (`?pageRows=N`), else PAGE_ROWS_DEFAULT. */
  static pageRowsFromUrl(search: string): number {
    const n = Number(new URLSearchParams(search).get('pageRows') ?? Number.NaN);
    return Number.isSafeInteger(n) && n >= 1 && n <= ROWS_PER_REQUEST_MAX ? n : PAGE_ROWS_DEFAULT;
  }

  /** The state of a paged result, or null (a whole result, or one made in the page). */
  stateOf(result: QueryResult | null): PagedState | null {
    return (result && this.entries.get(result)?.state) ?? null;
  }

  /**
   * The whole count of a paged result, waited for (null: not a paged result, its cursor was
   * closed before the count came, or the count failed: `countFailed`). `signal` stops the wait only.
   */
  async totalOf(result: QueryResult, signal?: AbortSignal): Promise<{ rowCount: number; truncated: boolean } | null> {
    const entry = this.entries.get(result);
    if (!entry) return null;
    if (entry.state.total || !entry.state.open || entry.state.countFailed !== null) return entry.state.total;
    await new Promise<void>((resolve) => {
      const settle = () => {
        if (entry.state.total || !entry.state.open || entry.state.countFailed !== null || signal?.aborted) {
          entry.listeners.delete(settle);
          signal?.removeEventListener('abort', settle);
          resolve();
        }
      };
      entry.listeners.add(settle);
      signal?.addEventListener('abort', settle);
      settle();
    });
    return entry.state.total;
  }

  /** Calls `listener` whenever `result`'s state changes (the count came, rows were fetched). */
  watch(result: QueryResult, listener: () => void): void {
    this.entries.get(result)?.listeners.add(listener);
  }

  unwatch(result: QueryResult, listener: () => void): void {
    this.entries.get(result)?.listeners.delete(listener);
  }

  /** Closes the open paged result (a new query runs): its scan and count stop in the server. */
  closeCurrent(why = 'closed when the next query ran: run this query again to fetch more'): void {
    if (this.current) this.close(this.current.result, why);
  }

  /** Takes `POST /pages`'s answer: the result, paged when a cursor came with it. */
  adopt(start: PagesStart): QueryResult {
    const { result } = start;
    if (start.cursor === null) return result;
    const entry: Entry = {
      result,
      cursor: start.cursor,
      state: { pageRows: start.pageRows, open: true, done: false, total: null, closedWhy: null, countFailed: null, fetching: false },
      stop: new AbortController(),
      listeners: new Set(),
      fetch: null,
    };
    this.entries.set(result, entry);
    this.current = entry;
    void this.count(entry);
    return result;
  }

  private changed(entry: Entry): void {
    for (const f of entry.listeners) f();
  }

  /** Waits for the total count (the server's stream says it, or a second run counts). */
  private async count(entry: Entry): Promise<void> {
    try {
      entry.state.total = await this.api.get<{ rowCount: number; truncated: boolean }>(`/pages/${encodeURIComponent(entry.cursor)}/count`, entry.stop.signal);
    } catch (err) {
      // Closed first (the rows ran out: they are the count; a new query; the stop control).
      if (entry.state.done && !entry.state.total) entry.state.total = { rowCount: entry.result.rows.length, truncated: entry.result.truncated };
      else if (entry.state.open && !entry.stop.signal.aborted) {
        // The server closed the cursor itself, or its count failed: said to who waits for it.
        if (err instanceof AnswerError && err.status === 404) this.close(entry.result, SERVER_CLOSED);
        else entry.state.countFailed = (err as Error).message;
      }
    }
    this.changed(entry);
  }

  /**
   * Fetches rows until the result holds `wanted` of them (or every row came); they are appended
   * to the result's `rows`, and the watchers hear of each page. A fetch is asked from where the
   * rows held end; one asked while another runs (Show more, then `!tail`) goes on after it.
   * `signal` (a statement's: Escape) stops this fetch only, with a `cancelled` error: the cursor
   * stays, and the page cut off is asked for again next time (the server keeps its last page).
   * The cursor closed meanwhile (Stop, the next query, the server's idle time) ends it quietly:
   * `closedWhy` says why.
   */
  async fetchUpTo(result: QueryResult, wanted: number, signal: AbortSignal | null = null): Promise<void> {
    const entry = this.entries.get(result);
    if (!entry) return;
    const stop = signal ? AbortSignal.any([entry.stop.signal, signal]) : entry.stop.signal;
    while (entry.fetch) {
      await Promise.race([entry.fetch, abortOf(stop)]);
      if (!stop.aborted) continue;
      if (entry.stop.signal.aborted) return;
      throw cancelledError();
    }
    if (!entry.state.open || result.rows.length >= wanted) return;
    const run = this.fetchLoop(entry, wanted, stop, signal);
    entry.fetch = run.then(
      () => {},
      () => {},
    );
    try {
      await run;
    } finally {
      entry.fetch = null;
    }
  }

  private async fetchLoop(entry: Entry, wanted: number, stop: AbortSignal, signal: AbortSignal | null): Promise<void> {
    const { result } = entry;
    entry.state.fetching = true;
    this.changed(entry);
    try {
      while (entry.state.open && result.rows.length < wanted) {
        const from = result.rows.length;
        const rows = Math.min(ROWS_PER_REQUEST_MAX, wanted - from);
        const page = await this.api.get<PageBody>(`/pages/${encodeURIComponent(entry.cursor)}?from=${from}&rows=${rows}`, stop);
        // NaN and ±Infinity are numbers again in the number columns (typed by the first page).
        restoreNonFinite({ ...result, rows: page.rows });
        for (const row of page.rows) result.rows.push(row);
        result.rowCount = result.rows.length;
        if (page.done) {
          entry.state.done = true;
          entry.state.open = false;
          result.truncated = page.truncated ?? false;
          if (page.note !== undefined && result.note === undefined) result.note = page.note;
          entry.state.total ??= { rowCount: result.rows.length, truncated: result.truncated };
          if (this.current === entry) this.current = null;
          // Every row is here: the server need not keep the cursor.
          void this.api.request(`/pages/${encodeURIComponent(entry.cursor)}`, { method: 'DELETE' }).catch(() => {});
        }
        this.changed(entry);
      }
    } catch (err) {
      if (signal?.aborted && !entry.stop.signal.aborted) throw err;
      if (entry.stop.signal.aborted) return;
      // The server closed the cursor itself: unused for its idle time, or replaced by newer
      // results (of this tab or another); the rows it held are gone with it.
      const gone = err instanceof AnswerError && err.status === 404;
      this.close(result, gone ? SERVER_CLOSED : `the rest cannot be fetched: ${(err as Error).message}`);
    } finally {
      entry.state.fetching = false;
      this.changed(entry);
    }
  }

  /**
   * The last `n` rows of a paged result (all of them when it has fewer), without the rows
   * between those held and them: the result is counted (`GET /pages/<id>/count`, waited for),
   * then they are read from row `count - n` on by a run of the query that starts there (`GET
   * /pages/<id>/rows?from=N`, up to ROWS_PER_REQUEST_MAX a request, each from where the last
   * ended: the server goes on with the same run), the cursor left where it is; `progress` is told the rows read. 'held' when there is nothing to read so: every row
   * came, or the last rows start within those held (fetching on, `fetchUpTo`, reads no row
   * more than they). Null when the cursor is closed (before, or meanwhile: `closedWhy` says
   * why). `signal` (Escape) stops the wait and the read with a `cancelled` error; the cursor
   * and the rows held stay. Another failure is thrown (the cursor stays).
   */
  async lastRows(result: QueryResult, n: number, signal: AbortSignal, progress: (read: number, of: number) => void): Promise<LastRows | 'held' | null> {
    const entry = this.entries.get(result);
    if (!entry || entry.state.done) return 'held';
    if (!entry.state.open) return null;
    const total = await this.totalOf(result, signal);
    if (signal.aborted) throw cancelledError();
    if (entry.state.done) return 'held';
    if (!entry.state.open) return null;
    if (!total) throw new Error(`the server could not count the result, which finds them: ${entry.state.countFailed ?? 'no count came'}`);
    const from = Math.max(0, total.rowCount - n);
    if (from <= result.rows.length) return 'held';
    progress(0, total.rowCount - from);
    const read = await this.readFrom(entry, from, total.rowCount - from, signal, (rows) => progress(rows, total.rowCount - from));
    if (!read) return null;
    return { rows: read.rows, columns: read.columns, total: { rowCount: total.rowCount, truncated: read.truncated ?? total.truncated } };
  }

  /**
   * Row `index` of a paged result (0-based), read alone by a run of the query that starts there
   * (`GET /pages/<id>/rows?from=index&rows=1`), the cursor left where it is and the row not
   * added to those held: `!row N` far past them. `row` is null when the result ends before it.
   * Null when the cursor is closed (before, or meanwhile: `closedWhy` says why). `signal`
   * (Escape) stops the read with a `cancelled` error; the cursor and the rows held stay.
   * Another failure is thrown (the cursor stays).
   */
  async rowAt(result: QueryResult, index: number, signal: AbortSignal): Promise<RowAt | null> {
    const entry = this.entries.get(result);
    if (!entry || !entry.state.open) return null;
    const read = await this.readFrom(entry, index, 1, signal, () => {});
    if (!read) return null;
    return { row: read.rows[0] ?? null, columns: read.columns, last: read.done, truncated: read.truncated ?? false };
  }

  /**
   * Rows `from` to `from + n` (fewer where the result ends) by runs of the query that start
   * there (`GET /pages/<id>/rows`, up to ROWS_PER_REQUEST_MAX a request); `progress` is told the
   * rows read. `done`: no rows follow them (`truncated`: the answer's, if it said). Null when the
   * cursor is closed meanwhile; `signal` stops the read with a `cancelled` error.
   */
  private async readFrom(
    entry: Entry,
    from: number,
    n: number,
    signal: AbortSignal,
    progress: (read: number) => void,
  ): Promise<{ rows: Value[][]; columns: Column[]; done: boolean; truncated: boolean | undefined } | null> {
    const { result } = entry;
    const stop = AbortSignal.any([entry.stop.signal, signal]);
    const rows: Value[][] = [];
    let columns = result.columns;
    let done = false;
    let truncated: boolean | undefined;
    try {
      while (rows.length < n) {
        const at = from + rows.length;
        const ask = Math.min(ROWS_PER_REQUEST_MAX, n - rows.length);
        const body = await this.api.get<RowsBody>(`/pages/${encodeURIComponent(entry.cursor)}/rows?from=${at}&rows=${ask}`, stop);
        // NaN and ±Infinity are numbers again in the number columns (typed over these rows).
        restoreNonFinite({ ...result, columns: body.columns, rows: body.rows });
        for (const row of body.rows) rows.push(row);
        if (body.rows.length > 0) columns = mergeColumns(columns, body.columns);
        progress(rows.length);
        if (body.done) {
          done = true;
          truncated = body.truncated;
          break;
        }
        if (body.rows.length === 0) break;
      }
    } catch (err) {
      if (signal.aborted && !entry.stop.signal.aborted) throw cancelledError();
      if (entry.stop.signal.aborted) return null;
      // The server closed the cursor itself (unused for its idle time, or replaced by newer results).
      if (err instanceof AnswerError && err.status === 404) {
        this.close(result, SERVER_CLOSED);
        return null;
      }
      throw err;
    }
    return { rows, columns, done, truncated };
  }

  /** Closes a paged result's cursor (its scan and count stop in the server); `why` is shown. */
  close(result: QueryResult, why: string): void {
    const entry = this.entries.get(result);
    if (!entry) return;
    if (this.current === entry) this.current = null;
    if (!entry.state.open) return;
    entry.state.open = false;
    entry.state.closedWhy = why;
    entry.stop.abort();
    void this.api.request(`/pages/${encodeURIComponent(entry.cursor)}`, { method: 'DELETE' }).catch(() => {});
    this.changed(entry);
  }
}
