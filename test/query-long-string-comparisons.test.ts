/**
 * A comparison with a long String reads no more of it than decides the comparison: `=` and `!=`
 * against a text compare the lengths first (a String of another length is not read), `<` / `>`
 * read up to the first character that differs, LIKE with a pattern of bounded length refuses a
 * String too long for it unread and any other pattern reads a long String only up to where no
 * match is possible (never its whole text at once), IN over texts reads only a String whose
 * length one of them has; `toString(s)` compared with a text works the same (no ERR_TOO_LARGE: it makes no cell).
 * Over a sparse dump with a String of 600 000 000 characters: reading it whole took 1.2 to
 * 1.8 GB; each query runs in its own process (the built library, `dist/`) whose peak memory is
 * checked, and whose answer is checked exact.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { writeBigStringDump } from './tools/big-string-dump.js';
import { root } from './tools/run.js';

const dir = mkdtempSync(path.join(tmpdir(), 'heapql-long-cmp-'));
const dump = path.join(dir, 'big-string.hprof');
beforeAll(() => writeBigStringDump(dump));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Well under what reading the String whole takes (1.2 GB and more), well over the ~60 MB of opening the dump. */
const MAX_RSS_MB = 300;

/** Runs one query in a fresh process: its rows and the process's peak resident memory. */
function runAlone(oql: string): { rows?: unknown[][]; error?: string; maxRssMb: number } {
  const script = `
    const { openHeap } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'dist/index.js')).href)});
    const heap = await openHeap(process.argv[1], { noCache: true });
    let out;
    try { out = { rows: (await heap.query(process.argv[2])).rows }; } catch (e) { out = { error: String(e.message) }; }
    heap.close();
    console.log(JSON.stringify({ ...out, maxRssMb: process.resourceUsage().maxRSS / 1024 }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, dump, oql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the query process failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { rows?: unknown[][]; error?: string; maxRssMb: number };
}

describe('comparisons with a String of 600 000 000 characters', () => {
  // Holder a = 1 holds the long String (600 000 000 × U+0000), a = 2 holds "ok".
  test.each([
    ['= a literal (lengths differ)', 'SELECT h.a FROM Holder h WHERE h.s = "ok"', [[2]]],
    ['!= a literal', 'SELECT h.a FROM Holder h WHERE h.s != "ok"', [[1]]],
    ['< a literal (decided on the first character)', 'SELECT h.a FROM Holder h WHERE h.s < "b"', [[1]]],
    ['a literal > the String', 'SELECT h.a FROM Holder h WHERE "b" > h.s', [[1]]],
    ['toString(s) = a literal', 'SELECT h.a FROM Holder h WHERE toString(h.s) = "ok"', [[2]]],
    ['toString(s) > a literal', 'SELECT h.a FROM Holder h WHERE toString(h.s) > "a"', [[2]]],
    ['LIKE with a pattern of bounded length', 'SELECT h.a FROM Holder h WHERE h.s LIKE "o."', [[2]]],
    ['NOT LIKE with a pattern of bounded length', 'SELECT h.a FROM Holder h WHERE h.s NOT LIKE "o."', [[1]]],
    ['LIKE with an unbounded pattern decided on the first character', 'SELECT h.a FROM Holder h WHERE h.s LIKE "o.*"', [[2]]],
    ['NOT LIKE with an unbounded pattern', 'SELECT h.a FROM Holder h WHERE h.s NOT LIKE "ok.*"', [[1]]],
    ['IN a subquery of texts', 'SELECT h.a FROM Holder h WHERE h.s IN (SELECT toString(g.s) FROM Holder g WHERE g.a = 2)', [[2]]],
  ])('%s: exact, and the String is not read whole', (_, oql, rows) => {
    const r = runAlone(oql);
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual(rows);
    expect(r.maxRssMb).toBeLessThan(MAX_RSS_MB);
  });

  test('a concatenation works out its length first: longer than a cell, ERR_TOO_LARGE before it is built', () => {
    // It made the whole text (1.2 GB and more) and compared it.
    const r = runAlone('SELECT h.a FROM Holder h WHERE h.s + "" = "ok"');
    expect(r.rows).toBeUndefined();
    expect(r.error).toMatch(/^a concatenation \(`\+`\): the text is 600000000 UTF-16 units, more than one JavaScript string holds \(536870888\); .*test it with LIKE/);
    expect(r.maxRssMb).toBeLessThan(MAX_RSS_MB);
    const two = runAlone('SELECT h.a FROM Holder h WHERE "x" + h.s + "y" IS NULL');
    expect(two.error).toMatch(/^a concatenation \(`\+`\): the text is 600000001 UTF-16 units/);
    expect(two.maxRssMb).toBeLessThan(MAX_RSS_MB);
  });

  test('the check can fail: a slice of the String\'s 20 000 000 first bytes is held whole, over the bound', () => {
    const r = runAlone('SELECT h.a FROM Holder h WHERE h.s.value[0:20000000] IS NULL');
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([]);
    expect(r.maxRssMb).toBeGreaterThan(MAX_RSS_MB);
  });
});
