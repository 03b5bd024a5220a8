/**
 * `!run` runs the named `[[query]]` entries of the config file the report uses (`.heapql.toml` in
 * the working directory, else ~/.config/heapql/collections.toml), and Tab completes their names.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

import { complete, type CompletionSource } from '../../ts/repl/index.js';
import { closeTerminals, Terminal } from './pty-terminal.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const dir = mkdtempSync(path.join(tmpdir(), 'heapql-config-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(closeTerminals);

/** The piped REPL in `cwd`, with HOME (and the history) in the test's directory. */
function repl(cwd: string, lines: string[]): { out: string; err: string; status: number | null } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', demo, '--repl'], {
    cwd,
    input: `${lines.join('\n')}\n`,
    encoding: 'utf8',
    env: { ...process.env, HOME: path.join(dir, 'home'), XDG_STATE_HOME: dir, HEAPQL_DEBUG: '', NO_COLOR: '1' },
  });
  const err = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('warning: cache:')).join('\n');
  return { out: r.stdout.replace(/^\([\d.]+ ms\)\n/gm, ''), err, status: r.status };
}

const CONFIG = [
  '[[query]]',
  'name = "Sessions counted"',
  'oql = """',
  '-- @viz table',
  'SELECT COUNT(*) AS sessions',
  'FROM Demo$Session s"""',
  '',
  '[[query]]',
  'oql = "SELECT COUNT(*) AS unnamed FROM java.lang.String"',
  '',
].join('\n');

