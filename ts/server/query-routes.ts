/**
 * `POST /`, `POST /query` (a QueryResult: query-answer.ts) and `POST /stream` (NDJSON rows):
 * both are sent while the executor produces the rows, and a client that goes away cancels the
 * scan. `POST /pages` and `/pages/<id>…`: a result a page at a time, or from a row on
 * (query-pages.ts).
 */
import { performance } from 'node:perf_hooks';

import type { Context, Hono } from 'hono';

import { tokPos } from '../oql/build.js';
import { OqlPlanError, OqlSecondStatementError, OqlSyntaxError } from '../oql/errors.js';
import { tokenize } from '../oql/lexer.js';
import { stringifyJson } from '../query/json.js';
import { extractViz, withoutVizLine } from '../query/viz.js';
import { prepareQuery, type PreparedQuery } from '../session/index.js';
import { readBody } from './body.js';
import type { ServerContext } from './context.js';
import { ApiError, errorBody, toApiError } from './errors.js';
import { holdScan } from './held-scans.js';
import { queryAnswer } from './query-answer.js';
import { parseQueryRequest, type QueryRequest } from './query-request.js';
import { cursorOf, PAGE_ROWS_DEFAULT, PAGE_ROWS_MAX, startPages } from './query-pages.js';
import { needsFullPathMessage } from './full-path.js';

/** Rows of one NDJSON chunk at most; a chunk also ends when the executor's batch is used up. */
const STREAM_CHUNK_BYTES = 64 * 1024;

async function request(c: Context, paged = false): Promise<QueryRequest> {
  return parseQueryRequest(await readBody(c.req.raw), c.req.header('content-type') ?? null, paged ? { pageRowsMax: PAGE_ROWS_MAX } : null);
}

/** Plans kept by request (LRU): a dashboard or a load test repeats the same texts. */
const PLAN_CACHE_SIZE = 256;
const plans = new WeakMap<ServerContext, Map<string, PreparedQuery>>();

