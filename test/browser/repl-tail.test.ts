/**
 * `!tail [N]` and `!row last` on a large paged result in the browser REPL, in real headless
 * Chromium against a real server on a fixture dump (KnownHeap: 168 473 objects, pages of the
 * default 1000 rows): they show the whole result's last rows (a plain select, ORDER BY, a LIMIT)
 * and fetch only those: the page asks the server's count, then the rows from count − N on
 * (`GET /pages/<id>/rows`, a run of the query that seeks there), never the cursor's next pages,
 * and the server's streams hand over the first page (and the batch looked at past it) and the
 * last rows, nothing between. A result shorter than N has its rest fetched from the cursor as
 * before; Escape stops the read of the last rows, as it stops a fetch, and the command runs
 * again; a count that fails is said (by `!tail` and `!count`), not waited for. `!row N` far
 * past the rows held (more than a page) reads that row alone the same way (`rows=1`), and so do
 * `!row prev`, `next` and bare `!row` on a row not held (after `!row last`); a row past the
 * count is refused at once.
 */
import path from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { HeapqlError } from '../../ts/errors.js';
import type { HeapSession } from '../../ts/index.js';
import type { QueryResult } from '../../ts/query/schema.js';
import { rowLines } from '../../ts/repl/table.js';
import { chromiumAvailable } from './chromium.js';
import { openReplPage, type ReplPage } from './repl-page.js';
import { countRowsReceived, enterStatement, tapQueryStreams } from './repl-server.js';

