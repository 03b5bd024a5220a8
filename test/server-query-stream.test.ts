/**
 * `POST /query` written while the executor produces its rows, over real loopback HTTP: the
 * answer is the QueryResult `session.query` gives (every kind of query, column types included,
 * exact integers), a long one comes in pieces while the scan waits for a slow reader (and
 * `GET /status` answers meanwhile), a client that hangs up stops the scan, errors before the
 * rows keep their status and JSON body, and an error after the headers breaks the body off.
 */
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { parseJsonExact, stringifyJson } from '../ts/query/json.js';
import type { QueryResult } from '../ts/query/schema.js';
import { validateQueryResult } from '../ts/query/validate.js';
import { errorBody, toApiError } from '../ts/server/errors.js';
import { listen, type RunningServer } from '../ts/server/listen.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
/** 168 473 objects: a four-column row of each is 46 MB of JSON, far more than socket buffers hold. */
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body's pieces as they were read. */
  chunks: number;
  /** The body ended properly (false when the connection broke off mid-body). */
  complete: boolean;
}

/** One POST over a fresh connection, read to its end (or until the server breaks it off). */
function post(port: number, p: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: p, headers: { connection: 'close', ...headers }, agent: false }, (res) => {
      let text = '';
      let chunks = 0;
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode!, headers: res.headers, text, chunks, complete: res.complete });
      };
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        chunks++;
        text += d;
      });
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (body: Record<string, unknown>) => [JSON.stringify(body), { 'content-type': 'application/json' }] as const;

/** A QueryResult without its timing, which differs from run to run. */
function timeless(r: unknown): Record<string, unknown> {
  const { elapsedMs, ...rest } = r as Record<string, unknown>;
  expect(typeof elapsedMs).toBe('number');
  return rest;
}

/** Polls `ready` a bounded number of times (by count, not by time). */
async function until(ready: () => boolean, tries = 1000): Promise<boolean> {
  for (let i = 0; i < tries && !ready(); i++) await new Promise((r) => setTimeout(r, 5));
  return ready();
}

