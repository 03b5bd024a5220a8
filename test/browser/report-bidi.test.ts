/**
 * Right-to-left text from the dump in the HTML report, laid out by real Chromium: a Hebrew thread
 * name and suspect title must not reorder the report's own words after them (`name @ 0x…: 6
 * frames, 3 locals`; `name: 6 frames` read as `6 :name frames…` before), and a right-to-left override is shown as
 * `\u202e`, not obeyed. Checked on the positions of the characters on screen.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { renderReport } from '../../ts/report/output.js';
import { sampleModel } from '../report-sample.js';
import { chromiumAvailable, launchChromium, watchedPage } from './chromium.js';

const HEBREW = 'שלום עולם';

/**
 * The left edge on screen of each character of `needle` (in order) inside the first element
 * matching `selector` whose text contains it.
 */
async function charXs(page: Page, selector: string, needle: string): Promise<number[]> {
  return page.evaluate(
    ({ selector, needle }) => {
      const el = [...document.querySelectorAll(selector)].find((e) => (e.textContent ?? '').includes(needle));
      if (!el) throw new Error(`no ${selector} with ${needle}`);
      (el.closest('details') as HTMLDetailsElement | null)?.setAttribute('open', '');
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      const nodes: Text[] = [];
      while (walker.nextNode()) nodes.push(walker.currentNode as Text);
      const text = nodes.map((n) => n.data).join('');
      let at = text.indexOf(needle);
      const xs: number[] = [];
      for (let i = 0; i < needle.length; i++, at++) {
        let offset = at;
        const node = nodes.find((n) => (offset < n.data.length ? true : ((offset -= n.data.length), false)))!;
        const range = document.createRange();
        range.setStart(node, offset);
        range.setEnd(node, offset + 1);
        xs.push(range.getBoundingClientRect().left);
      }
      return xs;
    },
    { selector, needle },
  );
}

describe.skipIf(!chromiumAvailable)('HTML report: right-to-left text from the dump', () => {
  let browser: Browser;
  let dir: string;
  let page: Page;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-bidi-'));
    browser = await launchChromium();
    const m = sampleModel();
    const t = m.threads.threads[0]!;
    t.name = HEBREW;
    t.object.label = HEBREW;
    m.threads.threads[1]!.name = 'rtl\u202egnp.exe';
    m.leakSuspects.suspects[0]!.title = HEBREW;
    const file = path.join(dir, 'report.html');
    fs.writeFileSync(file, renderReport(m, 'html'));
    const watched = await watchedPage(browser);
    page = watched.page;
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    expect(watched.problems).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const increasing = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]!);

  test('a thread\'s stack summary reads "<name> @ <address>: 6 frames, 3 locals" left to right', async () => {
    const xs = await charXs(page, '#thread-overview summary', ' @ 0x7f0021a0: 6 frames');
    expect(increasing(xs), `x positions ${xs.join(', ')}`).toBe(true);
  });

  test('the summary\'s suspect line keeps ", <size> (<percent>)" after the title', async () => {
    const xs = await charXs(page, '#summary li', ', 4');
    expect(increasing(xs), `x positions ${xs.join(', ')}`).toBe(true);
  });

  test('a right-to-left override is shown, not obeyed', async () => {
    const summaries = await page.locator('#thread-overview summary').allTextContents();
    expect(summaries).toContainEqual(expect.stringMatching(/^rtl\\u202egnp\.exe @ 0x7f002000: \d+ frames, \d+ locals$/));
    const xs = await charXs(page, '#thread-overview summary', 'gnp.exe @ 0x7f002000: ');
    expect(increasing(xs)).toBe(true);
  });
});
