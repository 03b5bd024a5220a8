/**
 * Long expressions: a chain of OR (what the hint for a literal IN list suggests) or AND of any
 * length plans and runs, as a balanced tree; a chain the executor's plan reader cannot take (+
 * of 122 terms: 128 levels) or that would exhaust the planner's stack is refused with a message
 * that says so, where, and what to do — not "the plan is not valid JSON" or an internal error.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { OqlPlanError } from '../ts/oql/errors.js';
import { MAX_PLAN_DEPTH, plan } from '../ts/plan/index.js';

const known = path.resolve(__dirname, '../fixtures/dumps/KnownHeap-jdk25-coops.hprof');

const anyOf = (n: number) => Array.from({ length: n }, (_, i) => `p.x = ${i}`).join(' OR ');
const sum = (n: number) => Array(n).fill('p.x').join(' + ');

function planError(oql: string): OqlPlanError {
  try {
    plan(oql);
  } catch (err) {
    expect(err).toBeInstanceOf(OqlPlanError);
    return err as OqlPlanError;
  }
  throw new Error(`planned: ${oql}`);
}

describe('long AND / OR chains', () => {
  let heap: HeapSession;
  beforeAll(async () => {
    heap = await openHeap(known);
  });
  afterAll(() => heap.close());

  it('an OR of 500 comparisons runs (the plan stays shallow) and counts what it should', async () => {
    const r = await heap.query(`SELECT COUNT(*) AS n FROM KnownHeap$Point p WHERE ${anyOf(500)}`);
    expect(r.rows).toEqual([[500]]);
  });

  it('an AND of 300 terms with an EXISTS among them, and an OR of 5000', async () => {
    const terms = Array.from({ length: 300 }, (_, i) => `p.x != ${1000 + i}`);
    terms.splice(150, 0, 'EXISTS (SELECT * FROM KnownHeap$Empty)');
    const r = await heap.query(`SELECT COUNT(*) AS n FROM KnownHeap$Point p WHERE p.x < 10 AND ${terms.join(' AND ')}`);
    expect(r.rows).toEqual([[10]]);
    const many = await heap.query(`SELECT COUNT(*) AS n FROM KnownHeap$Point p WHERE ${anyOf(5000)}`);
    expect(many.rows).toEqual([[1000]]);
  });

  it('a chain keeps its header text and its positions', () => {
    const p = plan('SELECT p.x = 1 OR p.x = 2 OR p.x = 3 OR p.x = 4, p.x > 0 AND p.x < 9 AND p.x != 5 FROM KnownHeap$Point p');
    expect(p.columns).toEqual(['p.x = 1 OR p.x = 2 OR p.x = 3 OR p.x = 4', 'p.x > 0 AND p.x < 9 AND p.x != 5']);
    // A field the dump lacks deep in a long chain is still found where it is written.
    const e = planError(`SELECT p.x FROM KnownHeap$Point p WHERE ${anyOf(300)} OR p.nosuch.@retainedHeapSize > 1`);
    expect(e.pos?.column).toBe(`SELECT p.x FROM KnownHeap$Point p WHERE ${anyOf(300)} OR `.length + 1);
  });
});

describe('expressions too deep for the executor', () => {
  it('a chain of + the plan reader cannot take is refused where it starts, saying why', () => {
    expect(plan(`SELECT ${sum(121)} AS s FROM KnownHeap$Point p`).json.length).toBeGreaterThan(0);
    const e = planError(`SELECT ${sum(122)} AS s FROM KnownHeap$Point p`);
    expect(e.reason).toBe(`the query nests too deeply for the executor: its plan is 128 levels deep, and at most ${MAX_PLAN_DEPTH} are taken`);
    expect(e.pos).toMatchObject({ line: 1, column: 8 });
    expect(e.hint).toMatch(/^a chain of AND \/ OR may be as long as needed/);
  });

  it('a chain deep enough to exhaust the planner is refused before it is walked, not an internal error', () => {
    const e = planError(`SELECT p.x FROM KnownHeap$Point p WHERE ${sum(20000)} > 0`);
    expect(e.reason).toBe(`the expression nests more than 1000 levels deep (the executor takes plans of at most ${MAX_PLAN_DEPTH} levels)`);
    expect(e.pos).toMatchObject({ line: 1, column: 41 });
  });

  it('the executor itself refuses 128 levels: the limit is its own', async () => {
    const heap = await openHeap(known);
    try {
      await expect(heap.query(`SELECT ${sum(121)} AS s FROM KnownHeap$Point p WHERE p.x = 1`)).resolves.toMatchObject({ rows: [[121]] });
    } finally {
      heap.close();
    }
  });
});
