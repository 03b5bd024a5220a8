/**
 * The banner of a file that holds several heap dumps (the JVMTI agent's) names the one open and
 * how many there are, in a real pseudo-terminal: the first of two opened by default looked like
 * the whole file. A file of one dump says nothing of it.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { closeTerminals, Terminal } from './pty-terminal.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
// Two HEAP DUMP records in one file (see ../shared/corpus/README.md); read in place.
const twoDumps = path.resolve(root, '../shared/corpus/oracle_jdk7_21_hprofagent.hprof');

afterEach(closeTerminals);

describe('the banner names the heap dump of a file that holds several', () => {
  it.each([
    [[], 'heap dump 1 of 2'],
    [['--dump', '2'], 'heap dump 2 of 2'],
  ])('query --repl %j', async (more, which) => {
    expect(existsSync(twoDumps), `${twoDumps} (the shared corpus) is needed`).toBe(true);
    const t = new Terminal(['query', twoDumps, '--repl', '--no-cache', '--quiet', ...more], mkdtempSync(path.join(tmpdir(), 'heapql-banner-')));
    await t.waitFor('oql> ');
    expect(t.screen).toContain(`heapql 0.1.0 — ${twoDumps} (${which}; --dump N opens another)\n`);
    t.type('\x04');
    expect(await t.exited).toBe(0);
  });

  it('a file of one heap dump: the path alone', async () => {
    const t = new Terminal(['query', demo, '--repl', '--quiet'], mkdtempSync(path.join(tmpdir(), 'heapql-banner-')));
    await t.waitFor('oql> ');
    expect(t.screen).toContain(`heapql 0.1.0 — ${demo}\n`);
    t.type('\x04');
    expect(await t.exited).toBe(0);
  });
});
