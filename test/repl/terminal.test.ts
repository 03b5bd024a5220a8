/**
 * The terminal REPL through a real pseudo-terminal (node-pty): keystrokes in, screen text out.
 * Banner and prompt, continuation prompts, tab completion, Ctrl-C on a line and during a long
 * query, Ctrl-R, history kept across two sessions in the user's state directory (a statement
 * typed over several lines as one entry), and `~/` in `!save` paths.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { closeTerminals, Terminal } from './pty-terminal.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

function start(args: string[], stateDir: string, options?: { cwd?: string; env?: Record<string, string> }): Terminal {
  return new Terminal(args, stateDir, options);
}
afterEach(closeTerminals);

describe('the terminal REPL', () => {
  it('shows the banner, runs statements over continuation lines, and leaves on Ctrl-D', async () => {
    const state = mkdtempSync(path.join(tmpdir(), 'heapql-repl-'));
    const t = start(['query', demo, '--repl'], state);
    let at = await t.waitFor('oql> ');
    expect(t.screen).toContain(demo);
    expect(t.screen).toMatch(/[\d,]+ objects, [\d,]+ classes; path: query-only/);
    expect(t.screen).toContain('all objects (!reachable for reachable only)');

    t.type('SELECT COUNT(*)\r');
    at = await t.waitFor('...> ', at);
    t.type('FROM Demo$Session s\r');
    at = await t.waitFor(/\s400\n\(1 row\)/, at);
    // An open parenthesis and an unterminated string ask for more too; `;` ends the statement.
    t.type('SELECT COUNT(*) FROM Demo$Session s WHERE (s.createdAt > 0\r');
    at = await t.waitFor('...> ', at);
    t.type(');\r');
    at = await t.waitFor(/\s400\n\(1 row\)/, at);
    t.type('-- @viz histogram\r');
    at = await t.waitFor('...> ', at);
    t.type('SELECT COUNT(*) AS n FROM Demo$Session\r');
    at = await t.waitFor(/n\n-+\n\s*400\n/, at);

    // A broken query: the error with a caret under the bad token, and the prompt comes back.
    t.type('SELECT s FORM Demo$Session s\r');
    at = await t.waitFor('^^^^', at);
    expect(t.screen.slice(at - 200, at)).toContain('SELECT s FORM Demo$Session s');
    at = await t.waitFor('oql> ', at);

    t.type('\x04');
    expect(await t.exited).toBe(0);
  });

  it('completes commands, classes, fields of the class in scope, attributes and columns', async () => {
    const state = mkdtempSync(path.join(tmpdir(), 'heapql-repl-'));
    const t = start(['query', demo, '--repl'], state);
    let at = await t.waitFor('oql> ');
    t.type('!descr\t');
    at = await t.waitFor('!describe ', at);
    t.type('Demo$SessionS\t');
    at = await t.waitFor('Demo$SessionStore', at);
    t.type('\r');
    at = await t.waitFor('superclasses', at);

    t.type('SELECT s.crea\t');
    // No class in scope yet: nothing to offer for s.; finish the statement and try again.
    t.type('\x15'); // Ctrl-U clears the line
    t.type('SELECT s FROM Demo$Session s WHERE s.crea\t');
    at = await t.waitFor('s.createdAt', at);
    t.type(' > 0 AND @used\t');
    at = await t.waitFor('@usedHeapSize', at);
    t.type(' > 0;\r');
    at = await t.waitFor(/\(400 rows/, at);
    // Columns of the latest result after a shaping command.
    t.type('!sort \t');
    at = await t.waitFor('!sort s', at);
    t.type(' desc\r');
    at = await t.waitFor('oql> ', at);
    // Named queries and files.
    t.type('!run top-classes-by-c\t');
    at = await t.waitFor('top-classes-by-count', at);
    t.type('\x15!save fixtures/de\t');
    at = await t.waitFor('fixtures/demo/', at);
    t.type('\x15!quit\r');
    expect(await t.exited).toBe(0);
  });

  it('Ctrl-C clears the line, cancels a long query, never exits; Ctrl-R finds history', async () => {
    const state = mkdtempSync(path.join(tmpdir(), 'heapql-repl-'));
    const t = start(['analyze', demo, '--repl'], state);
    let at = await t.waitFor('oql> ');
    expect(t.screen).toContain('path: full analysis');

    t.type('SELECT half a line');
    t.type('\x03');
    at = await t.waitFor('^C', at);
    at = await t.waitFor('oql> ', at);
    t.type('SELECT COUNT(*) AS sessions FROM Demo$Session\r');
    at = await t.waitFor(/sessions\n-+\n\s*400/, at);

    // A query that takes seconds on this dump (a bounded graph search per object).
    const slow = 'SELECT COUNT(*) FROM INSTANCEOF java.lang.Object x WHERE path(x.@clazz, x) = NULL AND path(x.@clazz, x) = NULL AND path(x.@clazz, x) = NULL AND path(x.@clazz, x) = NULL AND path(x.@clazz, x) = NULL AND path(x.@clazz, x) = NULL';
    t.type(`${slow}\r`);
    at = await t.waitFor(slow, at);
    t.type('\x03');
    at = await t.waitFor('cancelled', at);
    at = await t.waitFor('oql> ', at);
    expect(t.screen.slice(at - 400)).not.toMatch(/COUNT\(\*\)\n-+\n/);

    // Still alive: Ctrl-R finds the earlier statement, Enter runs it.
    t.type('\x12sessions');
    at = await t.waitFor("(reverse-i-search)'sessions': SELECT COUNT(*) AS sessions FROM Demo$Session", at);
    t.type('\r');
    at = await t.waitFor(/sessions\n-+\n\s*400/, at);
    t.type('!quit\r');
    expect(await t.exited).toBe(0);
  });

  it('keeps history across two sessions in the state directory', async () => {
    const state = mkdtempSync(path.join(tmpdir(), 'heapql-repl-'));
    const first = start(['query', demo, '--repl'], state);
    let at = await first.waitFor('oql> ');
    first.type('SELECT COUNT(*) AS remembered FROM Demo$Session\r');
    at = await first.waitFor(/remembered\n/, at);
    first.type('\x04');
    await first.exited;
    expect(readFileSync(path.join(state, 'heapql', 'history'), 'utf8')).toContain('SELECT COUNT(*) AS remembered FROM Demo$Session');

    const second = start(['query', demo, '--repl'], state);
    at = await second.waitFor('oql> ');
    second.type('\x1b[A'); // arrow up: the previous session's statement
    at = await second.waitFor('SELECT COUNT(*) AS remembered FROM Demo$Session', at);
    second.type('\r');
    at = await second.waitFor(/remembered\n-+\n\s*400/, at);
    second.type('\x04');
    expect(await second.exited).toBe(0);
  });

  it('keeps a statement typed over several lines as one history entry, in this session and the next', async () => {
    const state = mkdtempSync(path.join(tmpdir(), 'heapql-repl-'));
    const first = start(['query', demo, '--repl'], state);
    let at = await first.waitFor('oql> ');
    first.type('!set limit 7\r');
    at = await first.waitFor('limit = 7', at);
    first.type('SELECT COUNT(*) AS multi -- a comment ends its line\r');
    at = await first.waitFor('...> ', at);
    first.type('FROM Demo$Session s WHERE\r');
    at = await first.waitFor('...> ', at);
    first.type('s.createdAt > 0\r');
    at = await first.waitFor(/multi\n-+\n\s*400\n/, at);

    // ↑: the whole statement with its lines as typed; ↑ again: the command before it (no
    // fragment in between); ↓ and Enter run the statement again.
    const whole = 'SELECT COUNT(*) AS multi -- a comment ends its line\nFROM Demo$Session s WHERE\ns.createdAt > 0';
    // Its later lines after the continuation prompt.
    const shown = whole.replaceAll('\n', '\n...> ');
    first.type('\x1b[A');
    at = await first.waitFor(`oql> ${shown}`, at);
    first.type('\x1b[A');
    at = await first.waitFor('oql> !set limit 7', at);
    first.type('\x1b[B');
    at = await first.waitFor(`oql> ${shown}`, at);
    first.type('\r');
    at = await first.waitFor(/multi\n-+\n\s*400\n/, at);
    // Ctrl-R finds it by a later line and shows it whole.
    first.type('\x12createdAt');
    at = await first.waitFor(`(reverse-i-search)'createdAt': ${shown}`, at);
    first.type('\x07\x04');
    expect(await first.exited).toBe(0);
    // One line of the file an entry; the statement's newlines are stored as CR.
    expect(readFileSync(path.join(state, 'heapql', 'history'), 'utf8')).toBe(`!set limit 7\n${whole.replaceAll('\n', '\r')}\n`);

    const second = start(['query', demo, '--repl'], state);
    at = await second.waitFor('oql> ');
    second.type('\x1b[A');
    at = await second.waitFor(`oql> ${shown}`, at);
    second.type('\r');
    at = await second.waitFor(/multi\n-+\n\s*400\n/, at);
    second.type('\x1b[A\x1b[A');
    at = await second.waitFor('oql> !set limit 7', at);
    second.type('\x15\x04');
    expect(await second.exited).toBe(0);
  });

  it('!save ~/… writes in the home directory, completes ~/ paths, and names the typed path in errors', async () => {
    const state = mkdtempSync(path.join(tmpdir(), 'heapql-repl-'));
    const home = mkdtempSync(path.join(tmpdir(), 'heapql-home-'));
    const cwd = mkdtempSync(path.join(tmpdir(), 'heapql-cwd-'));
    mkdirSync(path.join(home, 'heap-exports'));
    try {
      const t = start(['query', demo, '--repl'], state, { cwd, env: { HOME: home } });
      let at = await t.waitFor('oql> ');
      t.type('SELECT s.createdAt AS created FROM Demo$Session s\r');
      at = await t.waitFor(/\(400 rows/, at);
      t.type('!top 2\r');
      at = await t.waitFor('(2 rows)', at);
      t.type('!save ~/heap-ex\t');
      at = await t.waitFor('!save ~/heap-exports/', at);
      t.type('two.json\r');
      at = await t.waitFor('saved 2 rows to ~/heap-exports/two.json', at);
      expect(JSON.parse(readFileSync(path.join(home, 'heap-exports', 'two.json'), 'utf8'))).toMatchObject({ rowCount: 2 });
      t.type('!save ~/two.csv\r');
      at = await t.waitFor('saved 2 rows to ~/two.csv', at);
      expect(readFileSync(path.join(home, 'two.csv'), 'utf8')).toMatch(/^created\r\n\d+\r\n\d+\r\n$/);

      t.type('!save ~/no-such-dir/x.csv\r');
      at = await t.waitFor('cannot write ~/no-such-dir/x.csv: the directory ~/no-such-dir does not exist (ENOENT): create it, or choose another path\n', at);
      t.type('!save ~nobody/x.csv\r');
      at = await t.waitFor('cannot write ~nobody/x.csv: only ~ and ~/ are expanded (the home directory), not ~user: write the full path, or ./~nobody/x.csv for a name that starts with ~', at);
      t.type('!quit\r');
      expect(await t.exited).toBe(0);
      // Nothing named ~ where the REPL ran.
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      for (const dir of [state, home, cwd]) rmSync(dir, { recursive: true, force: true });
    }
  });
});
