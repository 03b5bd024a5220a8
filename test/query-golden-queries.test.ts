// The golden result queries (fixtures/queries/golden, expected rows derived from the fixture
// dumps' facts) must plan, with exactly the column names their expected files list. Running
// them against the dumps needs the native executor and is wired by the integrator.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { plan } from '../ts/plan/index.js';

const dir = path.resolve(import.meta.dirname, '../fixtures/queries/golden');
const names = readdirSync(dir).filter((f) => f.endsWith('.expected.json')).map((f) => f.replace(/\.expected\.json$/, '')).sort();

describe('golden result queries plan', () => {
  test('there are golden queries for every KnownHeap dump', () => {
    expect(names.length).toBeGreaterThanOrEqual(20);
  });
  for (const name of names) {
    test(name, () => {
      const expected = JSON.parse(readFileSync(path.join(dir, `${name}.expected.json`), 'utf8'));
      const oql = readFileSync(path.join(dir, `${name}.oql`), 'utf8').trim();
      expect(oql).toBe(expected.oql);
      const p = plan(oql, { fullPath: expected.fullPath });
      expect(p.columns).toEqual(expected.columns);
      expect(p.plan.fullPath).toBe(expected.fullPath);
      for (const rows of Object.values(expected.dumps) as unknown[][][]) {
        for (const row of rows) expect(row).toHaveLength(expected.columns.length);
      }
    });
  }
});
