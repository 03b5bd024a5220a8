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

  /** Entries whose OQL is wrong in three ways, in three ways TOML writes a string. */
  const BAD_CONFIG = [
    '# stored', // 1
    '[[query]]', // 2
    'name = "field"', // 3
    'oql = """', // 4
    'SELECT COUNT(*) AS n', // 5
    'FROM Demo$Session s WHERE s.nope > 1"""', // 6
    '', // 7
    '[[query]]', // 8
    'name = "syntax"', // 9
    "oql = '''SELECT COUNT(*) AS n FORM Demo$Session s'''", // 10
    '', // 11
    '[[query]]', // 12
    'name = "class"', // 13
    'oql = "SELECT COUNT(*) AS n\\nFROM Demo$Sessio s"', // 14
    '', // 15
    '[[query]]', // 16
    'name = "pie"', // 17
    'oql = """', // 18
    '-- @viz pie', // 19
    'SELECT COUNT(*) AS n FROM Demo$Session s"""', // 20
    '',
  ].join('\n');
  const badErrors = (file: string) => ({
    field: [
      `error: ${file}:6:29: Demo$Session has no field 'nope' (its fields: data, attributes, buffer, createdAt, user, id)`,
      '  FROM Demo$Session s WHERE s.nope > 1"""',
      '                              ^^^^',
    ].join('\n'),
    syntax: [
      `error: ${file}:10:31: unexpected "FORM"; expected AS, FROM or ","`,
      "  oql = '''SELECT COUNT(*) AS n FORM Demo$Session s'''",
      '                                ^^^^',
      '  hint: did you mean FROM?',
    ].join('\n'),
    class: [
      `error: ${file}:14:35: class Demo$Sessio is not in this dump; did you mean Demo$Session?`,
      '  oql = "SELECT COUNT(*) AS n\\nFROM Demo$Sessio s"',
      `  ${' '.repeat(34)}^^^^^^^^^^^`,
    ].join('\n'),
    viz: `warning: ${file}:19: @viz directive ignored: unknown chart kind "pie" (kinds: table, histogram, piechart, treemap); showing a table`,
  });

  it("an OQL error in an entry names the config file's line and column and shows its line there; !plan names it again, !last warns there", () => {
    const cwd = path.join(dir, 'bad-oql');
    mkdirSync(cwd, { recursive: true });
    const file = path.join(cwd, '.heapql.toml');
    writeFileSync(file, BAD_CONFIG);
    const e = badErrors(file);
    // A refused entry never ran: !last has none to run again (!plan explains the text given last).
    const noneYet = (line: number) => `error: stdin:${line}: no query has run yet: !last runs the last query that ran again, and a statement refused with an error did not run`;
    const r = repl(cwd, ['!run field', '!last', '/run syntax', '!plan', '!run class', '!last', '!run pie', '!last', '!run class', '!last']);
    expect(r.err).toBe([e.field, noneYet(2), e.syntax, e.syntax, e.class, noneYet(6), e.viz, e.viz, e.class, e.viz].join('\n'));
    expect(r.out.match(/n\n---\n400\n\(1 row\)\n/g)).toHaveLength(3);
    // A query typed after them names its statement.
    const typed = repl(cwd, ['!run class', 'SELECT COUNT(*) AS n FROM Demo$Sessio s', '!plan']);
    const atStdin = (line: number) =>
      [
        `error: stdin:${line}:27: class Demo$Sessio is not in this dump; did you mean Demo$Session?`,
        '  SELECT COUNT(*) AS n FROM Demo$Sessio s',
        '                            ^^^^^^^^^^^',
      ].join('\n');
    expect(typed.err).toBe([e.class, atStdin(2)].join('\n'));
  });

  it("in a terminal, the error of !run <name> names the config file's line and column; !last after it has nothing to run", async () => {
    const cwd = path.join(dir, 'bad-oql-terminal');
    mkdirSync(cwd, { recursive: true });
    const file = path.join(cwd, '.heapql.toml');
    writeFileSync(file, BAD_CONFIG);
    const e = badErrors(file);
    const t = new Terminal(['query', demo, '--repl'], dir, { cwd, env: { HOME: path.join(dir, 'home') } });
    let at = await t.waitFor('oql> ');
    t.type('!run class\r');
    at = await t.waitFor('^^^^^^^^^^^\n', at);
    t.type('!last\r');
    at = await t.waitFor('error: no query has run yet', at);
    t.type('!run pie\r');
    at = await t.waitFor(/\n400\n/, at);
    t.type('!last\r');
    at = await t.waitFor(/\n400\n/, at);
    t.type('!quit\r');
    expect(await t.exited).toBe(0);
    expect(t.screen.split(e.class).length - 1).toBe(1);
    expect(t.screen.split(e.viz).length - 1).toBe(2);
  });

  it('the report names the same places for the same entries', () => {
    const cwd = path.join(dir, 'bad-oql-report');
    mkdirSync(cwd, { recursive: true });
    const file = path.join(cwd, '.heapql.toml');
    writeFileSync(file, BAD_CONFIG);
    const e = badErrors(file);
    const env = { ...process.env, HOME: path.join(dir, 'home'), NO_COLOR: '1' };
    // A syntax error stops the report before the dump is read: the whole error, as the REPL shows it.
    const refused = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), demo, 'r.md'], { cwd, encoding: 'utf8', env });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`${e.syntax}\n`);
    // A class or field the dump lacks is a warning of the report, on one line.
    writeFileSync(file, BAD_CONFIG.replace('FORM', 'FROM'));
    const report = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), demo, 'r.md'], { cwd, encoding: 'utf8', env });
    expect(report.status).toBe(0);
    const lines = report.stderr.split('\n');
    expect(lines).toContain(`warning: query field: ${e.field.split('\n')[0]!.replace(/^error: /, '')}`);
    expect(lines).toContain(`warning: query class: ${e.class.split('\n')[0]!.replace(/^error: /, '')}`);
    expect(lines).toContain(e.viz);
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
