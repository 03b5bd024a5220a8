/**
 * Running statements in the browser REPL, in real headless Chromium against a real server whose
 * query scans can be held (the session's `queryBatches` waits for the test): a running statement
 * shows a running indicator with its elapsed time; Escape, Ctrl-C and the Stop button cancel
 * it (`cancelled`, as the terminal's Ctrl-C says) and the server stops its scan; a pasted text
 * runs statement by statement, and a cancel drops its rest (`cancelled (the rest of the paste
 * did not run)`); a scan that fails past the first page says so when more rows are asked for;
 * `!set limit 0` on 20 000 rows draws the first page (the rest come a page at a time);
 * Escape during `!analyze` cancels the analysis it started (in the server too), and only stops
 * waiting for one started elsewhere.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { HeapqlError } from '../../ts/errors.js';
import type { HeapSession } from '../../ts/index.js';
import { PAGE_ROWS_DEFAULT } from '../../ts/web/pages.js';
import { chromiumAvailable } from './chromium.js';
import { openReplPage, type ReplPage } from './repl-page.js';
import { DEMO_DUMP, enterStatement } from './repl-server.js';

/** What the next query scan does: run, wait for `release` (or its abort), or fail after some batches. */
interface Hold {
  released: Promise<void>;
  release: () => void;
  /** The server's signal of the scan was aborted (the page went away from the answer). */
  aborted: boolean;
  /** Fail after this many rows (at a batch's end) instead of waiting. */
  failAfter?: number;
}

