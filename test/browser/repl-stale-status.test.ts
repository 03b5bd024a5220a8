/**
 * A tab plans queries with the analysis state of its last status poll (once a second). When the
 * server became ready since (another tab, or a client of the server, ran the analysis), a
 * full-path query was refused in the page for up to a second, with the advice to run !analyze.
 * Now the page asks the server's state before refusing. The page's status polls are held here
 * while the analysis ends, so that the page's state is surely the stale one.
 */
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { chromiumAvailable } from './chromium.js';
import { openReplPage, type ReplPage } from './repl-page.js';
import { DEMO_DUMP, enterStatement } from './repl-server.js';

describe.skipIf(!chromiumAvailable)('browser REPL: a query after the server became ready elsewhere', () => {
  let repl: ReplPage;
  let page: Page;

  beforeAll(async () => {
    // (Playwright's default viewport.)
    repl = await openReplPage({ dump: DEMO_DUMP, noCache: true, viewport: { width: 1280, height: 720 } });
    ({ page } = repl);
  });
  afterAll(() => repl?.close());

  test('a full-path query runs as soon as the server is ready', async () => {
    await expect.poll(() => page.locator('#state-text').textContent()).toMatch(/query-only/);
    // The page's polls wait (and then ask the server) until the query was entered.
    const held: Route[] = [];
    let holding = true;
    await page.route('**/status', (route) => {
      if (holding) held.push(route);
      else void route.continue();
    });
    await repl.session.analyze();
    expect(await page.locator('#state-text').textContent()).toMatch(/query-only/);
    const entered = enterStatement(page, 'SELECT s, s.@retainedHeapSize AS retained FROM Demo$Session s ORDER BY retained DESC LIMIT 3');
    await page.waitForTimeout(300);
    holding = false;
    for (const route of held.splice(0)) void route.continue();
    const entry = await entered;
    expect(await entry.locator('pre.err').count()).toBe(0);
    expect(await entry.locator('tbody tr').count()).toBe(3);
  });
});
