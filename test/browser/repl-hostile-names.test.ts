/**
 * The browser REPL in real headless Chromium on a dump whose class names hold a line break, a
 * right-to-left override and markup, opened from a file whose name holds them too: the
 * completion list shows such names escaped (as table cells, `!classes` and `!describe` do) and
 * never inserts one (the terminal REPL's rule: the OQL lexer reads no escapes, so neither the
 * raw name nor an escaped one could run), and the page header shows the file name escaped and
 * isolated, so that it cannot reorder the counts after it.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { chromiumAvailable } from './chromium.js';
import { openReplPage, type ReplPage } from './repl-page.js';

const NEWLINE_CLASS = 'Demo$New\nLine';
const RTL_CLASS = 'Demo$Rtl\u202egnp';
const MARKUP_CLASS = 'Demo$Img<img src=x onerror=alert(1)>';
/** …as Tab offers it after FROM: the pattern that matches it alone. */
const MARKUP_PATTERN = '"Demo\\$Img<img src=x onerror=alert\\(1\\)>"';
const FILE_NAME = 'fake\nline \u202egpj.hprof';
const RAW = /[\n\u202a-\u202e\u2066-\u2069]/;

describe.skipIf(!chromiumAvailable)('browser REPL: hostile class and file names', () => {
  let repl: ReplPage;
  let page: Page;
  let problems: string[];
  const dialogs: string[] = [];

  beforeAll(async () => {
    repl = await openReplPage({
      dump: { fileName: FILE_NAME, renames: { Demo$RequestListener: NEWLINE_CLASS, Demo$RequestContext: RTL_CLASS, Demo$RequestHandler: MARKUP_CLASS } },
      watch(page) {
        page.on('dialog', (d) => {
          dialogs.push(d.message());
          void d.dismiss();
        });
      },
    });
    ({ page, problems } = repl);
  });
  afterAll(() => repl?.close());

  const popupItems = () => page.locator('#completions [role=option]').allTextContents();

  async function tab(text: string): Promise<void> {
    await page.locator('#input').fill(text);
    await page.locator('#input').press('End');
    await page.locator('#input').press('Tab');
  }

  test('the header shows the file name escaped and isolated; the counts follow it', async () => {
    const header = page.locator('#dump');
    await expect.poll(() => header.textContent()).toMatch(/objects/);
    const text = (await header.textContent())!;
    expect(text).toBe(`${path.join(path.dirname(repl.dump), 'fake\\nline \\u202egpj.hprof')} · 20,437 objects · 769 classes`);
    expect(text).not.toMatch(RAW);
    expect(await header.locator('bdi').count()).toBe(1);
    expect(await header.locator('bdi').textContent()).toContain('\\u202egpj.hprof');
  });

  test('completion lists the names escaped, inserts none of them, and says why', async () => {
    await tab('SELECT * FROM Demo$');
    await page.locator('#completions').waitFor();
    const items = await popupItems();
    // (The markup's name is no name OQL reads: it is offered as the FROM pattern matching it.)
    expect(items).toEqual(expect.arrayContaining(['Demo$New\\nLine', 'Demo$Rtl\\u202egnp', MARKUP_PATTERN, 'Demo$Session']));
    for (const item of items) expect(item).not.toMatch(RAW);
    // The markup is text: no element of it, no script run.
    expect(await page.locator('#completions img').count()).toBe(0);
    expect(await page.locator('#completions .escaped-note').textContent()).toBe('(names with control characters are shown escaped; Tab does not insert them)');

    // Enter on each escaped name inserts nothing; Enter on a plain one inserts it.
    for (const escaped of ['Demo$New\\nLine', 'Demo$Rtl\\u202egnp']) {
      await tab('SELECT * FROM Demo$');
      await page.locator('#completions').waitFor();
      const at = (await popupItems()).indexOf(escaped);
      for (let i = 0; i < at; i++) await page.locator('#input').press('ArrowDown');
      expect(await page.locator('#completions .sel').textContent()).toBe(escaped);
      await page.locator('#input').press('Enter');
      expect(await page.locator('#input').inputValue()).toBe('SELECT * FROM Demo$');
      // A click inserts nothing either.
      await page.locator('#completions [role=option]', { hasText: escaped }).click({ force: true });
      expect(await page.locator('#input').inputValue()).toBe('SELECT * FROM Demo$');
      await page.locator('#input').press('Escape');
    }
    await tab('SELECT * FROM Demo$');
    const at = (await popupItems()).indexOf('Demo$Session');
    for (let i = 0; i < at; i++) await page.locator('#input').press('ArrowDown');
    await page.locator('#input').press('Enter');
    expect(await page.locator('#input').inputValue()).toBe('SELECT * FROM Demo$Session');

    // One candidate: Tab inserts it only up to its first control character, and shows it escaped.
    await tab('SELECT * FROM Demo$Rt');
    await expect.poll(() => page.locator('#input').inputValue()).toBe('SELECT * FROM Demo$Rtl');
    expect(await popupItems()).toEqual(['Demo$Rtl\\u202egnp']);
    await page.locator('#input').press('Tab');
    expect(await page.locator('#input').inputValue()).toBe('SELECT * FROM Demo$Rtl');
    await tab('SELECT * FROM Demo$Ne');
    await expect.poll(() => page.locator('#input').inputValue()).toBe('SELECT * FROM Demo$New');
    await page.locator('#input').press('Enter');
    expect(await page.locator('#input').inputValue()).not.toMatch(RAW);
    await page.locator('#input').press('Escape');
    await page.locator('#input').fill('');

    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });
});
