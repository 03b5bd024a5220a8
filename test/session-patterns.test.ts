/**
 * Regular expressions are judged by the engine that runs them: the session has the executor
 * check every FROM regex and LIKE pattern of a plan before the query runs, and refuses a bad
 * one at its literal's line and column.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { OqlPlanError } from '../ts/oql/errors.js';
import { prepareQuery } from '../ts/session/query.js';
import { HeapSession, openHeap } from '../ts/index.js';
import { thrown } from './tools/thrown.js';

const demo = path.resolve(__dirname, '../fixtures/demo/demo.hprof');

function refusal(text: string): OqlPlanError {
  return thrown(() => prepareQuery(text, { fullPath: false }), OqlPlanError, `prepared: ${text}`);
}

describe('regex patterns are checked by the executor before running', () => {
  test('what the Rust engine accepts is accepted ((?i) flags, Java names)', () => {
    expect(() => prepareQuery("SELECT * FROM java.lang.String s WHERE toString(s) LIKE '(?i)item.*'", { fullPath: false })).not.toThrow();
    expect(() => prepareQuery('SELECT * FROM "Demo$Sess.*|byte[]"', { fullPath: false })).not.toThrow();
  });

  test('what it refuses is refused at the literal, with its reason', () => {
    const e = refusal("SELECT * FROM java.lang.String s\n WHERE toString(s) LIKE '[^]*\\n[^]*'");
    expect(e.reason).toBe('invalid regular expression "[^]*\\n[^]*": unclosed character class');
    expect(e.pos).toMatchObject({ line: 2, column: 25 });
    expect(e.code).toBe('ERR_OQL_PLAN');
    const from = refusal('SELECT * FROM "java(.*"');
    expect(from.reason).toBe('invalid regular expression "java(.*": unclosed group');
    expect(from.pos).toMatchObject({ line: 1, column: 15 });
    const look = refusal('SELECT * FROM java.lang.String s WHERE toString(s) NOT LIKE "(?!a).*"');
    expect(look.reason).toMatch(/^invalid regular expression "\(\?!a\)\.\*": look-around/);
    expect(look.hint).toBe('look-around and back-references are not supported: use classes, alternation and repetition');
  });

  describe('on a heap', () => {
    let session: HeapSession;
    beforeAll(async () => {
      session = await openHeap(demo);
    });
    afterAll(() => session.close());

    test('a case-insensitive LIKE runs; a bad pattern fails before the scan with its position', async () => {
      const r = await session.query("SELECT COUNT(*) FROM java.lang.String s WHERE toString(s) LIKE '(?i)ALICE'");
      expect(r.rows).toEqual([[1]]);
      await expect(session.query("SELECT * FROM java.lang.String s WHERE toString(s) LIKE 'a[b'")).rejects.toMatchObject({
        name: 'OqlPlanError', reason: 'invalid regular expression "a[b": unclosed character class', pos: { line: 1, column: 57 },
      });
    });
  });
});
