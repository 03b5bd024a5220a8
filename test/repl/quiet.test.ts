/**
 * `--quiet` in the REPL: stderr carries `error:` lines alone, as for every other command — no
 * `warning: history is not saved` at a terminal whose history file cannot be written, no warning
 * about a `-- @viz` line (which `heapql query --query-file --quiet` silences too); errors are
 * said as ever. Without it, both warnings are there (what the test would miss otherwise).
 * The terminal is a real pseudo-terminal (node-pty); the piped session a real process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { closeTerminals, Terminal } from './pty-terminal.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const bin = path.join(root, 'bin/heapql.js');

afterEach(closeTerminals);

/** A state directory that is a file: the history cannot be saved under it. */
function unwritableState(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'heapql-quiet-')), 'state');
  writeFileSync(file, '');
  return file;
}

describe('at a terminal', () => {
  it.each([
    [false, 'says the history is not saved'],
    [true, 'says nothing of the history with --quiet'],
  ])('quiet %s: %s; an error is said either way', async (quiet) => {
    const t = new Terminal(['query', demo, '--repl', ...(quiet ? ['--quiet'] : [])], unwritableState());
    let at = await t.waitFor('oql> ');
    t.type('SELECT COUNT(*) AS n FROM Demo$Session s\r');
    at = await t.waitFor('(1 row)', at);
    t.type('SELECT x FROM Nope x\r');
    at = await t.waitFor('error: query:1:15: class Nope is not in this dump', at);
    at = await t.waitFor('oql> ', at);
    if (quiet) expect(t.screen).not.toContain('warning');
    else expect(t.screen).toContain('warning: history is not saved (');
    t.type('\x04');
    expect(await t.exited).toBe(0);
  });
});

describe('piped', () => {
  it.each([false, true])('quiet %s: a -- @viz line naming no column is a warning unless --quiet', (quiet) => {
    const input = '-- @viz histogram label=nope\nSELECT s.createdAt AS c FROM Demo$Session s\nSELECT x FROM Nope x\n';
    const r = spawnSync(process.execPath, [bin, 'query', demo, '--repl', ...(quiet ? ['--quiet'] : [])], {
      input,
      encoding: 'utf8',
      env: { ...process.env, HEAPQL_DEBUG: '', NO_COLOR: '1' },
    });
    expect(r.stdout).toContain('(400 rows; showing the first 50');
    const error = 'error: stdin:3:15: class Nope is not in this dump';
    expect(r.stderr.startsWith(quiet ? error : 'warning: stdin:1: @viz label=nope: no such column (columns: c)\n' + error)).toBe(true);
    expect(r.status).toBe(1);
  });
});
