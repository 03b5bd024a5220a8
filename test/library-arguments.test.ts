/**
 * The library's callers are plain JavaScript as often as TypeScript: arguments the addon would
 * take wrongly (its u32 wraps -1 and cuts 1.5) or only much later are refused at once with
 * ERR_ARGUMENT, naming the argument and the value.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type Heap } from '../ts/index.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const anyOpen = openHeap as (path: unknown, options?: Record<string, unknown>) => Promise<Heap>;

describe('openHeap refuses options it would take wrongly', () => {
  test.each([
    [{ dump: -1 }, /dump must be a whole number from 0 to 4294967295, not -1/],
    [{ dump: 1.5 }, /dump must be a whole number .*not 1\.5/],
    [{ dump: '0' }, /dump must be a whole number .*not '0'/],
    [{ scratch: 'tape' }, /scratch is 'memory' or 'disk', not 'tape'/],
    [{ scratchDir: '/nonexistent/heapql-dir' }, /scratchDir \/nonexistent\/heapql-dir is not a directory/],
    [{ scratchDir: 7 }, /scratchDir is a directory's path, not 7/],
    [{ cacheMax: -1 }, /cacheMax is a size in bytes .*not -1/],
    [{ cacheMax: 0.5 }, /cacheMax is a size in bytes .*not 0\.5/],
    // Of the wrong type: 'yes' reached the plans (ERR_PLAN: malformed plan) and 'no' turned the cache on.
    [{ reachableOnly: 'yes' }, /^reachableOnly is true or false, not 'yes'$/],
    [{ reachableOnly: 1 }, /^reachableOnly is true or false, not 1$/],
    [{ cache: 'no' }, /^cache is true or false, not 'no'$/],
    [{ noCache: 'yes' }, /^noCache is true or false, not 'yes'$/],
    [{ onProgress: 'log' }, /^onProgress is a function, not 'log'$/],
    [{ signal: {} }, /^signal is an AbortSignal, not an object$/],
  ])('%o', async (options, message) => {
    await expect(anyOpen(demo, options)).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: expect.stringMatching(message) });
  });

  test('options that are no object', async () => {
    await expect(anyOpen(demo, 'reachable' as unknown as Record<string, unknown>)).rejects.toMatchObject({
      code: 'ERR_ARGUMENT',
      message: "openHeap's options are an object, not 'reachable'",
    });
  });

  test('a path that is not a string', async () => {
    await expect(anyOpen(42)).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: expect.stringMatching(/path is a string, not 42/) });
  });
});

describe('a session refuses arguments of the wrong kind', () => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(demo);
  });
  afterAll(() => heap.close());

  test('a query that is not text', async () => {
    const query = heap.query.bind(heap) as (q: unknown) => Promise<unknown>;
    await expect(query(42)).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: expect.stringMatching(/^a query is OQL text or a prepared query, not 42/) });
    expect(() => heap.prepare(null as unknown as string)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT' }));
  });

  test.each([-1, 1.5, Number.NaN])('a limit of %s', async (limit) => {
    await expect(heap.query('SELECT s FROM java.lang.String s', { limit })).rejects.toMatchObject({
      code: 'ERR_ARGUMENT',
      message: expect.stringMatching(/^limit must be a whole number ≥ 0, not /),
    });
  });

  test('a reachableOnly option that is not true or false, for a query and for the analysis', async () => {
    const bad = { reachableOnly: 'yes' } as unknown as { reachableOnly: boolean };
    const refusal = { code: 'ERR_ARGUMENT', message: "reachableOnly is true or false, not 'yes'" };
    await expect(heap.query('SELECT COUNT(*) FROM java.lang.String s', bad)).rejects.toMatchObject(refusal);
    expect(() => heap.explain('SELECT COUNT(*) FROM java.lang.String s', bad)).toThrow(expect.objectContaining(refusal));
    await expect(heap.analyze(bad)).rejects.toMatchObject(refusal);
    expect(() => heap.startAnalysis(bad)).toThrow(expect.objectContaining(refusal));
    expect(heap.status.state).toBe('query-only');
  });

  test('analysis options that are no object', async () => {
    const refusal = { code: 'ERR_ARGUMENT', message: "the analysis's options are an object, not null" };
    await expect(heap.analyze(null as unknown as object)).rejects.toMatchObject(refusal);
    expect(() => heap.startAnalysis(null as unknown as object)).toThrow(expect.objectContaining(refusal));
    expect(heap.status.state).toBe('query-only');
  });

  test('a class name that is not a string', async () => {
    const describeClass = heap.describeClass.bind(heap) as (name: unknown) => Promise<unknown>;
    await expect(describeClass(null)).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: expect.stringMatching(/^a class is named by a string, not null/) });
  });

  test('good arguments still work', async () => {
    expect((await heap.query('SELECT s FROM java.lang.String s', { limit: 2 })).rows).toHaveLength(2);
    expect((await heap.describeClass('Demo$Session')).length).toBe(1);
  });
});

describe('the report and waste calls refuse options they would take wrongly', () => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(demo);
  });
  afterAll(() => heap.close());

  type Call = (options: unknown) => Promise<unknown>;
  const calls = (): [string, Call][] => [
    ['report', heap.report.bind(heap) as Call],
    ['reportData', heap.reportData.bind(heap) as Call],
    ['waste', heap.waste.bind(heap) as Call],
    ['wasteData', heap.wasteData.bind(heap) as Call],
  ];

  test.each([
    [{ limit: 'x' }, "limit must be a whole number from 0 to 4294967295, not 'x'"],
    [{ limit: -1 }, 'limit must be a whole number from 0 to 4294967295, not -1'],
    [{ limit: 2.5 }, 'limit must be a whole number from 0 to 4294967295, not 2.5'],
    [{ topStrings: -2 }, 'topStrings must be a whole number from 0 to 4294967295, not -2'],
    [{ onProgress: 'log' }, "onProgress is a function, not 'log'"],
    [{ signal: {} }, 'signal is an AbortSignal, not an object'],
    [null, 'the options are an object, not null'],
    ['full', "the options are an object, not 'full'"],
  ])('%o', async (options, message) => {
    for (const [name, call] of calls()) {
      await expect(call(options), name).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message });
    }
    // Refused before anything ran: no analysis started.
    expect(heap.status.state).toBe('query-only');
  });

  test('query: onProgress is a function, told the objects scanned', async () => {
    await expect(heap.query('SELECT COUNT(*) FROM java.lang.String s', { onProgress: 'log' } as never)).rejects.toMatchObject({
      code: 'ERR_ARGUMENT',
      message: "onProgress is a function, not 'log'",
    });
    const told: { phase: string; done: number; total: number }[] = [];
    const r = await heap.query('SELECT COUNT(*) AS n FROM java.lang.Object o WHERE o.@usedHeapSize > 16', { onProgress: (e) => told.push(e) });
    expect(r.rowCount).toBe(1);
    await new Promise((resolve) => setImmediate(resolve)); // the last event crosses from the worker
    expect(told.length).toBeGreaterThan(0);
    expect(told.every((e) => e.phase === 'query' && e.done <= e.total)).toBe(true);
    expect(told.at(-1)!.done).toBe(heap.info().objectCount);
  });

  test('report: queries are query results (what heap.query() returns), warnings {source, message}', async () => {
    const refusal = (message: RegExp) => ({ code: 'ERR_ARGUMENT', message: expect.stringMatching(message) });
    const report = heap.report.bind(heap) as Call;
    await expect(report({ queries: ['SELECT COUNT(*) FROM java.lang.String s'] })).rejects.toMatchObject(
      refusal(/^queries is an array of query results \(QueryResult: what heap\.query\(\) returns\); queries\[0\] is 'SELECT COUNT\(\*\) FROM java\.lang\.String s'$/),
    );
    await expect(report({ queries: 'SELECT 1' })).rejects.toMatchObject(refusal(/^queries is an array of query results .*, not 'SELECT 1'$/));
    const result = await heap.query('SELECT COUNT(*) AS n FROM java.lang.String s');
    await expect(report({ queries: [result, { ...result, rowCount: 'many' }] })).rejects.toMatchObject(refusal(/; queries\[1\] is no query result: \/rowCount must be integer$/));
    await expect(report({ warnings: ['careful'] })).rejects.toMatchObject(refusal(/^warnings is an array of \{source, message\} .*; warnings\[0\] is 'careful'$/));
    await expect(report({ warnings: [{ source: 'me', message: 'x' }] })).rejects.toMatchObject(refusal(/^warnings is an array .*; warnings\[0\] is no warning: \/source must be equal to one of/));
    expect(heap.status.state).toBe('query-only');
  });
});

describe('the query calls refuse options they would take wrongly (lib38)', () => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(demo);
  });
  afterAll(() => heap.close());

  const Q = 'SELECT s FROM java.lang.String s';
  type Options = Record<string, unknown> | null | string;
  const drain = async (it: AsyncIterable<unknown>) => {
    for await (const _ of it) break;
  };
  // Each call of the family, so that one left unchecked shows by name.
  const calls = (): [string, (o: Options) => Promise<unknown>][] => [
    ['query', (o) => heap.query(Q, o as never)],
    ['queryCount', (o) => heap.queryCount(Q, o as never)],
    ['queryStream', async (o) => drain(heap.queryStream(Q, o as never))],
    ['queryBatches', async (o) => drain(heap.queryBatches(Q, o as never))],
    ['explain', async (o) => heap.explain(Q, o as never)],
    ['prepare', async (o) => heap.prepare(Q, o as never)],
  ];

  test.each([
    // Were TypeErrors from inside: "Cannot read properties of null (reading 'reachableOnly')".
    [null, "the query's options are an object, not null"],
    // Was taken as no options at all.
    ['fast', "the query's options are an object, not 'fast'"],
    [{ name: 5 }, 'name is text, not 5'],
    [{ viz: 'bar' }, "viz is a parsed -- @viz directive (an object) or null, not 'bar'"],
  ])('%o', async (options, message) => {
    for (const [name, call] of calls()) {
      await expect(call(options), name).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message });
    }
  });

  test('a signal that is no AbortSignal (was "signal.addEventListener is not a function")', async () => {
    for (const [name, call] of calls().filter(([n]) => n !== 'prepare')) {
      for (const [signal, said] of [[{}, 'an object'], ['stop', "'stop'"]] as const) {
        await expect(call({ signal }), name).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: `signal is an AbortSignal, not ${said}` });
      }
    }
  });

  test.each([
    // Was ERR_INTERNAL: "Failed to convert napi value String into rust type `u32`".
    ['x', "batchRows must be a whole number from 1 to 4294967295, not 'x'"],
    // Were taken wrapped (-1: one batch of every row) or cut (1.5).
    [-1, 'batchRows must be a whole number from 1 to 4294967295, not -1'],
    [1.5, 'batchRows must be a whole number from 1 to 4294967295, not 1.5'],
    [0, 'batchRows must be a whole number from 1 to 4294967295, not 0'],
  ])('a stream batchRows of %o', async (batchRows, message) => {
    await expect((async () => drain(heap.queryStream(Q, { batchRows } as never)))()).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message });
    await expect((async () => drain(heap.queryBatches(Q, { batchRows } as never)))()).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message });
  });

  test('an object look-up with options that are no object, and noClassMessage of no string', async () => {
    await expect(heap.object(5, null as never)).rejects.toMatchObject({
      code: 'ERR_ARGUMENT',
      message: "the look-up's options are an object ({fieldOffset, fieldLimit}), not null",
    });
    // Was a TypeError: "name.split is not a function".
    expect(() => heap.noClassMessage(5 as never)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT', message: 'a class is named by a string, not 5' }));
  });

  test('good options still work', async () => {
    const controller = new AbortController();
    expect((await heap.query(Q, { limit: 1, name: 'one', signal: controller.signal, viz: null })).rows).toHaveLength(1);
    let batches = 0;
    for await (const _ of heap.queryBatches(Q, { batchRows: 1000 })) batches++;
    expect(batches).toBeGreaterThan(1);
    expect(heap.noClassMessage('Demo$Sesion')).toContain('Demo$Session');
  });
});
