/**
 * A query's scan in the terminal REPL draws the progress bar (`query`, the objects scanned of
 * those to scan), as `heapql query` draws it for a one-shot query: a query over a big dump runs
 * for seconds, and the session showed nothing meanwhile. The bar is taken down (its line
 * cleared) before the rows are printed, on the paged path (a display limit up to 1,000) and on
 * the whole one (`!set limit 0`). In a real pseudo-terminal (node-pty), the bar drawn at once
 * (HEAPQL_PROGRESS_AFTER_MS=0), on KnownHeap (a scan of every object that reports its progress).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';

import { closeTerminals, Terminal } from './pty-terminal.js';

const root = path.resolve(__dirname, '../..');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
/** A scan of every object, one row out. */
const COUNT = 'SELECT COUNT(*) AS n FROM INSTANCEOF java.lang.Object o WHERE o.@usedHeapSize > 64';

afterEach(closeTerminals);

/** The bar's drawings (`ESC[1G<line>ESC[0K`) in `raw` from `from` on, with where each is. */
function drawings(raw: string, from: number): { at: number; line: string }[] {
  return [...raw.slice(from).matchAll(/\x1b\[1G([^\x1b]*)\x1b\[0K/g)].map((m) => ({ at: from + m.index!, line: m[1]! }));
}

it.each([
  ['the paged path (limit 50)', ''],
  ['the whole path (!set limit 0)', '!set limit 0'],
])("draws the query's scan on %s and takes the bar down before the rows", async (_what, setting) => {
  expect(existsSync(known), `${known} is missing: run fixtures/make-fixtures.sh`).toBe(true);
  const t = new Terminal(['query', known, '--no-cache', '--repl'], mkdtempSync(path.join(tmpdir(), 'heapql-repl-')), { env: { HEAPQL_PROGRESS_AFTER_MS: '0' } });
  await t.waitFor('oql> ');
  if (setting) {
    t.type(`${setting}\r`);
    await t.waitFor('limit = 0');
  }
  const from = t.raw.length;
  t.type(`${COUNT}\r`);
  await t.waitFor(/\(1 row\)\n\([\d.]+ ms\)\noql> /, t.screen.length);
  // The table: its header `n`, the rule under it.
  const rowsAt = from + /n\r\n-+\r\n/.exec(t.raw.slice(from))!.index;
  const bars = drawings(t.raw, from).filter((d) => d.at < rowsAt);
  expect(bars.length, `no progress bar before the rows: ${JSON.stringify(t.raw.slice(from, rowsAt))}`).toBeGreaterThan(0);
  expect(bars.every((d) => /^query +\|[█░]+\| \d+% \| [\d,]+ \/ [\d,]+$/.test(d.line))).toBe(true);
  // Taken down before the rows: its line cleared, and not drawn again among them.
  const cleared = t.raw.indexOf('\x1b[2K', bars.at(-1)!.at);
  expect(cleared).toBeGreaterThan(bars.at(-1)!.at);
  expect(cleared).toBeLessThan(rowsAt);
  expect(drawings(t.raw, rowsAt)).toEqual([]);
  t.type('!quit\r');
  expect(await t.exited).toBe(0);
});