describe('POST /query answers as session.query does (demo dump)', () => {
  let session: HeapSession;
  let server: RunningServer;
  /** Native stream calls made by the server. */
  let streams = 0;

  beforeAll(async () => {
    session = await openHeap(demo);
    const handle = session.handle as unknown as { executeStream: (...a: unknown[]) => Promise<unknown> };
    const real = handle.executeStream.bind(handle);
    handle.executeStream = (...a: unknown[]) => {
      streams++;
      return real(...a);
    };
    server = await listen(session, 0);
  });
  afterAll(async () => {
    await server?.close();
    session?.close();
  });

  const objects = 'SELECT x FROM INSTANCEOF java.lang.Object x';
  const cases: { what: string; body: string | readonly [string, Record<string, string>]; limit?: number; name?: string; streamed?: boolean }[] = [
    { what: 'objects (20 437 rows, streamed)', body: objects, streamed: true },
    { what: 'objects, numbers, strings', body: 'SELECT x, x.@usedHeapSize, x.@displayName, x.@objectAddress FROM INSTANCEOF java.lang.Object x', streamed: true },
    { what: 'strings and NULLs (toString of non-strings)', body: 'SELECT toString(x) AS text, x.@length FROM INSTANCEOF java.lang.Object x', streamed: true },
    { what: 'lists (array slices)', body: 'SELECT s, s.value[0:3] AS head FROM java.lang.String s', streamed: true },
    // The first batches of `late` hold only NULLs, those of `mixed` only strings: the whole
    // result's types are number and list (as the executor types all the rows at once).
    {
      what: 'a column NULL in its first batches, one of two kinds',
      body: 'SELECT x.@objectId AS id, CASE WHEN x.@objectId >= 15000 THEN x.@usedHeapSize ELSE NULL END AS late, CASE WHEN x.@objectId >= 15000 THEN x.@usedHeapSize ELSE x.@displayName END AS mixed FROM INSTANCEOF java.lang.Object x',
      streamed: true,
    },
    { what: 'bools', body: 'SELECT s, s.@usedHeapSize > 24 AS big FROM java.lang.String s', streamed: true },
    { what: 'exact longs beyond 2^53', body: 'SELECT s, s.createdAt * 10001 AS p FROM Demo$Session s' },
    { what: 'aggregates with an exact long', body: 'SELECT COUNT(*) AS n, SUM(s.@usedHeapSize) AS used, MAX(s.createdAt * 10001) AS mx FROM Demo$Session s' },
    { what: 'GROUP BY, ORDER BY', body: 'SELECT classof(x) AS c, COUNT(*) AS n FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY n DESC' },
    { what: 'ORDER BY over many rows', body: 'SELECT x, x.@usedHeapSize FROM INSTANCEOF java.lang.Object x ORDER BY x.@usedHeapSize DESC', streamed: true },
    { what: 'DISTINCT, UNION', body: 'SELECT DISTINCT classof(s) FROM java.lang.String s UNION SELECT classof(t) FROM Demo$Session t' },
    { what: "the query's LIMIT", body: 'SELECT s FROM java.lang.String s LIMIT 10' },
    { what: 'the limit override below the rows: truncated', body: json({ query: 'SELECT s FROM Demo$Session s LIMIT 50', limit: 3 }), limit: 3 },
    { what: 'a long answer cut by the limit override: truncated', body: json({ query: objects, limit: 5000 }), limit: 5000, streamed: true },
    { what: 'the limit override above the rows: not truncated', body: json({ query: 'SELECT s FROM Demo$Session s', limit: 1000 }), limit: 1000 },
    { what: 'limit 0', body: json({ query: objects, limit: 0 }), limit: 0 },
    { what: 'name and viz', body: json({ query: '-- @viz histogram label=1 value=2 title=Sizes\nSELECT classof(s) AS c, SUM(s.@usedHeapSize) AS b FROM java.lang.String s GROUP BY classof(s)', name: 'sizes' }), name: 'sizes' },
    { what: 'name and viz, streamed', body: json({ query: 'SELECT x, x.@usedHeapSize FROM INSTANCEOF java.lang.Object x', viz: { kind: 'table', title: 'all' }, name: 'every "object"' }), name: 'every "object"', streamed: true },
    // No row: the column types are those of the executor's empty result.
    { what: '0 rows of objects', body: 'SELECT s FROM java.lang.String s WHERE s.@usedHeapSize > 100000000' },
    { what: '0 rows of *', body: 'SELECT * FROM java.lang.String s WHERE s.@usedHeapSize > 100000000' },
    { what: '0 rows of one value column', body: 'SELECT s.@usedHeapSize FROM java.lang.String s WHERE s.@usedHeapSize > 100000000' },
    { what: '0 rows of two columns', body: 'SELECT s, toString(s) FROM java.lang.String s WHERE s.@usedHeapSize > 100000000' },
    { what: '0 rows: LIMIT 0', body: 'SELECT s FROM java.lang.String s LIMIT 0' },
    { what: '0 groups', body: 'SELECT classof(s), COUNT(*) FROM java.lang.String s WHERE s.@usedHeapSize > 100000000 GROUP BY classof(s)' },
    { what: '0 rows: a subquery of objects', body: 'SELECT x FROM (SELECT s FROM java.lang.String s WHERE s.@usedHeapSize > 100000000) x' },
    { what: '0 rows: a subquery of values', body: 'SELECT x FROM (SELECT s.@usedHeapSize AS n FROM java.lang.String s WHERE s.@usedHeapSize > 100000000) x' },
    { what: '0 rows: a column of a subquery', body: 'SELECT x.s FROM (SELECT s FROM java.lang.String s WHERE s.@usedHeapSize > 100000000) x' },
    { what: '0 rows: limit 0 over a subquery of values', body: json({ query: 'SELECT x FROM (SELECT s.@usedHeapSize AS n FROM java.lang.String s) x', limit: 0 }), limit: 0 },
    { what: '0 rows: UNION of objects', body: 'SELECT s FROM java.lang.String s WHERE s.@usedHeapSize > 100000000 UNION SELECT t FROM Demo$Session t WHERE t.@usedHeapSize > 100000000' },
    { what: '0 rows: UNION of objects and values', body: 'SELECT s FROM java.lang.String s WHERE s.@usedHeapSize > 100000000 UNION SELECT toString(t) FROM Demo$Session t WHERE t.@usedHeapSize > 100000000' },
    // A guard that finds nothing empties a select over value rows before it reads them.
    { what: '0 rows: EXISTS that finds nothing over a subquery of values', body: 'SELECT x FROM (SELECT s.@usedHeapSize AS n FROM java.lang.String s) x WHERE EXISTS (SELECT t FROM Demo$Session t WHERE t.@usedHeapSize > 100000000)' },
    { what: 'EXISTS that finds something over a subquery of values', body: 'SELECT x FROM (SELECT s.@usedHeapSize AS n FROM Demo$Session s) x WHERE EXISTS (SELECT t FROM Demo$Session t)' },
  ];

  test.each(cases)('$what', async ({ body, limit, name, streamed }) => {
    const [text, headers] = typeof body === 'string' ? [body, {}] : body;
    const oql = typeof body === 'string' ? text : (JSON.parse(text) as { query: string }).query;
    const before = streams;
    const res = await post(server.port, '/query', text, headers);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.complete).toBe(true);
    expect(res.headers['content-type']).toBe('application/json');
    // The rows came from the executor's stream, not from the one-shot execution.
    expect(streams).toBe(before + 1);
    const viz = typeof body === 'string' ? undefined : (JSON.parse(text) as { viz?: QueryResult['viz'] }).viz;
    const expected = await session.query(oql, { ...(limit !== undefined ? { limit } : {}), ...(name !== undefined ? { name } : {}), ...(viz ? { viz } : {}) });
    // The answer's oql leaves a leading -- @viz line out (the library keeps it as a blank line).
    if (/^-- @viz/.test(oql)) expected.oql = expected.oql.replace(/^\n/, '');
    const got = parseJsonExact(res.text) as QueryResult;
    expect(timeless(got)).toEqual(timeless(expected));
    expect(validateQueryResult(JSON.parse(res.text)).ok).toBe(true);
    if (streamed) {
      // Longer than one piece: sent chunked, the columns and counts after the rows.
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.headers['content-length']).toBeUndefined();
      expect(Object.keys(JSON.parse(res.text))).toEqual(['name', 'oql', ...(viz ? ['viz'] : []), 'rows', 'columns', 'rowCount', 'truncated', 'elapsedMs']);
    } else {
      // One piece: the very text of the QueryResult as before, with its length.
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
      const untimed = (t: string) => t.replace(/"elapsedMs":[0-9.e+-]+/, '"elapsedMs":0');
      expect(untimed(res.text)).toBe(untimed(stringifyJson(expected)));
    }
  });

  test('the same through POST / and with the plan cache (the same text twice)', async () => {
    const q = 'SELECT s, s.@usedHeapSize FROM java.lang.String s';
    const expected = timeless(await session.query(q));
    for (let i = 0; i < 2; i++) {
      const res = await post(server.port, '/', q);
      expect(res.status).toBe(200);
      expect(timeless(parseJsonExact(res.text))).toEqual(expected);
    }
  });

  test('errors before the rows: the same status and JSON body as the query itself gives', async () => {
    const bad = [
      'SELEKT 1 FROM x',
      'SELECT s FROM java.lang.Strin s',
      'SELECT s.nosuchfield FROM java.lang.String s',
      'SELECT s.@retainedHeapSize FROM java.lang.String s',
      'SELECT s FROM "java.lang.(" s',
    ];
    for (const q of bad) {
      const res = await post(server.port, '/query', q);
      let expected: { status: number; body: unknown };
      try {
        await session.query(session.prepare(q));
        throw new Error(`${q} did not fail`);
      } catch (err) {
        const e = toApiError(err, session, q);
        expected = { status: e.status, body: errorBody(e.kind, e.message, e.details) };
      }
      expect(res.status, q).toBeGreaterThanOrEqual(400);
      expect(res.headers['content-type'], q).toMatch(/^application\/json/);
      const body = JSON.parse(res.text) as { ok: false; error: { kind: string; message: string } };
      expect(body, q).toMatchObject({ ok: false, error: { kind: 'query', message: expect.any(String) } });
      if (q.includes('@retainedHeapSize')) expect(body.error.message).toMatch(/POST \/analyze/);
      else expect({ status: res.status, body }, q).toEqual(expected);
    }
  });

  test('an error the executor reports with its first rows (ERR_NEEDS_ANALYSIS, a dump unreadable) keeps its status', async () => {
    const handle = session.handle as unknown as { executeStream: (...a: unknown[]) => Promise<unknown> };
    const real = handle.executeStream;
    const { HeapqlError } = await import('../ts/errors.js');
    try {
      for (const [code, status, kind] of [['ERR_NEEDS_ANALYSIS', 400, 'query'], ['ERR_DUMP_CHANGED', 500, 'dump_unreadable'], ['ERR_UNKNOWN_CLASS', 400, 'query'], ['ERR_CANCELLED', 503, 'cancelled']] as const) {
        handle.executeStream = () => Promise.reject(new HeapqlError(code, `${code} from the executor`));
        const res = await post(server.port, '/query', objects);
        expect(res.status, code).toBe(status);
        const e = toApiError(new HeapqlError(code, `${code} from the executor`), session, objects);
        expect(JSON.parse(res.text), code).toEqual(errorBody(e.kind, e.message));
        expect(e.kind).toBe(kind);
      }
    } finally {
      handle.executeStream = real;
    }
    expect((await post(server.port, '/query', 'SELECT COUNT(*) FROM Demo$Session')).status).toBe(200);
  });

  test('an error after the answer began breaks the body off: never a whole-looking document', async () => {
    const handle = session.handle as unknown as { describe: (...a: unknown[]) => unknown };
    const real = handle.describe;
    let calls = 0;
    // Object cells are described batch by batch: the fifth batch's look-up fails, after the
    // first 64 KiB of rows were sent with the status.
    handle.describe = (...a: unknown[]) => {
      if (++calls === 5) throw new Error('the look-up failed');
      return real.apply(handle, a);
    };
    try {
      const res = await post(server.port, '/query', objects);
      expect(res.status).toBe(200);
      expect(res.complete).toBe(false);
      expect(res.text.startsWith('{"name":"q1","oql":')).toBe(true);
      expect(() => JSON.parse(res.text)).toThrow();
      // The same failure in the first batch is still a plain 500.
      calls = 4;
      const early = await post(server.port, '/query', objects);
      expect(early.status).toBe(500);
      expect(JSON.parse(early.text)).toEqual({ ok: false, error: { kind: 'internal', message: expect.stringContaining('the look-up failed') } });
    } finally {
      handle.describe = real;
    }
    expect((await post(server.port, '/query', 'SELECT COUNT(*) FROM Demo$Session')).status).toBe(200);
  });
});