function cachedPrepare(ctx: ServerContext, req: QueryRequest): PreparedQuery {
  let cache = plans.get(ctx);
  if (!cache) plans.set(ctx, (cache = new Map()));
  const key = JSON.stringify([req.query, req.limit ?? null, req.reachableOnly ?? ctx.reachableOnly, req.viz ?? null, ctx.session.analyzed]);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const prepared = prepare(ctx, req);
  cache.set(key, prepared);
  if (cache.size > PLAN_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return prepared;
}

/**
 * Plans the query for the path the session is on. A feature of the full path asked for before
 * the analysis is ready gets a message that says what to do on this server.
 */
function prepare(ctx: ServerContext, req: QueryRequest): PreparedQuery {
  const { session } = ctx;
  const options = {
    reachableOnly: req.reachableOnly ?? ctx.reachableOnly,
    ...(req.limit !== undefined ? { limit: req.limit } : {}),
    ...(req.viz !== undefined ? { viz: req.viz } : {}),
  };
  try {
    return session.prepare(req.query, options);
  } catch (err) {
    if (err instanceof OqlPlanError && !session.analyzed && plansOnFullPath(req.query)) {
      // Said where the query asks for it (`query:1:21:`, the line, a caret; `line`, `column`,
      // `reason`), as every other OQL error is; the other fronts' hint gives way to the server's advice.
      throw toApiError(new OqlPlanError(needsFullPathMessage(err.reason, session.status), err.pos, null), session, req.query);
    }
    throw toApiError(secondStatement(err, req.query) ?? err, session, req.query);
  }
}

/**
 * A body of two statements (`SELECT …; SELECT …`): the parser's error at the `;` that ends the
 * first, said as what it is here (one query per request), with the caret under the second
 * statement. Null for any other error.
 */
function secondStatement(err: unknown, text: string): OqlSyntaxError | null {
  if (!(err instanceof OqlSecondStatementError)) return null;
  // The positions are those of the text the parser read: the directive line blanked.
  const tokens = tokenize(extractViz(text).oql);
  const at = tokens.findIndex((t) => t.offset === err.pos.offset);
  const [semi, next] = [tokens[at], tokens[at + 1]];
  if (semi?.type !== 'semicolon' || !next || next.type === 'semicolon') return null;
  return new OqlSyntaxError(
    `one query per request: a second statement starts after the ";" at line ${semi.line}, column ${semi.col}`,
    tokPos(next),
    next.text,
    [],
    'send each query in a request of its own (a single trailing ";" is fine)',
  );
}

function plansOnFullPath(text: string): boolean {
  try {
    prepareQuery(text, { fullPath: true });
    return true;
  } catch {
    return false;
  }
}

async function runQuery(ctx: ServerContext, c: Context): Promise<Response> {
  const req = await request(c);
  // A directive in the text that could not be read (a JSON `viz` replaces it): said in the note.
  const directiveWarning = req.viz ? null : extractViz(req.query).warning;
  return queryAnswer(c, ctx.session, cachedPrepare(ctx, req), {
    name: req.name,
    oql: withoutVizLine(req.query),
    directiveWarning,
    hold: (scan) => holdScan(ctx, { ...scan, stallMs: ctx.stallMs }),
  });
}

async function stream(ctx: ServerContext, c: Context): Promise<Response> {
  const req = await request(c);
  const prepared = cachedPrepare(ctx, req);
  const abort = new AbortController();
  const onClientGone = () => abort.abort();
  c.req.raw.signal.addEventListener('abort', onClientGone, { once: true });
  const rows = ctx.session.queryStream(prepared, { signal: abort.signal })[Symbol.asyncIterator]();
  // The first row (or the end, or an error) before the headers: an error of the executor is
  // still a plain 400/500 answer.
  let pending = rows.next();
  try {
    await pending;
  } catch (err) {
    c.req.raw.signal.removeEventListener('abort', onClientGone);
    throw toApiError(err, ctx.session, prepared.oql);
  }
  const encoder = new TextEncoder();
  // While the client reads nothing, the scan waits and holds a worker thread (held-scans.ts).
  let waiting: number | null = null;
  let stopped = false;
  let release = () => {};
  const finish = () => {
    c.req.raw.signal.removeEventListener('abort', onClientGone);
    release();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      release = holdScan(ctx, {
        waitingSince: () => waiting,
        stallMs: ctx.stallMs,
        stop(reason) {
          // Said as the last line (read if the client reads again), and the scan stopped.
          stopped = true;
          finish();
          abort.abort();
          pending.catch(() => {});
          void rows.return(undefined).catch(() => {});
          try {
            controller.enqueue(encoder.encode(`${JSON.stringify(errorBody('cancelled', reason))}\n`));
            controller.close();
          } catch {
            // The body was closed meanwhile.
          }
        },
      });
    },
    // One chunk per pull: the rows already received from the executor (up to 64 KiB). A row not
    // there by the next turn of the event loop belongs to a later batch: send what we have.
    async pull(controller) {
      if (stopped) return;
      waiting = null;
      let chunk = '';
      try {
        for (;;) {
          const next = await pending;
          if (next.done) {
            if (chunk) controller.enqueue(encoder.encode(chunk));
            controller.close();
            finish();
            return;
          }
          chunk += `${stringifyJson(next.value)}\n`;
          pending = rows.next();
          if (chunk.length >= STREAM_CHUNK_BYTES) break;
          const ready = await Promise.race([pending.then(() => true, () => true), new Promise<false>((r) => setImmediate(() => r(false)))]);
          if (!ready) break;
        }
      } catch (err) {
        if (stopped) return;
        const e = toApiError(err, ctx.session, prepared.oql);
        controller.enqueue(encoder.encode(`${chunk}${JSON.stringify(errorBody(e.kind, e.message, e.details))}\n`));
        controller.close();
        finish();
        return;
      }
      if (stopped) return;
      controller.enqueue(encoder.encode(chunk));
      waiting = performance.now();
    },
    async cancel() {
      finish();
      abort.abort();
      pending.catch(() => {});
      await rows.return(undefined).catch(() => {});
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
  });
}

/** `POST /pages`: the first page of a query's rows, and the cursor of the rest. */
async function pages(ctx: ServerContext, c: Context): Promise<Response> {
  const req = await request(c, true);
  const directiveWarning = req.viz ? null : extractViz(req.query).warning;
  const prepared = cachedPrepare(ctx, req);
  return startPages(c, ctx, prepared, req.pageRows ?? PAGE_ROWS_DEFAULT, { name: req.name ?? 'q1', oql: withoutVizLine(req.query), directiveWarning });
}

