/**
 * The QueryResult of `POST /` and `POST /query`, written while the executor produces its rows:
 * batches are taken from the session's stream one at a time, serialized a batch at a time and
 * sent in pieces of at most 64 KiB, pulled by the HTTP layer (the scan waits while the client
 * does not read); a client that goes away cancels the scan.
 *
 * The first 64 KiB of rows are gathered before the headers, so an error up to there (a bad
 * query, ERR_NEEDS_ANALYSIS, ...) is still the plain JSON error with its status, and an answer
 * that fits is the very text `stringifyJson` makes of the QueryResult, with its Content-Length.
 * A longer answer is streamed with `columns`, `rowCount`, `truncated` and `elapsedMs` after
 * `rows` (a column's type is known only once every row was seen); an error after the headers
 * breaks the body off, so that no client takes a document missing rows for a whole one.
 */
import { performance } from 'node:perf_hooks';

import type { Context } from 'hono';

import { stringifyJson } from '../query/json.js';
import type { Column, QueryResult } from '../query/schema.js';
import { noteWithVizWarning, vizWarning } from '../query/viz.js';
import type { HeapSession, PreparedQuery } from '../session/index.js';
import type { RowBatch, StreamSummary } from '../session/query.js';
import { toApiError } from './errors.js';
import type { HeldScan } from './held-scans.js';

/**
 * Rows (in characters of JSON) read from the executor before the headers and at each read
 * after them; also the most bytes of one piece of the body.
 */
const CHUNK = 64 * 1024;
const BATCH_ROWS = 1000;

/** A document's text with `rows` left open: what comes before the rows, and after them. */
function around(value: Record<string, unknown>): [string, string] {
  const text = stringifyJson(value);
  // The first `"rows":[]` is the key: inside a string its quotes would be escaped.
  const at = text.indexOf('"rows":[]') + '"rows":['.length;
  return [text.slice(0, at), text.slice(at)];
}

class StreamedResult {
  private readonly batches: AsyncGenerator<RowBatch, StreamSummary>;
  private rowCount = 0;
  private summary: StreamSummary | null = null;
  private elapsedMs = 0;

  constructor(
    session: HeapSession,
    private readonly prepared: PreparedQuery,
    private readonly name: string,
    /** The query as the answer shows it (without its `-- @viz` line: `withoutVizLine`). */
    private readonly oql: string,
    /** Why the query's `-- @viz` line was ignored (extractViz), or null. */
    private readonly directiveWarning: string | null,
    signal: AbortSignal,
    private readonly started: number,
  ) {
    this.batches = session.queryBatches(prepared, { signal, batchRows: BATCH_ROWS });
  }

  get ended(): boolean {
    return this.summary !== null;
  }

  /**
   * The next rows' JSON text (`[…],[…]`, a leading comma after earlier rows): whole batches
   * until `budget` characters or the end of the stream.
   */
  async rows(budget: number): Promise<string> {
    let text = '';
    while (text.length < budget && !this.summary) {
      const next = await this.batches.next();
      if (next.done) {
        this.summary = next.value;
        this.elapsedMs = Math.round((performance.now() - this.started) * 10) / 10;
        break;
      }
      const { rows } = next.value;
      if (rows.length === 0) continue;
      const json = stringifyJson(rows);
      text += `${this.rowCount > 0 ? ',' : ''}${json.slice(1, -1)}`;
      this.rowCount += rows.length;
    }
    return text;
  }


  private get truncated(): boolean {
    return this.summary!.truncated;
  }

  /** The whole document around `rows` (the stream has ended): the QueryResult's own key order. */
  whole(rows: string): string {
    const result: QueryResult = {
      name: this.name,
      oql: this.oql,
      columns: this.summary!.columns,
      rows: [],
      rowCount: this.rowCount,
      truncated: this.truncated,
      elapsedMs: this.elapsedMs,
    };
    const note = this.note(this.summary!.columns);
    if (note !== undefined) result.note = note;
    if (this.prepared.viz) result.viz = this.prepared.viz;
    const [head, tail] = around(result);
    return head + rows + tail;
  }

  /** What comes before the rows of a streamed document. */
  head(): string {
    return around({ name: this.name, oql: this.oql, ...(this.prepared.viz ? { viz: this.prepared.viz } : {}), rows: [] })[0];
  }

