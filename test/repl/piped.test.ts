/**
 * The REPL with piped input (`heapql query <dump> --repl < file`): `!quit` / `!q` end the input
 * there, and a statement written over several lines runs whole even when a first part of it is
 * already a complete statement (a `WHERE`, `ORDER BY` or `UNION` on a line of its own), while
 * statements on consecutive lines, `!` commands and `;` still end a statement.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const dir = mkdtempSync(path.join(tmpdir(), 'heapql-piped-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the piped REPL on `lines`; stdout without the `(N ms)` timing lines. */
function repl(lines: string[]): { out: string; err: string; status: number | null } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', demo, '--repl'], {
    input: `${lines.join('\n')}\n`,
    encoding: 'utf8',
    env: { ...process.env, XDG_STATE_HOME: dir, HEAPQL_DEBUG: '', NO_COLOR: '1' },
  });
  // The cache note of a first run on a changed build is not the REPL's.
  const err = r.stderr.split('\n').filter((l) => !l.startsWith('warning: cache:')).join('\n');
  return { out: r.stdout.replace(/^\([\d.]+ ms\)\n/gm, ''), err, status: r.status };
}

const SESSIONS = 'SELECT COUNT(*) AS n FROM Demo$Session s';
const STRINGS = 'SELECT COUNT(*) AS n FROM java.lang.String s';
const SESS_STRINGS = 'WHERE toString(s) LIKE "sess-.*"';

describe('!quit in piped input', () => {
  it('!quit in the middle ends the session there: nothing after it runs, exit code 0', () => {
    const saved = path.join(dir, 'after-quit.csv');
    const r = repl([SESSIONS, '!quit', 'SELECT COUNT(*) AS after FROM java.lang.String', `!save ${saved}`]);
    expect(r.out).toBe('n\n---\n400\n(1 row)\n');
    expect(r.err).toBe('');
    expect(existsSync(saved)).toBe(false);
    expect(r.status).toBe(0);
  });

  it('!q stops too; the exit code is 1 when a statement before it failed', () => {
    const r = repl(['!bogus', SESSIONS, '!q', 'SELECT COUNT(*) AS after FROM java.lang.String', '!nothing']);
    expect(r.out).toBe('n\n---\n400\n(1 row)\n');
    expect(r.err).toContain('unknown command !bogus');
    expect(r.err).not.toContain('!nothing');
    expect(r.status).toBe(1);
  });

  it('a ; after a command ends it, as after a query: !count; runs, !quit; ends the input', () => {
    const r = repl([`${SESSIONS};`, '!count;', '!quit ;', 'SELECT COUNT(*) AS after FROM java.lang.String']);
    expect(r.err).toBe('');
    expect(r.out).toBe('n\n---\n400\n(1 row)\n1 row\n');
    expect(r.status).toBe(0);
  });

  it('!quit ends a statement still waiting for its continuation lines without running it', () => {
    const r = repl([SESSIONS, '!quit', STRINGS, SESS_STRINGS]);
    expect(r.out).toBe('n\n---\n400\n(1 row)\n');
    expect(r.status).toBe(0);
  });
});

