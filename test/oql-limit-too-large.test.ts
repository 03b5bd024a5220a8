// D4 of the OQL tester's report: `LIMIT 99999999999999999999` reached the executor as the
// double 1e20 and failed there with "malformed plan: invalid type: floating point `1e+20`,
// expected u64". A LIMIT above 2^53 − 1 (the largest row count that travels exactly) is now a
// syntax error at the number, with a caret, as other bad LIMITs are.
import { describe, expect, test } from 'vitest';

import { formatOqlError, OqlSyntaxError } from '../ts/oql/errors.js';
import { parse } from '../ts/oql/parser.js';
import { plan } from '../ts/plan/index.js';
import { thrown } from './tools/thrown.js';

function syntaxError(oql: string): OqlSyntaxError {
  return thrown(() => parse(oql), OqlSyntaxError, `parsed: ${oql}`);
}

describe('LIMIT beyond 2^53 − 1', () => {
  test.each(['99999999999999999999', '18446744073709551615', '9007199254740992', '9007199254740992L'])('LIMIT %s is refused at the number', (n) => {
    const oql = `SELECT p.x FROM KnownHeap$Point p LIMIT ${n}`;
    const e = syntaxError(oql);
    expect(e.code).toBe('ERR_OQL_SYNTAX');
    expect(e.reason).toBe(`LIMIT ${n.replace(/L$/, '')} is too large: the largest LIMIT is 9007199254740991 (2^53 − 1)`);
    expect(e.pos).toMatchObject({ line: 1, column: oql.indexOf(n) + 1, end: oql.length });
    expect(formatOqlError(e, oql)).toContain(`\n  ${' '.repeat(oql.indexOf(n))}${'^'.repeat(n.length)}`);
  });

  test('in a subquery and after a set operation too', () => {
    expect(syntaxError('SELECT * FROM (SELECT p FROM KnownHeap$Point p LIMIT 1e2) x').reason).toMatch(/expected an integer/);
    expect(syntaxError('SELECT * FROM (SELECT p FROM KnownHeap$Point p LIMIT 99999999999999999999) x').reason).toMatch(/too large/);
    expect(syntaxError('SELECT p FROM KnownHeap$Point p UNION SELECT q FROM KnownHeap$Point q LIMIT 99999999999999999999').reason).toMatch(/too large/);
  });

  test('the largest LIMIT is accepted and travels exactly', () => {
    const { json } = plan('SELECT p.x FROM KnownHeap$Point p LIMIT 9007199254740991');
    expect(json).toContain('"limit":9007199254740991');
  });
});
