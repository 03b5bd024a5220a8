/**
 * Paged results over real loopback HTTP (`POST /pages`, `GET /pages/<id>`, `/pages/<id>/count`,
 * `DELETE /pages/<id>`) on a fixture dump (KnownHeap: 1000 KnownHeap$Point objects): the pages
 * put together are `POST /query`'s rows in order; the count is the whole result's (with a
 * `limit` too); the last page can be asked again (its answer lost), any other row is a 409; a
 * closed cursor (DELETE, replaced by newer ones) is a 404 saying to run the
 * query again; a result of one page comes whole, with no cursor; bad `pageRows` are refused.
 * The count of a sorted (or grouped) result is the one its stream said: the addon's execution is
 * started once, counted by a wrapper; an unsorted one is counted by a second run, which the end
 * of the stream settles and stops when it comes first.
 */
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import type { NativeHeap } from '../ts/native/index.js';
import type { QueryResult } from '../ts/query/schema.js';
import { validateQueryResult } from '../ts/query/validate.js';
import { listen, type RunningServer } from '../ts/server/listen.js';
import { MAX_OPEN } from '../ts/server/query-pages.js';

const DUMP = path.resolve(__dirname, '../fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const QUERY = 'SELECT p, p.x AS x FROM KnownHeap$Point p';
const SORTED = 'SELECT p, p.x AS x FROM KnownHeap$Point p ORDER BY x DESC';
const GROUPED = 'SELECT p.x % 400 AS k, COUNT(*) AS n FROM KnownHeap$Point p GROUP BY p.x % 400';

interface Start {
  cursor: string | null;
  pageRows: number;
  result: QueryResult;
}

describe('paged results (POST /pages)', () => {
  let session: HeapSession;
  let server: RunningServer;
  let whole: QueryResult;
  /** Executions the addon started (`execute`, `executeStream`, `executeCount`) since the last `reset()`. */
  let starts = 0;
  /** While set, a count run (`executeCount`: `countPrepared`'s) starts only once it resolves. */
  let holdCounts: Promise<void> | null = null;
  /** What the count runs held gave once they ran. */
  let heldRuns: Promise<string>[] = [];
  const reset = () => {
    starts = 0;
    heldRuns = [];
  };

  const json = async <T>(res: Response): Promise<{ status: number; body: T }> => ({ status: res.status, body: (await res.json()) as T });
  const start = async (body: Record<string, unknown>) => json<Start>(await fetch(`${server.url}/pages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  const next = async (cursor: string, query: string) => json<{ from: number; rows: QueryResult['rows']; done: boolean; truncated?: boolean; error?: { kind: string; message: string } }>(await fetch(`${server.url}/pages/${cursor}${query}`));

  beforeAll(async () => {
    session = await openHeap(DUMP, { noCache: true });
    server = await listen(session, 0, {});
    whole = (await (await fetch(`${server.url}/query`, { method: 'POST', body: QUERY })).json()) as QueryResult;
    expect(whole.rowCount).toBe(1000);
    const handle = session.handle as NativeHeap;
    const execute = handle.execute.bind(handle);
    const executeStream = handle.executeStream.bind(handle);
    handle.execute = (...args: Parameters<NativeHeap['execute']>) => {
      starts++;
      return execute(...args);
    };
    handle.executeStream = (...args: Parameters<NativeHeap['executeStream']>) => {
      starts++;
      return executeStream(...args);
    };
    const executeCount = handle.executeCount.bind(handle);
    handle.executeCount = (...args: Parameters<NativeHeap['executeCount']>) => {
      starts++;
      const held = holdCounts;
      if (!held) return executeCount(...args);
      const run = held.then(() => executeCount(...args));
      heldRuns.push(run.then((rows) => `counted ${rows}`, (err: Error) => err.message.replace(/:.*/s, '')));
      return run;
    };
  });
  afterAll(async () => {
    await server?.close();
    session?.close();
  });

  test('the pages are the whole result in order; the count is known; the end keeps the last page until DELETE', async () => {
    const { status, body } = await start({ query: QUERY, pageRows: 300 });
    expect(status).toBe(200);
    expect(body.cursor).toMatch(/^[0-9a-f-]{36}$/);
    expect(validateQueryResult(body.result).ok).toBe(true);
    expect(body.result).toMatchObject({ name: 'q1', oql: QUERY, columns: whole.columns, rowCount: 300, truncated: true });
    const rows = [...body.result.rows];
    const count = json<{ rowCount: number; truncated: boolean }>(await fetch(`${server.url}/pages/${body.cursor}/count`));
    for (let i = 0; i < 10 && rows.length < 1000; i++) {
      const page = await next(body.cursor!, `?from=${rows.length}`);
      expect(page.status).toBe(200);
      expect(page.body.from).toBe(rows.length);
      rows.push(...page.body.rows);
      expect(page.body.done).toBe(rows.length === 1000);
    }
    expect(rows).toEqual(whole.rows);
    expect((await count).body).toEqual({ rowCount: 1000, truncated: false });
    // Read to its end, the cursor stays until closed: its last page again, then nothing more.
    expect((await next(body.cursor!, '?from=900')).body).toMatchObject({ from: 900, rows: whole.rows.slice(900), done: true, truncated: false });
    expect((await next(body.cursor!, '?from=1000')).body).toEqual({ from: 1000, rows: [], done: true, truncated: false });
    await fetch(`${server.url}/pages/${body.cursor}`, { method: 'DELETE' });
    const after = await next(body.cursor!, '?from=1000');
    expect(after.status).toBe(404);
    expect(after.body.error!.message).toMatch(/^no paged result ".*": it was closed .*; run the query again$/);
  });

  test('rows=N; the last page again; another row is a 409; DELETE closes', async () => {
    const { body } = await start({ query: QUERY, pageRows: 100 });
    const a = await next(body.cursor!, '?from=100&rows=7');
    expect(a.body.rows).toEqual(whole.rows.slice(100, 107));
    // Its answer lost: asked again, the same rows.
    expect((await next(body.cursor!, '?from=100&rows=7')).body.rows).toEqual(a.body.rows);
    const wrong = await next(body.cursor!, '?from=50');
    expect(wrong.status).toBe(409);
    expect(wrong.body.error!.message).toBe('this paged result is at row 107, not 50: ask for ?from=107 (rows before it are not kept), or run the query again');
    expect((await next(body.cursor!, '?rows=0')).status).toBe(400);
    expect((await next(body.cursor!, '')).body.rows).toEqual(whole.rows.slice(107, 207));
    const del = await fetch(`${server.url}/pages/${body.cursor}`, { method: 'DELETE' });
    expect(await del.json()).toEqual({ ok: true, status: 'closed' });
    expect((await next(body.cursor!, '?from=207')).status).toBe(404);
    expect((await fetch(`${server.url}/pages/${body.cursor}/count`)).status).toBe(404);
    expect((await fetch(`${server.url}/pages/${body.cursor}`, { method: 'DELETE' })).status).toBe(404);
  });

  test('a limit caps the pages and the count', async () => {
    const { body } = await start({ query: QUERY, pageRows: 100, limit: 250 });
    const count = await json<{ rowCount: number; truncated: boolean }>(await fetch(`${server.url}/pages/${body.cursor}/count`));
    expect(count.body).toEqual({ rowCount: 250, truncated: true });
    const rest = await next(body.cursor!, '?from=100&rows=1000');
    expect(rest.body).toMatchObject({ from: 100, done: true, truncated: true });
    expect(rest.body.rows).toEqual(whole.rows.slice(100, 250));
  });

  test(`a result of one page comes whole; the server keeps ${MAX_OPEN} cursors`, async () => {
    const small = await start({ query: QUERY, pageRows: 1000 });
    expect(small.body.cursor).toBeNull();
    expect({ ...small.body.result, elapsedMs: 0 }).toEqual({ ...whole, elapsedMs: 0 });
    const cursors: string[] = [];
    for (let i = 0; i <= MAX_OPEN; i++) cursors.push((await start({ query: QUERY, pageRows: 10 })).body.cursor!);
    expect((await next(cursors[0]!, '')).status).toBe(404);
    for (const c of cursors.slice(1)) expect((await next(c, '')).body.rows).toEqual(whole.rows.slice(10, 20));
    for (const c of cursors.slice(1)) await fetch(`${server.url}/pages/${c}`, { method: 'DELETE' });
  });

  test("the library's queryCount: the rows, up to a limit; a signal cancels it", async () => {
    expect(await session.queryCount(QUERY)).toEqual({ rowCount: 1000, truncated: false });
    expect(await session.queryCount(QUERY, { limit: 999 })).toEqual({ rowCount: 999, truncated: true });
    expect(await session.queryCount(QUERY, { limit: 1000 })).toEqual({ rowCount: 1000, truncated: false });
    await expect(session.queryCount(QUERY, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
  });

  const countOf = async (cursor: string) => json<{ rowCount: number; truncated: boolean }>(await fetch(`${server.url}/pages/${cursor}/count`));

  test('a sorted or grouped result is counted by its stream: the addon runs once', async () => {
    const sorted = (await (await fetch(`${server.url}/query`, { method: 'POST', body: SORTED })).json()) as QueryResult;
    for (const [oql, rowCount, rows] of [
      [SORTED, 1000, sorted.rows],
      [GROUPED, 400, null],
    ] as const) {
      reset();
      const { body } = await start({ query: oql, pageRows: 150 });
      expect(body.result.rowCount).toBe(150);
      expect((await countOf(body.cursor!)).body).toEqual({ rowCount, truncated: false });
      expect(starts).toBe(1);
      if (rows) {
        const rest = await next(body.cursor!, '?from=150&rows=10000');
        expect([...body.result.rows, ...rest.body.rows]).toEqual(rows);
        expect(rest.body.done).toBe(true);
      }
      await fetch(`${server.url}/pages/${body.cursor}`, { method: 'DELETE' });
      expect(starts).toBe(1);
    }
    // A limit caps the count the stream says, and says more existed.
    reset();
    const { body } = await start({ query: SORTED, pageRows: 100, limit: 250 });
    expect((await countOf(body.cursor!)).body).toEqual({ rowCount: 250, truncated: true });
    expect(starts).toBe(1);
    const rest = await next(body.cursor!, '?from=100&rows=1000');
    expect(rest.body).toMatchObject({ from: 100, done: true, truncated: true });
    expect(rest.body.rows).toEqual(sorted.rows.slice(100, 250));
    expect(starts).toBe(1);
  });

  test('an unsorted result is counted by a second run; its rows running out first settle the count and stop that run', async () => {
    reset();
    let { body } = await start({ query: QUERY, pageRows: 300 });
    expect((await countOf(body.cursor!)).body).toEqual({ rowCount: 1000, truncated: false });
    expect(starts).toBe(2);
    await fetch(`${server.url}/pages/${body.cursor}`, { method: 'DELETE' });

    // The count run held before it starts: the rows, read to their end, are the count.
    reset();
    let letGo!: () => void;
    holdCounts = new Promise<void>((r) => (letGo = r));
    try {
      ({ body } = await start({ query: QUERY, pageRows: 300 }));
      const count = countOf(body.cursor!);
      await expect.poll(() => heldRuns.length).toBe(1);
      const rest = await next(body.cursor!, '?from=300&rows=10000');
      expect(rest.body).toMatchObject({ from: 300, done: true });
      expect((await count).body).toEqual({ rowCount: 1000, truncated: false });
    } finally {
      letGo();
      holdCounts = null;
    }
    // Let go after the count was settled, the second run starts stopped.
    expect(await heldRuns[0]).toMatch(/^(ERR_CANCELLED|stopped)$/);
    expect(starts).toBe(2);
    await fetch(`${server.url}/pages/${body.cursor}`, { method: 'DELETE' });
  });

  test('bad pageRows are refused; /query and /stream do not take it', async () => {
    for (const pageRows of [0, 10_001, 1.5, '10']) {
      const { status, body } = await start({ query: QUERY, pageRows });
      expect(status).toBe(400);
      expect((body as unknown as { error: { message: string } }).error.message).toMatch(/^"pageRows" must be a whole number from 1 to 10000, not /);
    }
    const res = await fetch(`${server.url}/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY, pageRows: 5 }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/"pageRows" is for POST \/pages$/);
  });
});
