/**
 * Several statements on one line, each ended by `;` (`SELECT …; SELECT …`), run one after the
 * other, as psql and sqlite3 run them: the REPL read the line as one statement and said
 * `unexpected keyword SELECT` at the second. An error in a later one names its column in the
 * line as typed; a `;` inside a string or a comment splits nothing; each statement is its own
 * history entry. Piped (a real process) and at a real pseudo-terminal (node-pty).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { closeTerminals, Terminal } from './pty-terminal.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

afterEach(closeTerminals);

/** The piped REPL on `input`; stdout without the `(N ms)` timing lines. */
function piped(input: string): { out: string; err: string; status: number | null } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', demo, '--repl'], {
    input,
    encoding: 'utf8',
    env: { ...process.env, XDG_STATE_HOME: mkdtempSync(path.join(tmpdir(), 'heapql-line-')), HEAPQL_DEBUG: '', NO_COLOR: '1' },
  });
  const err = r.stderr.split('\n').filter((l) => !l.startsWith('warning: cache:')).join('\n');
  return { out: r.stdout.replace(/^\([\d.]+ ms\)\n/gm, ''), err, status: r.status };
}

const A = 'SELECT COUNT(*) AS sessions FROM Demo$Session s';
const B = 'SELECT COUNT(*) AS stores FROM Demo$SessionStore s';

describe('piped', () => {
  it('runs each statement of the line in turn', () => {
    const r = piped(`${A}; ${B};\n${A};${B}\n`);
    expect(r.err).toBe('');
    expect(r.out).toBe(
      ['sessions\n--------\n     400\n(1 row)', 'stores\n------\n     0\n(1 row)', 'sessions\n--------\n     400\n(1 row)', 'stores\n------\n     0\n(1 row)', ''].join('\n'),
    );
    expect(r.status).toBe(0);
  });

  it('an error in a later statement names its column in the line; the statements before it ran', () => {
    const line = `${A}; SELECT x FROM Nope x`;
    const r = piped(`${line}\n`);
    expect(r.out).toBe('sessions\n--------\n     400\n(1 row)\n');
    const col = line.indexOf('Nope') + 1;
    expect(r.err).toBe(
      `error: stdin:1:${col}: class Nope is not in this dump (class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner)\n` +
        `  ${' '.repeat(A.length + 1)} SELECT x FROM Nope x\n  ${' '.repeat(col - 1)}^^^^\n`,
    );
    expect(r.status).toBe(1);
  });

  it('every statement of the line names that line: after blank lines, on the first line, syntax errors too', () => {
    const names = ['Nope1', 'Nope2', 'Nope3', 'Nope4'];
    const line = names.map((n) => `SELECT COUNT(*) FROM ${n} s`).join('; ');
    const notInDump = (n: string) => `class ${n} is not in this dump (class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner)`;
    const places = (err: string) => [...err.matchAll(/^error: (stdin:\d+(?::\d+)?): (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
    // The line written 4th, the 1st: each error names it, at the column of the name in it.
    for (const [before, lineNumber] of [['\n\n\n', 4], ['', 1]] as const) {
      const r = piped(`${before}${line}\n`);
      expect(places(r.err), `line ${lineNumber}`).toEqual(names.map((n) => `stdin:${lineNumber}:${line.indexOf(n) + 1}: ${notInDump(n)}`));
      expect(r.status).toBe(1);
    }
    // Syntax errors, and a statement after a ; that goes on over the next line (its error there).
    const typo = `${A}; SELECT 1 FORM x; SELEKT 2;`;
    const r = piped(`${A}\n${typo}\n${A}; SELECT COUNT(*)\nFROM Nope s\n`);
    expect(places(r.err)).toEqual([
      `stdin:2:${typo.indexOf('FORM') + 1}: unexpected "FORM"; expected an operator, AND, OR, AS, FROM or ","`,
      `stdin:2:${typo.indexOf('SELEKT') + 1}: unexpected "SELEKT"; expected SELECT or "("`,
      `stdin:4:6: ${notInDump('Nope')}`,
    ]);
  });

  it('a ; in a string or a comment splits nothing', () => {
    const r = piped(`SELECT COUNT(*) AS n FROM java.lang.String s WHERE toString(s) = "x; SELECT 1" /* ; SELECT 2 */;\n`);
    expect(r.err).toBe('');
    expect(r.out).toBe('n\n-\n0\n(1 row)\n');
    expect(r.status).toBe(0);
  });

  it('a statement after the ; may go on over the next lines', () => {
    const r = piped(`${A}; SELECT COUNT(*) AS busy\nFROM Demo$Session s\nWHERE s.createdAt > 1700003000000\n`);
    expect(r.err).toBe('');
    expect(r.out).toBe('sessions\n--------\n     400\n(1 row)\nbusy\n----\n  21\n(1 row)\n');
  });
});

describe('at a terminal', () => {
  it('runs both at Enter, the prompt after the last; each is its own history entry, without padding', async () => {
    const state = mkdtempSync(path.join(tmpdir(), 'heapql-line-'));
    const t = new Terminal(['query', demo, '--repl'], state);
    let at = await t.waitFor('oql> ');
    t.type(`${A}; ${B}\r`);
    at = await t.waitFor(/sessions\n-+\n +400\n\(1 row\)\n\([\d.]+ ms\)\n/, at, 'error');
    at = await t.waitFor(/stores\n-+\n +0\n\(1 row\)\n\([\d.]+ ms\)\noql> /, at, 'error');
    t.type('\x04');
    expect(await t.exited).toBe(0);
    const history = readFileSync(path.join(state, 'heapql/history'), 'utf8').split('\n').filter((l) => l !== '');
    expect(history).toEqual([`${A};`, B]);
  });
});