  /**
   * The result's note: the session's, then why its `-- @viz` chart cannot be drawn (as the REPL
   * and the CLI warn of it), known once the columns are.
   */
  private note(columns: Column[]): string | undefined {
    return noteWithVizWarning(this.summary!.note, vizWarning(this.prepared.viz, columns, this.directiveWarning));
  }

  /** What comes after the rows of a streamed document (the stream has ended). */
  tail(): string {
    const { columns } = this.summary!;
    const note = this.note(columns);
    const rest = stringifyJson({ columns, rowCount: this.rowCount, truncated: this.truncated, elapsedMs: this.elapsedMs, ...(note !== undefined ? { note } : {}) });
    return `],${rest.slice(1)}`;
  }

  /** Stops the scan (when the stream is not over already). */
  async close(): Promise<void> {
    await this.batches.return({ columns: [], truncated: false }).catch(() => {});
  }
}

/** How the answer names and shows the query. */
export interface AnswerOptions {
  /** The result's name (default `q1`). */
  name?: string;
  /** The query as the answer shows it (without its `-- @viz` line; default the prepared text). */
  oql?: string;
  /** Why the query's `-- @viz` line was ignored (extractViz), said in the note. */
  directiveWarning?: string | null;
  /** Registers a streamed answer's scan among those waiting for their clients (held-scans.ts). */
  hold?: (scan: Omit<HeldScan, 'stallMs'>) => () => void;
}

/** Runs a prepared query and answers with its QueryResult, streamed when it is long. */
export async function queryAnswer(c: Context, session: HeapSession, prepared: PreparedQuery, options: AnswerOptions = {}): Promise<Response> {
  const { name = 'q1', oql = prepared.oql, directiveWarning = null, hold } = options;
  const started = performance.now();
  const stop = new AbortController();
  const request = c.req.raw.signal;
  const onClientGone = () => stop.abort();
  if (request.aborted) stop.abort();
  else request.addEventListener('abort', onClientGone, { once: true });
  let release = () => {};
  const finish = () => {
    request.removeEventListener('abort', onClientGone);
    release();
  };
  const result = new StreamedResult(session, prepared, name, oql, directiveWarning, stop.signal, started);

  // Up to the first 64 KiB of rows (or the end) before the headers: an error is still a plain
  // 400/404/500 answer, and a short answer is one piece with its length.
  let first: string;
  try {
    first = await result.rows(CHUNK);
    if (result.ended) {
      const text = result.whole(first);
      finish();
      return c.body(text, 200, { 'content-type': 'application/json' });
    }
  } catch (err) {
    finish();
    await result.close();
    throw toApiError(err, session, prepared.oql);
  }

  const encoder = new TextEncoder();
  let pending: Uint8Array | null = encoder.encode(result.head() + first);
  let cancelled = false;
  // While the client reads nothing, the scan waits and holds a worker thread (held-scans.ts).
  let waiting: number | null = null;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      release =
        hold?.({
          waitingSince: () => waiting,
          stop(reason) {
            // The status is sent: the body breaks off (never a document missing rows).
            cancelled = true;
            finish();
            stop.abort();
            void result.close();
            controller.error(new Error(`POST /query stopped after its answer began: ${reason}`));
          },
        }) ?? release;
    },
    // One piece of at most 64 KiB per pull; the next rows are read from the executor (whose
    // scan waits meanwhile) only when the HTTP layer asks for more.
    async pull(controller) {
      if (cancelled) return;
      waiting = null;
      try {
        while (!pending) {
          if (result.ended) {
            controller.close();
            finish();
            return;
          }
          const text = await result.rows(CHUNK);
          const tail = result.ended ? result.tail() : '';
          if (cancelled) return;
          if (text || tail) pending = encoder.encode(text + tail);
        }
        let piece: Uint8Array = pending;
        if (pending.length > CHUNK) {
          piece = pending.subarray(0, CHUNK);
          pending = pending.subarray(CHUNK);
        } else pending = null;
        controller.enqueue(piece);
        waiting = performance.now();
      } catch (err) {
        finish();
        if (cancelled) return;
        // The status is sent: break the body off rather than end a document missing rows.
        const e = toApiError(err, session, prepared.oql);
        controller.error(new Error(`POST /query failed after its answer began (${e.kind}): ${e.message}`, { cause: err }));
      }
    },
    async cancel() {
      cancelled = true;
      finish();
      stop.abort();
      await result.close();
    },
  });
  return c.body(body, 200, { 'content-type': 'application/json' });
}
