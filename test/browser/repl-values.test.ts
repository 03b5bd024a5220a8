/**
 * The browser REPL's table shows each value as the terminal REPL's table does, in real headless
 * Chromium: doubles to ten significant digits or so (0.000123 was `0`), numbers without
 * thousands separators (ids, addresses and timestamps can be pasted back, `!filter` finds the
 * text the table shows, `[1207963663, …]` keeps its element count), a double beyond 2^53 with
 * an exponent (it read back as an exact long with made-up digits); a literal backslash as `\\`
 * and a control character as its escape, so the two differ; NaN and ±Infinity as numbers
 * (`!stats`, `!sort`); a `-- @viz` directive naming a missing column warned about once; `!save`
 * of a result of many blocks downloads the whole file.
 */
import fs from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { formatCsv, formatTsv, formatValue } from '../../ts/query/format.js';
import { sortRows } from '../../ts/repl/table.js';
import { terminalText } from '../../ts/terminal-text.js';
import { chromiumAvailable } from './chromium.js';
import { openReplPage, type ReplPage } from './repl-page.js';
import { enterStatement } from './repl-server.js';

/** A class name with a TAB and a LF: `C:<TAB>emp<LF>ew`. */
const CONTROL_CLASS = 'Demo$C:\temp\new';

describe.skipIf(!chromiumAvailable)('browser REPL: values shown as the terminal shows them', () => {
  let repl: ReplPage;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    repl = await openReplPage({ dump: { fileName: 'values.hprof', renames: { Demo$RequestHandler: CONTROL_CLASS } } });
    ({ page, problems } = repl);
  });
  afterAll(() => repl?.close());

  const cells = (entry: Locator) => entry.locator('table.result tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((td) => td.textContent)));
  /** The terminal table's text of each cell of the same query's result. */
  async function terminalCells(oql: string): Promise<string[][]> {
    const r = await repl.session.query(oql);
    return r.rows.map((row) => row.map((v) => terminalText(formatValue(v))));
  }

  test('numbers: ten significant digits, no grouping, lists keep their element count', async () => {
    const q = 'SELECT 0.000123 AS d, 1.0 / 3 AS t, s.createdAt AS c, s.createdAt / 1000000.0 AS f, s.createdAt * 10001 AS p, s.@objectAddress AS a FROM Demo$Session s LIMIT 2';
    const entry = await enterStatement(page, q);
    const shown = await cells(entry);
    expect(shown).toEqual(await terminalCells(q));
    expect(shown[0]!.slice(0, 5)).toEqual(['0.000123', '0.3333333333', '1700000174218', '1700000.174', '17001701742354218']);
    const arrays = 'SELECT a[0:3] AS s, a[1] AS one FROM int[] a WHERE a[1] > 1000 LIMIT 3';
    const list = await cells(await enterStatement(page, arrays));
    expect(list).toEqual(await terminalCells(arrays));
    expect(list[0]).toEqual(['[1207963663, 1207963663, 1207963663]', '1207963663']);
  });

  test('!filter finds the number as the table shows it', async () => {
    const entry = await enterStatement(page, 'SELECT s, s.createdAt AS c FROM Demo$Session s LIMIT 3');
    const shown = (await cells(entry))[1]![1]!;
    const filtered = await enterStatement(page, `!filter ${shown}`);
    expect(await cells(filtered)).toHaveLength(1);
    expect((await cells(filtered))[0]![1]).toBe(shown);
  });

  test('a double beyond 2^53 is a double: shown and saved as the CLI does', async () => {
    const q = 'SELECT 9007199254740992.0 AS big, s.createdAt * 1000000.0 AS m, s.createdAt * 10001 AS p FROM Demo$Session s LIMIT 2';
    const entry = await enterStatement(page, q);
    expect((await cells(entry))[0]).toEqual(['9.007199254740992e+15', '1.700000174218e+18', '17001701742354218']);
    const download = page.waitForEvent('download');
    await enterStatement(page, '!save big.csv');
    const csv = fs.readFileSync((await (await download).path())!, 'utf8');
    expect(csv).toBe(formatCsv(await repl.session.query(q)));
  });

  test('!save of a result many blocks long downloads the whole file, as the CLI writes it', async () => {
    const q = 'SELECT x, x.@usedHeapSize AS size, classof(x) AS class FROM INSTANCEOF java.lang.Object x';
    await enterStatement(page, q);
    const download = page.waitForEvent('download');
    await enterStatement(page, '!save all.tsv');
    const tsv = fs.readFileSync((await (await download).path())!, 'utf8');
    const expected = await repl.session.query(q);
    expect(expected.rows.length).toBeGreaterThan(20_000);
    expect(tsv).toBe(formatTsv(expected));
    // The rest of the paged result was fetched first; the wait for its count ends cancelled
    // (net::ERR_ABORTED) when the rows ran out first: harmless; nothing else.
    expect(problems.filter((p) => !/^request failed: \S+\/pages\/[0-9a-f-]+\/count net::ERR_ABORTED$/.test(p))).toEqual([]);
    problems.length = 0;
  });

  test('a backslash and a control character look different', async () => {
    const q = 'SELECT classof(h).@name AS ctl, "C:\\temp\\new" AS lit, "\\u202e" AS six FROM INSTANCEOF java.lang.Object h WHERE classof(h).@name LIKE "(?s)Demo\\$C:.*" LIMIT 1';
    const entry = await enterStatement(page, q);
    const shown = await cells(entry);
    expect(shown).toEqual([['Demo$C:\\temp\\new', 'C:\\\\temp\\\\new', '\\\\u202e']]);
    expect(shown).toEqual(await terminalCells(q));
  });

  test('spaces are shown and copied as they are: none collapsed, none dropped at a cell\'s ends', async () => {
    // The demo dump's strings " > ", "    " and " ", and their labels (`… @ 0x…  " > "`, two spaces).
    const q = 'SELECT toString(s) AS t, s FROM java.lang.String s WHERE toString(s) LIKE "^ .*"';
    const entry = await enterStatement(page, q);
    const terminal = await terminalCells(q);
    expect(terminal.map((r) => r[0])).toEqual(expect.arrayContaining([' > ', '    ', ' ']));
    // innerText is the text as laid out: spaces the page collapses are gone from it.
    const shown = await entry.locator('table.result tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((td) => (td as HTMLElement).innerText)));
    expect(shown).toEqual(terminal);
    // What a selection of the table copies, through the clipboard.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: repl.server.url });
    await entry.locator('table.result').evaluate((table) => {
      const range = document.createRange();
      range.selectNode(table);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
    });
    await page.keyboard.press('Control+C');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied.split('\n').filter((l) => l !== '')).toEqual(['t\ts', ...terminal.map((r) => r.join('\t'))]);
    await page.evaluate(() => getSelection()!.removeAllRanges());
    await page.locator('#input').focus();
  });

  test('NaN and ±Infinity are numbers: !sort and !stats take them', async () => {
    const q = 'SELECT s.createdAt AS c, 0.0 / 0.0 AS n, 1.0 / (s.createdAt - 1700001227445) AS i FROM Demo$Session s LIMIT 3';
    await enterStatement(page, q);
    const stats = await enterStatement(page, '!stats i');
    expect(await stats.locator('pre.err').count()).toBe(0);
    expect(await stats.textContent()).toMatch(/Infinity/);
    const sorted = await cells(await enterStatement(page, '!sort i'));
    // As the terminal sorts them: -Infinity < ... < Infinity, numerically.
    const terminal = sortRows(await repl.session.query(q), 'i', false).rows.map((row) => row.map((v) => terminalText(formatValue(v))));
    expect(sorted).toEqual(terminal);
    expect(sorted.map((r) => r[2])).toContain('Infinity');
  });

  test('a -- @viz directive naming a missing column: one warning, no label of its own', async () => {
    const entry = await enterStatement(page, '-- @viz histogram value=nosuch\nSELECT toString(s.user) AS user, COUNT(*) AS n FROM Demo$Session s GROUP BY toString(s.user)');
    const text = await entry.innerText();
    expect(text.match(/nosuch/g)).toHaveLength(2); // the echo, and one warning
    expect(await entry.locator('pre.err').textContent()).toMatch(/^warning: .*nosuch/);
    expect(text).not.toMatch(/\bq\d+:/);
    expect(await entry.locator('table.result').count()).toBe(1);
    expect(problems).toEqual([]);
  });
});
