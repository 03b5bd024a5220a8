/**
 * The caret under a bad token, end to end: where the query holds a control or bidi character
 * (echoed escaped, `\u202e`, six cells) the caret still stands under the token on the screen,
 * in `--query`, `--query-file` and the REPL read from a file; and a field or class the dump
 * lacks prints the query's line and a caret under the name, as a syntax error does, with its
 * exit code (1: the query failed on this dump; a syntax error is 2).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { heapql, root, run } from '../tools/run.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');
const bin = path.join(root, 'bin/heapql.js');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-caret-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Cells on screen of escaped ASCII text (what an error line holds here). */
const cells = (text: string) => [...text].length;

/** The line of `stderr` that echoes `token`'s line, and the caret line after it; the caret must stand under `token`. */
function expectCaretUnder(stderr: string, echoed: string, token: string): void {
  const lines = stderr.split('\n');
  const at = lines.findIndex((l) => l.trimStart() === echoed);
  expect(at, stderr).toBeGreaterThanOrEqual(0);
  const echo = lines[at]!;
  const caret = lines[at + 1]!;
  const column = echo.lastIndexOf(token);
  expect(caret, stderr).toBe(`${' '.repeat(cells(echo.slice(0, column)))}${'^'.repeat(token.length)}`);
}

/** `heapql <args> < file`, stdin read from `input`. */
function withStdin(args: string[], input: string) {
  const file = path.join(tmp, `stdin-${Math.random().toString(36).slice(2)}.oql`);
  writeFileSync(file, input);
  const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return run('sh', ['-c', `${quoted(process.execPath)} ${quoted(bin)} ${args.map(quoted).join(' ')} < ${quoted(file)}`], {
    env: { ...process.env, HEAPQL_DEBUG: '', NO_COLOR: '1', XDG_STATE_HOME: tmp },
  });
}