/** A whole number parameter of the URL from `min` to `max` (`fallback` when absent). */
function whole(c: Context, name: string, fallback: number, min: number, max: number): number {
  const text = c.req.query(name);
  if (text === undefined) return fallback;
  const n = /^[0-9]{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new ApiError(400, 'query', `?${name}= must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return n;
}

/**
 * HEAD of a cursor's page, rows or count (hono answers HEAD with the GET route): the headers a
 * GET would get, and nothing done. A GET hands out the next rows (they are not kept), runs the
 * query from a row or starts a count's second run; a HEAD, which the client reads no body of,
 * must do none of these.
 */
function headOnly(c: Context): Response {
  return c.body(null, 200, { 'content-type': 'application/json' });
}

/** `GET /pages/<id>?from=N&rows=M`: the next rows of a paged result. */
async function nextPage(ctx: ServerContext, c: Context): Promise<Response> {
  const paged = cursorOf(ctx, c.req.param('id')!);
  const from = whole(c, 'from', paged.sent, 0, Number.MAX_SAFE_INTEGER);
  const rows = whole(c, 'rows', paged.pageRows, 1, PAGE_ROWS_MAX);
  if (c.req.method === 'HEAD') return headOnly(c);
  try {
    return c.body(stringifyJson(await paged.page(from, rows)), 200, { 'content-type': 'application/json' });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    paged.close();
    throw toApiError(err, ctx.session, paged.prepared.oql);
  }
}

/**
 * `GET /pages/<id>/rows?from=N&rows=M`: the result's rows from row N on (M at most), read by a
 * run of the query of their own that starts at N (the last rows of a result, `!tail` in the
 * browser REPL, without the rows before them); the cursor stays where it is.
 */
async function rowsFrom(ctx: ServerContext, c: Context): Promise<Response> {
  const id = c.req.param('id')!;
  const paged = cursorOf(ctx, id);
  if (c.req.query('from') === undefined) throw new ApiError(400, 'query', `?from= is required: the row (from 0) the rows start at, as in /pages/${id}/rows?from=N&rows=M`);
  const from = whole(c, 'from', 0, 0, Number.MAX_SAFE_INTEGER);
  const rows = whole(c, 'rows', paged.pageRows, 1, PAGE_ROWS_MAX);
  if (c.req.method === 'HEAD') return headOnly(c);
  try {
    return c.body(stringifyJson(await paged.rowsFrom(from, rows, c.req.raw.signal)), 200, { 'content-type': 'application/json' });
  } catch (err) {
    // Closed meanwhile (DELETE, replaced, idle): said as a cursor that is gone.
    if (paged.closed) cursorOf(ctx, id);
    throw toApiError(err, ctx.session, paged.prepared.oql);
  }
}

/** `GET /pages/<id>/count`: the whole result's row count, answered once known. */
async function pageCount(ctx: ServerContext, c: Context): Promise<Response> {
  const id = c.req.param('id')!;
  const paged = cursorOf(ctx, id);
  if (c.req.method === 'HEAD') return headOnly(c);
  try {
    return c.json(await paged.count());
  } catch (err) {
    // Closed meanwhile (DELETE, replaced, idle): said as a cursor that is gone.
    if (paged.closed) cursorOf(ctx, id);
    throw toApiError(err, ctx.session, paged.prepared.oql);
  }
}

export function queryRoutes(app: Hono, ctx: ServerContext): void {
  app.post('/pages', (c) => pages(ctx, c));
  app.get('/pages/:id', (c) => nextPage(ctx, c));
  app.get('/pages/:id/count', (c) => pageCount(ctx, c));
  app.get('/pages/:id/rows', (c) => rowsFrom(ctx, c));
  app.delete('/pages/:id', (c) => {
    const id = c.req.param('id');
    cursorOf(ctx, id).close();
    return c.json({ ok: true, status: 'closed' });
  });
  app.post('/', (c) => runQuery(ctx, c));
  app.post('/query', (c) => runQuery(ctx, c));
  app.post('/stream', (c) => stream(ctx, c));
}
