// D7 of the OQL tester's report: a double holding -0.0 printed `-0` in tables and CSV but `0`
// in JSON (`--format json`, the server's /query and /stream, which all write through
// stringifyJson), so the formats disagreed on one value. JSON now writes `-0.0` (valid JSON),
// which reads back as -0.
import { expect, test } from 'vitest';

import { openHeap } from '../ts/index.js';
import { formatCsv, formatJson, formatTable, parseJsonExact, stringifyJson, validateQueryResult } from '../ts/query/index.js';
import { KNOWN_HEAP_DUMP } from './tools/known-heap.js';

test('stringifyJson writes -0 as -0.0 and it reads back as -0', () => {
  expect(stringifyJson(-0)).toBe('-0.0');
  expect(stringifyJson([-0, 0, 1.5])).toBe('[-0.0,0,1.5]');
  expect(stringifyJson({ a: -0 }, 2)).toBe('{\n  "a": -0.0\n}');
  // Beside a bigint and a NaN, each keeps its own form.
  expect(stringifyJson([-0, 2n ** 63n - 1n, NaN, '-0.0'])).toBe('[-0.0,9223372036854775807,"NaN","-0.0"]');
  for (const text of [stringifyJson([-0]), stringifyJson([-0, 2n ** 62n])]) {
    expect(Object.is((JSON.parse(text) as number[])[0], -0)).toBe(true);
    expect(Object.is((parseJsonExact(text) as number[])[0], -0)).toBe(true);
  }
  // Without a -0 (or a bigint, NaN, ±Infinity) it is JSON.stringify.
  expect(stringifyJson({ a: [0, 1, 'x'] }, 2)).toBe(JSON.stringify({ a: [0, 1, 'x'] }, null, 2));
});

test('a real dump: a double field holding -0.0 has its sign in JSON as in the table and CSV', async () => {
  // KnownHeap$AllPrims.d = k * -0.25: -0.0 for k = 0.
  const heap = await openHeap(KNOWN_HEAP_DUMP, { cache: false });
  try {
    const r = await heap.query('SELECT p.i, p.d FROM KnownHeap$AllPrims p WHERE p.i < 100001 ORDER BY p.i');
    expect(r.rows.map((row) => row[0])).toEqual([0, 100000]);
    expect(Object.is(r.rows[0]![1], -0)).toBe(true);
    expect(formatTable(r)).toMatch(/\n\s*0 \|\s+-0\n/);
    expect(formatCsv(r)).toContain('\r\n0,-0\r\n');
    const json = formatJson([r]);
    expect(json).toContain('-0.0');
    const back = parseJsonExact(json) as { rows: number[][] }[];
    expect(Object.is(back[0]!.rows[0]![1], -0)).toBe(true);
    expect(back[0]!.rows[1]![1]).toBe(-0.25);
    expect(validateQueryResult(JSON.parse(json)[0]).ok).toBe(true);
  } finally {
    heap.close();
  }
});