describe('a control or bidi character before the bad token', () => {
  const query = "SELECT '\u202e' AS x FORM y";
  const echoed = "SELECT '\\u202e' AS x FORM y";

  it('--query: echoed escaped, the caret under FORM, exit 2', async () => {
    const r = await heapql(['query', demo, '--no-cache', '--query', query]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --query:1:17: unexpected "FORM"/);
    expect(r.stderr).not.toContain('\u202e');
    expectCaretUnder(r.stderr, echoed, 'FORM');
  });

  it('--query-file: the same, at the file\'s line; a C0 control too', async () => {
    const file = path.join(tmp, 'bidi.oql');
    writeFileSync(file, `# two broken queries\n${query}\nSELECT '\u0001' AS x FORM y\n`);
    const r = await heapql(['query', demo, '--no-cache', '--query-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:2:17: unexpected "FORM"`);
    expect(r.stderr).toContain(`${file}:3:17: unexpected "FORM"`);
    expectCaretUnder(r.stderr, echoed, 'FORM');
    expectCaretUnder(r.stderr, "SELECT '\\u0001' AS x FORM y", 'FORM');
  });

  it('the REPL reading a file: the same', async () => {
    const r = await withStdin(['query', demo, '--no-cache', '--repl'], `${query}\n`);
    expect(r.code).toBe(1);
    // (The REPL names where the statement came from: `query`, or the input's name and line.)
    expect(r.stderr).toMatch(/:1:17: unexpected "FORM"/);
    expectCaretUnder(r.stderr, echoed, 'FORM');
  });
});

describe('a field or class the dump lacks', () => {
  it('heapql query: the query\'s line and a caret under the name, exit 1; the next query still runs', async () => {
    const field = 'SELECT s.nope FROM Demo$Session s';
    const klass = 'SELECT s FROM Nope.Klass s';
    const r = await heapql(['query', demo, '--no-cache', '--query', field, '--query', klass, '--query', 'SELECT COUNT(*) FROM Demo$Session']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: q1:1:10: Demo\$Session has no field 'nope' \(its fields: [^)]*\)\n/);
    expect(r.stderr).toMatch(/\nerror: q2:1:15: class Nope\.Klass is not in this dump [^\n]*\)\n/);
    // The place is said once, as `q1:1:10`, not again at the end of the message.
    expect(r.stderr).not.toContain('(line 1');
    expectCaretUnder(r.stderr, field, 'nope');
    expectCaretUnder(r.stderr, klass, 'Nope.Klass');
    expect(r.stdout).toMatch(/q3: SELECT COUNT\(\*\) FROM Demo\$Session\nCOUNT\(\*\)\n-+\n +\d+\n/);
  });

  it('a query file: the file\'s line and column (not the query\'s name), its line and the caret; a chart the result cannot draw is warned of at its -- @viz line', async () => {
    const file = path.join(tmp, 'names.oql');
    writeFileSync(
      file,
      [
        '-- @viz histogram label=nope',
        'SELECT COUNT(*) AS n FROM Demo$Session s;',
        '# a comment line',
        'SELECT COUNT(*) FROM java.lang.String s;',
        '   SELECT s.nosuch FROM java.lang.String s',
        'SELECT s FROM Nope.Klass s',
      ].join('\n'),
    );
    for (const command of ['query', 'analyze']) {
      const r = await heapql([command, demo, '--no-cache', '--query-file', file]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`warning: ${file}:1: @viz label=nope: no such column (columns: n)\n`);
      expect(r.stderr).toContain(`\nerror: ${file}:5:13: java.lang.String has no field 'nosuch' (its fields: `);
      expect(r.stderr).toMatch(new RegExp(`\\nerror: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6:15: class Nope\\.Klass is not in this dump`));
      // Neither is named by the query's name (`q3:1:10`) nor by its own line (`:1:`).
      expect(r.stderr).not.toMatch(/\b(q\d): @viz|error: q\d:/);
      expectCaretUnder(r.stderr, 'SELECT s.nosuch FROM java.lang.String s', 'nosuch');
      expectCaretUnder(r.stderr, 'SELECT s FROM Nope.Klass s', 'Nope.Klass');
      // The echoed line is the file's, leading spaces and all (the caret counts them).
      expect(r.stderr).toContain('\n     SELECT s.nosuch FROM java.lang.String s\n              ^^^^^^\n');
      expect(r.stdout).toMatch(/q2: SELECT COUNT\(\*\) FROM java\.lang\.String s;\nCOUNT\(\*\)\n/);
    }
  });

  it('the report: a query file\'s query that names what the dump lacks, and a chart it cannot draw, are warned of at the file\'s lines', async () => {
    const file = path.join(tmp, 'report.oql');
    writeFileSync(file, ['SELECT COUNT(*) FROM Demo$Session s', '-- @viz piechart value=nope', 'SELECT COUNT(*) AS n FROM Demo$Session s', 'SELECT s.nosuch FROM Demo$Session s'].join('\n'));
    const r = await heapql([demo, path.join(tmp, 'r.md'), '--no-cache', '--query-file', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: query q3: ${file}:4:10: Demo$Session has no field 'nosuch'`);
    expect(r.stderr).toContain(`warning: ${file}:2: q2: cannot draw a piechart: value=nope: no such column (columns: n); showing the table\n`);
  });

  it('after a control character: the caret by cells there too', async () => {
    const field = "SELECT '\u202e', s.nope FROM Demo$Session s";
    const r = await heapql(['query', demo, '--no-cache', '--query', field]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: q1:1:15: Demo\$Session has no field 'nope'/);
    expectCaretUnder(r.stderr, "SELECT '\\u202e', s.nope FROM Demo$Session s", 'nope');
  });

  it('the REPL reading a file: the line and the caret, exit 1', async () => {
    const r = await withStdin(['query', demo, '--no-cache', '--repl'], 'SELECT s.nope FROM Demo$Session s\nSELECT s FROM Nope.Klass s\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/:1:10: Demo\$Session has no field 'nope'/);
    expect(r.stderr).toMatch(/:\d+:15: class Nope\.Klass is not in this dump/);
    expectCaretUnder(r.stderr, 'SELECT s.nope FROM Demo$Session s', 'nope');
    expectCaretUnder(r.stderr, 'SELECT s FROM Nope.Klass s', 'Nope.Klass');
  });
});