describe('statements over several lines in piped input', () => {
  it('a WHERE on its own line filters: the 3-line statement gives what the one-line one gives, !save included', () => {
    const three = ['SELECT s, toString(s) AS t', 'FROM java.lang.String s', SESS_STRINGS];
    const multi = repl([...three, '!count', `!save ${path.join(dir, 'three.csv')}`]);
    const single = repl([three.join(' '), '!count', `!save ${path.join(dir, 'one.csv')}`]);
    expect(multi.err).toBe('');
    expect(multi.status).toBe(0);
    expect(multi.out).toContain('\n401 rows\n');
    expect(multi.out.replace('three.csv', 'one.csv')).toBe(single.out);
    const csv = readFileSync(path.join(dir, 'three.csv'), 'utf8');
    expect(csv.trim().split('\r\n')).toHaveLength(402);
    expect(csv).toBe(readFileSync(path.join(dir, 'one.csv'), 'utf8'));
  });

  it('ORDER BY and LIMIT on lines of their own sort and cut', () => {
    const lines = ['SELECT toString(s) AS t FROM java.lang.String s', SESS_STRINGS, 'ORDER BY t DESC', 'LIMIT 3'];
    const multi = repl(lines);
    expect(multi.err).toBe('');
    expect(multi.out).toBe('t\n--------------------\nsess-18bd0159e81-399\nsess-18bd0157f92-398\nsess-18bd01560a3-397\n(3 rows)\n');
    expect(repl([lines.join(' ')]).out).toBe(multi.out);
  });

  it('UNION alone on a line joins the statements around it', () => {
    const r = repl(['SELECT s FROM Demo$Session s', 'UNION', 'SELECT s FROM java.lang.String s', '!count']);
    expect(r.err).toBe('');
    expect(r.out).toContain('\n4103 rows\n');
    const oneLine = repl(['SELECT s FROM Demo$Session s UNION SELECT s FROM java.lang.String s', '!count']);
    expect(r.out).toBe(oneLine.out);
  });

  it('statements on consecutive lines still run one by one, next to one that goes on', () => {
    const r = repl([SESSIONS, STRINGS, STRINGS, SESS_STRINGS, SESSIONS]);
    expect(r.err).toBe('');
    expect(r.out).toBe(['n\n---\n400\n(1 row)\n', 'n\n----\n3703\n(1 row)\n', 'n\n---\n401\n(1 row)\n', 'n\n---\n400\n(1 row)\n'].join(''));
  });

  it('a ! command, an empty line or the end of the input ends the statement; a comment line goes with what follows', () => {
    const r = repl([STRINGS, '!count', STRINGS, '-- only the session ids', SESS_STRINGS, '!count', '', STRINGS, '', SESS_STRINGS, STRINGS, SESS_STRINGS]);
    expect(r.out).toBe(
      [
        'n\n----\n3703\n(1 row)\n1 row\n', // the statement, then !count on its result
        'n\n---\n401\n(1 row)\n1 row\n', // the comment line and the WHERE continue it
        'n\n----\n3703\n(1 row)\n', // an empty line ends it: the WHERE after it is alone
        'n\n---\n401\n(1 row)\n', // and the last statement ends with the input
      ].join(''),
    );
    expect(r.err).toMatch(/^error: stdin:10:1: unexpected keyword WHERE/m);
    expect(r.status).toBe(1);
  });

  it('a `-- @viz` line between two statements belongs to the second', () => {
    const [first, second] = [path.join(dir, 'first.json'), path.join(dir, 'second.json')];
    const r = repl([STRINGS, SESS_STRINGS, '-- @viz table name=second', STRINGS, 'WHERE toString(s) LIKE "sess-1.*"', `!save ${second}`, '!undo', `!save ${first}`]);
    expect(r.err).toBe('');
    const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { name: string; oql: string; rows: unknown[][]; viz?: unknown };
    expect(json(first)).toMatchObject({ name: 'q1', oql: `${STRINGS}\n${SESS_STRINGS}`, rows: [[401]] });
    expect(json(first).viz).toBeUndefined();
    expect(json(second)).toMatchObject({ name: 'second', rows: [[400]], viz: { kind: 'table' } });
  });

  it('a ; still ends a statement: the line after it is a statement of its own', () => {
    const r = repl([`${STRINGS};`, SESS_STRINGS, STRINGS, `${SESS_STRINGS};`, STRINGS]);
    expect(r.out).toBe(['n\n----\n3703\n(1 row)\n', 'n\n---\n401\n(1 row)\n', 'n\n----\n3703\n(1 row)\n'].join(''));
    expect(r.err).toMatch(/^error: stdin:2:1: unexpected keyword WHERE/m);
    expect(r.err.match(/^error: /gm)).toHaveLength(1);
    expect(r.status).toBe(1);
  });

  it('a line starting with != continues the statement (it is no command)', () => {
    const r = repl([`${STRINGS} WHERE toString(s)`, '!= "sess-18bd0159e81-399"']);
    expect(r.err).toBe('');
    expect(r.out).toBe('n\n----\n3702\n(1 row)\n');
    expect(r.status).toBe(0);
  });

  it('a mistyped statement on the next line does not swallow the complete statement before it (SELEKT read as an alias)', () => {
    // Without an alias, so that the next line's first word can read as one.
    const r = repl(['SELECT COUNT(*) AS n FROM Demo$Session', 'SELEKT 1', 'SELECT COUNT(*) AS n FROM java.lang.String', 'SELEKT', SESSIONS]);
    // Each complete statement runs; each typo is an error of its own, at its own line 1, as at the prompt.
    expect(r.out).toBe(['n\n---\n400\n(1 row)\n', 'n\n----\n3703\n(1 row)\n', 'n\n---\n400\n(1 row)\n'].join(''));
    expect(r.err).toMatch(/^error: stdin:2:1: unexpected "SELEKT"; expected SELECT or "\("\n {2}SELEKT 1\n {2}\^{6}$/m);
    expect(r.err).toMatch(/^error: stdin:4:1: unexpected "SELEKT".*\n {2}SELEKT\n {2}\^{6}$/m);
    expect(r.err.match(/^error: /gm)).toHaveLength(2);
    expect(r.status).toBe(1);
  });

  it('a line that begins with a name or a literal starts a statement of its own, as at the prompt; a keyword continues one', () => {
    // `s` alone would read as the alias of Demo$Session; `42` could continue nothing.
    const r = repl(['SELECT COUNT(*) AS n FROM Demo$Session', 's', STRINGS, '42', STRINGS, SESS_STRINGS]);
    expect(r.out).toBe(['n\n---\n400\n(1 row)\n', 'n\n----\n3703\n(1 row)\n', 'n\n---\n401\n(1 row)\n'].join(''));
    expect(r.err).toMatch(/^error: stdin:2:1: unexpected "s"/m);
    expect(r.err).toMatch(/^error: stdin:4:1: unexpected number 42/m);
    expect(r.err.match(/^error: /gm)).toHaveLength(2);
    expect(r.status).toBe(1);
  });

  it('an error in a continuation line is reported at its line and column in the input', () => {
    const r = repl(['', STRINGS, 'WHERE s.@usedHeapSize >> 24', 'SELECT s', 'FROM java.lang.String s', 'ORDER BY s.@usedHeapSize DESCC']);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^error: stdin:3:24: unexpected ">".*\n {2}WHERE s\.@usedHeapSize >> 24\n {25}\^$/m);
    expect(r.err).toMatch(/^error: stdin:6:26: unexpected "DESCC".*\n {2}ORDER BY s\.@usedHeapSize DESCC\n {27}\^{5}$/m);
    expect(r.err.match(/^error: /gm)).toHaveLength(2);
    expect(r.status).toBe(1);
  });

  it('an error in an indented line is at its column in the input line, and its echo keeps the indentation', () => {
    const r = repl(['   SELECT 1 FORM x', '', '\tSELECT s', '  FROM java.lang.String s', '  ORDER BY s.@usedHeapSize DESCC']);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^error: stdin:1:13: unexpected "FORM".*\n {2} {3}SELECT 1 FORM x\n {14}\^{4}$/m);
    expect(r.err).toMatch(/^error: stdin:5:28: unexpected "DESCC".*\n {2} {2}ORDER BY s\.@usedHeapSize DESCC\n {29}\^{5}$/m);
    expect(r.err.match(/^error: /gm)).toHaveLength(2);
    expect(r.status).toBe(1);
  });

  it('any other error and a warning name the line where their statement starts', () => {
    const r = repl([SESSIONS, '!bogus', '', '-- @viz piechart label=nope', 'SELECT toString(s.user) AS user, COUNT(*) AS n', 'FROM Demo$Session s GROUP BY toString(s.user)', '!obj Nope#1']);
    expect(r.err.split('\n')).toEqual([
      'error: stdin:2: unknown command !bogus (!help lists them)',
      'warning: stdin:4: @viz label=nope: no such column (columns: user, n)',
      "error: stdin:7: no class named 'Nope' in this dump (!classes <text> lists the classes whose names contain a text)",
      '',
    ]);
    expect(r.status).toBe(1);
  });
});

