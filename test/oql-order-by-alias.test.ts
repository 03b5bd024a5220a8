// D2 of the OQL tester's report: `ORDER BY "n"` after `AS "n"` was taken as a string constant,
// so the rows were silently not sorted. A quoted ORDER BY key that equals an output column's
// name now names that column (as SQL's double-quoted identifiers do), and an ORDER BY key that
// is a constant (a literal, or an expression of literals only) is refused at its position — an
// integer alone stays a 1-based position.
import { describe, expect, test } from 'vitest';

import { OqlPlanError } from '../ts/oql/errors.js';
import { plan } from '../ts/plan/index.js';
import { useKnownHeap } from './tools/known-heap.js';
import { thrown } from './tools/thrown.js';

const POINT = 'KnownHeap$Point p';

function planError(oql: string): OqlPlanError {
  return thrown(() => plan(oql), OqlPlanError, `planned: ${oql}`);
}

describe('the plan', () => {
  test('a quoted name equal to an output column orders by that column', () => {
    for (const key of ['"n"', "'n'"]) {
      const q = plan(`SELECT p.y, COUNT(*) AS "n" FROM ${POINT} GROUP BY p.y ORDER BY ${key} DESC`).plan.query;
      expect(q.op === 'select' && q.orderBy).toEqual([{ expr: { k: 'out', i: 1 }, desc: true }]);
    }
    const spaced = plan(`SELECT p.x AS "the x", p.y FROM ${POINT} ORDER BY "the x"`).plan.query;
    expect(spaced.op === 'select' && spaced.orderBy[0]!.expr).toEqual({ k: 'out', i: 0 });
    // A column named by its expression text.
    const text = plan(`SELECT p.x * 2 FROM ${POINT} ORDER BY "p.x * 2"`).plan.query;
    expect(text.op === 'select' && text.orderBy[0]!.expr).toEqual({ k: 'out', i: 0 });
    // After a set operation too.
    const setop = plan(`SELECT p.x AS "a b" FROM ${POINT} UNION SELECT p.y FROM ${POINT} ORDER BY "a b" DESC`).plan.query;
    expect(setop.orderBy).toEqual([{ expr: { k: 'out', i: 0 }, desc: true }]);
  });

  test('a constant ORDER BY key is refused where it is written', () => {
    const oql = `SELECT p.x AS "myid" FROM ${POINT} ORDER BY "myide" DESC`;
    const s = planError(oql);
    expect(s.reason).toBe('ORDER BY "myide" is a constant string: no output column is named myide');
    expect(s.pos).toMatchObject({ line: 1, column: oql.indexOf('"myide"') + 1 });
    expect(s.hint).toContain('the columns are: myid');
    for (const key of ['1 + 1', '-1', '1.5', 'NULL', 'COALESCE(NULL, 2)', '"a" + "b"']) {
      const oql = `SELECT p.x FROM ${POINT} WHERE p.x > 0 ORDER BY p.y, ${key}`;
      const e = planError(oql);
      expect(e.reason, key).toBe(`ORDER BY ${key} sorts by a constant: it has the same value on every row`);
      expect(e.pos!.column, key).toBe(oql.lastIndexOf(key) + 1);
    }
  });

  test('what is not constant is left alone: an integer position, row expressions, aggregates', () => {
    expect(() => plan(`SELECT p.x, p.y FROM ${POINT} ORDER BY 2`)).not.toThrow();
    expect(() => plan(`SELECT p.x FROM ${POINT} ORDER BY p.y * 2 + 1`)).not.toThrow();
    expect(() => plan(`SELECT p.y, COUNT(*) FROM ${POINT} GROUP BY p.y ORDER BY COUNT(*)`)).not.toThrow();
    expect(() => plan(`SELECT p.x FROM ${POINT} ORDER BY @usedHeapSize`)).not.toThrow();
  });
});

describe('on a real dump', () => {
  const heap = useKnownHeap();

  test('ORDER BY "alias" sorts, as ORDER BY alias does', async () => {
    const quoted = await heap().query(`SELECT p.x AS "myid" FROM ${POINT} ORDER BY "myid" DESC LIMIT 2`);
    expect(quoted.rows).toEqual([[999], [998]]);
    const grouped = await heap().query(
      `SELECT p.x % 3 AS "the rest", COUNT(*) AS "n" FROM ${POINT} WHERE p.x < 10 GROUP BY p.x % 3 ORDER BY "n" DESC, "the rest"`,
    );
    expect(grouped.rows).toEqual([[0, 4], [1, 3], [2, 3]]);
  });

  test('a constant key is an error with its position, before anything runs', async () => {
    const oql = `SELECT p.x FROM ${POINT} ORDER BY "abc"`;
    await expect(heap().query(oql)).rejects.toMatchObject({ code: 'ERR_OQL_PLAN', pos: { line: 1, column: oql.indexOf('"abc"') + 1 } });
  });
});
