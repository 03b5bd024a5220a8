/**
 * Paged results in the browser REPL, in real headless Chromium against a real server on a
 * fixture dump (KnownHeap: 1000 KnownHeap$Point objects), with pages of 100 rows
 * (`/repl?pageRows=100`): a result larger than a page shows its first rows and, once counted,
 * its total; "Show more" shows the next rows in order, fetching only what it shows; the rows
 * the server described and the page received for the first display are one page (counted in
 * the server's stream and in the answers the page got); a new query closes the previous
 * cursor (its scan stops in the server), and so does the Stop control; the commands that need
 * the whole result (`!sort`, `!save`…) fetch the rest first, showing the progress, and answer
 * for the whole result, as in the terminal; `!tail` and `!row last` fetch the last rows only
 * (repl-tail.test.ts has more of them); Escape stops a fetch (the command run again fetches on
 * from there); a cursor closed (by the server, Stop, the next query) refuses them.
 */
import fs from 'node:fs';
import path from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import type { HeapSession } from '../../ts/index.js';
import { formatTable, formatTsv } from '../../ts/query/format.js';
import type { QueryResult } from '../../ts/query/schema.js';
import { columnStats, filterRows, rowLines, selectColumns, sortRows, statsResult, tailRows, uniqueValues } from '../../ts/repl/table.js';
import { chromiumAvailable } from './chromium.js';
import { openReplPage, type ReplPage } from './repl-page.js';
import { countRowsReceived, enterStatement, tapQueryStreams } from './repl-server.js';

