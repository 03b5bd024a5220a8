/**
 * `!stats` keeps small values: a column of 0.000123s read 0 when the figures were rounded to 3
 * decimals. On a result with no rows, or a column of NULLs alone, it says that, not that the
 * column holds no numbers.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { Repl, type ReplIO } from '../../ts/repl/index.js';
import type { QueryResult } from '../../ts/query/schema.js';
import { formatTable } from '../../ts/query/format.js';
import { columnStats, statsResult } from '../../ts/repl/table.js';

const result = (values: number[]): QueryResult => ({
  name: 'q1',
  oql: 'SELECT n.tiny FROM Nums n',
  columns: [{ name: 'tiny', type: 'number' }],
  rows: values.map((v) => [v]),
  rowCount: values.length,
  truncated: false,
  elapsedMs: 0,
});

describe('!stats', () => {
  it('shows small and fractional figures as the table shows any double, not rounded to 0', () => {
    const stats = statsResult(columnStats(result([0.000123, 0.000246, 1.5e-7])), result([]));
    const [row] = stats.rows;
    expect(row!.slice(3, 6)).toEqual([1.5e-7, 0.000246, (0.000123 + 0.000246 + 1.5e-7) / 3]);
    const table = formatTable(stats);
    expect(table).toContain('1.5e-7');
    expect(table).toContain('0.000246');
    expect(table).not.toMatch(/\| 0 +\| 0 /);
  });
});

describe('!stats on a result that gives it nothing to count', () => {
  // What a user meets on a real dump: a query that finds nothing, then !stats on its numbers.
  const demo = path.join(__dirname, '../../fixtures/demo/demo.hprof');
  let session: HeapSession;
  let out: string[] = [];
  // (The REPL's errors come with their `error: `.)
  const io: ReplIO = { print: (t) => out.push(t), error: (t) => out.push(t), saveFile: () => {}, quit: () => {} };
  beforeAll(async () => {
    session = await openHeap(demo, { noCache: true });
  });
  afterAll(() => session?.close());

  it('an empty result says it has no rows (not that a numeric column holds no numbers)', async () => {
    const repl = new Repl(session, io);
    await repl.execute('SELECT s.@usedHeapSize AS n, s.@length AS len FROM java.lang.String s WHERE s.@length > 100000000');
    expect(out.join('\n')).toContain('(0 rows)');
    for (const command of ['!stats n', '!stats', '!stats 2']) {
      out = [];
      await repl.execute(command);
      expect(out).toEqual(['error: the last result has no rows: !stats has nothing to count']);
    }
    // A column it does not have is still named so.
    out = [];
    await repl.execute('!stats size');
    expect(out.join('\n')).toMatch(/^error: .*'size'/);
  });

  it('a column of NULLs alone says so', async () => {
    const repl = new Repl(session, io);
    await repl.execute('SELECT s.@length AS len, NULLIF(1, 1) AS nothing FROM java.lang.String s WHERE s.@length = 5');
    out = [];
    await repl.execute('!stats nothing');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^error: column 'nothing' holds only NULLs \(\d+ of them\): !stats has no number to count$/);
    // The other column is counted as before.
    out = [];
    await repl.execute('!stats');
    expect(out.join('\n')).toMatch(/^column +\| n +\|/);
    expect(out.join('\n')).toContain('len');
    expect(out.join('\n')).not.toContain('nothing');
  });
});
