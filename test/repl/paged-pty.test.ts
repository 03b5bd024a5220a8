/**
 * A result larger than the display limit in a real pseudo-terminal (node-pty), on the demo dump
 * (20,437 objects), its query paced by the test (held-repl.mjs: the stream held after its first
 * batch, each count before it starts, until SIGUSR2): the first rows are on the screen while the
 * query's stream is held; the progress display says the rest is loaded, then counted; the total
 * comes after the count; !count does not count again, and !tail reads only the last rows (a
 * stream of the query from there). Ctrl-C while the rest is loaded or counted stops that and
 * keeps the rows shown; !count then counts and !tail seeks (Ctrl-C stops them too).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { closeTerminals, Terminal } from './pty-terminal.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const HELD = path.join(__dirname, 'held-repl.mjs');

/** Every object of the demo dump by its id: 20,437 rows. */
const ALL = 'SELECT x.@objectId AS id, x.@usedHeapSize AS size FROM INSTANCEOF java.lang.Object x';
const ROWS = 20437;
const FOOTER = `(${ROWS} rows; showing the first 50: !tail, !row N, !set limit 0 for all)`;

let session: HeapSession;
let ids: number[];

beforeAll(async () => {
  session = await openHeap(demo);
  ids = (await session.query(ALL)).rows.map((r) => r[0] as number);
  expect(ids).toHaveLength(ROWS);
});
afterAll(() => session?.close());
afterEach(closeTerminals);

let holds: string;

function start(): Terminal {
  const dir = mkdtempSync(path.join(tmpdir(), 'heapql-repl-'));
  holds = path.join(dir, 'holds');
  return new Terminal([HELD, demo], dir, { program: process.execPath, env: { HEAPQL_PROGRESS_AFTER_MS: '0', HEAPQL_TEST_HOLDS: holds } });
}

/** Lets the held stream (`rows`) or count go on. */
function release(t: Terminal, kind: 'rows' | 'count'): void {
  writeFileSync(holds, kind);
  process.kill(t.pty.pid, 'SIGUSR2');
}

/** The ids in the table lines of `text` (`  123 |  16`). */
const tableIds = (text: string) => [...text.matchAll(/^ *(\d+) \| +\d+ *$/gm)].map((m) => Number(m[1]));

it('shows the first rows while the scan is held, says the rest is loaded and counted, then the count; !count uses that scan, !tail seeks to the last rows', async () => {
  const t = start();
  let at = await t.waitFor('oql> ');
  t.type(`${ALL}\r`);
  // The stream is held after its first batch: the whole result cannot be there yet.
  const held = await t.waitFor('[held: rows]', at, FOOTER);
  const before = t.screen.slice(at, held);
  // (The query's scan drew the bar on that line and took it down first: `ESC 7 … ESC 8`, the
  // cursor saved and restored around it, is no CSI sequence, so its text stays in `screen`.)
  expect(before).toMatch(/\n(?:\x1b7query [^\n]*\x1b8)?id +\| size\n-+\+-+\n/);
  expect(tableIds(before)).toEqual(ids.slice(0, 50));
  expect(before).toContain('loading rows');
  expect(before).not.toContain('rows;');
  at = held;
  release(t, 'rows');
  // 10,000 rows loaded, the rest is counted by a second run (held before it starts).
  at = await t.waitFor('counting rows', at, FOOTER);
  at = await t.waitFor('[held: count]', at, FOOTER);
  release(t, 'count');
  at = await t.waitFor(FOOTER, at);
  at = await t.waitFor(/\(\d+(\.\d+)? ms\)\n/, at);
  at = await t.waitFor('oql> ', at);
  // Counted already: no second count.
  t.type('!count\r');
  at = await t.waitFor(`${ROWS} rows\n`, at, '[held');
  // The last rows come from a seek: a stream of the query from row ROWS - 2, the rows between
  // never loaded (its one batch is all it reads: no hold, which comes before a second).
  t.type('!tail 2\r');
  at = await t.waitFor('[stream 2]', at, '(2 rows)');
  const tail = await t.waitFor('(2 rows)', at, '[held');
  expect(tableIds(t.screen.slice(at, tail))).toEqual(ids.slice(-2));
  expect(t.screen).not.toContain('[stream 3]');
  at = tail;
  t.type('!undo\r');
  at = await t.waitFor(FOOTER, at);
  // The tail closed the first scan (one scan open at a time): the rest of the result is read
  // by the query run again (held after its first batch, as every stream is).
  t.type('!row last\r');
  at = await t.waitFor('[stream 3]', at, `row ${ROWS} of`);
  await t.waitFor('[held: rows]', at, `row ${ROWS} of`);
  release(t, 'rows');
  at = await t.waitFor(`row ${ROWS} of ${ROWS}\nid `, at);
  t.type('\x04');
  expect(await t.exited).toBe(0);
});

it('Ctrl-C while the rest is loaded keeps the rows shown; !count counts (Ctrl-C stops it), !tail seeks (Ctrl-C stops it too)', async () => {
  const t = start();
  let at = await t.waitFor('oql> ');
  t.type(`${ALL}\r`);
  at = await t.waitFor('[held: rows]', at, FOOTER);
  expect(tableIds(t.screen)).toEqual(ids.slice(0, 50));
  t.type('\x03');
  // The 1,000 rows of the first batch are the result for now; not a cancelled query.
  at = await t.waitFor('(1000+ rows; interrupted before they were counted: !count counts them, and !tail, !row N, !save load the rest)\n', at, 'cancelled');
  at = await t.waitFor('oql> ', at);
  t.type('!row 3\r');
  at = await t.waitFor(`row 3 of 1000+\nid   = ${ids[2]}\n`, at);

  // !count: a second run; Ctrl-C stops it.
  t.type('!count\r');
  at = await t.waitFor('[held: count]', at);
  t.type('\x03');
  at = await t.waitFor('cancelled\n', at, 'rows\n');
  at = await t.waitFor('oql> ', at);
  t.type('!count\r');
  at = await t.waitFor('[held: count]', at);
  release(t, 'count');
  at = await t.waitFor(`${ROWS} rows\n`, at);

  // !tail seeks: a stream of the query from row ROWS - N (the scan Ctrl-C left open is closed:
  // one scan at a time); Ctrl-C stops its loading too (held here after its first batch).
  t.type('!tail 1500\r');
  at = await t.waitFor('[stream 2]', at, '(1500 rows)');
  at = await t.waitFor('[held: rows]', at, '(1500 rows)');
  t.type('\x03');
  at = await t.waitFor('error: interrupted; !tail needs the last 1500 rows: run it again\n', at, '(1500 rows)');
  at = await t.waitFor('oql> ', at);
  t.type('!tail 2\r');
  at = await t.waitFor('[stream 3]', at, '(2 rows)');
  const tail = await t.waitFor('(2 rows)', at, '[held');
  expect(tableIds(t.screen.slice(at, tail))).toEqual(ids.slice(-2));
  t.type('!count\r');
  at = await t.waitFor('2 rows\n', tail);
  t.type('!undo\r');
  at = await t.waitFor(FOOTER, at);
  t.type('\x04');
  expect(await t.exited).toBe(0);
});