describe.skipIf(!chromiumAvailable)('browser REPL: running, cancelling, pasting, large answers', () => {
  let repl: ReplPage;
  let session: HeapSession;
  let page: Page;
  let problems: string[];
  let hold: Hold | null = null;

  function holdNext(failAfter?: number): Hold {
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    hold = { released, release, aborted: false, ...(failAfter !== undefined ? { failAfter } : {}) };
    return hold;
  }

  beforeAll(async () => {
    repl = await openReplPage({
      dump: DEMO_DUMP,
      prepare(session) {
        const real = session.queryBatches.bind(session);
        session.queryBatches = (q, options = {}) => {
          const h = hold;
          hold = null;
          if (!h) return real(q, options);
          return (async function* () {
            const signal = options.signal!;
            if (h.failAfter !== undefined) {
              let rows = 0;
              const batches = real(q, options);
              for (;;) {
                const next = await batches.next();
                if (next.done) return next.value;
                if (rows >= h.failAfter) throw new HeapqlError('ERR_IO', 'the dump became unreadable');
                rows += next.value.rows.length;
                yield next.value;
              }
            }
            await Promise.race([h.released, new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }))]);
            if (signal.aborted) {
              h.aborted = true;
              throw new HeapqlError('ERR_CANCELLED', 'cancelled');
            }
            return yield* real(q, options);
          })();
        };
      },
    });
    ({ session, page, problems } = repl);
  });
  afterAll(async () => {
    hold?.release();
    await repl?.close();
  });

  const entries = () => page.locator('section.entry:has(pre.echo)');
  const last = () => entries().last();

  /** Enters `text` and waits until its first statement runs (held). */
  async function startHeld(text: string): Promise<Hold> {
    const h = holdNext();
    await page.locator('#input').fill(text);
    await page.locator('#input').press('Enter');
    await page.locator('#running').waitFor();
    return h;
  }

  async function idle(): Promise<void> {
    await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
    expect(await page.locator('#running').isVisible()).toBe(false);
  }

  test('a running query shows its elapsed time; Escape cancels it, and the server stops its scan', async () => {
    const h = await startHeld('SELECT COUNT(*) AS n FROM java.lang.String');
    await expect.poll(() => page.locator('#elapsed').textContent()).toMatch(/^[1-9]\d*\.\d s$/);
    expect(await page.locator('#stop').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await idle();
    expect(await last().locator('pre.err').textContent()).toBe('cancelled');
    await expect.poll(() => h.aborted).toBe(true);
    // The page is usable at once.
    const entry = await enterStatement(page, 'SELECT COUNT(*) AS n FROM Demo$Session');
    expect(await entry.locator('tbody td').textContent()).toBe('400');
  });

  test('Ctrl-C and the Stop button cancel too', async () => {
    let h = await startHeld('SELECT COUNT(*) AS n FROM java.lang.String');
    await page.keyboard.press('Control+c');
    await idle();
    expect(await last().locator('pre.err').textContent()).toBe('cancelled');
    await expect.poll(() => h.aborted).toBe(true);
    h = await startHeld('SELECT COUNT(*) AS n FROM java.lang.String');
    await page.locator('#stop').click();
    await idle();
    expect(await last().locator('pre.err').textContent()).toBe('cancelled');
    await expect.poll(() => h.aborted).toBe(true);
  });

  test('pasted statements run one by one; a cancel drops the rest', async () => {
    const before = await entries().count();
    await page.locator('#input').fill('SELECT COUNT(*) AS a FROM java.lang.String;\nSELECT COUNT(*) AS b FROM Demo$Session;\n!set limit 5\n!count');
    await page.locator('#input').press('Enter');
    await expect.poll(() => entries().count()).toBe(before + 4);
    await idle();
    const echoes = await entries().locator('pre.echo').allTextContents();
    expect(echoes.slice(before)).toEqual([
      'oql> SELECT COUNT(*) AS a FROM java.lang.String;',
      'oql> SELECT COUNT(*) AS b FROM Demo$Session;',
      'oql> !set limit 5',
      'oql> !count',
    ]);
    expect(await entries().nth(before + 1).locator('th').textContent()).toBe('b');
    expect(await last().textContent()).toMatch(/1 row/);

    // A statement that does not end a line's statement: a query, then a command; the open rest stays.
    await page.locator('#input').fill('SELECT s FROM Demo$Session s\nWHERE s.createdAt > 0\n!count\nSELECT s\nFROM');
    await page.locator('#input').press('Enter');
    await expect.poll(() => entries().count()).toBe(before + 6);
    await idle();
    expect(await entries().nth(before + 4).locator('pre.echo').textContent()).toBe('oql> SELECT s FROM Demo$Session s\n...> WHERE s.createdAt > 0');
    expect(await last().locator('pre.out').first().textContent()).toMatch(/400 rows/);
    expect(await page.locator('#input').inputValue()).toBe('SELECT s\nFROM');
    await page.locator('#input').fill('');

    // Cancelled: the rest does not run, and the page says so.
    const count = await entries().count();
    const h = await startHeld('SELECT COUNT(*) AS c FROM java.lang.String\nSELECT COUNT(*) AS d FROM Demo$Session\n!count');
    await page.keyboard.press('Escape');
    await idle();
    await expect.poll(() => h.aborted).toBe(true);
    expect(await entries().count()).toBe(count + 1);
    expect(await last().locator('pre.err').textContent()).toBe('cancelled (the rest of the paste did not run)');
  });

  test('a scan that fails after the first page says so when more rows are asked for, not "internal error"', async () => {
    await enterStatement(page, '!set limit 0');
    // 20 437 rows, pages of 1000: the scan fails as it reads past the first page's rows.
    holdNext(PAGE_ROWS_DEFAULT);
    const entry = await enterStatement(page, 'SELECT x, x.@usedHeapSize AS size FROM INSTANCEOF java.lang.Object x');
    expect(await entry.locator('table.result tbody tr').count()).toBe(PAGE_ROWS_DEFAULT);
    await entry.locator('button.more').click();
    await expect.poll(() => entry.locator('.pages-text').textContent()).toMatch(/; the rest cannot be fetched: .*the dump became unreadable/);
    expect(await entry.locator('.pages-text').textContent()).not.toMatch(/internal error/);
    expect(await entry.locator('table.result tbody tr').count()).toBe(PAGE_ROWS_DEFAULT);
    expect(await entry.locator('button.more').isVisible()).toBe(false);
    await enterStatement(page, '!set limit 50');
  });

  test('!set limit 0 on 20 000 rows draws the first page and the count, and says how to see more', async () => {
    problems.length = 0;
    await enterStatement(page, '!set limit 0');
    const entry = await enterStatement(page, 'SELECT x, x.@usedHeapSize AS size FROM INSTANCEOF java.lang.Object x');
    const rows = await entry.locator('table.result tbody tr').count();
    expect(rows).toBe(PAGE_ROWS_DEFAULT);
    await expect.poll(() => entry.locator('.pages-text').textContent()).toBe('showing 1000 of 20437 rows; 1000 fetched');
    expect(await entry.locator('button.more').textContent()).toBe('Show 1000 more');
    // The page still answers, with the whole result's count (the server's), not the rows held.
    const count = await enterStatement(page, '!count');
    expect((await count.locator('pre.out').textContent())?.trim()).toBe('20437 rows');
    await enterStatement(page, '!set limit 50');
    expect(problems.filter((p) => !/ERR_ABORTED|Failed to load resource/.test(p))).toEqual([]);
  });

  /**
   * Holds the start of the next native analysis until `release()`: the analysis is running as
   * far as the server knows (`analyzing`), and a cancel that comes meanwhile reaches the native
   * call as a cancelled token, which it honours at once.
   */
  function holdAnalysis(): () => void {
    const handle = session.handle as unknown as { analyze: (...a: unknown[]) => Promise<unknown> };
    const real = handle.analyze;
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    handle.analyze = async (...a: unknown[]) => {
      handle.analyze = real;
      await gate;
      return real.apply(handle, a);
    };
    return release;
  }

  test('!analyze: Escape cancels the analysis it started, in the server too (DELETE /analyze)', async () => {
    const release = holdAnalysis();
    try {
      await page.locator('#input').fill('!analyze');
      await page.locator('#input').press('Enter');
      await page.locator('#running').waitFor();
      await expect.poll(() => page.locator('#state-text').textContent()).toMatch(/analyzing/);
      const cancel = page.waitForRequest((r) => r.method() === 'DELETE' && new URL(r.url()).pathname === '/analyze');
      await page.keyboard.press('Escape');
      await cancel;
    } finally {
      release();
    }
    await idle();
    expect(await last().locator('pre.err').textContent()).toBe('cancelled');
    expect(session.analyzed).toBe(false);
    expect(session.status.state).toBe('query-only');
    await expect.poll(() => page.locator('#state-text').textContent()).toBe('query-only (analysis cancelled)');
    expect(await page.locator('#state-text').getAttribute('title')).toMatch(/^the last analysis was cancelled/);
  });

  test('!analyze: Ctrl-C stops waiting for an analysis started elsewhere, which goes on', async () => {
    const release = holdAnalysis();
    try {
      // Another client of the server started it.
      expect(session.startAnalysis()).toBe('started');
      await page.locator('#input').fill('!analyze');
      await page.locator('#input').press('Enter');
      await page.locator('#running').waitFor();
      await expect.poll(() => page.locator('#state-text').textContent()).toMatch(/analyzing/);
      await page.keyboard.press('Control+c');
      await idle();
      expect(await last().locator('pre.err').textContent()).toBe(
        'error: stopped waiting; the analysis was started elsewhere (another tab or client) and goes on in the server (the status line shows it; DELETE /analyze stops it)',
      );
      expect(session.status.state).toBe('analyzing');
    } finally {
      release();
    }
    await expect.poll(() => page.locator('#state-text').textContent(), { timeout: 60_000 }).toMatch(/analyzed/);
  });
});
