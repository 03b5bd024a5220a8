/**
 * Two statements in one --query (`--query 'SELECT …; SELECT …'`): the error points at the `;`
 * that ends the first and says that each --query takes one statement and how to give several
 * (another --query, a query file, the REPL); nothing runs (exit 2). The parser's own error,
 * which the other fronts show, says a query is one statement.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { OqlSecondStatementError } from '../../ts/oql/errors.js';
import { parse } from '../../ts/oql/index.js';
import { heapql, root } from '../tools/run.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');

describe('two statements in one query', () => {
  it('the parser refuses them at the ";" that ends the first', () => {
    let err: unknown;
    try {
      parse('SELECT COUNT(*) FROM Demo$Session;\n  SELECT 1 FROM java.lang.String');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OqlSecondStatementError);
    const e = err as OqlSecondStatementError;
    expect(e.code).toBe('ERR_OQL_SYNTAX');
    expect(e.reason).toBe('more follows the ";" that ends the query: a query is one statement');
    expect(e.pos).toMatchObject({ line: 1, column: 34, offset: 33, end: 34 });
    expect(e.hint).toBe('run the statement after the ";" on its own (the REPL runs statements separated by ";" in turn)');
    // A trailing ";" alone is still fine, and a ";" inside a query is no second statement.
    expect(() => parse('SELECT COUNT(*) FROM Demo$Session;')).not.toThrow();
    expect(() => parse('SELECT x FROM ; Demo$Session x')).toThrow(/unexpected ";"/);
  });

  it('heapql query says each --query takes one statement, with the column of the ";"', async () => {
    const r = await heapql(['query', demo, '--no-cache', '--query', 'SELECT COUNT(*) FROM Demo$Session; SELECT COUNT(*) FROM java.lang.String']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'error: --query:1:34: more follows the ";" that ends the query: a query is one statement\n' +
        '  SELECT COUNT(*) FROM Demo$Session; SELECT COUNT(*) FROM java.lang.String\n' +
        `  ${' '.repeat(33)}^\n` +
        '  hint: each --query takes one statement, and the ";" at column 34 ends this one: give the next statement its own --query ' +
        '(--query "SELECT ..." --query "SELECT ..."), put one query a line in a file for --query-file, or type them in the REPL (--repl), ' +
        'which runs statements separated by ";" in turn',
    );
    // As the hint says: a --query each runs both.
    const two = await heapql(['query', demo, '--no-cache', '--format', 'csv', '--query', 'SELECT COUNT(*) AS n FROM Demo$Session', '--query', 'SELECT COUNT(*) AS m FROM Demo$Session s WHERE s.createdAt > 0']);
    expect(two.stderr).toBe('');
    // Each table ends with an empty CSV line, CRLF as every line (README, --format csv).
    expect(two.stdout).toBe('n\r\n400\r\n\r\nm\r\n400\r\n\r\n');
  });

  it('on a later line of the --query text, the hint names the line too', async () => {
    const r = await heapql(['query', demo, '--no-cache', '--query', 'SELECT COUNT(*)\nFROM Demo$Session ; SELECT 1 FROM Demo$Session']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: --query:2:19: more follows the ";"');
    expect(r.stderr).toContain('the ";" at line 2, column 19 ends this one');
  });
});
