/**
 * The terminal REPL's keys and terminal modes through a real pseudo-terminal: bracketed paste
 * (a pasted block waits for Enter, shows its later lines after `...>`, and runs as piped lines
 * do; Ctrl-C or Ctrl-D end one whose end marker never comes), Ctrl-C and Ctrl-D while a pasted
 * block runs (the rest of it does not), Ctrl-Z and `fg` in a shell, Ctrl-D and SIGINT while a
 * query runs, Tab on more names than the list shows, Tab on a hidden class's name (inserted as
 * the pattern FROM and FROM INSTANCEOF take), and two sessions at once sharing the history file.
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { closeTerminals, HEAPQL, shellTerminal, Terminal } from './pty-terminal.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

afterEach(closeTerminals);

const state = () => mkdtempSync(path.join(tmpdir(), 'heapql-repl-'));

/** A query that takes seconds on the demo dump (a bounded graph search per object; full path). */
const SLOW = `SELECT COUNT(*) FROM INSTANCEOF java.lang.Object x WHERE ${Array(12).fill('path(x.@clazz, x) = NULL').join(' AND ')}`;

const paste = (text: string) => `\x1b[200~${text}\x1b[201~`;

describe('bracketed paste', () => {
  it('a pasted query over three lines waits for Enter, shows ...> before its later lines, and runs whole', async () => {
    const t = new Terminal(['query', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    // Lines as a terminal pastes them: CR between them, no CR at the end.
    t.type(paste('SELECT s, s.createdAt\rFROM Demo$Session s\rWHERE s.createdAt > 1700003000000'));
    at = await t.waitFor('oql> SELECT s, s.createdAt\n...> FROM Demo$Session s\n...> WHERE s.createdAt > 1700003000000', at, '400 rows');
    expect(t.raw).toContain('\x1b[?2004h');
    // Nothing ran: the first line alone would list all 400 sessions, the last be an error.
    t.type('\r');
    at = await t.waitFor('(21 rows)', at, '400 rows');
    expect(t.screen.slice(at - 3000, at)).not.toMatch(/400 rows|unexpected|error/);
    // One history entry, as typed.
    t.type('\x1b[A');
    at = await t.waitFor('oql> SELECT s, s.createdAt\n...> FROM Demo$Session s\n...> WHERE s.createdAt > 1700003000000', at);
    t.type('\x15\x04');
    expect(await t.exited).toBe(0);
    expect(t.raw.slice(t.raw.lastIndexOf('\x1b[?2004'))).toMatch(/^\x1b\[\?2004l/);
  });

  it('a pasted block of two statements, with a line break at the end and CRLF inside, runs both at Enter, one history entry each', async () => {
    const t = new Terminal(['query', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    t.type('!set limit 3\r');
    at = await t.waitFor('limit = 3', at);
    t.type(paste('SELECT COUNT(*) AS first FROM Demo$Session;\r\nSELECT toString(s.user) AS second\r\nFROM Demo$Session s\r\n'));
    at = await t.waitFor('oql> SELECT COUNT(*) AS first FROM Demo$Session;\n...> SELECT toString(s.user) AS second\n...> FROM Demo$Session s\n...> ', at, 'first\n');
    t.type('\r');
    at = await t.waitFor(/first\n-+\n\s*400\n\(1 row\)/, at);
    at = await t.waitFor(/second\n-+\n(\w+ *\n){3}\(400 rows/, at);
    at = await t.waitFor('oql> ', at);
    t.type('\x1b[A');
    at = await t.waitFor('oql> SELECT toString(s.user) AS second\n...> FROM Demo$Session s', at);
    t.type('\x1b[A');
    at = await t.waitFor('oql> SELECT COUNT(*) AS first FROM Demo$Session;', at);
    t.type('\x15\x04');
    expect(await t.exited).toBe(0);
  });

  it('a paste goes in at the cursor, and the line is edited and run as one', async () => {
    const t = new Terminal(['query', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    t.type('SELECT COUNT(*) AS n FROM Demo$Session s');
    at = await t.waitFor('AS n FROM Demo$Session s', at);
    t.type(paste('\rWHERE s.createdAt > 1700003000000'));
    at = await t.waitFor('\n...> WHERE s.createdAt > 1700003000000', at, '400');
    t.type('\r');
    at = await t.waitFor(/n\n-+\n\s*21\n/, at, '400');
    t.type('\x04');
    expect(await t.exited).toBe(0);
  });
});

describe('a paste with no end marker', () => {
  it('Ctrl-C ends it: what was pasted is dropped and the line cleared; Ctrl-D ends it and leaves', async () => {
    const t = new Terminal(['query', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    // The terminal's paste-end never comes: the keys after it were taken as pasted text.
    t.type('\x1b[200~SELECT COUNT(*) AS pasted FROM Demo$Session\r');
    t.type('\x03');
    at = await t.waitFor('^C\noql> ', at);
    t.type('SELECT COUNT(*) AS typed FROM Demo$Session\r');
    at = await t.waitFor(/typed\n-+\n\s*400\n/, at, 'pasted');
    at = await t.waitFor('oql> ', at);
    t.type('\x1b[200~SELECT COUNT(*) AS pasted FROM Demo$Session\r');
    t.type('\x04');
    expect(await t.exited).toBe(0);
    expect(t.screen.slice(at)).not.toMatch(/pasted|error/);
  });
});

describe('Ctrl-C and Ctrl-D while a pasted block runs', () => {
  // No line break after the last line: the one that shows after the paste is readline's at Enter.
  const block = (tail: string) => paste(`${SLOW}\r${tail}`);

  it('Ctrl-C cancels the running statement and the rest of the paste, and says so', async () => {
    const t = new Terminal(['analyze', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    t.type(block('SELECT COUNT(*) AS after FROM Demo$Session'));
    at = await t.waitFor('AS after FROM Demo$Session', at);
    t.type('\r');
    // Enter has been taken (readline ends the line): the first statement runs. Then Ctrl-C.
    at = await t.waitFor('\n', at);
    t.type('\x03');
    at = await t.waitFor('cancelled (the rest of the paste did not run)\n', at, 'after\n');
    at = await t.waitFor('oql> ', at, 'after\n');
    t.type('SELECT COUNT(*) AS alive FROM Demo$Session\r');
    at = await t.waitFor(/alive\n-+\n\s*400/, at, 'after\n');
    t.type('\x04');
    expect(await t.exited).toBe(0);
    expect(t.screen).not.toMatch(/after\n-+\n/);
  });

  it('Ctrl-D at ...> leaves without running the statement typed in part', async () => {
    const t = new Terminal(['query', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    t.type('SELECT COUNT(*) AS unfinished\r');
    at = await t.waitFor('...> ', at);
    t.type('\x04');
    expect(await t.exited).toBe(0);
    expect(t.screen.slice(at)).not.toMatch(/error|unfinished/);
  });

  it('Ctrl-D cancels the running statement and leaves: the rest of the paste does not run', async () => {
    const dir = state();
    const saved = path.join(dir, 'after.csv');
    const t = new Terminal(['analyze', demo, '--repl'], dir);
    let at = await t.waitFor('oql> ');
    t.type(block(`SELECT COUNT(*) AS after FROM Demo$Session\r!save ${saved}`));
    at = await t.waitFor(`!save ${saved}`, at);
    t.type('\r');
    at = await t.waitFor('\n', at);
    t.type('\x04');
    at = await t.waitFor('cancelled', at, 'after\n');
    expect(await t.exited).toBe(0);
    expect(t.screen.slice(at)).not.toMatch(/after\n-+\n|saved/);
    expect(existsSync(saved)).toBe(false);
  });
});

describe('Ctrl-Z', () => {
  it('suspends the session in a shell; fg resumes it with the line as it was, and it leaves with exit code 0', async () => {
    const sh = shellTerminal(state());
    let at = await sh.waitFor('$ ');
    sh.type(`${HEAPQL} query ${demo} --repl\r`);
    at = await sh.waitFor('oql> ', at);
    sh.type('SELECT COUNT(*) AS resumed');
    at = await sh.waitFor('AS resumed', at);
    const before = sh.raw.length;
    sh.type('\x1a');
    at = await sh.waitFor('Stopped', at);
    at = await sh.waitFor('$ ', at);
    const suspended = sh.raw.slice(before, sh.raw.indexOf('Stopped', before));
    sh.type('fg\r');
    at = await sh.waitFor('oql> SELECT COUNT(*) AS resumed', at, '\n$ ');
    sh.type(' FROM Demo$Session\r');
    at = await sh.waitFor(/resumed\n-+\n\s*400\n/, at, '\n$ ');
    sh.type('!quit\r');
    at = await sh.waitFor('\n$ ', at);
    sh.type('echo "exit code $?"\r');
    at = await sh.waitFor('exit code 0', at);
    sh.type('exit\r');
    await sh.exited;
    // The terminal was given back as it was while suspended: no bracketed paste of heapql's.
    expect(suspended).toContain('\x1b[?2004l');
  });
});

describe('Ctrl-D and SIGINT while a query runs', () => {
  it('Ctrl-D cancels the running query, says so and leaves with exit code 0', async () => {
    const t = new Terminal(['analyze', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    t.type(`${SLOW}\r`);
    at = await t.waitFor(SLOW, at);
    t.type('\x04');
    at = await t.waitFor('cancelled', at);
    expect(await t.exited).toBe(0);
    expect(t.signal).toBeUndefined();
    expect(t.screen.slice(at)).not.toMatch(/COUNT\(\*\)\n-+\n/);
  });

  it('SIGINT from outside cancels the running query like Ctrl-C: the session goes on', async () => {
    const t = new Terminal(['analyze', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    t.type(`${SLOW}\r`);
    at = await t.waitFor(SLOW, at);
    process.kill(t.pty.pid, 'SIGINT');
    at = await t.waitFor('cancelled', at);
    at = await t.waitFor('oql> ', at);
    t.type('SELECT COUNT(*) AS alive FROM Demo$Session\r');
    at = await t.waitFor(/alive\n-+\n\s*400/, at);
    t.type('\x04');
    expect(await t.exited).toBe(0);
    expect(t.signal).toBeUndefined();
  });
});

describe('Tab with more names than the list shows', () => {
  it('inserts only what every match shares, and the list says how many more there are', async () => {
    const t = new Terminal(['query', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    // java.* and jdk.* classes: they share no more than `j`. (A Tab completes as the last key
    // of what arrives at once; the second one arrives on its own, after the echo.)
    t.type('SELECT x FROM j\t');
    at = await t.waitFor('SELECT x FROM j', at);
    t.type('\t');
    at = await t.waitFor(/… and \d+ more: type more letters\n/, at, 'FROM java.');
    const list = t.screen.slice(0, at).split('oql> SELECT x FROM j').at(-1)!;
    expect(list).toMatch(/\njava\.lang\./);
    // (Hidden classes among them, `java.lang.invoke.LambdaForm$MH/0x…`, are listed as the
    // patterns FROM takes for them: `"java\.lang\.invoke\.LambdaForm\$MH/0x…"`.)
    expect(list.split(/\s+/).filter((n) => /^"?j/.test(n))).toHaveLength(200);
    at = await t.waitFor('oql> SELECT x FROM j', at, 'FROM java.');
    t.type('\x15\x04');
    expect(await t.exited).toBe(0);
  });
});

describe('Tab on a hidden class (a lambda)', () => {
  // `Demo$$Lambda$1+0x00007f519d001868`: `+` is an operator in OQL, so the name as it stands
  // would not parse after FROM; Tab inserts the pattern FROM takes for it, and the query runs.
  it('after FROM inserts the class as a FROM "<regex>" pattern that runs', async () => {
    const t = new Terminal(['query', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    t.type('SELECT x FROM Demo$$\t');
    // Both lambdas share the pattern's start: that replaces the word.
    at = await t.waitFor('oql> SELECT x FROM "Demo\\$\\$Lambda\\$', at, 'FROM Demo$$Lambda');
    t.type('1\t');
    // The rest of the pattern goes in after the `1` (the line's start is on the screen already).
    at = await t.waitFor('1\\+0x00007f519d001868"', at);
    expect(t.screen.slice(0, at)).toMatch(/oql> SELECT x FROM "Demo\\\$\\\$Lambda\\\$1\\\+0x00007f519d001868"$/);
    t.type(' x\r');
    at = await t.waitFor('(1 row)', at, 'error:');
    expect(t.screen.slice(0, at)).toMatch(/\nDemo\$\$Lambda\$1\+0x00007f519d001868 @ 0x[0-9a-f]+\n\(1 row\)$/);
    at = await t.waitFor('oql> ', at);
    t.type('\x04');
    expect(await t.exited).toBe(0);
  });

  it('after FROM INSTANCEOF and after the predicate x INSTANCEOF inserts the same pattern, which runs', async () => {
    const t = new Terminal(['query', demo, '--repl'], state());
    let at = await t.waitFor('oql> ');
    t.type('SELECT x FROM INSTANCEOF Demo$$\t');
    at = await t.waitFor('oql> SELECT x FROM INSTANCEOF "Demo\\$\\$Lambda\\$', at, 'INSTANCEOF Demo$$Lambda');
    t.type('1\t');
    at = await t.waitFor('1\\+0x00007f519d001868"', at);
    expect(t.screen.slice(0, at)).toMatch(/oql> SELECT x FROM INSTANCEOF "Demo\\\$\\\$Lambda\\\$1\\\+0x00007f519d001868"$/);
    t.type(' x\r');
    at = await t.waitFor('(1 row)', at, 'error:');
    expect(t.screen.slice(0, at)).toMatch(/\nDemo\$\$Lambda\$1\+0x00007f519d001868 @ 0x[0-9a-f]+\n\(1 row\)$/);
    // The predicate x INSTANCEOF "<regex>" takes the same pattern.
    at = await t.waitFor('oql> ', at);
    t.type('SELECT x FROM INSTANCEOF java.lang.Object x WHERE x INSTANCEOF Demo$$\t');
    at = await t.waitFor('WHERE x INSTANCEOF "Demo\\$\\$Lambda\\$', at, 'INSTANCEOF Demo$$Lambda');
    t.type('1\t');
    at = await t.waitFor('1\\+0x00007f519d001868"', at);
    expect(t.screen.slice(0, at)).toMatch(/WHERE x INSTANCEOF "Demo\\\$\\\$Lambda\\\$1\\\+0x00007f519d001868"$/);
    t.type('\r');
    at = await t.waitFor('(1 row)', at, 'error:');
    expect(t.screen.slice(0, at)).toMatch(/\nDemo\$\$Lambda\$1\+0x00007f519d001868 @ 0x[0-9a-f]+\n\(1 row\)$/);
    at = await t.waitFor('oql> ', at);
    t.type('\x04');
    expect(await t.exited).toBe(0);
  });
});

describe('two sessions at once', () => {
  it('keep the history entries of both in the file', async () => {
    const dir = state();
    const a = new Terminal(['query', demo, '--repl'], dir);
    const b = new Terminal(['query', demo, '--repl'], dir);
    const at = { a: await a.waitFor('oql> '), b: await b.waitFor('oql> ') };
    const run = async (t: Terminal, key: 'a' | 'b', name: string) => {
      t.type(`SELECT COUNT(*) AS ${name} FROM Demo$Session\r`);
      at[key] = await t.waitFor(new RegExp(`${name}\\n-+\\n\\s*400\\n[^]*oql> `), at[key]);
    };
    await run(a, 'a', 'a1');
    await run(b, 'b', 'b1');
    await run(a, 'a', 'a2');
    await run(b, 'b', 'b2');
    a.type('\x04');
    b.type('\x04');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    const file = path.join(dir, 'heapql', 'history');
    expect(readFileSync(file, 'utf8')).toBe(['a1', 'b1', 'a2', 'b2'].map((n) => `SELECT COUNT(*) AS ${n} FROM Demo$Session\n`).join(''));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
