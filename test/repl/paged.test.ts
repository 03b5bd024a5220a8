/**
 * Paged results (ts/repl/rest.ts) through the dispatcher, with a front that takes text as it
 * comes (as the terminal's): a result larger than the display limit and than the rows loaded
 * ahead holds only those rows, counted by a second run; every command that needs more rows loads
 * them first and then answers exactly as on the whole result (`session.query`'s rows), also
 * after a newer query closed its scan (`!undo` back to it: its query runs again, the rows held
 * skipped); a column or pattern a command cannot use is refused before any row is loaded; a
 * result within the rows loaded ahead is whole at once, without a count. A sorted result is
 * counted by its stream, which says the total with its first rows: the addon's execution is
 * started once (counted by a wrapper), where an unsorted one is started twice.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import type { NativeHeap } from '../../ts/native/index.js';
import { formatCsv } from '../../ts/query/format.js';
import type { QueryResult } from '../../ts/query/schema.js';
import { Repl, type ReplIO } from '../../ts/repl/index.js';
import { pagedOf, READ_AHEAD_ROWS } from '../../ts/repl/rest.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
/** 20,437 rows: more than the rows loaded ahead. */
const ALL = 'SELECT x.@objectId AS id, x.@usedHeapSize AS size, classof(x) AS class FROM INSTANCEOF java.lang.Object x';
/** ALL's rows, sorted. */
const SORTED = `${ALL} ORDER BY size DESC`;
/** 3,703 rows: fewer. */
const STRINGS = 'SELECT s.@objectId AS id FROM java.lang.String s';

let session: HeapSession;
let whole: QueryResult;
let repl: Repl;
let out: string[];
let errs: string[];
const saved = new Map<string, string>();
let counts = 0;
let streams = 0;
/** Executions the addon started (`execute`, `executeStream`, `executeCount`). */
let starts = 0;

const io: ReplIO = {
  print: (t) => out.push(t),
  write: async (t) => {
    out.push(t);
    return true;
  },
  error: (t) => errs.push(t),
  saveFile: (file, content) => {
    saved.set(file, [...content].join(''));
  },
  quit: () => {},
};

const run = async (statement: string) => {
  out = [];
  errs = [];
  const ok = await repl.execute(statement);
  return { ok, out: out.join('\n'), err: errs.join('\n') };
};

beforeAll(async () => {
  session = await openHeap(demo);
  whole = await session.query(ALL, { name: 'q1' });
  expect(whole.rowCount).toBe(20437);
  const count = session.queryCount.bind(session);
  session.queryCount = (q, o) => {
    counts++;
    return count(q, o);
  };
  const batches = session.queryBatches.bind(session);
  session.queryBatches = (q, o) => {
    streams++;
    return batches(q, o);
  };
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
    return executeCount(...args);
  };
  repl = new Repl(session, io);
});
afterAll(() => {
  repl?.close();
  session?.close();
});

const ids = (r: QueryResult) => r.rows.map((row) => row[0]);

it('holds the first rows and the count; commands load what they need and answer as on the whole result', async () => {
  const started = starts;
  let r = await run(ALL);
  expect(r.err).toBe('');
  expect(r.out).toContain('(20437 rows; showing the first 50: !tail, !row N, !set limit 0 for all)');
  const result = repl.state.result!;
  expect(pagedOf(result)).not.toBeNull();
  expect(result.rows).toHaveLength(READ_AHEAD_ROWS);
  expect(result.rowCount).toBe(20437);
  expect([counts, streams]).toEqual([1, 1]);
  // Its rows come as the scan goes: a second run counted them.
  expect(starts - started).toBe(2);

  // !count: no second count. !row within the rows held: nothing loaded.
  expect((await run('!count')).out).toBe('20437 rows');
  expect((await run('!row 2')).out).toMatch(/^row 2 of 20437\n/);
  expect(result.rows).toHaveLength(READ_AHEAD_ROWS);
  // A column the result lacks, a bad pattern: said before loading anything.
  expect((await run('!sort nosuch')).err).toMatch(/^error: no column 'nosuch'/);
  expect((await run('!filter /(/')).err).toMatch(/^error: bad regular expression/);
  expect(result.rows).toHaveLength(READ_AHEAD_ROWS);
  // !row N past them loads up to it (a batch at a time).
  expect((await run('!row 12345')).out).toMatch(new RegExp(`^row 12345 of 20437\\nid += ${whole.rows[12344]![0]}\\nsize += ${whole.rows[12344]![1]}\\n`));
  expect(result.rows.length).toBeGreaterThanOrEqual(12345);
  expect(result.rows.length).toBeLessThan(20437);
  expect(streams).toBe(1);

  // !tail: the last rows only, from a stream that starts there (the count is known: no
  // second count); the rows between are not read, the result stays paged.
  const held = result.rows.length;
  r = await run('!tail 3');
  expect(r.err).toBe('');
  expect(repl.state.result!.rows).toEqual(whole.rows.slice(-3));
  expect(repl.state.result!.columns).toEqual(whole.columns);
  expect(repl.state.result!.rowCount).toBe(3);
  expect(pagedOf(result)).not.toBeNull();
  expect(result.rows).toHaveLength(held);
  expect([counts, streams]).toEqual([1, 2]);
  // Its cursor was closed for it: the rest is read by running the query again.
  await run('!undo');
  expect((await run('!save all.csv')).out).toBe('saved 20437 rows to all.csv');
  expect(saved.get('all.csv')).toBe(formatCsv(whole));
  expect(pagedOf(result)).toBeNull();
  expect(result.columns).toEqual(whole.columns);
  expect(streams).toBe(3);
});

