/**
 * A long listing (`!set limit 0`) in a real pseudo-terminal: it goes out a block at a time,
 * and Ctrl-C stops it between blocks, back at the prompt with the number of rows shown and
 * the whole result still there for !count, !tail, !row.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';

import { closeTerminals, Terminal } from './pty-terminal.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

afterEach(closeTerminals);

/** Every object of the demo dump: 20,437 rows, 21 blocks. */
const ALL = 'SELECT x, x.@usedHeapSize AS size FROM INSTANCEOF java.lang.Object x';

it('Ctrl-C during a long listing stops it, says how many rows were shown, and the prompt and the result are back', async () => {
  const t = new Terminal(['query', demo, '--repl'], mkdtempSync(path.join(tmpdir(), 'heapql-repl-')));
  let at = await t.waitFor('oql> ');
  t.type('!set limit 0\r');
  at = await t.waitFor('limit = 0 (all rows)', at);
  t.type(`${ALL}\r`);
  // The header and its rule are out: the listing has begun. Ctrl-C, read while no more of the
  // listing is (the pty's buffer holds the listing back until it is read).
  at = await t.waitFor(/\nx +\| +size\n-+\+-+\n/, at);
  t.pty.pause();
  t.type('\x03');
  t.pty.resume();
  // Not the whole table's footer: the listing stopped.
  at = await t.waitFor(/\(20437 rows; interrupted after showing (\d+): !tail, !row N, !save for the rest\)\n/, at, '(20437 rows)');
  const shown = Number(/interrupted after showing (\d+)/.exec(t.screen.slice(0, at))![1]);
  expect(shown).toBeGreaterThanOrEqual(1000);
  expect(shown).toBeLessThan(20437);
  // Those rows, and no more, are on the screen: the lines between the rule and the footer.
  const listing = t.screen.slice(t.screen.lastIndexOf('-+-'), t.screen.lastIndexOf('\n(20437 rows; interrupted'));
  expect(listing.split('\n').slice(1)).toHaveLength(shown);
  at = await t.waitFor('oql> ', at);
  // The result is whole: the commands on it work as before.
  t.type('!count\r');
  at = await t.waitFor('20437 rows', at);
  t.type('!set limit 50\r');
  at = await t.waitFor('limit = 50', at);
  t.type('!tail 3\r');
  at = await t.waitFor('(3 rows)', at);
  t.type('!undo\r');
  at = await t.waitFor('(20437 rows; showing the first 50', at);
  t.type('\x04');
  expect(await t.exited).toBe(0);
});
