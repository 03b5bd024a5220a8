/**
 * The HTML report in real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * opened from disk with no server, it loads without console errors or outside requests, and its
 * charts are laid out with a real size. Screenshots go to a temp dir, kept (and their paths
 * printed) when HEAPQL_KEEP_SCREENSHOTS=1 so a person can look at them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { renderReport } from '../../ts/report/output.js';
import { sampleModel, twoHeapModel } from '../report-sample.js';
import { chromiumAvailable, launchChromium, watchedPage } from './chromium.js';

describe.skipIf(!chromiumAvailable)('HTML report in Chromium', () => {
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-browser-'));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    if (process.env.HEAPQL_KEEP_SCREENSHOTS !== '1') fs.rmSync(dir, { recursive: true, force: true });
  });

  test('loads from disk without errors or outside requests; charts have a size; screenshots taken', async () => {
    const file = path.join(dir, 'report.html');
    fs.writeFileSync(file, renderReport(sampleModel(), 'html'));
    const url = pathToFileURL(file).href;

    const { page, problems, requests } = await watchedPage(browser);

    await page.goto(url, { waitUntil: 'load' });
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await page.title()).toBe('Heap report: demo-service.hprof');

    const charts = await page.$$eval('svg.chart', (els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { kind: e.getAttribute('class'), width: r.width, height: r.height, shapes: e.querySelectorAll('rect,path').length };
      }),
    );
    expect(charts.map((c) => c.kind)).toEqual([
      'chart pie', // summary: suspects' share
      'chart bar', // class histogram
      'chart pie', // biggest objects
      'chart bar', // biggest classes
      'chart treemap', // packages
      'chart bar', // waste by check
      'chart bar', // q1 histogram
      'chart pie', // q2 piechart
      'chart treemap', // q3 treemap
    ]);
    for (const c of charts) {
      expect(c.width).toBeGreaterThan(300);
      expect(c.height).toBeGreaterThan(50);
      expect(c.shapes).toBeGreaterThan(1);
    }
    // The first chart is on screen without scrolling.
    const firstChart = page.locator('svg.chart').first();
    expect(await firstChart.isVisible()).toBe(true);
    const box = (await firstChart.boundingBox())!;
    expect(box.y + box.height).toBeLessThan(1000);

    const shots = {
      top: path.join(dir, 'report-top.png'),
      suspects: path.join(dir, 'report-leak-suspects.png'),
      consumers: path.join(dir, 'report-top-consumers.png'),
      queries: path.join(dir, 'report-queries.png'),
    };
    await page.screenshot({ path: shots.top });
    await page.locator('#leak-suspects').screenshot({ path: shots.suspects });
    await page.locator('#top-consumers').screenshot({ path: shots.consumers });
    await page.locator('#queries').screenshot({ path: shots.queries });
    for (const p of Object.values(shots)) expect(fs.statSync(p).size).toBeGreaterThan(10_000);
    if (process.env.HEAPQL_KEEP_SCREENSHOTS === '1') console.log(`screenshots: ${Object.values(shots).join(', ')}`);

    // A collapsed thread stack opens on click (no script: <details>).
    const stack = page.locator('#thread-overview details').first();
    expect(await stack.locator('ul.frames').isVisible()).toBe(false);
    await stack.locator('summary').click();
    expect(await stack.locator('ul.frames').isVisible()).toBe(true);
    await page.close();
  });

  test('Android, several heaps: the classes-by-heap tables are laid out as the others, a long one collapsed until opened', async () => {
    const m = twoHeapModel(25, (k) => [...(k < 5 ? [{ name: 'zygote', instances: 1, shallow: 16, retained: 100 + k }] : []), { name: 'app', instances: 2, shallow: 32, retained: 1000 - k }]);
    const file = path.join(dir, 'report-heaps.html');
    fs.writeFileSync(file, renderReport(m, 'html'));
    const { page, problems } = await watchedPage(browser);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    expect(problems).toEqual([]);
    const overview = page.locator('#system-overview');
    expect(await overview.locator('h4').allTextContents()).toEqual(['zygote heap', 'app heap']);
    // zygote's five rows are open; app's 25 wait in a <details>, as the class histogram's do.
    const zygote = overview.locator('h4 + table');
    expect(await zygote.isVisible()).toBe(true);
    expect(await zygote.locator('tbody tr').count()).toBe(5);
    const app = overview.locator('h4 + details');
    expect(await app.locator('summary').textContent()).toBe('Classes in the app heap: 25 rows (show)');
    expect(await app.locator('table').isVisible()).toBe(false);
    await app.locator('summary').click();
    expect(await app.locator('table').isVisible()).toBe(true);
    // The figures right-aligned as in every table; the tables inside the page's width.
    const cells = await overview.locator('h4 ~ details table tbody tr').first().locator('td').evaluateAll((tds) => tds.map((td) => getComputedStyle(td).textAlign));
    expect(cells).toEqual(['left', 'left', 'right', 'right', 'right', 'right']);
    const main = (await page.locator('main').boundingBox())!;
    for (const t of await overview.locator('h4 + table, h4 + details table').all()) {
      const box = (await t.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(main.x + main.width + 1);
    }
    await overview.screenshot({ path: path.join(dir, 'report-classes-by-heap.png') });
    await page.close();
  });

  test('chart labels stay inside their room, whatever their characters', async () => {
    // Wide Latin capitals, CJK, emoji, Cyrillic and a long name: the labels the old fixed
    // per-character estimate let run off the chart, over the values and into the next tile.
    const labels = ['W'.repeat(60), 'M'.repeat(45), '漢字'.repeat(30), '😀'.repeat(40), 'Ж'.repeat(50), 'java.util.concurrent.ConcurrentHashMap$Node[]'];
    const m = sampleModel();
    for (const q of m.queries.slice(0, 3)) {
      q.rows = labels.map((l, i) => [l, 1_000_000_000 - i * 1000]);
      q.rowCount = q.rows.length;
      if (q.viz) delete q.viz.cap;
    }
    const file = path.join(dir, 'report-labels.html');
    fs.writeFileSync(file, renderReport(m, 'html'));
    const { page, problems } = await watchedPage(browser);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    expect(problems).toEqual([]);
    // Every label drawn in a chart: its box against its room (the nested viewport it is clipped
    // to, else the chart), with a pixel for a glyph's overhang.
    const texts = await page.$$eval('#queries svg.chart text', (els) =>
      els.map((t) => {
        const box = (t as SVGTextElement).getBBox();
        const room = t.closest('svg') as SVGSVGElement;
        return { text: t.textContent ?? '', from: box.x, to: box.x + box.width, roomWidth: room.width.baseVal.value };
      }),
    );
    const drawn = texts.map((t) => t.text);
    for (const l of labels) expect(drawn.some((d) => d.startsWith(l.slice(0, 2)))).toBe(true);
    expect(drawn.some((d) => d.endsWith('…'))).toBe(true);
    const outside = texts.filter((t) => t.from < -1 || t.to > t.roomWidth + 1);
    expect(outside).toEqual([]);
    await page.screenshot({ path: path.join(dir, 'report-labels.png'), fullPage: true });
    await page.close();
  });
  test("a treemap's labels contrast with their tile as WCAG AA asks of text (4.5:1), a group's tile too", async () => {
    const m = sampleModel();
    // Ten packages of their own colours, each with a sub-package: every colour of the palette, as a group and as a tile.
    m.topConsumers.biggestPackages = Array.from({ length: 10 }, (_, i) => [
      { name: `p${i}`, parent: null, depth: 0, objects: 10, retained: 200_000 - i * 10_000, retainedPercent: 10 - i / 2 },
      { name: `p${i}.sub`, parent: `p${i}`, depth: 1, objects: 5, retained: 100_000 - i * 5_000, retainedPercent: 5 - i / 4 },
    ]).flat();
    const file = path.join(dir, 'report-treemap-contrast.html');
    fs.writeFileSync(file, renderReport(m, 'html'));
    const { page, problems } = await watchedPage(browser);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    expect(problems).toEqual([]);
    const pairs = await page.$$eval('#top-consumers svg.treemap g', (gs) => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
      const lum = ([r, g, b]: number[]) => {
        const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
      };
      return gs.flatMap((g) => {
        const rect = g.querySelector(':scope > rect');
        const text = g.querySelector('text');
        if (!rect || !text) return [];
        // The tile's colour at its opacity over the page's white, against the label's colour.
        const a = Number(getComputedStyle(rect).fillOpacity);
        const tile = rgb(getComputedStyle(rect).fill).map((v) => v * a + 255 * (1 - a));
        const [l1, l2] = [lum(tile), lum(rgb(getComputedStyle(text).fill))].sort((x, y) => y - x);
        return [{ label: text.textContent, contrast: (l1! + 0.05) / (l2! + 0.05) }];
      });
    });
    expect(pairs.map((p) => p.label)).toEqual(expect.arrayContaining(['p0', 'p9', 'p0.sub', 'p9.sub']));
    expect(pairs.filter((p) => p.contrast < 4.5)).toEqual([]);
    await page.close();
  });

  test('a narrow window: the page never scrolls sideways, a wide table or chart scrolls in its own box, charts keep readable text; printing shows collapsed tables', async () => {
    const file = path.join(dir, 'report-narrow.html');
    fs.writeFileSync(file, renderReport(sampleModel(), 'html'));
    const { page, problems } = await watchedPage(browser);
    await page.setViewportSize({ width: 400, height: 900 });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    expect(problems).toEqual([]);
    const layout = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      window: document.documentElement.clientWidth,
      // Each chart's drawn width, and whether the box it is in can scroll to its end.
      charts: [...document.querySelectorAll('svg.chart')].map((c) => {
        const box = c.parentElement!;
        return { width: c.getBoundingClientRect().width, scrolls: box.scrollWidth <= box.clientWidth || getComputedStyle(box).overflowX === 'auto' };
      }),
      wideTables: [...document.querySelectorAll('table')].filter((t) => t.scrollWidth > t.clientWidth + 1).map((t) => getComputedStyle(t).overflowX),
    }));
    expect(layout.page).toBeLessThanOrEqual(layout.window);
    expect(layout.charts.length).toBeGreaterThan(5);
    for (const c of layout.charts) {
      expect(c.width).toBeGreaterThanOrEqual(540);
      expect(c.scrolls).toBe(true);
    }
    for (const overflow of layout.wideTables) expect(overflow).toBe('auto');
    await page.screenshot({ path: path.join(dir, 'report-narrow.png'), fullPage: true });
    // The sticky navigation stays one line (it scrolls sideways), so a section it jumps to starts below it.
    for (const id of ['waste', 'thread-overview']) {
      await page.locator(`nav a[href="#${id}"]`).click();
      const [nav, heading] = await page.evaluate((h) => [document.querySelector('nav')!.getBoundingClientRect().bottom, document.querySelector(`#${h} h2`)!.getBoundingClientRect().top], id);
      expect(heading, id).toBeGreaterThanOrEqual(nav!);
    }
    // Still tables to assistive technology (Chromium's own accessibility tree), with their column headers.
    const cdp = await page.context().newCDPSession(page);
    const visibleTables = await page.locator('table:visible').count();
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { role?: { value?: string } }[] };
    expect(nodes.filter((n) => n.role?.value === 'table')).toHaveLength(visibleTables);
    expect(nodes.filter((n) => n.role?.value === 'columnheader').length).toBeGreaterThan(visibleTables);

    // Printed, a collapsed table (thread stacks, the system properties) is on paper too.
    const collapsed = page.locator('details:not([open]) table').first();
    expect(await collapsed.isVisible()).toBe(false);
    await page.emulateMedia({ media: 'print' });
    expect(await collapsed.isVisible()).toBe(true);
    await page.close();
  });

  test('text contrasts 4.5:1 with its background (WCAG AA), the GC root badge too; a fact table says its keys are row headers', async () => {
    const file = path.join(dir, 'report-contrast.html');
    fs.writeFileSync(file, renderReport(sampleModel(), 'html'));
    const { page, problems } = await watchedPage(browser);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    expect(problems).toEqual([]);
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
    expect(await page.locator('span.root').count()).toBeGreaterThan(0);
    const low = await page.evaluate(() => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
      const lum = ([r, g, b]: number[]) => {
        const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
      };
      // The first opaque background from the element up (the page is white).
      const background = (el: Element) => {
        for (let e: Element | null = el; e; e = e.parentElement) {
          const c = rgb(getComputedStyle(e).backgroundColor);
          if (c.length === 3 || c[3]! > 0) return c.slice(0, 3);
        }
        return [255, 255, 255];
      };
      const out: string[] = [];
      for (const el of document.querySelectorAll('body *')) {
        if (el.closest('svg') || ![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent!.trim())) continue;
        const [a, b] = [lum(rgb(getComputedStyle(el).color).slice(0, 3)), lum(background(el))].sort((x, y) => y - x);
        const ratio = (a! + 0.05) / (b! + 0.05);
        if (ratio < 4.5) out.push(`${el.tagName.toLowerCase()}.${el.className}: ${ratio.toFixed(2)}`);
      }
      return [...new Set(out)];
    });
    expect(low).toEqual([]);
    // Chromium's accessibility tree: the overview's facts are row headers of their values.
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { role?: { value?: string }; name?: { value?: string } }[] };
    const rowHeaders = nodes.filter((n) => n.role?.value === 'rowheader').map((n) => n.name?.value);
    expect(rowHeaders).toEqual(expect.arrayContaining(['File', 'Used heap', 'GC roots', 'Retained']));
    await page.close();
  });
});