it('!tail of a paged result reads only its last rows; within the rows held, none', async () => {
  await run(ALL);
  const result = repl.state.result!;
  expect(result.rows).toHaveLength(READ_AHEAD_ROWS);
  const [counted, streamed] = [counts, streams];
  for (const n of [1, 10, 2000]) {
    const r = await run(`!tail ${n}`);
    expect(r.err).toBe('');
    expect(repl.state.result!.rows).toEqual(whole.rows.slice(-n));
    expect(result.rows).toHaveLength(READ_AHEAD_ROWS);
    await run('!undo');
  }
  // Each started a stream from its first row, none from the start; the count was known.
  expect([counts - counted, streams - streamed]).toEqual([0, 3]);
  // Last rows that reach into the rows held: the rows after them are read on, as before.
  expect((await run('!tail 15000')).err).toBe('');
  expect(repl.state.result!.rows).toEqual(whole.rows.slice(-15000));
  expect(result.rows).toEqual(whole.rows);
  expect(pagedOf(result)).toBeNull();
  // !tail 0: no row, nothing read.
  await run('!undo');
  expect((await run('!tail 0')).err).toBe('');
  expect(repl.state.result!.rows).toEqual([]);
});

it('a sorted result is counted by its stream: the query runs once; its rows are the sorted ones', async () => {
  const sorted = await session.query(SORTED, { name: 'q1' });
  expect(sorted.rowCount).toBe(20437);
  const [started, counted, streamed] = [starts, counts, streams];
  const r = await run(SORTED);
  expect(r.err).toBe('');
  expect(r.out).toContain('(20437 rows; showing the first 50: !tail, !row N, !set limit 0 for all)');
  const result = repl.state.result!;
  expect(pagedOf(result)).not.toBeNull();
  expect(result.rows).toEqual(sorted.rows.slice(0, READ_AHEAD_ROWS));
  expect(result.rowCount).toBe(20437);
  expect((await run('!count')).out).toBe('20437 rows');
  expect([starts - started, counts - counted, streams - streamed]).toEqual([1, 0, 1]);
  // !tail: a stream of its last rows (the executor sorts again and drops the rows before).
  await run('!tail 3');
  expect(repl.state.result!.rows).toEqual(sorted.rows.slice(-3));
  expect(result.rows).toEqual(sorted.rows.slice(0, READ_AHEAD_ROWS));
  expect(starts - started).toBe(2);
  // The rest from the same scan as before? It was closed for the tail: it runs again.
  await run('!undo');
  await run('!row last');
  expect(result.rows).toEqual(sorted.rows);
});

it('a paged result whose scan a newer query closed runs its query again for the rest, skipping the rows held', async () => {
  await run(ALL);
  const paged = repl.state.result!;
  expect(paged.rows).toHaveLength(READ_AHEAD_ROWS);
  const before = streams;
  // A newer query closes the scan (one is open at a time); it is whole at once: no count.
  const countsBefore = counts;
  const r = await run(STRINGS);
  expect(r.out).toContain('(3703 rows; showing the first 50');
  expect(counts).toBe(countsBefore);
  expect(pagedOf(repl.state.result)).toBeNull();
  expect(repl.state.open).toBeNull();
  await run('!undo');
  expect(repl.state.result).toBe(paged);
  expect((await run('!sort id desc')).err).toBe('');
  expect(ids(repl.state.result!)).toEqual(ids(whole).reverse());
  expect(streams).toBe(before + 2);
  expect(paged.rows).toEqual(whole.rows);
  await run('!undo');
  expect((await run('!filter Demo$Session')).out).toContain('(400 rows; showing the first 50');
});

it('!set limit 0 on a paged result: !undo back to it loads every row to list them', async () => {
  await run(ALL);
  const paged = repl.state.result!;
  await run('!top 5');
  await run('!set limit 0');
  const r = await run('!undo');
  expect(r.out).toContain('(20437 rows)');
  expect(paged.rows).toEqual(whole.rows);
  await run('!set limit 50');
});
