/**
 * The browser REPL's prompt and page, in real headless Chromium: two tabs add to one history
 * (each appends to what is stored, as terminal sessions append to their file; one overwrote
 * the other's); ↑ then ↓ brings back what was typed, not an older draft; the keyboard can leave
 * the prompt (Tab on an empty prompt, Escape then Tab, Shift+Tab) and scroll the output
 * (PageUp/PageDown); a wide result keeps its text columns readable (they were one character
 * wide, a horizontal scroll is fine).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { chromiumAvailable } from './chromium.js';
import { startRepl, type ReplServer } from './repl-page.js';
import { DEMO_DUMP, enterStatement } from './repl-server.js';

describe.skipIf(!chromiumAvailable)('browser REPL: history, keyboard, wide results', () => {
  /** Its tabs share one browser context (one localStorage). */
  let repl: ReplServer;

  beforeAll(async () => {
    repl = await startRepl({ dump: DEMO_DUMP, viewport: { width: 1000, height: 600 } });
  });
  afterAll(() => repl?.close());

  const open = async (): Promise<Page> => (await repl.open()).page;
  const stored = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem('heapql.repl.history') ?? '[]') as string[]);

  test('two tabs: both add to the stored history', async () => {
    const a = await open();
    await a.evaluate(() => localStorage.removeItem('heapql.repl.history'));
    const b = await open();
    await enterStatement(a, 'SELECT COUNT(*) AS fromA1 FROM java.lang.String');
    await enterStatement(b, 'SELECT COUNT(*) AS fromB1 FROM java.lang.String');
    await enterStatement(a, 'SELECT COUNT(*) AS fromA2 FROM java.lang.String');
    expect(await stored(a)).toEqual([
      'SELECT COUNT(*) AS fromA1 FROM java.lang.String',
      'SELECT COUNT(*) AS fromB1 FROM java.lang.String',
      'SELECT COUNT(*) AS fromA2 FROM java.lang.String',
    ]);
    // A new tab walks back through all three.
    const c = await open();
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      await c.locator('#input').press('ArrowUp');
      seen.push(await c.locator('#input').inputValue());
    }
    expect(seen).toEqual([
      'SELECT COUNT(*) AS fromA2 FROM java.lang.String',
      'SELECT COUNT(*) AS fromB1 FROM java.lang.String',
      'SELECT COUNT(*) AS fromA1 FROM java.lang.String',
    ]);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  test('↑ then ↓ brings back what was typed, after walking the history before', async () => {
    const page = await open();
    await enterStatement(page, '!count');
    await enterStatement(page, '!help');
    const input = page.locator('#input');
    await input.press('ArrowUp');
    await input.press('ArrowUp');
    await input.press('ArrowDown');
    expect(await input.inputValue()).toBe('!help');
    // New text typed over the entry shown: ↑ then ↓ gives it back.
    await input.fill('SELECT draft');
    await input.press('End');
    await input.press('ArrowUp');
    expect(await input.inputValue()).toBe('!help');
    await input.press('ArrowDown');
    expect(await input.inputValue()).toBe('SELECT draft');
    await input.press('ArrowDown');
    expect(await input.inputValue()).toBe('SELECT draft');
    await page.close();
  });

  test('Tab on an empty prompt and Escape then Tab leave it; PageUp/PageDown scroll the output', async () => {
    const page = await open();
    for (let i = 0; i < 3; i++) await enterStatement(page, 'SELECT s, s.createdAt FROM Demo$Session s');
    const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
    const input = page.locator('#input');
    // Tab with text completes and keeps the focus.
    await input.fill('SELECT * FROM Demo$Sess');
    await input.press('Tab');
    await expect.poll(() => input.inputValue()).toBe('SELECT * FROM Demo$Session');
    expect(await focused()).toBe('input');
    // Escape, then Tab: the focus moves on.
    await input.press('Escape');
    await input.press('Tab');
    expect(await focused()).not.toBe('input');
    expect(await input.inputValue()).toBe('SELECT * FROM Demo$Session');
    // Tab on an empty prompt moves on; Shift+Tab goes back to the output, which scrolls by keys.
    await input.focus();
    await input.fill('');
    await input.press('Tab');
    expect(await focused()).not.toBe('input');
    await input.focus();
    await input.press('Shift+Tab');
    expect(await focused()).toBe('output');

    await input.focus();
    const scroll = () => page.locator('#output').evaluate((e) => e.scrollTop);
    const bottom = await scroll();
    expect(bottom).toBeGreaterThan(0);
    await input.press('PageUp');
    await expect.poll(scroll).toBeLessThan(bottom);
    const up = await scroll();
    await input.press('PageDown');
    await expect.poll(scroll).toBeGreaterThan(up);
    expect(await focused()).toBe('input');
    await page.close();
  });

  test('a wide result keeps its text columns readable', async () => {
    const page = await open();
    await page.setViewportSize({ width: 600, height: 600 });
    const entry = await enterStatement(
      page,
      'SELECT s, s.user, s.createdAt, s.@objectAddress, s.@usedHeapSize, toString(s.user) AS who, classof(s) AS cls, s.@objectId AS id, s.createdAt * 10001 AS p FROM Demo$Session s LIMIT 3',
    );
    const sizes = await entry
      .locator('tbody tr:first-child td')
      .evaluateAll((tds) => tds.map((td) => ({ w: td.getBoundingClientRect().width, h: td.getBoundingClientRect().height, numeric: td.classList.contains('n'), text: td.textContent! })));
    // No text column is squeezed to a few characters (object labels were cut into one-letter
    // lines); no row grows taller than a label wrapped once or twice.
    expect(sizes.filter((c) => !c.numeric)).toHaveLength(4);
    // An object's label (`Demo$Session @ 0xfeab8c68`, 25 characters) keeps 24 characters a line.
    const labels = sizes.filter((c) => / @ 0x/.test(c.text));
    expect(labels).toHaveLength(3);
    for (const c of labels) expect(c.w).toBeGreaterThan(160);
    const line = await page.locator('#output').evaluate((e) => parseFloat(getComputedStyle(e.querySelector('td')!).lineHeight));
    for (const c of sizes) expect(c.h).toBeLessThan(line * 4);
    // The page scrolls sideways instead.
    expect(await page.locator('#output').evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
    await page.close();
  });
});