const DUMP = path.resolve(__dirname, '../../fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const QUERY = 'SELECT o.@objectId AS id, o.@usedHeapSize AS size FROM INSTANCEOF java.lang.Object o';
const SORTED = `${QUERY} ORDER BY size DESC`;
const PAGE = 1000;

/** A read of rows far on that Escape stops (test.each below): `!row` of one row, `!tail` of the last rows. */
interface StoppedRead {
  command: string;
  /** What the entry says while the rows are read, for a result of `n` rows. */
  progress: (n: number) => string;
  /** What the entry says once stopped. */
  interrupted: string;
  /** What the entry stopped shows none of (the command's output). */
  nothingShown: string;
  /** The page's request for the rows, for a result of `n` rows: made by the read stopped, then by the command run again. */
  request: (n: number) => string;
  /** Checks what the command run again shows (and, for `!row`, the rows received). */
  readAgain: (again: Locator, whole: QueryResult) => Promise<void>;
}

describe.skipIf(!chromiumAvailable)('browser REPL: !tail, !row last and !row N far on fetch only the rows they say', () => {
  let repl: ReplPage;
  let session: HeapSession;
  let page: Page;
  let problems: string[];
  /** Rows the server's query streams handed out, since the last reset. */
  let described = 0;
  /** Rows in the answers of /pages… the page received, since the last reset. */
  let received = 0;
  /** The page's requests for rows (`GET /pages/…` but `/count`), as method and path with query. */
  let asked: string[] = [];
  /** A hold of the server's next stream of a run from a row on (`skip` > 0): `reached` when there. */
  let held: { reached: () => void; released: Promise<void> } | null = null;
  /** The rows the server's runs from a row on started at (`skip` > 0), since the last reset. */
  let seeks: number[] = [];

  beforeAll(async () => {
    repl = await openReplPage({
      dump: DUMP,
      noCache: true,
      prepare(session) {
        tapQueryStreams(session, async (rows, options) => {
          described += rows;
          if (held && (options.skip ?? 0) > 0) {
            const h = held;
            held = null;
            h.reached();
            await h.released;
          }
        });
        const tapped = session.queryBatches.bind(session);
        session.queryBatches = (q, options = {}) => {
          if ((options.skip ?? 0) > 0) seeks.push(options.skip!);
          return tapped(q, options);
        };
      },
      watch(page) {
        page.on('request', (r) => {
          const url = new URL(r.url());
          if (r.method() === 'GET' && url.pathname.startsWith('/pages/') && !url.pathname.endsWith('/count')) asked.push(`${url.pathname.replace(/^\/pages\/[^/]+/, '/pages/<id>')}${url.search}`);
        });
        countRowsReceived(page, (rows) => (received += rows));
      },
    });
    ({ session, page, problems } = repl);
  });
  afterAll(() => repl?.close());

  /** Holds the server's next run from a row on: `atHold` once it waits there, `release` lets it go on. */
  const holdNextSeek = () => {
    let release = () => {};
    let reached = () => {};
    const atHold = new Promise<void>((r) => (reached = r));
    held = { reached, released: new Promise<void>((r) => (release = r)) };
    return { atHold, release: () => release() };
  };

  const reset = () => {
    described = 0;
    received = 0;
    asked = [];
    seeks = [];
  };
  /** The rows of an entry's table, as numbers. */
  const tableRows = async (entry: Locator) =>
    entry.locator('table.result tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent))));
  /** A query entered; its first page received and its count shown. */
  async function paged(query: string, total: number): Promise<Locator> {
    reset();
    const entry = await enterStatement(page, query);
    await expect.poll(() => received).toBe(PAGE);
    await expect.poll(() => entry.locator('.pages-text').textContent()).toBe(`showing 50 of ${total} rows; ${PAGE} fetched`);
    return entry;
  }
  /** What the server's streams and the page read, once the page received more than `after` rows. */
  async function reads(after = PAGE): Promise<{ received: number; described: number; asked: string[] }> {
    await expect.poll(() => received).toBeGreaterThan(after);
    return { received, described, asked };
  }

  test('!tail 5 on 168 473 rows: the last five, and only they are fetched; !row last likewise', async () => {
    const whole = await session.query(QUERY);
    const n = whole.rows.length;
    expect(n).toBeGreaterThan(100_000);
    const query = await paged(QUERY, n);
    const firstPage = described;
    expect(firstPage).toBeLessThanOrEqual(2 * PAGE);

    const tail = await enterStatement(page, '!tail 5');
    expect(await tail.locator('pre.err').count()).toBe(0);
    expect(await tableRows(tail)).toEqual(whole.rows.slice(-5));
    expect(await tail.locator('p.note').last().textContent()).toMatch(/^5 rows/);
    // The page asked for the last five rows and nothing else: no page of the cursor.
    const r = await reads();
    expect(r.asked).toEqual([`/pages/<id>/rows?from=${n - 5}&rows=5`]);
    expect(r.received).toBe(PAGE + 5);
    // The server's streams handed out the first page (and the batch past it) and the five.
    expect(r.described).toBe(firstPage + 5);
    // The query's table still says what it holds; !undo brings the paged result back.
    expect(await query.locator('.pages-text').textContent()).toBe(`showing 50 of ${n} rows; ${PAGE} fetched`);
    await enterStatement(page, '!undo');

    const before = { received, described };
    asked = [];
    const row = await enterStatement(page, '!row last');
    expect(await row.locator('pre.out').textContent()).toBe(`row ${n} of ${n}\n${rowLines(whole, n - 1)}`);
    const last = await reads(before.received);
    expect(last.asked).toEqual([`/pages/<id>/rows?from=${n - 1}&rows=1`]);
    expect(last.received).toBe(before.received + 1);
    expect(last.described).toBe(before.described + 1);
    expect(problems.filter((p) => !/ERR_ABORTED|Failed to load resource/.test(p))).toEqual([]);
  });

  test('!tail 25000, more rows than a request may ask: three requests, one run of the query from the first of them', async () => {
    const whole = await session.query(QUERY);
    const n = whole.rows.length;
    await paged(QUERY, n);
    const firstPage = described;
    const tail = await enterStatement(page, '!tail 25000');
    expect(await tail.locator('pre.err').count()).toBe(0);
    const shown = await tableRows(tail);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toEqual(whole.rows.slice(n - 25_000, n - 25_000 + shown.length));
    const r = await reads();
    expect(r.asked).toEqual([`/pages/<id>/rows?from=${n - 25_000}&rows=10000`, `/pages/<id>/rows?from=${n - 15_000}&rows=10000`, `/pages/<id>/rows?from=${n - 5000}&rows=5000`]);
    expect(r.received).toBe(PAGE + 25_000);
    // The query ran once from its 25 000th row from the end, not again to each request's first row:
    // the server's streams handed out the first page (and the batch past it) and those rows, each once.
    expect(seeks).toEqual([n - 25_000]);
    expect(r.described).toBe(firstPage + 25_000);
    // They are the result's last rows, to its end.
    const end = await enterStatement(page, '!tail 3');
    expect(await tableRows(end)).toEqual(whole.rows.slice(-3));
    await enterStatement(page, '!undo');
    await enterStatement(page, '!undo');
    expect(problems.filter((p) => !/ERR_ABORTED|Failed to load resource/.test(p))).toEqual([]);
  });

  test('!row 150000 reads that row alone; !row last, then !row prev, bare !row and !row next, one row each', async () => {
    const whole = await session.query(QUERY);
    const n = whole.rows.length;
    const N = 150_000;
    expect(n).toBeGreaterThan(N);
    const query = await paged(QUERY, n);
    const firstPage = described;
    const row = await enterStatement(page, `!row ${N}`);
    expect(await row.locator('pre.err').count()).toBe(0);
    expect(await row.locator('pre.out').textContent()).toBe(`row ${N} of ${n}\n${rowLines(whole, N - 1)}`);
    const r = await reads();
    // One request, for that row only: no page of the cursor.
    expect(r.asked).toEqual([`/pages/<id>/rows?from=${N - 1}&rows=1`]);
    expect(r.received).toBe(PAGE + 1);
    // The server's run described that row and the one (a batch of one row) it looked at past it.
    expect(r.described).toBe(firstPage + 2);
    // The cursor and the rows held stay as they were.
    expect(await query.locator('.pages-text').textContent()).toBe(`showing 50 of ${n} rows; ${PAGE} fetched`);

    /** Runs a `!row` and checks it said row `at` (1-based), read by one request of one row. */
    const oneRow = async (statement: string, at: number) => {
      const before = received;
      asked = [];
      const entry = await enterStatement(page, statement);
      expect(await entry.locator('pre.out').textContent(), statement).toBe(`row ${at} of ${n}\n${rowLines(whole, at - 1)}`);
      await expect.poll(() => received, { message: statement }).toBe(before + 1);
      expect(asked, statement).toEqual([`/pages/<id>/rows?from=${at - 1}&rows=1`]);
    };
    await oneRow('!row next', N + 1);
    await oneRow('!row last', n);
    await oneRow('!row prev', n - 1);
    await oneRow('!row', n - 1);
    await oneRow('!row next', n);
    // Past the last row (the count known): refused at once, in !row's words, nothing asked.
    asked = [];
    const before = received;
    for (const [statement, at] of [
      ['!row next', n + 1],
      [`!row ${n + 5000}`, n + 5000],
    ] as const) {
      const past = await enterStatement(page, statement);
      expect(await past.locator('pre.err').textContent(), statement).toBe(`error: there is no row ${at}: the result has rows 1-${n}`);
    }
    // Within the rows held, or up to a page past them: from the cursor, as before.
    expect(await (await enterStatement(page, '!row 2000')).locator('pre.out').textContent()).toBe(`row 2000 of ${n}\n${rowLines(whole, 1999)}`);
    await expect.poll(() => received).toBe(before + PAGE);
    expect(asked).toEqual([`/pages/<id>?from=${PAGE}&rows=${PAGE}`]);
    await expect.poll(() => query.locator('.pages-text').textContent()).toBe(`showing 50 of ${n} rows; ${2 * PAGE} fetched`);
    expect(problems.filter((p) => !/ERR_ABORTED|Failed to load resource/.test(p))).toEqual([]);
  });

  test('!row N on a sorted result and on one with a LIMIT: the whole result’s row N', async () => {
    for (const [query, at] of [
      [SORTED, 120_000],
      [`${QUERY} LIMIT 50000`, 45_000],
    ] as const) {
      const whole = await session.query(query);
      const n = whole.rows.length;
      await paged(query, n);
      const row = await enterStatement(page, `!row ${at}`);
      expect(await row.locator('pre.out').textContent(), query).toBe(`row ${at} of ${n}\n${rowLines(whole, at - 1)}`);
      const r = await reads();
      expect(r.asked, query).toEqual([`/pages/<id>/rows?from=${at - 1}&rows=1`]);
      expect(r.received, query).toBe(PAGE + 1);
    }
  });

  test('!row N before the count came: the row says N+; past the end, the count is waited for and said', async () => {
    const whole = await session.query(QUERY);
    const n = whole.rows.length;
    // The server's count (a second run of the query) waits until released.
    const real = session.queryCount.bind(session);
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let counting = 0;
    session.queryCount = async (...args: Parameters<HeapSession['queryCount']>) => {
      counting++;
      await released;
      return real(...args);
    };
    try {
      reset();
      const entry = await enterStatement(page, QUERY);
      await expect.poll(() => received).toBe(PAGE);
      await expect.poll(() => counting).toBe(1);
      expect(await entry.locator('.pages-text').textContent()).toBe(`showing 50 of … (counting); ${PAGE} fetched`);
      const row = await enterStatement(page, '!row 100000');
      expect(await row.locator('pre.out').textContent()).toBe(`row 100000 of 100000+\n${rowLines(whole, 99_999)}`);
      expect(asked).toEqual(['/pages/<id>/rows?from=99999&rows=1']);
      // Past the end: the run reads no row, and the count is waited for to say where the result ends.
      await page.locator('#input').fill(`!row ${n + 1}`);
      await page.locator('#input').press('Enter');
      const past = page.locator('section.entry:has(pre.echo)').last();
      await expect.poll(() => past.locator('p.progress').textContent()).toBe(`counting the rows: the result ends before row ${n + 1} (Escape stops)`);
      release();
      await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
      expect(await past.locator('pre.err').textContent()).toBe(`error: there is no row ${n + 1}: the result has rows 1-${n}`);
      expect(await past.locator('p.progress').count()).toBe(0);
      expect(asked).toEqual(['/pages/<id>/rows?from=99999&rows=1', `/pages/<id>/rows?from=${n}&rows=1`]);
    } finally {
      release();
      session.queryCount = real;
    }
  });

  test.each<[read: string, it: string, StoppedRead]>([
    [
      'row N',
      'it',
      {
        command: '!row 150000',
        progress: (n) => `loading row 150000 of ${n} (Escape stops)`,
        interrupted: 'error: interrupted; !row needs row 150000: run it again',
        nothingShown: 'pre.out:not(.err)',
        request: () => '/pages/<id>/rows?from=149999&rows=1',
        async readAgain(again, whole) {
          expect(await again.locator('pre.out').textContent()).toBe(`row 150000 of ${whole.rows.length}\n${rowLines(whole, 149_999)}`);
          expect(received).toBe(PAGE + 1);
        },
      },
    ],
    [
      'the last rows',
      'them',
      {
        command: '!tail 5',
        progress: (n) => `loading the last 5 rows of ${n} (Escape stops)`,
        interrupted: 'error: interrupted; !tail needs the last 5 rows: run it again',
        nothingShown: 'table',
        request: (n) => `/pages/<id>/rows?from=${n - 5}&rows=5`,
        async readAgain(again, whole) {
          expect(await tableRows(again)).toEqual(whole.rows.slice(-5));
        },
      },
    ],
  ])('the read of %s shows its progress, and Escape stops it; run again, the command reads %s', async (_read, _it, c) => {
    const whole = await session.query(QUERY);
    const n = whole.rows.length;
    await paged(QUERY, n);
    const { atHold, release } = holdNextSeek();
    try {
      await page.locator('#input').fill(c.command);
      await page.locator('#input').press('Enter');
      await atHold;
      const entry = page.locator('section.entry:has(pre.echo)').last();
      await expect.poll(() => entry.locator('p.progress').textContent()).toBe(c.progress(n));
      await page.keyboard.press('Escape');
      await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
      expect(await entry.locator('pre.err').textContent()).toBe(c.interrupted);
      expect(await entry.locator('p.progress').count()).toBe(0);
      expect(await entry.locator(c.nothingShown).count()).toBe(0);
    } finally {
      held = null;
      release();
    }
    // Nothing was shaped, the cursor stays: run again, the command reads its rows.
    await c.readAgain(await enterStatement(page, c.command), whole);
    // Only those rows were asked for, by the read stopped and by the one run again.
    expect(asked).toEqual([c.request(n), c.request(n)]);
  });

  test('ORDER BY and a LIMIT: the same rows as the whole result’s end', async () => {
    for (const [query, limitedTo] of [
      [SORTED, null],
      [`${QUERY} LIMIT 2500`, 2500],
      [`${SORTED} LIMIT 2500`, 2500],
    ] as const) {
      const whole = await session.query(query);
      const n = whole.rows.length;
      if (limitedTo !== null) expect(n).toBe(limitedTo);
      await paged(query, n);
      const tail = await enterStatement(page, '!tail 7');
      expect(await tail.locator('pre.err').count(), query).toBe(0);
      expect(await tableRows(tail), query).toEqual(whole.rows.slice(-7));
      const r = await reads();
      expect(r.asked, query).toEqual([`/pages/<id>/rows?from=${n - 7}&rows=7`]);
      expect(r.received, query).toBe(PAGE + 7);
    }
  });

  test('a result shorter than N: the rows after the page come from the cursor, to the end', async () => {
    const whole = await session.query(`${QUERY} LIMIT 1500`);
    await paged(`${QUERY} LIMIT 1500`, 1500);
    const tail = await enterStatement(page, '!tail 2000');
    expect(await tail.locator('pre.err').count()).toBe(0);
    expect(await tableRows(tail)).toEqual(whole.rows.slice(0, 50));
    expect(await tail.locator('p.note').last().textContent()).toMatch(/1500 rows/);
    // (A fetch of every row asks for as many as a request may: the server's page ends at the end.)
    const r = await reads();
    expect(r.asked).toEqual([`/pages/<id>?from=${PAGE}&rows=10000`]);
    expect(r.received).toBe(1500);
  });

  test('a count that fails is said by !tail, !count and !row past the end, not waited for', async () => {
    // The server's count of an unsorted result (a second run) fails, as a count of a cell too large does.
    const real = session.queryCount.bind(session);
    session.queryCount = () => Promise.reject(new HeapqlError('ERR_TOO_LARGE', 'a cell of row 7 is too large to hold'));
    try {
      reset();
      const entry = await enterStatement(page, QUERY);
      await expect.poll(() => received).toBe(PAGE);
      const tail = await enterStatement(page, '!tail 5');
      expect(await tail.locator('pre.err').textContent()).toBe('error: !tail needs the last 5 rows: the server could not count the result, which finds them: a cell of row 7 is too large to hold');
      const count = await enterStatement(page, '!count');
      expect(await count.locator('pre.err').textContent()).toBe('error: the server could not count the result: a cell of row 7 is too large to hold');
      expect(asked).toEqual([]);
      expect(received).toBe(PAGE);
      expect(await entry.locator('.pages-text').textContent()).toBe(`showing 50 of … (the server could not count them); ${PAGE} fetched`);
      // `!row N` far on needs no count: its row is read, the count said as at least that row.
      const whole = await session.query(QUERY);
      const row = await enterStatement(page, '!row 150000');
      expect(await row.locator('pre.out').textContent()).toBe(`row 150000 of 150000+\n${rowLines(whole, 149_999)}`);
      expect(asked).toEqual(['/pages/<id>/rows?from=149999&rows=1']);
      // Past the end, the count that failed is said.
      const past = await enterStatement(page, `!row ${whole.rows.length + 1}`);
      expect(await past.locator('pre.err').textContent()).toBe(
        `error: there is no row ${whole.rows.length + 1}: the result has fewer rows, and the server could not count them: a cell of row 7 is too large to hold`,
      );
      // The cursor stays: its rows are still there to be shown.
      await entry.locator('button.more').click();
      await expect.poll(() => entry.locator('table.result tbody tr').count()).toBe(100);
    } finally {
      session.queryCount = real;
    }
  });
});
