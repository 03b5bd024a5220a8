// D1 of the OQL tester's report: an integer literal beyond ±2^53 (a bigint in the plan) in an
// expression that the planner matches against another — GROUP BY, ORDER BY, HAVING, a second
// aggregate — crashed the planner with "Do not know how to serialize a BigInt" (expressions were
// compared with JSON.stringify), a plain TypeError without a code. Expressions are now compared
// structurally, and any unexpected error of the planner is a HeapqlError with a code.
import { describe, expect, test } from 'vitest';

import { HeapqlError } from '../ts/index.js';
import type { Query } from '../ts/oql/ast.js';
import { plan, planAst } from '../ts/plan/index.js';
import { useKnownHeap } from './tools/known-heap.js';

const BIG = 9007199254740993n; // 2^53 + 1: a double cannot hold it
const POINT = 'KnownHeap$Point p';

describe('the planner matches expressions holding a big literal', () => {
  test.each([
    ['ORDER BY', `SELECT p.x FROM ${POINT} ORDER BY p.x * ${BIG} LIMIT 1`],
    ['GROUP BY', `SELECT COUNT(*) FROM ${POINT} GROUP BY p.x + ${BIG}`],
    ['HAVING', `SELECT p.y, MAX(p.x) FROM ${POINT} GROUP BY p.y HAVING MAX(p.x) > ${BIG}`],
    ['a second aggregate', `SELECT COUNT(*), SUM(p.x * ${BIG}) FROM ${POINT}`],
    ['the same aggregate twice', `SELECT SUM(p.x * ${BIG}), SUM(p.x * ${BIG}) FROM ${POINT}`],
  ])('%s', (_, oql) => {
    expect(() => plan(oql)).not.toThrow();
  });

  test('a grouped expression with a big literal is a group key, and the same aggregate one slot', () => {
    const grouped = plan(`SELECT p.x + ${BIG} AS k, COUNT(*) FROM ${POINT} GROUP BY p.x + ${BIG} ORDER BY p.x + ${BIG}`).plan.query;
    expect(grouped.op === 'select' && grouped.output.kind === 'columns' && grouped.output.columns[0]!.expr).toEqual({ k: 'key', i: 0 });
    const twice = plan(`SELECT SUM(p.x * ${BIG}), SUM(p.x * ${BIG}) FROM ${POINT}`).plan.query;
    expect(twice.op === 'select' && twice.aggregates.length).toBe(1);
    // Different literals stay different: 2^53 + 1 and 2^53 + 3 are not one slot.
    const two = plan(`SELECT SUM(p.x * ${BIG}), SUM(p.x * ${BIG + 2n}) FROM ${POINT}`).plan.query;
    expect(two.op === 'select' && two.aggregates.length).toBe(2);
    // An integer and a float literal of the same value stay different (x / 2 vs x / 2.0).
    const kinds = plan(`SELECT SUM(p.x / 2), SUM(p.x / 2.0) FROM ${POINT}`).plan.query;
    expect(kinds.op === 'select' && kinds.aggregates.length).toBe(2);
  });

  test('an unexpected error of the planner is a HeapqlError with a code, not a plain TypeError', () => {
    let caught: unknown;
    try {
      planAst({ type: 'select' } as unknown as Query);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(HeapqlError);
    expect((caught as HeapqlError).code).toBe('ERR_INTERNAL');
    expect((caught as HeapqlError).message).toMatch(/^internal error while planning the query: /);
  });
});

describe('on a real dump', () => {
  const heap = useKnownHeap();

  test('ORDER BY, GROUP BY, HAVING and two aggregates with a literal beyond 2^53 run and are exact', async () => {
    const ordered = await heap().query(`SELECT p.x FROM ${POINT} WHERE p.x < 5 ORDER BY p.x * ${BIG} DESC LIMIT 2`);
    expect(ordered.rows).toEqual([[4], [3]]);
    const groups = await heap().query(`SELECT p.x + ${BIG} AS k, COUNT(*) AS n FROM ${POINT} WHERE p.x < 2 GROUP BY p.x + ${BIG} ORDER BY k`);
    expect(groups.rows).toEqual([[BIG, 1], [BIG + 1n, 1]]);
    const having = await heap().query(`SELECT p.x, MAX(p.x * ${BIG}) AS m FROM ${POINT} WHERE p.x < 3 GROUP BY p.x HAVING MAX(p.x * ${BIG}) > ${BIG} ORDER BY 1`);
    expect(having.rows).toEqual([[2, 2n * BIG]]);
    const two = await heap().query(`SELECT COUNT(*), SUM(p.x * ${BIG}) FROM ${POINT} WHERE p.x < 10`);
    expect(two.rows).toEqual([[10, 45n * BIG]]);
  });
});
