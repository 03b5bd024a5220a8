/**
 * Paged results in the browser REPL, in real headless Chromium against a real server on a
 * fixture dump (KnownHeap: 1000 KnownHeap$Point objects), with pages of 100 rows
 * (`/repl?pageRows=100`): a result larger than a page shows its first rows and, once counted,
 * its total; "Show more" shows the next rows in order, fetching only what it shows; the rows
 * the server described and the page received for the first display are one page (counted in
 * the server's stream and in the answers the page got); a new query closes the previous
 * cursor (its scan stops in the server), and so does the Stop control; `!save` fetches the
 * rest first and saves the whole result.
 */
import fs from 'node:fs';
import path from 'node:path';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { formatTsv } from '../../ts/query/format.js';
import { listen, type RunningServer } from '../../ts/server/listen.js';
import { chromiumAvailable, launchChromium, watchedPage } from './chromium.js';
import { enterStatement, replScript } from './repl-server.js';

const DUMP = path.resolve(__dirname, '../../fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const QUERY = 'SELECT p.x AS x, p.y AS y FROM KnownHeap$Point p';
const PAGE = 100;

describe.skipIf(!chromiumAvailable)('browser REPL: paged results', () => {
  let browser: Browser;
  let session: HeapSession;
  let server: RunningServer;
  let page: Page;
  let problems: string[];
  /** Rows the server's query streams handed out (described), since the last reset. */
  let described = 0;
  /** Rows in the answers of /pages… the page received, since the last reset. */
  let received = 0;
  /** The cursors the server gave. */
  const cursors: string[] = [];
  let expected: number[] = [];
  /** A hold of the server's stream once it has described `after` rows. */
  let held: { after: number; reached: () => void; released: Promise<void> } | null = null;

  beforeAll(async () => {
    session = await openHeap(DUMP, { noCache: true });
    expected = (await session.query(QUERY)).rows.map((r) => r[0] as number);
    expect(expected.length).toBe(1000);
    const real = session.queryBatches.bind(session);
    session.queryBatches = (q, options = {}) =>
      (async function* () {
        const batches = real(q, options);
        for (;;) {
          const next = await batches.next();
          if (next.done) return next.value;
          described += next.value.rows.length;
          // Held here (the server's scan waits) until the test releases it.
          if (held && described >= held.after) {
            const h = held;
            held = null;
            h.reached();
            await h.released;
          }
          yield next.value;
        }
      })();
    const script = await replScript();
    server = await listen(session, 0, { replScript: () => script });
    browser = await launchChromium();
    ({ page, problems } = await watchedPage(browser));
    page.on('response', async (r) => {
      const url = new URL(r.url());
      if (!url.pathname.startsWith('/pages') || url.pathname.endsWith('/count') || r.request().method() === 'DELETE') return;
      const body = (await r.json()) as { rows?: unknown[]; result?: { rows: unknown[] }; cursor?: string | null };
      received += (body.result?.rows ?? body.rows ?? []).length;
      if (body.cursor) cursors.push(body.cursor);
    });
    await page.goto(`${server.url}/repl?pageRows=${PAGE}`);
    await page.getByText('Connected.').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    session?.close();
  });

  const xs = async (entry: ReturnType<Page['locator']>) => (await entry.locator('table.result tbody tr td:first-child').allTextContents()).map(Number);

  test('the first page shows at once with the count; more rows come in order, fetched as shown', async () => {
    described = 0;
    received = 0;
    const entry = await enterStatement(page, QUERY);
    // The display limit (50) of the first page of 100 rows.
    expect(await xs(entry)).toEqual(expected.slice(0, 50));
    const note = entry.locator('.pages-text');
    await expect.poll(() => note.textContent()).toBe('showing 50 of 1000 rows; 100 fetched: !sort, !filter and the other commands see the rows fetched (!save fetches the rest)');
    // One page crossed the wire; the server described at most one batch (a page) beyond it.
    await expect.poll(() => received).toBe(PAGE);
    expect(described).toBeLessThanOrEqual(2 * PAGE);
    expect(described).toBeGreaterThanOrEqual(PAGE);

    const more = entry.locator('button.more');
    expect(await more.textContent()).toBe('Show 50 more');
    // Rows 50–99 are in the page already: nothing is fetched.
    await more.click();
    await expect.poll(() => entry.locator('table.result tbody tr').count()).toBe(100);
    expect(received).toBe(PAGE);
    // Rows 100–149: fetched, exactly those.
    await more.click();
    await expect.poll(() => entry.locator('table.result tbody tr').count()).toBe(150);
    expect(await xs(entry)).toEqual(expected.slice(0, 150));
    await expect.poll(() => received).toBe(150);
    await expect.poll(() => note.textContent()).toMatch(/^showing 150 of 1000 rows; 150 fetched/);
    // The result the commands see holds the rows fetched, in order.
    const row = await enterStatement(page, '!row 150');
    expect(await row.locator('pre.out').textContent()).toMatch(new RegExp(`^row 150 of 150\\nx += ${expected[149]}\\n`));
    // !count says the whole result's count, as the terminal's does (the server counted it), not
    // the rows fetched so far ("150 rows (truncated: more matched)").
    const count = await enterStatement(page, '!count');
    expect((await count.locator('pre.out').textContent())?.trim()).toBe('1000 rows');
    expect(received).toBe(150);
  });

  test('!set limit 0: a page at a time, to the end', async () => {
    await enterStatement(page, '!set limit 0');
    received = 0;
    const entry = await enterStatement(page, QUERY);
    expect(await xs(entry)).toEqual(expected.slice(0, PAGE));
    await expect.poll(() => received).toBe(PAGE);
    const more = entry.locator('button.more');
    for (let shown = PAGE; shown < 1000; shown += PAGE) {
      expect(await more.textContent()).toBe(`Show ${PAGE} more`);
      await more.click();
      await expect.poll(() => entry.locator('table.result tbody tr').count()).toBe(shown + PAGE);
    }
    expect(await xs(entry)).toEqual(expected);
    await expect.poll(() => received).toBe(1000);
    await expect.poll(() => entry.locator('.pages-text').textContent()).toBe('1000 rows');
    expect(await more.isVisible()).toBe(false);
    await enterStatement(page, '!set limit 50');
  });

  test('a new query closes the previous cursor; the Stop control closes its own', async () => {
    cursors.length = 0;
    const first = await enterStatement(page, QUERY);
    // The response handler reads the body after the page has it: wait for it, not race it.
    await expect.poll(() => cursors.length).toBe(1);
    const closed = page.waitForRequest((r) => r.method() === 'DELETE' && new URL(r.url()).pathname === `/pages/${cursors[0]}`);
    const second = await enterStatement(page, QUERY);
    await closed;
    // The server no longer has it: its scan stopped.
    await expect.poll(async () => (await fetch(`${server.url}/pages/${cursors[0]}?from=${PAGE}`)).status).toBe(404);
    await expect.poll(() => first.locator('.pages-text').textContent()).toMatch(/closed when the next query ran: run this query again to fetch more$/);
    // Rows already in the page still show; none are fetched for it any more.
    await first.locator('button.more').click();
    await expect.poll(() => first.locator('table.result tbody tr').count()).toBe(100);
    expect(await first.locator('button.more').isVisible()).toBe(false);

    await expect.poll(() => cursors.length).toBe(2);
    const stopped = page.waitForRequest((r) => r.method() === 'DELETE' && new URL(r.url()).pathname === `/pages/${cursors[1]}`);
    await second.locator('button.close-pages').click();
    await stopped;
    await expect.poll(async () => (await fetch(`${server.url}/pages/${cursors[1]}/count`)).status).toBe(404);
    await expect.poll(() => second.locator('.pages-text').textContent()).toMatch(/stopped: run the query again to fetch more$/);
    expect(await second.locator('button.close-pages').isVisible()).toBe(false);
  });

  test('!save fetches the rest first and saves the whole result; Escape stops that fetch', async () => {
    received = 0;
    described = 0;
    const entry = await enterStatement(page, QUERY);
    await expect.poll(() => received).toBe(PAGE);
    // Escape while the rest is fetched: `cancelled`, nothing saved, the cursor kept.
    let release = () => {};
    let reached = () => {};
    const atHold = new Promise<void>((r) => (reached = r));
    held = { after: 500, reached, released: new Promise<void>((r) => (release = r)) };
    await page.locator('#input').fill('!save first.tsv');
    await page.locator('#input').press('Enter');
    await atHold;
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
    expect(await page.locator('section.entry:has(pre.echo)').last().locator('pre.err').textContent()).toBe('cancelled');
    release();
    expect(received).toBe(PAGE);
    // Saved again: the page cut off is asked for again (the server kept it), then the rest.
    const download = page.waitForEvent('download');
    await enterStatement(page, '!save all.tsv');
    const tsv = fs.readFileSync((await (await download).path())!, 'utf8');
    expect(tsv).toBe(formatTsv(await session.query(QUERY)));
    await expect.poll(() => received).toBe(1000);
    // The table shows what it showed; the page now holds every row.
    expect(await entry.locator('table.result tbody tr').count()).toBe(50);
    await expect.poll(() => entry.locator('.pages-text').textContent()).toBe('showing 50 of 1000 rows; 1000 fetched (all)');
  });

  test('a result of one page or less comes whole, as before', async () => {
    cursors.length = 0;
    const entry = await enterStatement(page, 'SELECT p.x AS x FROM KnownHeap$Point p WHERE p.x < 30');
    expect(await xs(entry)).toEqual(expected.filter((x) => x < 30));
    expect(cursors).toEqual([]);
    expect(await entry.locator('p.note').last().textContent()).toBe('30 rows');
    expect(await entry.locator('button.more').count()).toBe(0);
    expect(problems.filter((p) => !/ERR_ABORTED|Failed to load resource/.test(p))).toEqual([]);
  });
});