describe('POST /query after the full analysis (demo dump)', () => {
  let session: HeapSession;
  let server: RunningServer;
  beforeAll(async () => {
    session = await openHeap(demo);
    await session.analyze();
    server = await listen(session, 0);
  });
  afterAll(async () => {
    await server?.close();
    session?.close();
  });

  test.each([
    'SELECT x, dominators(x) AS doms, x.@retainedHeapSize FROM INSTANCEOF java.lang.Object x',
    'SELECT AS RETAINED SET * FROM Demo$Session',
    'SELECT s.user AS RETAINED SET FROM Demo$Session s',
    'SELECT AS RETAINED SET * FROM Demo$Session s WHERE s.@usedHeapSize > 100000000',
    'SELECT s.user AS RETAINED SET FROM Demo$Session s WHERE s.@usedHeapSize > 100000000',
    'SELECT s, s.@retainedHeapSize FROM Demo$Session s WHERE s.@retainedHeapSize > 100000000',
  ])('%s', async (q) => {
    const res = await post(server.port, '/query', q);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.complete).toBe(true);
    expect(timeless(parseJsonExact(res.text))).toEqual(timeless(await session.query(q)));
  });
});

describe('a long POST /query answer and a slow or vanishing client (KnownHeap dump)', () => {
  let session: HeapSession;
  let server: RunningServer;
  /** Each native stream call: the rows it has handed over, and how it ended. */
  const calls: { rows: number; settled: boolean; stopped: boolean | null; error: string | null }[] = [];
  const query = 'SELECT x, x.@usedHeapSize, x.@displayName, classof(x) FROM INSTANCEOF java.lang.Object x';
  let total = 0;

  beforeAll(async () => {
    session = await openHeap(known);
    total = session.status.objects;
    const handle = session.handle as unknown as { executeStream: (...a: any[]) => Promise<{ rows: number; stopped: boolean }> };
    const real = handle.executeStream.bind(handle);
    handle.executeStream = (plan: string, batchRows: number, onBatch: (b: { rowCount: number }) => void, ...rest: unknown[]) => {
      const call = { rows: 0, settled: false, stopped: null as boolean | null, error: null as string | null };
      calls.push(call);
      const counted = (b: { rowCount: number }) => {
        call.rows += b.rowCount;
        onBatch(b);
      };
      return real(plan, batchRows, counted, ...rest).then(
        (end) => {
          Object.assign(call, { settled: true, stopped: end.stopped });
          return end;
        },
        (err: Error) => {
          Object.assign(call, { settled: true, error: err.message });
          throw err;
        },
      );
    };
    server = await listen(session, 0);
  });
  afterAll(async () => {
    await server?.close();
    session?.close();
  });

  /** Starts the query and waits for its first piece; the response is then paused. */
  function start(): Promise<{ req: http.ClientRequest; res: http.IncomingMessage; first: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/query', agent: false }, (res) => {
        res.setEncoding('utf8');
        res.once('data', (first: string) => {
          res.pause();
          resolve({ req, res, first });
        });
      });
      req.on('error', reject);
      req.end(query);
    });
  }

  test('comes in pieces while the scan waits for the reader; GET /status answers meanwhile', async () => {
    const { res, first } = await start();
    const call = calls.at(-1)!;
    expect(res.statusCode).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(first.startsWith('{"name":"q1","oql":')).toBe(true);
    // Let whatever can flow flow (bounded by count): the socket buffers fill, then the scan stops
    // and waits for the reader, far short of the heap's objects.
    let seen = -1;
    for (let i = 0; i < 100 && call.rows !== seen; i++) {
      seen = call.rows;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(call.settled).toBe(false);
    expect(call.rows).toBeLessThan(total / 2);
    const status = await fetch(`${server.url}/status`);
    expect(status.status).toBe(200);
    expect(((await status.json()) as { objects: number }).objects).toBe(total);
    expect(res.complete).toBe(false);
    expect(call.settled).toBe(false);

    // The reader goes on: the rest arrives, in many pieces, and makes the whole answer.
    let text = first;
    let chunks = 1;
    await new Promise<void>((resolve, reject) => {
      res.on('data', (d: string) => {
        chunks++;
        text += d;
      });
      res.on('end', resolve);
      res.on('error', reject);
      res.resume();
    });
    expect(res.complete).toBe(true);
    expect(chunks).toBeGreaterThan(10);
    const got = JSON.parse(text) as QueryResult;
    expect(got.rowCount).toBe(total);
    expect(got.rows.length).toBe(total);
    expect(got.truncated).toBe(false);
    expect(got.columns).toEqual([
      { name: 'x', type: 'object' },
      { name: 'x.@usedHeapSize', type: 'number' },
      { name: 'x.@displayName', type: 'string' },
      { name: 'classof(x)', type: 'object' },
    ]);
    expect(call.settled).toBe(true);
    expect(call.stopped).toBe(false);
  });

  test('a client that hangs up mid-body stops the scan; the server goes on', async () => {
    const rejections: unknown[] = [];
    const onRejection = (r: unknown) => rejections.push(r);
    process.on('unhandledRejection', onRejection);
    try {
      const { req, res, first } = await start();
      const call = calls.at(-1)!;
      expect(first.length).toBeGreaterThan(0);
      expect(call.settled).toBe(false);
      res.destroy();
      req.destroy();
      // Bounded by count: the server notices the closed connection and stops the scan.
      expect(await until(() => call.settled)).toBe(true);
      // Stopped early: reported as stopped with fewer rows than the heap has, or cancelled.
      if (call.error === null) expect(call.stopped).toBe(true);
      else expect(call.error).toMatch(/cancel/i);
      expect(call.rows).toBeLessThan(total);
      expect((await fetch(`${server.url}/status`)).status).toBe(200);
      const small = await post(server.port, '/query', 'SELECT COUNT(*) FROM java.lang.String');
      expect(small.status).toBe(200);
      expect((JSON.parse(small.text) as QueryResult).rows).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 20));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
