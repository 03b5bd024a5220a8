/**
 * The library's callers are plain JavaScript as often as TypeScript: arguments the addon would
 * take wrongly (its u32 wraps -1 and cuts 1.5) or only much later are refused at once with
 * ERR_ARGUMENT, naming the argument and the value.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { diffDumps, openHeap, prepareQuery, type Heap, type HeapSession } from '../ts/index.js';
import { OPTION_NAMES, type OptionsOf } from '../ts/session/options.js';

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
    // Without the cache it capped nothing and said nothing.
    [{ cacheMax: 1_000_000 }, /^cacheMax caps the index cache, which this open does not use: the library reads and writes the cache only with cache: true or a cacheDir$/],
    // cache: false and noCache: true are one thing: beside either, cacheDir and cacheMax would do
    // nothing (noCache: true took both silently, cache: false refused cacheMax alone).
    [{ cache: false, cacheMax: 1_000_000 }, /^cacheMax is for the index cache, which cache: false turns off: leave out cacheMax, or drop cache: false to use the cache$/],
    [{ noCache: true, cacheMax: 1_000_000 }, /^cacheMax is for the index cache, which noCache: true turns off: leave out cacheMax, or drop noCache: true to use the cache$/],
    [{ cache: false, cacheDir: '/tmp' }, /^cacheDir is for the index cache, which cache: false turns off/],
    [{ noCache: true, cacheDir: '/tmp' }, /^cacheDir is for the index cache, which noCache: true turns off/],
    [{ noCache: true, cache: true }, /^cache: true and noCache: true contradict each other: give one of them$/],
    // Empty (an unset variable), it took the default directory without a word.
    [{ cacheDir: '' }, /^cacheDir is a directory's path, not '' \(cache: true alone takes the default directory\)$/],
    [{ cache: true, cacheDir: '' }, /^cacheDir is a directory's path, not ''/],
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
      // A call that does not take the option refuses it by name instead.
      const option = options !== null && typeof options === 'object' ? Object.keys(options)[0]! : undefined;
      const takes = option === undefined || (OPTION_NAMES[name as OptionsOf] as readonly string[]).includes(option);
      const said = takes ? message : expect.stringMatching(new RegExp(`^${name}\\(\\) has no option '${option}'`));
      await expect(call(options), name).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: said });
    }
  });

  test('a signal that is no AbortSignal (was "signal.addEventListener is not a function")', async () => {
    for (const [name, call] of calls().filter(([n]) => (OPTION_NAMES[n as OptionsOf] as readonly string[]).includes('signal'))) {
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

describe('an option a call does not take is refused, with the nearest name (lib39)', () => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(demo);
  });
  afterAll(() => heap.close());

  const Q = 'SELECT s FROM java.lang.String s';
  type Call = (options: Record<string, unknown>) => Promise<unknown>;
  const drain = async (it: AsyncIterable<unknown>) => {
    for await (const _ of it) break;
  };
  /** Each call with options, as a promise (a synchronous throw becomes its rejection). */
  const calls = (): Record<string, Call> => ({
    openHeap: (o) => anyOpen(demo, o),
    analyze: (o) => heap.analyze(o as never),
    startAnalysis: async (o) => heap.startAnalysis(o as never),
    query: (o) => heap.query(Q, o as never),
    queryCount: (o) => heap.queryCount(Q, o as never),
    explain: async (o) => heap.explain(Q, o as never),
    prepare: async (o) => heap.prepare(Q, o as never),
    queryStream: async (o) => drain(heap.queryStream(Q, o as never)),
    queryBatches: async (o) => drain(heap.queryBatches(Q, o as never)),
    prepareQuery: async (o) => prepareQuery(Q, o as never),
    report: (o) => heap.report(o as never),
    reportData: (o) => heap.reportData(o as never),
    waste: (o) => heap.waste(o as never),
    wasteData: (o) => heap.wasteData(o as never),
    object: (o) => heap.object(5, o as never),
  });

  test.each([
    // Each did nothing at all: the scratch files went to memory, the queries saw every object.
    ['openHeap', { scratchdir: '/tmp' }, "openHeap() has no option 'scratchdir'; did you mean scratchDir? (it takes dump, onProgress, signal, cache, cacheDir, cacheMax, noCache, scratch, scratchDir, reachableOnly)"],
    ['openHeap', { reachableonly: true }, "openHeap() has no option 'reachableonly'; did you mean reachableOnly?"],
    ['openHeap', { cachDir: '/tmp' }, "openHeap() has no option 'cachDir'; did you mean cacheDir?"],
    ['openHeap', { progress: () => {} }, "openHeap() has no option 'progress'; did you mean onProgress?"],
    ['analyze', { reachableonly: true }, "analyze() has no option 'reachableonly'; did you mean reachableOnly? (it takes reachableOnly, forReport, onProgress, signal)"],
    ['startAnalysis', { forreport: true }, "startAnalysis() has no option 'forreport'; did you mean forReport? (it takes reachableOnly, forReport)"],
    ['startAnalysis', { signal: AbortSignal.abort() }, "startAnalysis() has no option 'signal' (it takes reachableOnly, forReport)"],
    ['query', { limt: 5 }, "query() has no option 'limt'; did you mean limit?"],
    ['queryCount', { reachable: true }, "queryCount() has no option 'reachable'; did you mean reachableOnly?"],
    ['explain', { limits: 3 }, "explain() has no option 'limits'; did you mean limit?"],
    ['prepare', { signal: AbortSignal.abort() }, "prepare() has no option 'signal' (it takes limit, reachableOnly, viz)"],
    ['queryStream', { batchrows: 10 }, "queryStream() has no option 'batchrows'; did you mean batchRows?"],
    ['queryStream', { skip: 10 }, "queryStream() has no option 'skip' (it takes name, limit, reachableOnly, signal, onProgress, viz, batchRows)"],
    ['queryBatches', { skp: 10 }, "queryBatches() has no option 'skp'; did you mean skip?"],
    ['prepareQuery', { fullpath: true }, "prepareQuery() has no option 'fullpath'; did you mean fullPath?"],
    ['report', { query: [] }, "report() has no option 'query'; did you mean queries?"],
    ['reportData', { reachableOnly: true }, "reportData() has no option 'reachableOnly' (it takes limit, topStrings, signal, onProgress)"],
    ['waste', { topstrings: 3 }, "waste() has no option 'topstrings'; did you mean topStrings?"],
    ['wasteData', { limti: 3 }, "wasteData() has no option 'limti'; did you mean limit?"],
    ['object', { fieldlimit: 3 }, "object() has no option 'fieldlimit'; did you mean fieldLimit?"],
    // An unknown name is refused whatever its value, `undefined` included.
    ['query', { nmae: undefined }, "query() has no option 'nmae'; did you mean name?"],
    ['openHeap', { xyzzy: 1 }, "openHeap() has no option 'xyzzy' (it takes dump, onProgress, signal, cache, cacheDir, cacheMax, noCache, scratch, scratchDir, reachableOnly)"],
  ] as const)('%s %o', async (name, options, message) => {
    const refused = await calls()[name]!({ ...options }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused, `${name} took ${JSON.stringify(options)}`).toMatchObject({ code: 'ERR_ARGUMENT', message: expect.stringContaining(message) });
    // Refused before anything ran: no analysis started.
    expect(heap.status.state).toBe('query-only');
  });

  test('every option the README documents for each call is still taken', async () => {
    const scratchDir = mkdtempSync(path.join(tmpdir(), 'heapql-options-'));
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'heapql-options-cache-'));
    const onProgress = () => {};
    const signal = new AbortController().signal;
    try {
      const all = await openHeap(demo, { dump: 0, onProgress, signal, cache: true, cacheDir, cacheMax: 1 << 30, noCache: false, scratch: 'disk', scratchDir, reachableOnly: false });
      try {
        const q = { name: 'q', limit: 3, reachableOnly: true, signal, onProgress, viz: null };
        expect((await all.query(Q, q)).rows).toHaveLength(3);
        expect(await all.queryCount(Q, { limit: 3, reachableOnly: true, signal, onProgress })).toMatchObject({ rowCount: 3 });
        expect(all.explain(Q, { limit: 3, reachableOnly: true })).toContain('java.lang.String');
        const prepared = all.prepare(Q, { limit: 3, reachableOnly: true, viz: null });
        expect(prepareQuery(Q, { fullPath: false, reachableOnly: true, limit: 3, viz: null, planned: prepared.planned }).oql).toBe(Q);
        for await (const _ of all.queryStream(Q, { ...q, batchRows: 2 })) break;
        for await (const _ of all.queryBatches(Q, { ...q, batchRows: 2, skip: 1 })) break;
        expect(all.startAnalysis({ reachableOnly: false, forReport: true })).toBe('started');
        await all.analyze({ reachableOnly: false, forReport: true, onProgress, signal });
        const report = await all.report({ limit: 2, topStrings: 2, reachableOnly: false, queries: [], warnings: [], signal, onProgress });
        expect(report.leakSuspects).toBeDefined();
        expect((await all.reportData({ limit: 2, topStrings: 2, signal, onProgress })).overview).toBeDefined();
        expect((await all.waste({ limit: 2, topStrings: 2, reachableOnly: false, signal, onProgress })).waste).toBeDefined();
        expect((await all.wasteData({ limit: 2, topStrings: 2, signal, onProgress })).duplicateStrings).toBeDefined();
        expect((await all.object(5, { fieldOffset: 0, fieldLimit: 2 })).fields.length).toBeLessThanOrEqual(2);
      } finally {
        all.close();
      }
    } finally {
      rmSync(scratchDir, { recursive: true, force: true });
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});

