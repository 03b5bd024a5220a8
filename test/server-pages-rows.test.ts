/**
 * A paged result's rows from a row on (`GET /pages/<id>/rows?from=N&rows=M`) over real loopback
 * HTTP on a fixture dump (KnownHeap: 1000 KnownHeap$Point objects): the last rows of a result,
 * its count from `/pages/<id>/count`, are read by a run of the query that starts there, so the
 * executor hands over only those rows (counted at the addon's stream), and they are the whole
 * result's last rows (a plain select, ORDER BY, GROUP BY, a limit, a result shorter than the rows
 * asked for, a row past the end); rows asked for request after request, each from where the
 * last ended, are read by one run kept between them (the first held scan stopped, no cursor
 * closed for it); the cursor's own stream is not moved; a HEAD starts nothing;
 * bad parameters are a 400, a closed cursor a 404, as its other requests.
 */
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import type { NativeHeap } from '../ts/native/index.js';
import type { QueryResult } from '../ts/query/schema.js';
import { listen, type RunningServer } from '../ts/server/listen.js';

const DUMP = path.resolve(__dirname, '../fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const QUERY = 'SELECT p, p.x AS x, p.y AS y FROM KnownHeap$Point p';
const SORTED = 'SELECT p, p.x AS x FROM KnownHeap$Point p ORDER BY x DESC';
const GROUPED = 'SELECT p.x % 400 AS k, COUNT(*) AS n FROM KnownHeap$Point p GROUP BY p.x % 400';
const FILTERED = 'SELECT p.x AS x FROM KnownHeap$Point p WHERE p.x % 7 = 3';

interface Start {
  cursor: string | null;
  pageRows: number;
  result: QueryResult;
}
interface Rows {
  from: number;
  rows: QueryResult['rows'];
  columns: QueryResult['columns'];
  done: boolean;
  truncated?: boolean;
  note?: string;
}
type Failure = { ok: false; error: { kind: string; message: string } };

describe('a paged result from a row on (GET /pages/<id>/rows)', () => {
  let session: HeapSession;
  let server: RunningServer;
  /** Executions the addon started (`execute`, `executeStream`, `executeCount`). */
  let starts = 0;
  /**
   * The streams the addon started, in order: each one's `skip` and the rows it handed over
   * (converted for TypeScript). Counted per stream: a cursor's own stream runs a few batches
   * ahead of its reader meanwhile.
   */
  const streams: { skip: number; handed: number }[] = [];
  /** The streams started since `mark`. */
  const since = (mark: number) => streams.slice(mark);
  const handedSince = (mark: number) => since(mark).reduce((sum, s) => sum + s.handed, 0);
  /** While set, a stream starts only once it resolves (`started` says one waits). */
  let holdStreams: { released: Promise<void>; started: () => void } | null = null;
  let holdBatch: { released: Promise<void>; reached: () => void } | null = null;
  /** The signal of the last run from a row on the server started (aborted: the server stopped it). */
  let runSignal: AbortSignal | null = null;

  const json = async <T>(res: Response): Promise<{ status: number; body: T }> => ({ status: res.status, body: (await res.json()) as T });
  const post = (url: string, body: unknown) => fetch(`${server.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const start = async (body: Record<string, unknown>) => json<Start>(await post('/pages', body));
  const wholeOf = async (body: Record<string, unknown>) => (await (await post('/query', body)).json()) as QueryResult;
  const rowsFrom = async (cursor: string, query: string) => json<Rows>(await fetch(`${server.url}/pages/${cursor}/rows${query}`));
  const countOf = async (cursor: string) => (await json<{ rowCount: number; truncated: boolean }>(await fetch(`${server.url}/pages/${cursor}/count`))).body;
  const close = (cursor: string) => fetch(`${server.url}/pages/${cursor}`, { method: 'DELETE' });

  /** The last `n` rows as the browser REPL's `!tail` reads them: counted, then from count − n. */
  async function tail(cursor: string, n: number): Promise<{ body: Rows; handed: number; skips: number[] }> {
    const { rowCount } = await countOf(cursor);
    const mark = streams.length;
    const { status, body } = await rowsFrom(cursor, `?from=${Math.max(0, rowCount - n)}&rows=${n}`);
    expect(status).toBe(200);
    return { body, handed: handedSince(mark), skips: since(mark).map((s) => s.skip) };
  }

  beforeAll(async () => {
    session = await openHeap(DUMP, { noCache: true });
    server = await listen(session, 0, {});
    // While `holdBatch` is set, the next batch of a run from a row on waits for it (`reached` once there).
    const queryBatches = session.queryBatches.bind(session);
    session.queryBatches = (q, options = {}) =>
      (async function* () {
        const batches = queryBatches(q, options);
        if ((options.skip ?? 0) > 0) runSignal = options.signal ?? null;
        try {
          for (;;) {
            const next = await batches.next();
            if (next.done) return next.value;
            const hold = (options.skip ?? 0) > 0 ? holdBatch : null;
            if (hold) {
              holdBatch = null;
              hold.reached();
              await hold.released;
            }
            yield next.value;
          }
        } finally {
          await batches.return(undefined as never);
        }
      })();
    const handle = session.handle as NativeHeap;
    const execute = handle.execute.bind(handle);
    const executeStream = handle.executeStream.bind(handle);
    const executeCount = handle.executeCount.bind(handle);
    handle.execute = (...args: Parameters<NativeHeap['execute']>) => {
      starts++;
      return execute(...args);
    };
    handle.executeStream = async (plan, batchRows, onBatch, cancel, gate, onProgress, skip) => {
      starts++;
      const stream = { skip: skip ?? 0, handed: 0 };
      streams.push(stream);
      const held = holdStreams;
      if (held) {
        held.started();
        await held.released;
      }
      return executeStream(
        plan,
        batchRows,
        (batch) => {
          stream.handed += batch.rowCount;
          onBatch(batch);
        },
        cancel,
        gate,
        onProgress,
        skip,
      );
    };
    handle.executeCount = (...args: Parameters<NativeHeap['executeCount']>) => {
      starts++;
      return executeCount(...args);
    };
  });
  afterAll(async () => {
    await server?.close();
    session?.close();
  });

  test('the last rows of a plain select: only they are handed over, the whole result’s end; the cursor stays where it is', async () => {
    const whole = await wholeOf({ query: QUERY });
    expect(whole.rowCount).toBe(1000);
    const { body: first } = await start({ query: QUERY, pageRows: 100 });
    const cursor = first.cursor!;
    const { body, handed: read, skips } = await tail(cursor, 5);
    expect(body).toEqual({ from: 995, rows: whole.rows.slice(995), columns: whole.columns, done: true, truncated: false });
    // The stream started at row 995: the executor handed over those 5 rows, none before them.
    expect(skips).toEqual([995]);
    expect(read).toBe(5);
    // Rows in the middle: exactly those; more follow (`done: false`). The run, in batches of the
    // rows asked for, read one batch past them and ran at most 8 batches ahead of its reader
    // (the session's stream gate) before it was stopped: never the rest of the result.
    const mark = streams.length;
    const mid = await rowsFrom(cursor, '?from=400&rows=7');
    const handed = handedSince(mark);
    expect(since(mark).map((s) => s.skip)).toEqual([400]);
    expect(mid.body).toEqual({ from: 400, rows: whole.rows.slice(400, 407), columns: whole.columns, done: false });
    expect(handed).toBeGreaterThanOrEqual(14);
    expect(handed).toBeLessThanOrEqual(7 * (2 + 8));
    // The cursor's own stream was not moved: its next page is still rows 100–199.
    const next = await json<{ from: number; rows: QueryResult['rows'] }>(await fetch(`${server.url}/pages/${cursor}?from=100`));
    expect(next.status).toBe(200);
    expect(next.body.rows).toEqual(whole.rows.slice(100, 200));
    // Rows before the cursor's position can be read too (a run of their own).
    expect((await rowsFrom(cursor, '?from=0&rows=3')).body.rows).toEqual(whole.rows.slice(0, 3));
    await close(cursor);
  });

  test('ORDER BY, GROUP BY and a filter: the same rows as the whole result’s end', async () => {
    for (const query of [SORTED, GROUPED, FILTERED]) {
      const whole = await wholeOf({ query });
      const { body: first } = await start({ query, pageRows: 50 });
      const n = 8;
      const { body, handed: read } = await tail(first.cursor!, n);
      expect(body.rows, query).toEqual(whole.rows.slice(-n));
      expect(body).toMatchObject({ from: whole.rowCount - n, done: true, truncated: false });
      expect(body.columns, query).toEqual(whole.columns);
      // A sorted or grouped query makes every row, and drops those before in Rust: handed over are the last only.
      expect(read, query).toBe(n);
      await close(first.cursor!);
    }
  });

  test('a limit: the last rows up to it, and truncated says more existed', async () => {
    for (const query of [QUERY, SORTED]) {
      const whole = await wholeOf({ query, limit: 250 });
      expect(whole).toMatchObject({ rowCount: 250, truncated: true });
      const { body: first } = await start({ query, pageRows: 100, limit: 250 });
      const { body, handed: read } = await tail(first.cursor!, 10);
      expect(body).toEqual({ from: 240, rows: whole.rows.slice(240), columns: whole.columns, done: true, truncated: true });
      // And the one row past the limit that says it was cut (as any limited run reads it).
      expect(read).toBe(11);
      // The LIMIT written in the query likewise.
      const limited = `${query} LIMIT 300`;
      const wholeLimited = await wholeOf({ query: limited });
      const { body: second } = await start({ query: limited, pageRows: 100 });
      const last = await tail(second.cursor!, 4);
      expect(last.body.rows).toEqual(wholeLimited.rows.slice(-4));
      expect(last.body.from).toBe(296);
      await close(first.cursor!);
      await close(second.cursor!);
    }
  });

  test('a result shorter than the rows asked for: all of it; from past the end: none', async () => {
    const whole = await wholeOf({ query: FILTERED });
    expect(whole.rowCount).toBeGreaterThan(100);
    expect(whole.rowCount).toBeLessThan(1000);
    const { body: first } = await start({ query: FILTERED, pageRows: 100 });
    const { body } = await tail(first.cursor!, 1000);
    expect(body).toEqual({ from: 0, rows: whole.rows, columns: whole.columns, done: true, truncated: false });
    const past = await rowsFrom(first.cursor!, `?from=${whole.rowCount + 10}&rows=5`);
    expect(past.body).toMatchObject({ from: whole.rowCount + 10, rows: [], done: true, truncated: false });
    await close(first.cursor!);
  });

  test('rows read request after request, each from where the last ended, are one run: the query does not run again to each', async () => {
    const whole = await wholeOf({ query: QUERY });
    const { body: first } = await start({ query: QUERY, pageRows: 100 });
    const cursor = first.cursor!;
    const mark = streams.length;
    for (const [from, rows] of [
      [250, 300],
      [550, 300],
      [850, 300],
    ] as const) {
      const { status, body } = await rowsFrom(cursor, `?from=${from}&rows=${rows}`);
      expect(status).toBe(200);
      const end = Math.min(from + rows, 1000);
      expect(body).toEqual({ from, rows: whole.rows.slice(from, end), columns: whole.columns, done: end === 1000, ...(end === 1000 ? { truncated: false } : {}) });
    }
    // One run, from row 250: each row handed over once, none before it.
    expect(since(mark).map((s) => s.skip)).toEqual([250]);
    expect(handedSince(mark)).toBe(750);
    // Another row than where the last answer ended is a run of its own; the one after it goes on.
    const mark2 = streams.length;
    expect((await rowsFrom(cursor, '?from=10&rows=5')).body.rows).toEqual(whole.rows.slice(10, 15));
    expect((await rowsFrom(cursor, '?from=15&rows=5')).body.rows).toEqual(whole.rows.slice(15, 20));
    expect((await rowsFrom(cursor, '?from=500&rows=2')).body.rows).toEqual(whole.rows.slice(500, 502));
    expect(since(mark2).map((s) => s.skip)).toEqual([10, 500]);
    // The cursor's own stream was not moved.
    const next = await json<{ from: number; rows: QueryResult['rows'] }>(await fetch(`${server.url}/pages/${cursor}?from=100`));
    expect(next.body.rows).toEqual(whole.rows.slice(100, 200));
    await close(cursor);
  });

  test('the client gone while a kept run reads: that run stops, and the next request from its row runs the query again', async () => {
    const whole = await wholeOf({ query: QUERY });
    const cursor = (await start({ query: QUERY, pageRows: 100 })).body.cursor!;
    expect((await rowsFrom(cursor, '?from=300&rows=5')).body.rows).toEqual(whole.rows.slice(300, 305));
    let release = () => {};
    let reached = () => {};
    const atHold = new Promise<void>((r) => (reached = r));
    holdBatch = { released: new Promise<void>((r) => (release = r)), reached };
    const mark = streams.length;
    try {
      const client = new AbortController();
      const read = fetch(`${server.url}/pages/${cursor}/rows?from=305&rows=5`, { signal: client.signal }).catch((e: Error) => e);
      // The kept run goes on (no run started) and waits at its next batch; the client goes away.
      await atHold;
      expect(since(mark)).toEqual([]);
      client.abort();
      expect(await read).toBeInstanceOf(Error);
      // The server stops the run while its batch is still held (kept, it would go on at row 310 once the batch came).
      await expect.poll(() => runSignal?.aborted).toBe(true);
    } finally {
      holdBatch = null;
      release();
    }
    const again = await rowsFrom(cursor, '?from=310&rows=5');
    expect(again.body.rows).toEqual(whole.rows.slice(310, 315));
    expect(since(mark).map((s) => s.skip)).toEqual([310]);
    await close(cursor);
  });

  test('a run kept for the next request is the first held scan stopped: no cursor is closed for it, and the next request runs again', async () => {
    const whole = await wholeOf({ query: QUERY });
    // Two cursors paused: as many held scans as the server keeps (HELD_MAX of the default pool).
    const a = (await start({ query: QUERY, pageRows: 100 })).body.cursor!;
    const b = (await start({ query: FILTERED, pageRows: 10 })).body.cursor!;
    // A run from a row on, kept: a third held scan. It is the one stopped, not the cursor waiting longest.
    expect((await rowsFrom(a, '?from=300&rows=5')).body.rows).toEqual(whole.rows.slice(300, 305));
    const pageOfA = await json<{ rows: QueryResult['rows'] }>(await fetch(`${server.url}/pages/${a}?from=100`));
    expect(pageOfA.status).toBe(200);
    expect(pageOfA.body.rows).toEqual(whole.rows.slice(100, 200));
    expect((await fetch(`${server.url}/pages/${b}?from=10`)).status).toBe(200);
    // Its next request from where it ended is a run again, from there.
    const mark = streams.length;
    expect((await rowsFrom(a, '?from=305&rows=5')).body.rows).toEqual(whole.rows.slice(305, 310));
    expect(since(mark).map((s) => s.skip)).toEqual([305]);
    await close(a);
    await close(b);
  });

  test('the cursor closed while its rows are read (DELETE, newer cursors, idle): that run stops, and the request is a 404', async () => {
    const { body: first } = await start({ query: QUERY, pageRows: 100 });
    const cursor = first.cursor!;
    let release = () => {};
    let started = () => {};
    const waiting = new Promise<void>((r) => (started = r));
    holdStreams = { released: new Promise<void>((r) => (release = r)), started };
    try {
      const read = rowsFrom(cursor, '?from=990&rows=10');
      await waiting;
      await close(cursor);
      release();
      const answer = (await read) as unknown as { status: number; body: Failure };
      expect(answer.status).toBe(404);
      expect(answer.body.error.message).toMatch(/^no paged result ".*": it was closed /);
    } finally {
      holdStreams = null;
      release();
    }
  });

  test('HEAD starts nothing; bad parameters are a 400; a closed cursor a 404', async () => {
    const { body: first } = await start({ query: QUERY, pageRows: 100 });
    const cursor = first.cursor!;
    starts = 0;
    const head = await fetch(`${server.url}/pages/${cursor}/rows?from=990&rows=10`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(starts).toBe(0);
    for (const [query, message] of [
      ['', /^\?from= is required: the row \(from 0\) the rows start at/],
      ['?from=-1', /^\?from= must be a whole number from 0 to /],
      ['?from=1.5', /^\?from= must be a whole number from 0 to /],
      ['?from=10&rows=0', /^\?rows= must be a whole number from 1 to 10000, not "0"$/],
      ['?from=10&rows=10001', /^\?rows= must be a whole number from 1 to 10000/],
    ] as const) {
      const res = await json<Failure>(await fetch(`${server.url}/pages/${cursor}/rows${query}`));
      expect(res.status, query).toBe(400);
      expect(res.body.error.message, query).toMatch(message);
    }
    expect(starts).toBe(0);
    await close(cursor);
    const gone = await json<Failure>(await fetch(`${server.url}/pages/${cursor}/rows?from=990`));
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toMatch(/^no paged result ".*": it was closed .*; run the query again$/);
  });
});
