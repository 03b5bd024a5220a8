/**
 * The browser REPL in real headless Chromium (Debian's `chromium`, driven by playwright-core)
 * against a real server on loopback: a query shows a table, a `-- @viz` query a chart, `!sort`
 * and `!undo` reshape the result through the shared command table, `!analyze` shows its
 * progress, `!save` downloads, a lost connection is shown and recovered, and the console stays
 * clean. The bundle is built here from ts/web with esbuild (the same command as `npm run
 * build:web`). A screenshot is kept when HEAPQL_KEEP_SCREENSHOTS=1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { listen, type RunningServer } from '../../ts/server/listen.js';

const CHROMIUM = process.env.HEAPQL_CHROMIUM ?? '/usr/bin/chromium';
const available = fs.existsSync(CHROMIUM);
if (!available) console.warn(`skipping the browser REPL test: no Chromium at ${CHROMIUM} (apt-get install chromium, or set HEAPQL_CHROMIUM)`);

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

describe.skipIf(!available)('browser REPL in Chromium', () => {
  let browser: Browser;
  let session: HeapSession;
  let server: RunningServer;
  let script: string;
  let dir: string;
  let releaseAnalysis: () => void = () => {};
  const problems: string[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-repl-'));
    const bundle = await build({ entryPoints: [path.join(root, 'ts/web/main.ts')], bundle: true, format: 'iife', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' });
    script = bundle.outputFiles[0]!.text;
    session = await openHeap(demo);
    // The analysis runs for real; its end is held until the test has seen the progress in the page.
    const handle = session.handle as unknown as { analyze: (...a: unknown[]) => Promise<unknown> };
    const real = handle.analyze.bind(handle);
    const gate = new Promise<void>((r) => (releaseAnalysis = r));
    handle.analyze = (...a: unknown[]) => real(...a).then(async (summary) => {
      await gate;
      return summary;
    });
    server = await listen(session, 0, { replScript: () => script });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    releaseAnalysis();
    await browser?.close();
    await server?.close();
    session?.close();
    if (process.env.HEAPQL_KEEP_SCREENSHOTS !== '1') fs.rmSync(dir, { recursive: true, force: true });
  });

  async function enter(page: Page, statement: string): Promise<void> {
    const entries = await page.locator('section.entry').count();
    const lines = statement.split('\n');
    for (const [i, line] of lines.entries()) {
      await page.locator('#input').pressSequentially(line);
      // Enter on an incomplete statement (a directive alone) goes on to the next line.
      await page.locator('#input').press(i < lines.length - 1 ? 'Enter' : 'Enter');
    }
    await page.locator('section.entry').nth(entries).waitFor();
    await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
  }
  const lastEntry = (page: Page) => page.locator('section.entry').last();

  test('queries, a chart, !sort, !undo, !analyze with progress, !save, reconnect; no console errors', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));

    await page.goto(`${server.url}/repl`);
    await page.getByText('Connected.').waitFor();
    expect(await page.locator('#state-text').textContent()).toMatch(/query-only/);

    // A query: a table with the rows.
    await enter(page, 'SELECT classof(x) AS class, COUNT(*) AS count FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY count DESC LIMIT 8');
    const table = lastEntry(page).locator('table.result');
    await table.waitFor();
    expect(await table.locator('th').allTextContents()).toEqual(['class', 'count']);
    expect(await table.locator('tbody tr').count()).toBe(8);
    const counts = async () => (await lastEntry(page).locator('tbody tr td:nth-child(2)').allTextContents()).map((t) => Number(t.replace(/,/g, '')));
    const byCount = await counts();
    expect(byCount).toEqual([...byCount].sort((a, b) => b - a));

    // !sort ascending through the shared command table, then !undo restores the order.
    await enter(page, '!sort count');
    const ascending = await counts();
    expect(ascending).toEqual([...byCount].sort((a, b) => a - b));
    await enter(page, '!undo');
    expect(await counts()).toEqual(byCount);

    // A Java long beyond 2^53 shows with every digit (a double would end in ...444), as the
    // terminal's table shows it (no thousands separators: it can be pasted back).
    await enter(page, 'SELECT s.createdAt * 10001 AS p FROM Demo$Session s LIMIT 2');
    expect(await lastEntry(page).locator('tbody tr td').allTextContents()).toEqual(['17001701742354218', '17001712275677445']);

    // A -- @viz directive: Enter after the directive line continues the statement; a bar chart is drawn.
    await enter(page, '-- @viz histogram label=class value=bytes title="Shallow bytes"\nSELECT classof(x) AS class, SUM(x.@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY bytes DESC LIMIT 10');
    const chart = lastEntry(page).locator('svg.chart');
    await chart.waitFor();
    const box = (await chart.boundingBox())!;
    expect(box.width).toBeGreaterThan(300);
    expect(await chart.locator('rect').count()).toBeGreaterThan(5);
    expect(await lastEntry(page).locator('pre.echo').textContent()).toMatch(/^oql> -- @viz[\s\S]*\n\.\.\.> SELECT/);

    // Completion from the class list.
    await page.locator('#input').pressSequentially('SELECT * FROM Demo$Sess');
    await page.locator('#input').press('Tab');
    await expect.poll(() => page.locator('#input').inputValue()).toBe('SELECT * FROM Demo$Session');
    await page.locator('#input').fill('');
    // More classes than a list shows (769): the list says how many it leaves out.
    await page.locator('#input').pressSequentially('SELECT * FROM ');
    await page.locator('#input').press('Tab');
    await expect.poll(() => page.locator('#completions .more-note').textContent()).toMatch(/^… and \d+ more: type more letters$/);
    expect(await page.locator('#completions [role=option]').count()).toBe(200);
    await page.locator('#input').press('Escape');
    await page.locator('#input').fill('');

    // A full-path query before the analysis says what to do.
    await enter(page, 'SELECT s.@retainedHeapSize FROM Demo$Session s');
    expect(await lastEntry(page).locator('pre.err').textContent()).toMatch(/!analyze|POST \/analyze/);

    // !analyze: progress in the page while it runs, then ready.
    await page.locator('#input').pressSequentially('!analyze');
    await page.locator('#input').press('Enter');
    await page.locator('.progress').waitFor();
    expect(await page.locator('.progress').textContent()).toMatch(/analyzing: \S+/);
    expect(await page.locator('#state-text').textContent()).toMatch(/analyzing/);
    await page.screenshot({ path: path.join(dir, 'repl-analyzing.png') });
    releaseAnalysis();
    await page.getByText('full analysis ready').waitFor();
    // The progress line gives way to the outcome: no stale "analyzing: … 0%" above it.
    const analyzed = page.locator('section.entry', { hasText: 'full analysis ready' });
    expect(await analyzed.locator('.progress').count()).toBe(0);
    expect(await analyzed.textContent()).not.toMatch(/analyzing:/);
    await expect.poll(() => page.locator('#state-text').textContent()).toMatch(/analyzed/);
    await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
    await enter(page, 'SELECT s, s.@retainedHeapSize AS retained FROM Demo$Session s ORDER BY retained DESC LIMIT 5');
    expect(await lastEntry(page).locator('tbody tr').count()).toBe(5);

    // !save downloads the result.
    const download = page.waitForEvent('download');
    await enter(page, '!save ~/exports/sessions.csv');
    const file = await download;
    expect(file.suggestedFilename()).toBe('sessions.csv');
    await expect.poll(() => lastEntry(page).textContent()).toContain('saved 5 rows to the download sessions.csv');
    const csv = fs.readFileSync((await file.path())!, 'utf8');
    expect(csv.split('\n')[0]).toMatch(/retained/);

    const shot = path.join(dir, 'repl.png');
    await page.screenshot({ path: shot });
    expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
    if (process.env.HEAPQL_KEEP_SCREENSHOTS === '1') console.log(`screenshots: ${shot}, ${path.join(dir, 'repl-analyzing.png')}`);

    expect(problems).toEqual([]);

    // The server goes away: the page says so; it comes back on the same port: reconnected.
    const port = server.port;
    await server.close(0);
    await page.locator('#banner.show').waitFor();
    expect(await page.locator('#banner').textContent()).toMatch(/Lost the connection/);
    server = await listen(session, port, { replScript: () => script });
    await page.locator('#banner.show').waitFor({ state: 'hidden' });
    await enter(page, '!count');
    expect(await lastEntry(page).locator('pre.out').last().textContent()).toMatch(/5 rows/);

    // Every request went to this server; nothing else was loaded.
    for (const r of requests) expect(r.startsWith(`${server.url}/`) || r.startsWith('blob:') || r.startsWith('data:')).toBe(true);
    // The fetch that failed while the server was down is the only expected console noise.
    expect(problems.filter((p) => !/Failed to load resource|ERR_CONNECTION_REFUSED/.test(p))).toEqual([]);
    await page.close();
  });
});