/**
 * The names the library checks option objects against (`OPTION_NAMES`) are those its types
 * declare, call by call: an option added to a type but not to the list would be refused at run
 * time, and one left in the list after its type dropped it would pass silently. Checked by the
 * type checker (test/typecheck.test.ts): a call whose two lists differ makes its entry `false`.
 */
type SameNames<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type DeclaredOptions = {
  openHeap: Parameters<typeof openHeap>[1];
  analyze: Parameters<HeapSession['analyze']>[0];
  startAnalysis: Parameters<HeapSession['startAnalysis']>[0];
  query: Parameters<HeapSession['query']>[1];
  queryCount: Parameters<HeapSession['queryCount']>[1];
  explain: Parameters<HeapSession['explain']>[1];
  prepare: Parameters<HeapSession['prepare']>[1];
  queryStream: Parameters<HeapSession['queryStream']>[1];
  queryBatches: Parameters<HeapSession['queryBatches']>[1];
  prepareQuery: Parameters<typeof prepareQuery>[1];
  report: Parameters<HeapSession['report']>[0];
  reportData: Parameters<HeapSession['reportData']>[0];
  waste: Parameters<HeapSession['waste']>[0];
  wasteData: Parameters<HeapSession['wasteData']>[0];
  object: Parameters<HeapSession['object']>[1];
  diffDumps: Parameters<typeof diffDumps>[2];
};
const optionListsMatchTheTypes: { [K in OptionsOf]: SameNames<(typeof OPTION_NAMES)[K][number], keyof NonNullable<DeclaredOptions[K]>> } = {
  openHeap: true,
  analyze: true,
  startAnalysis: true,
  query: true,
  queryCount: true,
  explain: true,
  prepare: true,
  queryStream: true,
  queryBatches: true,
  prepareQuery: true,
  report: true,
  reportData: true,
  waste: true,
  wasteData: true,
  object: true,
  diffDumps: true,
};

