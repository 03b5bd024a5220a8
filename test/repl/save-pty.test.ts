/**
 * `!save` of a long result in a real pseudo-terminal, on the dump with hostile text (control
 * characters, a CJK class name): the file, written a block at a time, is byte for byte the whole
 * conversion (`formatCsv`, `formatTsv`, `stringifyJson`) of the same result; and Ctrl-C during a
 * save stops it: the REPL says after how many rows, the temporary file is gone, a new file is
 * not there and an existing one is as it was, and the session goes on.
 */
import { watch, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { formatCsv, formatTsv } from '../../ts/query/format.js';
import { stringifyJson } from '../../ts/query/json.js';
import type { QueryResult } from '../../ts/query/schema.js';
import { writeHostileDump } from './hostile-dump.js';
import { closeTerminals, Terminal } from './pty-terminal.js';

afterEach(closeTerminals);

/** Every object of the dump with its size, class and text: 20,437 rows, 21 blocks of a file. */
const ALL = 'SELECT x, x.@usedHeapSize AS size, classof(x) AS class, toString(x) AS text FROM INSTANCEOF java.lang.Object x';
const ROWS = 20437;

let dir: string;
let dump: string;
let session: HeapSession;
let expected: QueryResult;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-save-pty-'));
  dump = writeHostileDump(dir);
  session = await openHeap(dump);
  // The REPL's first query is named q1.
  expected = await session.query(ALL, { name: 'q1' });
});
afterAll(() => session?.close());

const state = () => mkdtempSync(path.join(tmpdir(), 'heapql-repl-'));

it('saves a long result as CSV, TSV and JSON: each file is the whole conversion, byte for byte', async () => {
  const out = mkdtempSync(path.join(dir, 'out-'));
  const t = new Terminal(['query', dump, '--repl'], state(), { cwd: out });
  let at = await t.waitFor('oql> ');
  t.type(`${ALL}\r`);
  at = await t.waitFor(`(${ROWS} rows; showing the first 50`, at);
  for (const name of ['all.csv', 'all.tsv', 'all.json']) {
    t.type(`!save ${name}\r`);
    at = await t.waitFor(`saved ${ROWS} rows to ${name}\n`, at, 'error');
  }
  t.type('!quit\r');
  expect(await t.exited).toBe(0);
  expect(readFileSync(path.join(out, 'all.csv'), 'utf8')).toBe(formatCsv(expected));
  expect(readFileSync(path.join(out, 'all.tsv'), 'utf8')).toBe(formatTsv(expected));
  // The REPL's query took its own time: that one number aside, the same text.
  const json = readFileSync(path.join(out, 'all.json'), 'utf8');
  const elapsedMs = (JSON.parse(json) as QueryResult).elapsedMs;
  expect(json).toBe(`${stringifyJson({ ...expected, elapsedMs }, 2)}\n`);
  expect(json.length).toBeGreaterThan(5_000_000);
  expect(readdirSync(out).sort()).toEqual(['all.csv', 'all.json', 'all.tsv']);
});

/**
 * Types `!save <name>` and Ctrl-C while it writes: the REPL is stopped (SIGSTOP) as soon as its
 * temporary file appears, so the Ctrl-C is read while blocks are still to be written, whatever
 * the machine's speed; then it goes on (SIGCONT). Returns the number of rows the REPL says it
 * wrote, and the screen position after its message; `saved` with the position after "saved …"
 * when the watcher's news came so late that only the save's last writes were left, which it
 * finished before it read the Ctrl-C (the caller puts the file back and tries again).
 */
async function interruptSave(t: Terminal, out: string, name: string, from: number, untouched: string): Promise<{ rows: number; at: number } | { saved: number }> {
  let temp: string | null = null;
  const appeared = new Promise<void>((resolve) => {
    const watcher = watch(out, (_event, file) => {
      if (temp === null && file?.startsWith(`.${name}.`) && file.endsWith('.heapql-part')) {
        process.kill(t.pty.pid, 'SIGSTOP');
        temp = file;
        watcher.close();
        resolve();
      }
    });
  });
  t.type(`!save ${name}\r`);
  // A save that ends without one (a file written whole, at once) fails here, not at the timeout.
  const ended = t.waitFor(/saved \d+ rows|error/, from).then((end) => {
    throw new Error(`the save ended without a temporary file: ${JSON.stringify(t.screen.slice(from, end))}`);
  });
  await Promise.race([appeared, ended]);
  ended.catch(() => {});
  // Still being written: not renamed yet.
  expect(existsSync(path.join(out, temp!))).toBe(true);
  t.type('\x03');
  process.kill(t.pty.pid, 'SIGCONT');
  const message = new RegExp(`error: interrupted; !save stopped after (\\d+) of ${ROWS} rows: ${name.replace('.', '\\.')} ${untouched}\\n`);
  const whole = `saved ${ROWS} rows to ${name}\n`;
  const at = await t.waitFor(new RegExp(`${message.source}|${whole}`), from);
  expect(existsSync(path.join(out, temp!))).toBe(false);
  const stopped = message.exec(t.screen.slice(from));
  if (!stopped) return { saved: at };
  return { rows: Number(stopped[1]), at };
}

/** `interruptSave` until a Ctrl-C lands before the save's end (at most 5 tries), `restore` after each save that ended whole. */
async function interruptSaveMidway(t: Terminal, out: string, name: string, from: number, untouched: string, restore: () => void): Promise<{ rows: number; at: number }> {
  for (let attempt = 1; ; attempt++) {
    const r = await interruptSave(t, out, name, from, untouched);
    if ('rows' in r) return r;
    expect(attempt, 'five saves in a row ended before the Ctrl-C was read').toBeLessThan(5);
    restore();
    from = await t.waitFor('oql> ', r.saved);
  }
}

it('Ctrl-C during a save stops it, says after how many rows, and leaves no partial file; an existing file is as it was', async () => {
  const out = mkdtempSync(path.join(dir, 'out-'));
  writeFileSync(path.join(out, 'old.json'), 'the file that was there\n');
  const t = new Terminal(['query', dump, '--repl'], state(), { cwd: out });
  let at = await t.waitFor('oql> ');
  t.type(`${ALL}\r`);
  at = await t.waitFor(`(${ROWS} rows; showing the first 50`, at);

  const fresh = await interruptSaveMidway(t, out, 'new.json', at, 'was not written', () => rmSync(path.join(out, 'new.json')));
  expect(fresh.rows).toBeLessThan(ROWS);
  expect(fresh.rows % 1000).toBe(0);
  at = fresh.at;
  const over = await interruptSaveMidway(t, out, 'old.json', at, 'is as it was', () => writeFileSync(path.join(out, 'old.json'), 'the file that was there\n'));
  expect(over.rows).toBeLessThan(ROWS);
  at = over.at;
  expect(readdirSync(out)).toEqual(['old.json']);
  expect(readFileSync(path.join(out, 'old.json'), 'utf8')).toBe('the file that was there\n');

  // The session goes on, the result whole: the save done again is the whole file.
  at = await t.waitFor('oql> ', at);
  t.type('!count\r');
  at = await t.waitFor(`${ROWS} rows`, at);
  t.type('!save old.csv\r');
  at = await t.waitFor(`saved ${ROWS} rows to old.csv\n`, at);
  expect(readFileSync(path.join(out, 'old.csv'), 'utf8')).toBe(formatCsv(expected));
  t.type('\x04');
  expect(await t.exited).toBe(0);
});