describe('SIGINT in piped input', () => {
  /**
   * Writes `input` to a piped REPL whose input stays open (heapql waits for its next line when
   * the signal comes), sends SIGINT once the first statement's result is out, and gives what
   * it wrote on stderr and how it ended.
   */
  async function interrupt(input: string): Promise<{ err: string[]; exit: { code: number | null; signal: NodeJS.Signals | null } }> {
    const child = spawn(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', demo, '--repl'], {
      env: { ...process.env, XDG_STATE_HOME: dir, HEAPQL_DEBUG: '', NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    child.stdin.write(input);
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('(1 row)')) resolve();
      }),
    );
    child.kill('SIGINT');
    const exit = await exited;
    child.stdin.destroy();
    return { err: err.split('\n').filter((l) => !l.startsWith('warning: cache:')), exit };
  }

  it('stops reading, says where, and exits with code 130', async () => {
    const r = await interrupt(`${SESSIONS};\n`);
    expect(r.exit).toEqual({ code: 130, signal: null });
    expect(r.err).toEqual(['error: interrupted; the input from stdin:2 on did not run', '']);
  });

  it('names the first line of a statement read but not run yet', async () => {
    // Lines 2 and 3 wait for more (a trailing WHERE): they did not run.
    const open = await interrupt(`${SESSIONS};\nSELECT COUNT(*) AS n\nFROM Demo$Session s WHERE\n`);
    expect(open.exit).toEqual({ code: 130, signal: null });
    expect(open.err).toEqual(['error: interrupted; the input from stdin:2 on did not run', '']);
    // Line 2 is complete but waits for line 3 to show that it does not go on.
    const complete = await interrupt(`${SESSIONS};\n${STRINGS}\n`);
    expect(complete.exit).toEqual({ code: 130, signal: null });
    expect(complete.err).toEqual(['error: interrupted; the input from stdin:2 on did not run', '']);
  });
});