test("the README's list of the options each call takes names every option each call checks", () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const from = readme.indexOf('An option a call does not take');
  const to = readme.indexOf('(checked before either dump is opened)', from);
  expect(from, 'the README paragraph on unknown options').toBeGreaterThan(0);
  expect(to).toBeGreaterThan(from);
  const paragraph = readme.slice(from, to).replace(/\s+/g, ' ');
  for (const [call, names] of Object.entries(OPTION_NAMES)) {
    if (call !== 'openHeap') expect(paragraph, call).toContain(`\`${call}\``);
    for (const name of names) expect(paragraph, `${call}: ${name}`).toContain(name);
  }
});

test('every call checks its options against the names its type declares (the type checker compares them)', () => {
  expect(Object.keys(optionListsMatchTheTypes).sort()).toEqual(Object.keys(OPTION_NAMES).sort());
});

test('diffDumps refuses options it does not take, and options that are no object, before opening a dump', async () => {
  const anyDiff = diffDumps as (a: string, b: string, options?: unknown) => Promise<unknown>;
  await expect(anyDiff(demo, demo, { reachableonly: true })).rejects.toMatchObject({
    code: 'ERR_ARGUMENT',
    message: "diffDumps() has no option 'reachableonly'; did you mean reachableOnly? (it takes gate, open, reachableOnly, analyze, onProgress, signal)",
  });
  await expect(anyDiff(demo, demo, null)).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: "diffDumps()'s options are an object, not null" });
  // Nothing was opened: a missing file would have been the error otherwise.
  await expect(anyDiff('/nonexistent/a.hprof', '/nonexistent/b.hprof', { gates: [] })).rejects.toMatchObject({ code: 'ERR_ARGUMENT' });
});

test('diffDumps refuses option values it would take wrongly, before opening a dump', async () => {
  // A gate given as one string, or with a rule that is neither text nor a parsed rule, failed as
  // a TypeError after both dumps were analyzed; an onProgress that is no function threw inside
  // the addon's progress callback and ended the process.
  const anyDiff = diffDumps as (a: string, b: string, options?: unknown) => Promise<unknown>;
  const missing = '/nonexistent/a.hprof';
  for (const [options, message] of [
    [{ gate: 'java.util.HashMap$Node=10%' }, "diffDumps(): gate is an array of rules such as ['com.acme.*=5MB'], not 'java.util.HashMap$Node=10%'"],
    [{ gate: ['a=1', 42] }, "diffDumps(): gate[1] is a rule such as 'com.acme.*=5MB' (or one parseGateRule() made), not 42"],
    [{ gate: [{ text: 'a=1' }] }, "diffDumps(): gate[0] is a rule such as 'com.acme.*=5MB' (or one parseGateRule() made), not an object"],
    [{ onProgress: 1 }, 'diffDumps(): onProgress is a function, not 1'],
    [{ open: 'openHeap' }, "diffDumps(): open is a function, not 'openHeap'"],
    [{ analyze: {} }, 'diffDumps(): analyze is a function, not an object'],
    [{ reachableOnly: 'yes' }, "diffDumps(): reachableOnly is true or false, not 'yes'"],
    [{ signal: 'x' }, "diffDumps(): signal is an AbortSignal, not 'x'"],
  ] as const) {
    await expect(anyDiff(missing, missing, options), JSON.stringify(options)).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message });
  }
});