const DUMP = path.resolve(__dirname, '../../fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const QUERY = 'SELECT p.x AS x, p.y AS y FROM KnownHeap$Point p';
const PAGE = 100;

describe.skipIf(!chromiumAvailable)('browser REPL: paged results', () => {
  let repl: ReplPage;
  let session: HeapSession;
  let page: Page;
  let problems: string[];
  /** Rows the server's query streams handed out (described), since the last reset. */
  let described = 0;
  /** Rows in the answers of /pages… the page received, since the last reset. */
  let received = 0;
  /** The cursors the server gave. */
  const cursors: string[] = [];
  let expected: number[] = [];
  /** The whole result of QUERY, as the server's session answers it. */
  let whole: QueryResult;
  /** A hold of the server's stream once it has described `after` rows. */
  let held: { after: number; reached: () => void; released: Promise<void> } | null = null;

  beforeAll(async () => {
    repl = await openReplPage({
      dump: DUMP,
      noCache: true,
      async prepare(session) {
        whole = await session.query(QUERY);
        expected = whole.rows.map((r) => r[0] as number);
        expect(expected.length).toBe(1000);
        tapQueryStreams(session, async (rows) => {
          described += rows;
          // Held here (the server's scan waits) until the test releases it.
          if (held && described >= held.after) {
            const h = held;
            held = null;
            h.reached();
            await h.released;
          }
        });
      },
      watch(page) {
        countRowsReceived(page, (rows, body) => {
          received += rows;
          if (body.cursor) cursors.push(body.cursor);
        });
      },
      search: `?pageRows=${PAGE}`,
    });
    ({ session, page, problems } = repl);
  });
  afterAll(() => repl?.close());

  const xs = async (entry: ReturnType<Page['locator']>) => (await entry.locator('table.result tbody tr td:first-child').allTextContents()).map(Number);

  test('the first page shows at once with the count; more rows come in order, fetched as shown', async () => {
    described = 0;
    received = 0;
    const entry = await enterStatement(page, QUERY);
    // The display limit (50) of the first page of 100 rows.
    expect(await xs(entry)).toEqual(expected.slice(0, 50));
    const note = entry.locator('.pages-text');
    await expect.poll(() => note.textContent()).toBe('showing 50 of 1000 rows; 100 fetched');
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
    // `!row` says the whole result's count (the server counted it), not the rows fetched so far.
    const row = await enterStatement(page, '!row 150');
    expect(await row.locator('pre.out').textContent()).toMatch(new RegExp(`^row 150 of 1000\\nx += ${expected[149]}\\n`));
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
    await expect.poll(async () => (await fetch(`${repl.server.url}/pages/${cursors[0]}?from=${PAGE}`)).status).toBe(404);
    await expect.poll(() => first.locator('.pages-text').textContent()).toMatch(/closed when the next query ran: run this query again to fetch more$/);
    // Rows already in the page still show; none are fetched for it any more.
    await first.locator('button.more').click();
    await expect.poll(() => first.locator('table.result tbody tr').count()).toBe(100);
    expect(await first.locator('button.more').isVisible()).toBe(false);

    await expect.poll(() => cursors.length).toBe(2);
    const stopped = page.waitForRequest((r) => r.method() === 'DELETE' && new URL(r.url()).pathname === `/pages/${cursors[1]}`);
    await second.locator('button.close-pages').click();
    await stopped;
    await expect.poll(async () => (await fetch(`${repl.server.url}/pages/${cursors[1]}/count`)).status).toBe(404);
    await expect.poll(() => second.locator('.pages-text').textContent()).toMatch(/stopped: run the query again to fetch more$/);
    expect(await second.locator('button.close-pages').isVisible()).toBe(false);
  });

  test('!save fetches the rest first and saves the whole result; Escape stops that fetch', async () => {
    received = 0;
    described = 0;
    const entry = await enterStatement(page, QUERY);
    await expect.poll(() => received).toBe(PAGE);
    // Escape while the rest is fetched: interrupted, nothing saved, the cursor kept.
    let release = () => {};
    let reached = () => {};
    const atHold = new Promise<void>((r) => (reached = r));
    held = { after: 500, reached, released: new Promise<void>((r) => (release = r)) };
    await page.locator('#input').fill('!save first.tsv');
    await page.locator('#input').press('Enter');
    await atHold;
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
    // As the terminal says it: the rows fetched and the cursor stay, the next !save goes on from there.
    expect(await page.locator('section.entry:has(pre.echo)').last().locator('pre.err').textContent()).toBe(
      'error: interrupted; !save needs every row, and 100 of 1000 are fetched: run it again to fetch on from there',
    );
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

  /** Holds the server's stream once it has described `after` rows: `reached` when it is there. */
  function hold(after: number): { reached: Promise<void>; release: () => void } {
    let release = () => {};
    let reached = () => {};
    const atHold = new Promise<void>((r) => (reached = r));
    held = { after, reached, released: new Promise<void>((r) => (release = r)) };
    return { reached: atHold, release };
  }

  /** The text the command printed (not a table). */
  const out = async (entry: ReturnType<Page['locator']>) => (await entry.locator('pre.out').allTextContents()).join('\n');
  const firstColumn = (r: QueryResult, n = 50) => r.rows.slice(0, n).map((row) => Number(row[0]));

  test('the commands that need the whole result fetch the rest first and answer for all of it', async () => {
    // Each on a result of which the page holds the first page only.
    const cases: [string, (entry: ReturnType<Page['locator']>) => Promise<void>][] = [
      ['!tail 2', async (e) => expect(await xs(e)).toEqual(firstColumn(tailRows(whole, 2)))],
      ['!sort x desc', async (e) => expect(await xs(e)).toEqual(firstColumn(sortRows(whole, 'x', true)))],
      [
        '!filter /^9[0-9][0-9]$/',
        async (e) => {
          const f = filterRows(whole, '/^9[0-9][0-9]$/');
          expect(f.rows.length).toBeGreaterThan(10);
          expect(await xs(e)).toEqual(firstColumn(f));
          expect(await e.locator('p.note').last().textContent()).toMatch(new RegExp(`^${f.rows.length} rows`));
        },
      ],
      ['!select y', async (e) => expect(await e.locator('p.note').last().textContent()).toMatch(/^1000 rows/)],
      ['!stats x', async (e) => expect(await out(e)).toBe(formatTable(statsResult(columnStats(whole, 'x'), whole), { footer: false }))],
      ['!unique y 3', async (e) => expect(await out(e)).toBe(formatTable(uniqueValues(whole, 'y', 3)))],
      ['!row last', async (e) => expect(await out(e)).toBe(`row 1000 of 1000\n${rowLines(whole, 999)}`)],
      ['!top 300', async (e) => expect(await e.locator('p.note').last().textContent()).toMatch(/^300 rows/)],
    ];
    // The rows each fetches: every row, but the first 300 for `!top 300`, the last ones for `!tail 2` and `!row last`.
    const fetched: Record<string, number> = { '!top 300': 300, '!tail 2': PAGE + 2, '!row last': PAGE + 1 };
    expect(selectColumns(whole, ['y']).rows.length).toBe(1000);
    for (const [command, check] of cases) {
      received = 0;
      await enterStatement(page, QUERY);
      await expect.poll(() => received).toBe(PAGE);
      const entry = await enterStatement(page, command);
      expect(await entry.locator('pre.err').count(), command).toBe(0);
      await check(entry);
      await expect.poll(() => received, { message: command }).toBe(fetched[command] ?? 1000);
    }
  });

  test('the commands that need only the rows held run at once; one that refuses does so before any fetch', async () => {
    received = 0;
    const entry = await enterStatement(page, QUERY);
    await expect.poll(() => received).toBe(PAGE);
    await expect.poll(() => entry.locator('.pages-text').textContent()).toBe('showing 50 of 1000 rows; 100 fetched');
    expect(await out(await enterStatement(page, '!row 3'))).toBe(`row 3 of 1000\n${rowLines(whole, 2)}`);
    expect(await xs(await enterStatement(page, '!top 10'))).toEqual(expected.slice(0, 10));
    await enterStatement(page, '!undo');
    const refused = await enterStatement(page, '!sort nosuch');
    expect(await refused.locator('pre.err').textContent()).toMatch(/^error: no column 'nosuch' in the last result/);
    expect(await (await enterStatement(page, '!filter /[/')).locator('pre.err').textContent()).toMatch(/^error: bad regular expression/);
    expect(await (await enterStatement(page, '!save whole.txt')).locator('pre.err').textContent()).toMatch(/^error: !save picks the format by extension/);
    expect(received).toBe(PAGE);
    expect(await entry.locator('.pages-text').textContent()).toBe('showing 50 of 1000 rows; 100 fetched');
    // `!row N` up to a page past the rows held fetches the rows up to row N from the cursor.
    expect(await out(await enterStatement(page, '!row 200'))).toBe(`row 200 of 1000\n${rowLines(whole, 199)}`);
    await expect.poll(() => received).toBe(200);
    // Further on, that row alone is read (a run that starts there); the rows held stay 200.
    expect(await out(await enterStatement(page, '!row 301'))).toBe(`row 301 of 1000\n${rowLines(whole, 300)}`);
    await expect.poll(() => received).toBe(201);
    expect(await entry.locator('.pages-text').textContent()).toBe('showing 50 of 1000 rows; 200 fetched');
    // `!row prev`: a page past them again, so fetched from the cursor.
    expect(await out(await enterStatement(page, '!row prev'))).toBe(`row 300 of 1000\n${rowLines(whole, 299)}`);
    await expect.poll(() => received).toBe(301);
    await expect.poll(() => entry.locator('.pages-text').textContent()).toBe('showing 50 of 1000 rows; 300 fetched');
    // Past the count: refused at once, in !row's words, nothing fetched.
    expect(await (await enterStatement(page, '!row 1001')).locator('pre.err').textContent()).toBe('error: there is no row 1001: the result has rows 1-1000');
    expect(received).toBe(301);
  });

  test('!row says the whole count once the server has it, else at least the rows held (N+), as the terminal does', async () => {
    // The server's count (a second run of the query) waits until released.
    const real = session.queryCount.bind(session);
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let asked = 0;
    session.queryCount = async (...args: Parameters<HeapSession['queryCount']>) => {
      asked++;
      await released;
      return real(...args);
    };
    try {
      received = 0;
      const entry = await enterStatement(page, QUERY);
      await expect.poll(() => received).toBe(PAGE);
      await expect.poll(() => asked).toBe(1);
      expect(await entry.locator('.pages-text').textContent()).toBe('showing 50 of … (counting); 100 fetched');
      expect(await out(await enterStatement(page, '!row 3'))).toBe(`row 3 of 100+\n${rowLines(whole, 2)}`);
      expect(await out(await enterStatement(page, '!row 150'))).toBe(`row 150 of 150+\n${rowLines(whole, 149)}`);
      release();
      await expect.poll(() => entry.locator('.pages-text').textContent()).toMatch(/^showing 50 of 1000 rows/);
      expect(await out(await enterStatement(page, '!row next'))).toBe(`row 151 of 1000\n${rowLines(whole, 150)}`);
    } finally {
      release();
      session.queryCount = real;
    }
  });

  test('the fetch shows its progress, and Escape stops it; run again, the command fetches on from there', async () => {
    received = 0;
    described = 0;
    await enterStatement(page, QUERY);
    await expect.poll(() => received).toBe(PAGE);
    const h = hold(500);
    await page.locator('#input').fill('!sort x desc');
    await page.locator('#input').press('Enter');
    await h.reached;
    const progress = page.locator('section.entry:has(pre.echo)').last().locator('p.progress');
    await expect.poll(() => progress.textContent()).toBe('loading rows 100 of 1000 (Escape stops)');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
    const stopped = page.locator('section.entry:has(pre.echo)').last();
    expect(await stopped.locator('pre.err').textContent()).toBe('error: interrupted; !sort needs every row, and 100 of 1000 are fetched: run it again to fetch on from there');
    expect(await stopped.locator('p.progress').count()).toBe(0);
    // Nothing was shaped: the result is the query's still.
    h.release();
    const again = await enterStatement(page, '!sort x desc');
    expect(await xs(again)).toEqual(firstColumn(sortRows(whole, 'x', true)));
    await expect.poll(() => received).toBe(1000);
  });

  test('a command waits for a Show more fetch under way and goes on after it', async () => {
    await enterStatement(page, '!set limit 0');
    received = 0;
    described = 0;
    const entry = await enterStatement(page, QUERY);
    await expect.poll(() => received).toBe(PAGE);
    // The next page's fetch is held in the server (its look one batch ahead).
    const h = hold(3 * PAGE);
    await entry.locator('button.more').click();
    await h.reached;
    await page.locator('#input').fill('!sort x desc');
    await page.locator('#input').press('Enter');
    await expect.poll(() => page.locator('#input').isDisabled()).toBe(true);
    h.release();
    await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
    const sorted = page.locator('section.entry:has(pre.echo)').last();
    expect(await xs(sorted)).toEqual(firstColumn(sortRows(whole, 'x', true), 1000));
    await expect.poll(() => entry.locator('table.result tbody tr').count()).toBe(2 * PAGE);
    await expect.poll(() => received).toBe(1000);
    await enterStatement(page, '!set limit 50');
  });

  test('a cursor closed (by the server, the Stop control, the next query) refuses such a command: run the query again', async () => {
    // The server closes a cursor unused for its idle time as DELETE does (then it answers 404).
    cursors.length = 0;
    received = 0;
    const first = await enterStatement(page, QUERY);
    await expect.poll(() => cursors.length).toBe(1);
    expect((await fetch(`${repl.server.url}/pages/${cursors[0]}`, { method: 'DELETE' })).status).toBeLessThan(300);
    const refused = await enterStatement(page, '!tail 2');
    expect(await refused.locator('pre.err').textContent()).toBe(
      "error: !tail needs the last 2 rows, and 100 of 1000 are fetched; the server has closed this result's cursor (unused for a while, or replaced by newer results of this or another tab): run the query again to fetch the rest",
    );
    expect(await refused.locator('table').count()).toBe(0);
    await expect.poll(() => first.locator('.pages-text').textContent()).toMatch(/; the server has closed this result's cursor .*: run the query again to fetch the rest$/);
    // Refused again at once: nothing more is asked of the server.
    expect(await (await enterStatement(page, '!row last')).locator('pre.err').textContent()).toMatch(/^error: !row last needs the last row, and 100 of 1000 are fetched; the server has closed/);

    // The Stop control under the table while the rest is fetched.
    const second = await enterStatement(page, QUERY);
    const h = hold(500);
    await page.locator('#input').fill('!sort x desc');
    await page.locator('#input').press('Enter');
    await h.reached;
    await second.locator('button.close-pages').click();
    await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
    h.release();
    expect(await page.locator('section.entry:has(pre.echo)').last().locator('pre.err').textContent()).toBe(
      'error: !sort needs every row, and 100 of 1000 are fetched; stopped: run the query again to fetch more',
    );

    // Closed by the next query: back to it with !undo, it is refused the same way.
    await enterStatement(page, QUERY);
    await enterStatement(page, QUERY);
    await enterStatement(page, '!undo');
    expect(await (await enterStatement(page, '!stats')).locator('pre.err').textContent()).toBe(
      'error: !stats needs every row, and 100 of 1000 are fetched; closed when the next query ran: run this query again to fetch more',
    );
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
