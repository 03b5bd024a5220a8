/**
 * An analysis that fails while the page only watches it (started elsewhere: another tab, POST
 * /analyze, a report request): the status line says `analysis failed` and held the reason only
 * as a tooltip, which neither the keyboard nor a screen reader reaches. The page now says the
 * reason once in the output (an alert); an `!analyze` of its own says it itself, once.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { chromiumAvailable } from './chromium.js';
import { openReplPage, type ReplPage } from './repl-page.js';
import { DEMO_DUMP, enterStatement } from './repl-server.js';

const REASON = /object 0x10 refers to itself 3 times/;

describe.skipIf(!chromiumAvailable)('browser REPL: an analysis that fails', () => {
  let repl: ReplPage;
  let page: Page;
  let requests: string[];
  /** The failure waits for this (the page sees the analysis run first). */
  let held: Promise<void> = Promise.resolve();
  /** Until the page has polled GET /status `n` more times. */
  async function polls(n: number): Promise<void> {
    const seen = requests.filter((r) => r.endsWith('/status')).length;
    await expect.poll(() => requests.filter((r) => r.endsWith('/status')).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(seen + n);
  }

  beforeAll(async () => {
    repl = await openReplPage({
      dump: DEMO_DUMP,
      noCache: true,
      prepare(session) {
        // The native analysis fails (as on a dump whose graph cannot be built).
        const handle = session.handle as unknown as { analyze: (...a: unknown[]) => Promise<unknown> };
        handle.analyze = async () => {
          await held;
          throw new Error('ERR_CORRUPT: object 0x10 refers to itself 3 times');
        };
      },
    });
    ({ page, requests } = repl);
  });
  afterAll(() => repl?.close());

  test('started elsewhere: the reason is said in the output, once', async () => {
    await enterStatement(page, 'SELECT COUNT(*) FROM Demo$Session');
    const answer = await fetch(`${repl.server.url}/analyze`, { method: 'POST' });
    expect(await answer.json()).toEqual({ ok: true, status: 'started' });
    await expect.poll(() => page.locator('#state-text').textContent()).toBe('analysis failed');
    const alert = page.locator('#output [role=alert]');
    await expect.poll(() => alert.count()).toBe(1);
    expect(await alert.innerText()).toMatch(new RegExp(`^The analysis failed: .*${REASON.source}`));
    // The next polls see the same failure: not said again.
    await polls(2);
    expect(await alert.count()).toBe(1);
  });

  test('its own !analyze says the failure itself, not twice', async () => {
    const before = await page.locator('#output [role=alert]').count();
    let release = () => {};
    held = new Promise((r) => (release = r));
    const entered = enterStatement(page, '!analyze');
    // The page's poll sees it run, then fail, while its !analyze waits.
    await expect.poll(() => page.locator('#state-text').textContent()).toMatch(/^analyzing/);
    await polls(1);
    release();
    const entry = await entered;
    expect(await entry.locator('pre.err').innerText()).toMatch(REASON);
    expect(await entry.innerText()).not.toMatch(/The analysis failed/);
    await polls(2);
    expect(await page.locator('#output [role=alert]').count()).toBe(before);
  });
});
