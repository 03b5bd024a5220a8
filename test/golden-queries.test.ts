/**
 * Golden OQL results: each fixtures/queries/golden/<name>.oql runs on every KnownHeap fixture
 * dump through the library (planner → native executor) and must give exactly the rows derived
 * from the fixture programs' facts (fixtures/queries/golden/derive-expected.mjs).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type Heap } from '../dist/index.js';

const root = path.resolve(__dirname, '..');
const goldenDir = path.join(root, 'fixtures/queries/golden');

interface Golden {
  oql: string;
  fullPath: boolean;
  ordered: boolean;
  columns: string[];
  dumps: Record<string, unknown[][]>;
}

const goldens = readdirSync(goldenDir)
  .filter((f) => f.endsWith('.expected.json'))
  .map((f) => ({ name: f.replace('.expected.json', ''), ...(JSON.parse(readFileSync(path.join(goldenDir, f), 'utf8')) as Golden) }));
const dumps = [...new Set(goldens.flatMap((g) => Object.keys(g.dumps)))].sort();

/** -0 and 0 are the same number in a result; compare cells as JSON-ish values. */
function normalize(rows: unknown[][]): unknown[][] {
  return rows.map((r) => r.map((v) => (typeof v === 'number' && Object.is(v, -0) ? 0 : v)));
}

function sortRows(rows: unknown[][]): unknown[][] {
  return [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

describe.each(dumps)('golden queries on %s', (dump) => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(path.join(root, 'fixtures/dumps', dump));
    if (goldens.some((g) => g.fullPath && g.dumps[dump])) await heap.analyze();
  });
  afterAll(() => heap?.close());

  it.each(goldens.filter((g) => g.dumps[dump]).map((g) => [g.name, g] as const))('%s', async (_name, golden) => {
    const result = await heap.query(golden.oql);
    expect(result.columns.map((c) => c.name)).toEqual(golden.columns);
    const actual = normalize(result.rows as unknown[][]);
    const expected = normalize(golden.dumps[dump]!);
    if (golden.ordered) expect(actual).toEqual(expected);
    else expect(sortRows(actual)).toEqual(sortRows(expected));
    expect(result.rowCount).toBe(expected.length);
  });
});
