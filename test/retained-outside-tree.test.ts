/**
 * After a reachable-only analysis, an object outside the dominator tree (an unreachable one, seen
 * by a query over every object: `!all`, or `reachableOnly: false`) has no retained size: NULL in
 * OQL (left out of SUM / COUNT / MIN, sorted as a NULL), null in the library's object and
 * dominator views, and "not in the dominator tree" in the REPL's `!obj` / `!dom` — never 0,
 * less than its shallow size. Objects of the tree keep retained ≥ shallow.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type Heap, type ObjectRef } from '../dist/index.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const STRINGS = 'SELECT s, s.@retainedHeapSize AS r, s.@usedHeapSize AS u FROM java.lang.String s';

describe('retained sizes outside the dominator tree (reachable-only analysis)', () => {
  let heap: Heap;
  let garbage: ObjectRef;
  beforeAll(async () => {
    heap = await openHeap(demo);
    await heap.analyze({ reachableOnly: true });
    // An unreachable string: in the query over every object, not in the one over reachable objects.
    const ids = async (reachableOnly: boolean) => (await heap.query('SELECT s FROM java.lang.String s', { reachableOnly })).rows.map((r) => r[0] as ObjectRef);
    const reachable = new Set((await ids(true)).map((o) => o.objectId));
    garbage = (await ids(false)).find((o) => !reachable.has(o.objectId))!;
    expect(garbage).toBeDefined();
  });
  afterAll(() => heap.close());

  it('OQL: @retainedHeapSize is NULL outside the tree, never below the shallow size inside it', async () => {
    const all = await heap.query(STRINGS, { reachableOnly: false });
    const live = await heap.query(STRINGS, { reachableOnly: true });
    const nulls = all.rows.filter((r) => r[1] === null);
    expect(nulls.length).toBe(all.rowCount - live.rowCount);
    for (const [, r, u] of all.rows) if (r !== null) expect(r as number).toBeGreaterThanOrEqual(u as number);
    expect((await heap.query(`${STRINGS} WHERE s.@retainedHeapSize < s.@usedHeapSize`, { reachableOnly: false })).rowCount).toBe(0);
    // ORDER BY sorts them as NULLs: first ascending, last descending.
    const asc = await heap.query(`${STRINGS} ORDER BY r ASC`, { reachableOnly: false });
    expect(asc.rows.slice(0, nulls.length).every((r) => r[1] === null)).toBe(true);
    expect(asc.rows[nulls.length]![1]).toBeGreaterThan(0);
    const desc = await heap.query(`${STRINGS} ORDER BY r DESC`, { reachableOnly: false });
    expect(desc.rows.slice(-nulls.length).every((r) => r[1] === null)).toBe(true);
    // Aggregates ignore them: the same as over the reachable strings alone.
    const AGG = 'SELECT SUM(s.@retainedHeapSize) AS sum, COUNT(s.@retainedHeapSize) AS n, MIN(s.@retainedHeapSize) AS min FROM java.lang.String s';
    const aggAll = await heap.query(AGG, { reachableOnly: false });
    expect(aggAll.rows).toEqual((await heap.query(AGG, { reachableOnly: true })).rows);
    expect(aggAll.rows[0]![1]).toBe(live.rowCount);
    // dominators(x) is NULL too: the object has no place in the tree.
    const doms = await heap.query(`SELECT dominators(s) AS d FROM OBJECTS ${garbage.address} s`, { reachableOnly: false });
    expect(doms.rows).toEqual([[null]]);
  });

  it('the library: object() and dominator() give a null retained size outside the tree', async () => {
    const o = await heap.object(garbage.objectId);
    expect(o.reachable).toBe(false);
    expect(o.retainedSize).toBeNull();
    const d = await heap.dominator(garbage.objectId);
    expect(d.inTree).toBe(false);
    expect(d.retainedSize).toBeNull();
    // An object of the tree: a number, at least its shallow size, the same in both views.
    const live = (await heap.query('SELECT s FROM java.lang.String s', { reachableOnly: true, limit: 1 })).rows[0]![0] as ObjectRef;
    const lo = await heap.object(live.objectId);
    expect(lo.retainedSize).toBeGreaterThanOrEqual(lo.shallowSize);
    expect((await heap.dominator(live.objectId)).retainedSize).toBe(lo.retainedSize);
  });

  it('the REPL (heapql analyze --repl --reachable-only, then !all): NULL in a query, "not in the dominator tree" in !obj and !dom', () => {
    const input = ['!all', `${STRINGS} WHERE s.@retainedHeapSize IS NULL LIMIT 1`, `!obj ${garbage.objectId}`, `!dom ${garbage.objectId}`, '!quit'];
    const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'analyze', demo, '--repl', '--reachable-only'], {
      input: `${input.join('\n')}\n`,
      encoding: 'utf8',
      env: { ...process.env, HEAPQL_DEBUG: '', NO_COLOR: '1' },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\| null \| 24\n/);
    const retainedLines = r.stdout.split('\n').filter((l) => l.startsWith('retained size'));
    expect(retainedLines).toHaveLength(2);
    for (const l of retainedLines) expect(l).toMatch(/^retained size +— \(not in the dominator tree: unreachable, analysis run with --reachable-only\)$/);
    expect(r.stdout).toContain('reachable      no (no GC root the dump records reaches it)');
    expect(r.stdout).toContain('dominator      (none: not in the dominator tree)');
    expect(r.stdout).not.toContain('dominates (');
  });
});
