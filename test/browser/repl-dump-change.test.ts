/**
 * The browser REPL in real headless Chromium when the server behind it is restarted: on the
 * same dump, the results on the page stay usable (`!obj` of a row looks its object up); on
 * another dump (same port), an object id of an earlier result names another object there, so
 * `!obj`, `!refs`, `!path` and `!dom` of such a row refuse, saying the server serves another
 * dump and to run the query again, and the page says the dump changed. A query run on the new
 * dump is looked up as usual.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { bindPort, listen } from '../../ts/server/listen.js';
import { chromiumAvailable } from './chromium.js';
import { KNOWN_HEAP_DUMP } from '../tools/known-heap.js';
import { openReplPage, type ReplPage } from './repl-page.js';
import { DEMO_DUMP, enterStatement } from './repl-server.js';

const demo = DEMO_DUMP;
const other = KNOWN_HEAP_DUMP;
const REFUSED = /the server now serves another dump than the one this result came from.*run the query again|the server now serves another dump \(.*\).*run the query again/;

describe.skipIf(!chromiumAvailable)('browser REPL: the server restarted on the same dump, then on another', () => {
  /** The tab, the first session, and the server serving now (repl.server). */
  let repl: ReplPage;
  /** The sessions of the servers started again. */
  const sessions: HeapSession[] = [];
  let page: Page;
  let problems: string[];
  let requests: string[];

  const open = async (file: string) => {
    const s = await openHeap(file, { noCache: true });
    sessions.push(s);
    return s;
  };

  beforeAll(async () => {
    repl = await openReplPage({ dump: demo, noCache: true });
    ({ page, problems, requests } = repl);
  });
  afterAll(async () => {
    await repl?.close();
    for (const s of sessions) s.close();
  });

  /** The text of the statement's entry under its echo. */
  async function enter(statement: string): Promise<string> {
    await enterStatement(page, statement);
    return (await page.locator('section.entry:has(pre.echo)').last().innerText()).split('\n').slice(1).join('\n');
  }

  /** Stops the server (the page sees it go) and starts one on `session` on the same port. */
  async function restart(session: HeapSession): Promise<void> {
    const port = repl.server.port;
    await repl.server.close(0);
    await page.locator('#banner.show').waitFor();
    repl.server = await listen(session, port, repl.serverOptions);
  }

  test('same dump: results stay usable; another dump: look-ups of earlier rows refuse, the page says why', async () => {
    expect(await enter('SELECT s, toString(s.id) AS id FROM Demo$Session s')).toMatch(/400 rows/);
    await enter('!row 1');
    expect(await enter('!obj')).toMatch(/Demo\$Session @ 0x/);

    // The server restarted on the same file: the same dump, nothing refused, nothing said.
    await restart(await open(demo));
    await page.locator('#banner.show').waitFor({ state: 'hidden' });
    expect(await enter('!obj')).toMatch(/Demo\$Session @ 0x/);
    expect(await page.locator('.warn').count()).toBe(0);

    // Restarted on another dump: at once (before or after the page's status poll saw it).
    await restart(await open(other));
    const obj = await enter('!obj');
    expect(obj).toMatch(REFUSED);
    expect(obj).not.toMatch(/ @ 0x/);
    await page.locator('.warn').first().waitFor();
    expect(await page.locator('.warn').first().textContent()).toMatch(/now serves another dump than before.*run the queries again/);
    await expect.poll(() => page.locator('#dump').textContent()).toContain('KnownHeap-jdk17-coops.hprof');
    expect(await page.locator('.result-block.stale').count()).toBeGreaterThan(0);
    for (const command of ['!refs', '!path', '!dom']) expect(await enter(command), command).toMatch(REFUSED);
    // The earlier result keeps its text, and what is made of it keeps its dump.
    expect(await enter('!row 2')).toMatch(/row 2 of 400/);
    await enter('!sort id desc');
    expect(await enter('!obj')).toMatch(REFUSED);
    // A typed object is looked up on the dump served now.
    expect(await enter('!obj #1')).toMatch(/ @ 0x/);

    // A query on the new dump: its rows are looked up as usual; !undo brings back the old rows, refused again.
    const classes = await enter('SELECT x FROM INSTANCEOF java.lang.Object x LIMIT 3');
    expect(classes).toMatch(/3 rows/);
    expect(await enter('!obj')).toMatch(/ @ 0x/);
    await enter('!undo');
    expect(await enter('!obj')).toMatch(REFUSED);
    // Every look-up names the dump its object id came from: the server refuses one of another dump (409).
    const lookups = requests.filter((r) => /\/objects\/\d+/.test(r));
    expect(lookups.length).toBeGreaterThan(3);
    for (const r of lookups) expect(r).toMatch(/[?&]dump=[0-9a-f]{16}$/);
    expect(problems.filter((p) => !/Failed to load resource|ERR_CONNECTION_REFUSED|409/.test(p))).toEqual([]);
  });

  test('started again, still opening its dump (the port bound first): the page waits, saying so, and is back once it serves', async () => {
    const port = repl.server.port;
    const notes = () => page.getByText('reconnected to the server').count();
    await repl.server.close(0);
    await page.locator('#banner.show').waitFor();
    const reconnectedBefore = await notes();
    // What `heapql server` does now: the port first, the dump then (minutes for a big one).
    const bound = await bindPort(port);
    try {
      await expect.poll(() => page.locator('#banner').textContent()).toMatch(/is starting: it is opening its heap dump; waiting for it/);
      expect(await page.locator('#state-text').textContent()).toBe('server starting');
      // A statement meanwhile says what the server said; the page has not called it back.
      expect(await enter('SELECT COUNT(*) FROM java.lang.String')).toMatch(/still opening the heap dump.*waiting for it/);
      expect(await page.locator('#banner.show').count()).toBe(1);
      expect(await notes()).toBe(reconnectedBefore);
    } finally {
      repl.server = bound.serve(await open(demo), repl.serverOptions);
    }
    await page.locator('#banner.show').waitFor({ state: 'hidden' });
    await expect.poll(notes).toBe(reconnectedBefore + 1);
    expect(await enter('SELECT COUNT(*) FROM Demo$Session')).toMatch(/400/);
  });
});
