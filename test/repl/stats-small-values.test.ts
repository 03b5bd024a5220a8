/** `!stats` keeps small values: a column of 0.000123s read 0 when the figures were rounded to 3 decimals. */
import { describe, expect, it } from 'vitest';

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