describe('!run and the config file', () => {
  it('lists the named entries of .heapql.toml and runs one by its name (spaces and all)', () => {
    const cwd = path.join(dir, 'local');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, '.heapql.toml'), CONFIG);
    const r = repl(cwd, ['!run', '!run Sessions counted']);
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/^top-classes-by-count +instances per class/m);
    expect(r.out).toContain(`Sessions counted          [config] ${path.join(cwd, '.heapql.toml')}:1\n`);
    // The entry without a name is no named query.
    expect(r.out).not.toContain('unnamed');
    expect(r.out).toContain('→ SELECT COUNT(*) AS sessions FROM Demo$Session s\nsessions\n--------\n     400\n(1 row)\n');
  });

  it('reads ~/.config/heapql/collections.toml when the working directory has none', () => {
    const cwd = path.join(dir, 'elsewhere');
    mkdirSync(cwd, { recursive: true });
    mkdirSync(path.join(dir, 'home/.config/heapql'), { recursive: true });
    writeFileSync(path.join(dir, 'home/.config/heapql/collections.toml'), CONFIG);
    const r = repl(cwd, ['!run Sessions counted']);
    expect(r.err).toBe('');
    expect(r.out).toContain('     400\n(1 row)\n');
    rmSync(path.join(dir, 'home/.config'), { recursive: true });
  });

  it('a config that cannot be read is a warning; the session runs without its entries', () => {
    const cwd = path.join(dir, 'broken');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, '.heapql.toml'), '[[query]]\nname = "x"\n');
    const r = repl(cwd, ['!run x', 'SELECT COUNT(*) AS n FROM Demo$Session s']);
    expect(r.err).toContain(`warning: ${path.join(cwd, '.heapql.toml')}:1: [[query]] has no oql`);
    expect(r.err).toContain("error: stdin:1: no named query 'x'");
    expect(r.out).toContain('400\n(1 row)\n');
    expect(r.status).toBe(1);
  });

  it('a config that cannot be read is said once: at the REPL\'s start, at the server\'s start (in a terminal too); a one-shot query does not read it', async () => {
    const cwd = path.join(dir, 'broken-once');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, '.heapql.toml'), '[[query]]\nname = "x"\n');
    const warning = `warning: ${path.join(cwd, '.heapql.toml')}:1: [[query]] has no oql; add oql = "SELECT ..."; !run does not offer its queries`;
    const times = (text: string) => text.split(warning).length - 1;
    const env = { ...process.env, HOME: path.join(dir, 'home'), XDG_STATE_HOME: dir, HEAPQL_DEBUG: '', NO_COLOR: '1' };
    const cli = (args: string[], input = '') => spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), ...args], { cwd, input, encoding: 'utf8', env });
    // The piped REPL, after a query-only open and after the full analysis.
    expect(times(cli(['query', demo, '--repl'], '!run\n').stderr)).toBe(1);
    expect(times(cli(['analyze', demo, '--repl'], '!run\n').stderr)).toBe(1);
    // A one-shot query runs no stored query: the config is not read.
    const oneShot = cli(['query', demo, '--query', 'SELECT COUNT(*) AS n FROM Demo$Session s']);
    expect(oneShot.status).toBe(0);
    expect(oneShot.stderr).not.toContain('.heapql.toml');
    // The REPL in a terminal.
    const t = new Terminal(['query', demo, '--repl'], dir, { cwd, env: { HOME: path.join(dir, 'home') } });
    await t.waitFor('oql> ');
    t.type('!quit\r');
    expect(await t.exited).toBe(0);
    expect(times(t.screen)).toBe(1);
    // The server: its start, up to the banner's end, then SIGTERM.
    const server = spawn(process.execPath, [path.join(root, 'bin/heapql.js'), 'server', demo, '--port', '0'], { cwd, env });
    let out = '';
    let err = '';
    server.stdout.on('data', (d) => (out += d));
    server.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => server.on('close', (code) => r(code)));
    for (let i = 0; i < 3000 && !/examples:[\s\S]*curl[\s\S]*curl/.test(out); i++) await new Promise((r) => setTimeout(r, 10));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('browser REPL:');
    expect(times(err)).toBe(1);
  });

  it('an entry\'s bad -- @viz line is warned of at the config file\'s line, piped and in a terminal, as the report does', async () => {
    const cwd = path.join(dir, 'bad-viz');
    mkdirSync(cwd, { recursive: true });
    const file = path.join(cwd, '.heapql.toml');
    writeFileSync(file, ['# stored', '[[query]]', 'name = "pie"', 'oql = """', 'SELECT COUNT(*) AS n', '-- @viz pie', 'FROM Demo$Session s"""', ''].join('\n'));
    const warning = `warning: ${file}:6: @viz directive ignored: unknown chart kind "pie" (kinds: table, histogram, piechart, treemap); showing a table`;
    // Piped: the config's line, not the `!run` statement's (stdin:2).
    const r = repl(cwd, ['SELECT COUNT(*) AS m FROM Demo$Session s', '!run pie', '/run pie']);
    expect(r.err).toBe(`${warning}\n${warning}`);
    expect(r.out).toContain('n\n---\n400\n(1 row)\n');
    expect(r.status).toBe(0);
    // In a terminal (which has no statement place to name).
    const t = new Terminal(['query', demo, '--repl'], dir, { cwd, env: { HOME: path.join(dir, 'home') } });
    let at = await t.waitFor('oql> ');
    t.type('!run pie\r');
    at = await t.waitFor(/\n400\n/, at);
    t.type('!quit\r');
    expect(await t.exited).toBe(0);
    expect(t.screen).toContain(warning);
    // The report names the same line.
    const report = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), demo, 'r.md'], { cwd, encoding: 'utf8', env: { ...process.env, HOME: path.join(dir, 'home'), NO_COLOR: '1' } });
    expect(report.status).toBe(0);
    expect(report.stderr.split('\n')).toContain(warning);
  });

  it('Tab completes the entries\' names after !run, a name with spaces as a whole', async () => {
    const source: CompletionSource = {
      classNames: () => [],
      fieldsOf: async () => [],
      columns: () => [],
      files: () => [],
      storedQueries: () => ['Sessions counted', 'leak-check'],
    };
    expect((await complete('!run Sess', source)).items).toEqual(['Sessions counted']);
    expect(await complete('!run Sessions c', source)).toEqual({ items: ['Sessions counted'], word: 'Sessions c' });
    expect((await complete('!run leak', source)).items).toEqual(['leak-check', 'leak-suspects']);
    // `/run` (the specification's spelling of `!run`) completes them too, and is completed itself.
    expect(await complete('/run Sessions c', source)).toEqual({ items: ['Sessions counted'], word: 'Sessions c' });
    expect((await complete('/run leak', source)).items).toEqual(['leak-check', 'leak-suspects']);
    expect(await complete('/ru', source)).toEqual({ items: ['/run '], word: '/ru' });
  });

  it('in a terminal, Tab after !run or /run completes the config entries\' names, and runs the one chosen', async () => {
    const cwd = path.join(dir, 'terminal');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, '.heapql.toml'), CONFIG);
    const t = new Terminal(['query', demo, '--repl'], dir, { cwd, env: { HOME: path.join(dir, 'home') } });
    let at = await t.waitFor('oql> ');
    // The command, then (a second Tab on the empty argument) the names: the named queries' and the config's.
    t.type('!ru\t');
    at = await t.waitFor('!run ', at);
    t.type('\t\t');
    at = await t.waitFor('Sessions counted', at);
    t.type('\x15!run Sess\t');
    at = await t.waitFor('!run Sessions counted', at);
    t.type('\r');
    at = await t.waitFor('→ SELECT COUNT(*) AS sessions FROM Demo$Session s', at);
    at = await t.waitFor(/sessions\n-+\n\s*400\n/, at);
    at = await t.waitFor('oql> ', at);
    // The same after /run, and /ru completes to /run.
    t.type('/ru\t');
    at = await t.waitFor('/run ', at);
    t.type('Sess\t');
    // (The line is not drawn again: the completion is written after what was typed.)
    at = await t.waitFor('Sessions counted', at);
    expect(t.screen.slice(0, at)).toMatch(/oql> \/run Sessions counted$/);
    t.type('\r');
    at = await t.waitFor('→ SELECT COUNT(*) AS sessions FROM Demo$Session s', at);
    at = await t.waitFor(/sessions\n-+\n\s*400\n/, at);
    t.type('!quit\r');
    expect(await t.exited).toBe(0);
  });
});
