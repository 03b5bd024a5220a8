/**
 * The browser REPL's `!run` runs the named `[[query]]` entries of the server's config file, as
 * the terminal's does: the server lists them in `GET /help` (`storedQueries`), `!run` alone lists
 * them with the built-in ones, `!run <name>` runs one (a name with spaces too), Tab completes it.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { parseCollectionConfig } from '../../ts/report/config.js';
import { chromiumAvailable } from './chromium.js';
import { openReplPage, type ReplPage } from './repl-page.js';
import { DEMO_DUMP, enterStatement } from './repl-server.js';

const STORED = [
  { name: 'Sessions counted', oql: '-- @viz table\nSELECT COUNT(*) AS sessions\nFROM Demo$Session s', source: '/cfg/.heapql.toml:1', file: '/cfg/.heapql.toml', vizSource: '/cfg/.heapql.toml:4' },
  { name: 'pie', oql: 'SELECT COUNT(*) AS n\n-- @viz pie\nFROM Demo$Session s', source: '/cfg/.heapql.toml:7', file: '/cfg/.heapql.toml', vizSource: '/cfg/.heapql.toml:10' },
  // Entries with OQL errors, read from a config file as the CLI reads it (where each line of the text is).
  ...parseCollectionConfig(
    [
      '[[query]]',
      'name = "class"',
      'oql = """',
      'SELECT COUNT(*) AS n',
      '  FROM Demo$Sessio s"""',
      '[[query]]',
      'name = "syntax"',
      'oql = "SELECT COUNT(*) AS n FORM Demo$Session s"',
      '',
    ].join('\n'),
    '/cfg/errors.toml',
  ).queries.map(({ name, ...q }) => ({ name: name!, ...q })),
];

describe.skipIf(!chromiumAvailable)('browser REPL: !run and the config file', () => {
  let repl: ReplPage;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    repl = await openReplPage({ dump: DEMO_DUMP, server: { storedQueries: STORED } });
    ({ page, problems } = repl);
  });
  afterAll(() => repl?.close());

  test('GET /help lists the entries', async () => {
    const help = (await (await fetch(`${repl.server.url}/help`)).json()) as { storedQueries: unknown };
    expect(help.storedQueries).toEqual(STORED);
  });

  test('!run lists them, runs one by its name, and Tab completes the name', async () => {
    const list = await enterStatement(page, '!run');
    expect(await list.locator('pre.out').textContent()).toContain('Sessions counted          [config] /cfg/.heapql.toml:1');
    const run = await enterStatement(page, '!run Sessions counted');
    expect(await run.locator('pre.out').first().textContent()).toBe('→ SELECT COUNT(*) AS sessions FROM Demo$Session s');
    expect(await run.locator('table.result tbody td').allTextContents()).toEqual(['400']);
    await page.locator('#input').pressSequentially('!run Sess');
    await page.locator('#input').press('Tab');
    await expect.poll(() => page.locator('#input').inputValue()).toBe('!run Sessions counted');
    await page.locator('#input').fill('');
    expect(problems).toEqual([]);
  });

  test("an entry's bad -- @viz line is warned of at its line of the config file (vizSource)", async () => {
    const run = await enterStatement(page, '!run pie');
    expect(await run.locator('table.result tbody td').allTextContents()).toEqual(['400']);
    expect(await run.locator('pre.err').allTextContents()).toEqual([
      'warning: /cfg/.heapql.toml:10: @viz directive ignored: unknown chart kind "pie" (kinds: table, histogram, piechart, treemap); showing a table',
    ]);
    expect(problems).toEqual([]);
  });

  test("an entry's OQL error names the config file's line and column, from the server (a class the dump lacks) or the page (a syntax error); !last runs the last query that ran, not the refused entry", async () => {
    const classError = [
      '/cfg/errors.toml:5:8: class Demo$Sessio is not in this dump; did you mean Demo$Session?',
      '    FROM Demo$Sessio s"""',
      '         ^^^^^^^^^^^',
    ].join('\n');
    const syntaxError = [
      '/cfg/errors.toml:8:29: unexpected "FORM"; expected AS, FROM or ","',
      '  oql = "SELECT COUNT(*) AS n FORM Demo$Session s"',
      '                              ^^^^',
      '  hint: did you mean FROM?',
    ].join('\n');
    // A refused entry never ran: !last runs the last query that ran again (the test before's
    // !run pie), shown first, its warning at its place in the config file.
    const pie = 'warning: /cfg/.heapql.toml:10: @viz directive ignored: unknown chart kind "pie" (kinds: table, histogram, piechart, treemap); showing a table';
    for (const [statement, said] of [
      ['!run class', `error: ${classError}`],
      ['!last', pie],
      ['/run syntax', `error: ${syntaxError}`],
      ['!last', pie],
    ] as const) {
      const out = await enterStatement(page, statement);
      expect(await out.locator('pre.err').allTextContents()).toEqual([said]);
      if (statement === '!last') expect(await out.locator('pre.out').first().textContent()).toBe('→ SELECT COUNT(*) AS n FROM Demo$Session s');
    }
    // A query typed names its own place (`query`), as before: the server's refusal is shown as it said it.
    const typed = await enterStatement(page, 'SELECT COUNT(*) AS n FROM Demo$Sessio s');
    expect(await typed.locator('pre.err').allTextContents()).toEqual([
      [
        'error: query:1:27: class Demo$Sessio is not in this dump; did you mean Demo$Session?',
        '  SELECT COUNT(*) AS n FROM Demo$Sessio s',
        '                            ^^^^^^^^^^^',
      ].join('\n'),
    ]);
    // After !run pie, !last warns of its -- @viz line at the config file's line again.
    await enterStatement(page, '!run pie');
    const last = await enterStatement(page, '!last');
    expect(await last.locator('table.result tbody td').allTextContents()).toEqual(['400']);
    expect(await last.locator('pre.err').allTextContents()).toEqual([
      'warning: /cfg/.heapql.toml:10: @viz directive ignored: unknown chart kind "pie" (kinds: table, histogram, piechart, treemap); showing a table',
    ]);
    // The server's two refusals of the class (400), which the browser logs; nothing else.
    expect(problems).toEqual(Array(2).fill('console error: Failed to load resource: the server responded with a status of 400 (Bad Request)'));
  });
});
