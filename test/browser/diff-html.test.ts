/**
 * The HTML diff of the DiffHeap fixture in real headless Chromium (Debian's `chromium`, driven
 * by playwright-core): opened from disk, no console errors, no outside request, the growth
 * charts laid out with a real size. Screenshots are kept (paths printed) with
 * HEAPQL_KEEP_SCREENSHOTS=1 so a person can look at them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { diffDumps, renderDiff } from '../../ts/diff/index.js';
import { baselineDump, currentDump } from '../diff/fixtures.js';
import { chromiumAvailable, launchChromium, watchedPage } from './chromium.js';

describe.skipIf(!chromiumAvailable)('HTML diff in Chromium', () => {
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-diff-browser-'));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    if (process.env.HEAPQL_KEEP_SCREENSHOTS !== '1') fs.rmSync(dir, { recursive: true, force: true });
  });

  test('loads from disk without errors or outside requests; growth charts have a size; screenshots taken', async () => {
    const file = path.join(dir, 'diff.html');
    const model = await diffDumps(baselineDump, currentDump, { gate: ['DiffHeap$Key=1000'] });
    fs.writeFileSync(file, renderDiff(model, 'html'));
    const url = pathToFileURL(file).href;

    const { page, problems, requests } = await watchedPage(browser);

    await page.goto(url, { waitUntil: 'load' });
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await page.title()).toBe('Heap dump comparison: DiffHeap-baseline.hprof.gz → DiffHeap-current.hprof.gz');

    const charts = await page.$$eval('svg.chart', (els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { label: e.getAttribute('aria-label'), width: r.width, height: r.height, bars: e.querySelectorAll('rect').length };
      }),
    );
    expect(charts.map((c) => c.label)).toEqual(['Biggest shallow growth by class', 'Biggest retained growth by path', 'Biggest shallow growth by package']);
    for (const c of charts) {
      expect(c.width).toBeGreaterThan(300);
      expect(c.height).toBeGreaterThan(50);
      expect(c.bars).toBeGreaterThan(1);
    }
    // The first bar of the class chart is the biggest growth: long[] (the late holder's array).
    expect(await page.locator('#classes svg.chart text.lbl').first().textContent()).toBe('long[]');
    expect(await page.locator('#gate .fail').textContent()).toContain('FAILED');
    const statuses = await page.locator('#suspects .status').allTextContents();
    expect(statuses).toEqual(['new', 'grown', 'unchanged']);

    const shots = { top: path.join(dir, 'diff-top.png'), classes: path.join(dir, 'diff-classes.png'), dominators: path.join(dir, 'diff-dominators.png') };
    await page.screenshot({ path: shots.top });
    await page.locator('#classes').screenshot({ path: shots.classes });
    await page.locator('#dominators').screenshot({ path: shots.dominators });
    for (const p of Object.values(shots)) expect(fs.statSync(p).size).toBeGreaterThan(10_000);
    if (process.env.HEAPQL_KEEP_SCREENSHOTS === '1') console.log(`screenshots: ${Object.values(shots).join(', ')}`);
    await page.close();
  });
});
