/**
 * `!last` runs the last query that ran again, as a shell's `!!` and psql's `\g` repeat the last
 * command: a statement refused with an error (a class the dump lacks, a syntax error, `/foo`,
 * an unknown `!` command) never ran and is not the one it repeats. It shows the query it runs
 * (`→ …`), and an error of the run names the line the query was written on. Piped input
 * through a real process; the dump change is a real file touched on disk.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { openHeap } from '../../ts/index.js';
import { Repl, type ReplIO } from '../../ts/repl/index.js';
import { writeTinyDump } from './tiny-dump.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const dir = mkdtempSync(path.join(tmpdir(), 'heapql-last-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, XDG_STATE_HOME: dir, HEAPQL_DEBUG: '', NO_COLOR: '1' };

/** The piped REPL on `lines`; stdout without the `(N ms)` timing lines, stderr's lines. */
function piped(lines: string[]): { out: string; err: string[]; status: number | null } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', demo, '--repl'], { input: `${lines.join('\n')}\n`, encoding: 'utf8', env });
  const err = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('warning: cache:'));
  return { out: r.stdout.replace(/^\([\d.]+ ms\)\n/gm, ''), err, status: r.status };
}

const SESSIONS = 'SELECT COUNT(*) AS n FROM Demo$Session s';
const SESSIONS_TABLE = 'n\n---\n400\n(1 row)\n';
const NOPE = 'class Nope is not in this dump (class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner)';
const NONE_YET = 'no query has run yet: !last runs the last query that ran again, and a statement refused with an error did not run';

describe('!last in piped input', () => {
  it('runs the last query that ran, not a refused statement, /foo or an unknown command after it', () => {
    const r = piped([SESSIONS, 'SELECT COUNT(*) FROM Nope s', '/foo', '!lst', '!last']);
    expect(r.out).toBe(`${SESSIONS_TABLE}→ ${SESSIONS}\n${SESSIONS_TABLE}`);
    // Each refusal once, where it was written; the !last on line 5 ran and said nothing.
    expect(r.err.filter((l) => l.startsWith('error:'))).toEqual([
      `error: stdin:2:22: ${NOPE}`,
      'error: stdin:3:1: unexpected "/"; expected SELECT or "("',
      'error: stdin:4: unknown command !lst; did you mean !last, !set? (!help lists them)',
    ]);
    expect(r.status).toBe(1);
  });

  it('says plainly that there is none: before any statement, and after refused ones only', () => {
    const r = piped(['!last', 'SELECT COUNT(*) FROM Nope s', '/foo', '!last']);
    expect(r.out).toBe('');
    expect(r.err.filter((l) => l.startsWith('error:'))).toEqual([
      `error: stdin:1: ${NONE_YET}`,
      `error: stdin:2:22: ${NOPE}`,
      'error: stdin:3:1: unexpected "/"; expected SELECT or "("',
      `error: stdin:4: ${NONE_YET}`,
    ]);
  });

  it("a warning of the query run again names the line it was written on, a later statement on its line too", () => {
    const viz = '-- @viz histogram label=nope value=n';
    const r = piped([viz, SESSIONS, '', `SELECT 1 AS one FROM Nope s; ${viz.replace('-- ', '/* ')} */ ${SESSIONS}`, '!last']);
    expect(r.err).toEqual([
      'warning: stdin:1: @viz label=nope: no such column (columns: n)',
      `error: stdin:4:22: ${NOPE}`,
      '  SELECT 1 AS one FROM Nope s',
      '                       ^^^^',
      // The comment is no directive: the statement after the ; draws a table, and !last runs it.
    ]);
    expect(r.out).toBe(`${SESSIONS_TABLE}${SESSIONS_TABLE}→ /* @viz histogram label=nope value=n */ ${SESSIONS}\n${SESSIONS_TABLE}`);
    const again = piped([viz, SESSIONS, '', '!last']);
    expect(again.err).toEqual(['warning: stdin:1: @viz label=nope: no such column (columns: n)', 'warning: stdin:1: @viz label=nope: no such column (columns: n)']);
  });

  it('an error of the query run again names the !last and the line the query was written on', async () => {
    // A dump written over in place between the two runs: the second is refused (ERR_DUMP_CHANGED).
    const dump = writeTinyDump(dir, 'changes.hprof');
    const child = spawn(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', dump, '--repl'], { env });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const shown = new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('(1 row)')) resolve();
      }),
    );
    child.stdin.write('\n\nSELECT COUNT(*) AS n FROM java.lang.String s;\n');
    await shown;
    const { mtime } = statSync(dump);
    utimesSync(dump, mtime, new Date(mtime.getTime() + 60_000));
    child.stdin.end('!last\n');
    expect(await exited).toBe(1);
    expect(out).toMatch(/^n\n-\n3\n\(1 row\)\n\([\d.]+ ms\)\n→ SELECT COUNT\(\*\) AS n FROM java\.lang\.String s\n$/);
    const errors = err.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`error: stdin:4: !last, running the query of stdin:3 again: ${dump}: the dump file was written to on disk since it was opened`);
  });
});

describe('!last through the dispatcher', () => {
  it("an error with a caret in the run names the query's own line and column, and says !last ran it again", async () => {
    const session = await openHeap(demo);
    try {
      const errors: string[] = [];
      const io: ReplIO = { print: () => {}, error: (t) => errors.push(t), saveFile: () => {}, quit: () => {} };
      const repl = new Repl(session, io);
      expect(await repl.execute(SESSIONS, undefined, { name: 'stdin', line: 3 })).toBe(true);
      expect(repl.state.lastRun).toEqual({ text: SESSIONS, origin: null, source: { name: 'stdin', line: 3 } });
      // A query that ran is not refused by the same dump when run again: to see the words, the
      // kept query is replaced by one the dump refuses (its place as written kept).
      repl.state.lastRun = { text: '  SELECT COUNT(*) FROM Nope s', origin: null, source: { name: 'stdin', line: 3 } };
      expect(await repl.execute('!last', undefined, { name: 'stdin', line: 7 })).toBe(false);
      expect(errors).toEqual([[`error: stdin:3:24: ${NOPE}`, '    SELECT COUNT(*) FROM Nope s', '                         ^^^^', '  (run again by !last at stdin:7)'].join('\n')]);
      // At a prompt (no place): the error says it is the run of !last.
      errors.length = 0;
      repl.state.lastRun = { text: 'SELECT COUNT(*) FROM Nope s', origin: null, source: null };
      expect(await repl.execute('!last')).toBe(false);
      expect(errors).toEqual([[`error: query:1:22: ${NOPE}`, '  SELECT COUNT(*) FROM Nope s', '                       ^^^^', '  (run again by !last)'].join('\n')]);
    } finally {
      session.close();
    }
  });
});
