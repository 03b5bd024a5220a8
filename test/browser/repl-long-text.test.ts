/**
 * The browser REPL in real headless Chromium on a dump with a class name of a megabyte and one
 * with Hebrew letters and a right-to-left override (the demo dump with those names rewritten):
 * a result cell shows the start of the long text with its full length stated and a tooltip cut
 * too, a `-- @viz` chart does not copy the megabyte into its SVG, a right-to-left cell is
 * isolated and the override is shown as `\u202e`, in the table and in `!row`'s text.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { DISPLAY_TEXT_MAX } from '../../ts/report/format.js';
import { CELL_TEXT_MAX } from '../../ts/web/view.js';
import { chromiumAvailable } from './chromium.js';
import { openReplPage, type ReplPage } from './repl-page.js';
import { enterStatement } from './repl-server.js';

const LONG_CLASS = `Demo$Session${'L'.repeat(1_000_000)}$End`;
const RTL_CLASS = 'Demo$שלום\u202eCBA';

describe.skipIf(!chromiumAvailable)('browser REPL: long and right-to-left text from the dump', () => {
  let repl: ReplPage;
  let page: Page;

  beforeAll(async () => {
    repl = await openReplPage({ dump: { fileName: 'long.hprof', renames: { Demo$Session: LONG_CLASS, Demo$RequestContext: RTL_CLASS } }, viewport: { width: 1280, height: 900 } });
    ({ page } = repl);
  });
  afterAll(() => repl?.close());

  async function enter(statement: string): Promise<void> {
    await enterStatement(page, statement);
  }
  const last = () => page.locator('section.entry').last();

  test('a 1 MB cell: its start, its full length, a tooltip cut too', async () => {
    await enter('SELECT classof(x).@name AS name, x.@usedHeapSize AS bytes FROM INSTANCEOF java.lang.Object x WHERE classof(x).@name LIKE "Demo\\$SessionLLL.*" LIMIT 3');
    const cell = last().locator('table.result tbody tr').first().locator('td').first();
    await cell.waitFor();
    const text = (await cell.textContent())!;
    expect(text).toBe(`${LONG_CLASS.slice(0, CELL_TEXT_MAX)}… (cut from ${LONG_CLASS.length.toLocaleString('en-US')} characters; !row N shows it whole)`);
    const title = (await cell.getAttribute('title'))!;
    expect(title).toBe(`${LONG_CLASS.slice(0, DISPLAY_TEXT_MAX)}… (cut from ${LONG_CLASS.length.toLocaleString('en-US')} characters)`);
    expect((await page.content()).length).toBeLessThan(200_000);
  });

  test('a -- @viz chart of 1 MB labels stays small', async () => {
    await enter('-- @viz histogram label=name value=bytes\nSELECT classof(x).@name AS name, x.@usedHeapSize AS bytes FROM INSTANCEOF java.lang.Object x WHERE classof(x).@name LIKE "Demo\\$SessionLLL.*" LIMIT 3');
    const svg = last().locator('svg.chart');
    await svg.waitFor();
    const markup = await svg.evaluate((e) => e.outerHTML);
    expect(markup.length).toBeLessThan(20_000);
    expect(markup).toContain(`(cut from ${LONG_CLASS.length.toLocaleString('en-US')} characters)`);
    await enter('-- @viz piechart label=name value=bytes\nSELECT classof(x).@name AS name, x.@usedHeapSize AS bytes FROM INSTANCEOF java.lang.Object x WHERE classof(x).@name LIKE "Demo\\$SessionLLL.*" LIMIT 3');
    expect((await last().locator('svg.chart').evaluate((e) => e.outerHTML)).length).toBeLessThan(20_000);
  });

  test('right-to-left text: isolated in its cell, the override shown as \\u202e in the table and in !row', async () => {
    await enter('SELECT classof(x).@name AS name, x.@usedHeapSize AS bytes FROM INSTANCEOF java.lang.Object x WHERE classof(x).@name LIKE "Demo\\$שלום.*" LIMIT 1');
    const cell = last().locator('table.result tbody td').first();
    await cell.waitFor();
    expect(await cell.textContent()).toBe('Demo$שלום\\u202eCBA');
    expect(await cell.locator('bdi').count()).toBe(1);
    await enter('!row 1');
    const out = (await last().locator('pre.out').textContent())!;
    expect(out).toContain('שלום\\u202eCBA');
    expect(out).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });
});
