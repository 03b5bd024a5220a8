// A double that is a whole number beyond ±(2^53 − 1) (2^53 itself, a SUM of longs past a long's
// range, 1.7e18 from a product of doubles) was written by `JSON.stringify` as a bare integer
// literal (`27670116110564327000`): the same text as an exact long, so an exact reader
// (`parseJsonExact`, the browser REPL) read it back as a bigint with made-up digits, and CSV/TSV
// made from it differed from the CLI's (`9007199254740992` where the CLI writes
// `9.007199254740992e+15`). Now such a double is written with an exponent (valid JSON, the same
// double for any reader), and a long keeps its bare integer literal.
//
// And NaN/±Infinity, written as the strings "NaN", "Infinity", "-Infinity" (JSON has no literal
// for them), are numbers again when a result is read back with `restoreNonFinite`.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import {
  formatCsv, formatJson, formatTable, formatTsv, parseJsonExact, restoreNonFinite, stringifyJson, validateQueryResult, type QueryResult,
} from '../ts/query/index.js';
import { createApp } from '../ts/server/app.js';
import { heapql } from './tools/run.js';

const demo = path.join(__dirname, '../fixtures/demo/demo.hprof');

/** 2^53 as a double, 2^53 as an exact long, a SUM of longs beyond a long as a double. */
const TWO53 = 2 ** 53;
const SUM_BEYOND_LONG = 2.7670116110564327e19;

describe('stringifyJson: doubles beyond 2^53', () => {
  test('are written with an exponent; JSON.parse reads the same double', () => {
    expect(stringifyJson(TWO53)).toBe('9.007199254740992e+15');
    expect(stringifyJson([SUM_BEYOND_LONG, -SUM_BEYOND_LONG])).toBe('[2.7670116110564327e+19,-2.7670116110564327e+19]');
    expect(stringifyJson({ a: 1.700000174218e18 }, 2)).toBe('{\n  "a": 1.700000174218e+18\n}');
    for (const x of [TWO53, -TWO53, SUM_BEYOND_LONG, 1.700000174218e18, Number.MAX_VALUE, 1e21]) {
      expect(JSON.parse(stringifyJson(x))).toBe(x);
      expect(parseJsonExact(stringifyJson([x, 2n ** 62n]))).toEqual([x, 2n ** 62n]);
    }
  });

  test('safe integers and longs keep their literals', () => {
    expect(stringifyJson([Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0, 42])).toBe('[9007199254740991,-9007199254740991,0,42]');
    // A long 2^53 is a bigint: every digit, no exponent.
    expect(stringifyJson([2n ** 53n, TWO53])).toBe('[9007199254740992,9.007199254740992e+15]');
  });

  test('an exact reader tells the double from the long', () => {
    const back = parseJsonExact(stringifyJson([TWO53, 2n ** 53n, SUM_BEYOND_LONG])) as unknown[];
    expect(back).toEqual([TWO53, 2n ** 53n, SUM_BEYOND_LONG]);
    expect(typeof back[0]).toBe('number');
    expect(typeof back[2]).toBe('number');
  });

  test('beside -0, NaN and strings that look like markers', () => {
    expect(stringifyJson([-0, NaN, TWO53, '\u0001bigint-x:9.007199254740992e+15'])).toBe(
      '[-0.0,"NaN",9.007199254740992e+15,"\\u0001bigint-x:9.007199254740992e+15"]',
    );
  });

  test('CSV and TSV of a result read back from JSON are those of the result itself', () => {
    const r: QueryResult = {
      name: 'q1', oql: 'SELECT', columns: [{ name: 'd', type: 'number' }, { name: 'l', type: 'number' }],
      rows: [[TWO53, 2n ** 53n], [SUM_BEYOND_LONG, 17001701742354218n]], rowCount: 2, truncated: false, elapsedMs: 1,
    };
    const back = parseJsonExact(stringifyJson(r)) as QueryResult;
    expect(formatCsv(back)).toBe(formatCsv(r));
    expect(formatTsv(back)).toBe(formatTsv(r));
    expect(formatTable(back)).toBe(formatTable(r));
    expect(formatCsv(back)).toBe('d,l\r\n9.007199254740992e+15,9007199254740992\r\n2.7670116110564327e+19,17001701742354218\r\n');
  });
});

describe('every writer of QueryResult JSON, on the demo dump', () => {
  // A double 2^53, a product of doubles beyond 2^53, and a long beyond 2^53 (exact).
  const QUERY = 'SELECT 9007199254740992.0 AS big, s.createdAt * 1000000.0 AS m, s.createdAt * 10001 AS p FROM Demo$Session s LIMIT 1';
  const ROW = '[9.007199254740992e+15,1.700000174218e+18,17001701742354218]';
  let session: HeapSession;
  beforeAll(async () => {
    session = await openHeap(demo);
  });
  afterAll(() => session?.close());
  const compact = (text: string) => text.replace(/\s+/g, '');

  test('the library: formatJson', async () => {
    const r = await session.query(QUERY);
    expect(compact(formatJson([r]))).toContain(`"rows":[${ROW}]`);
    expect(validateQueryResult(JSON.parse(formatJson([r]))[0]).ok).toBe(true);
  });

  test('the server: POST /query and /stream', async () => {
    const app = createApp(session, { port: 7071, replScript: () => '' });
    const post = (p: string) =>
      app.request(`http://127.0.0.1:7071${p}`, {
        method: 'POST',
        headers: { host: '127.0.0.1:7071', 'content-type': 'application/json' },
        body: JSON.stringify({ query: QUERY }),
      });
    expect(await (await post('/query')).text()).toContain(`"rows":[${ROW}]`);
    expect(await (await post('/stream')).text()).toBe('{"big":9.007199254740992e+15,"m":1.700000174218e+18,"p":17001701742354218}\n');
  });

  test('the CLI: --format json', async () => {
    const out = await heapql(['query', demo, '--format', 'json', '--query', QUERY]);
    expect(out.code).toBe(0);
    expect(compact(out.stdout)).toContain(`"rows":[${ROW}]`);
  });

  test('the MCP server: run_oql', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(__dirname, '../bin/heapql.js'), 'mcp', demo], stderr: 'pipe' });
    const client = new Client({ name: 'heapql-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'run_oql', arguments: { query: QUERY } }, undefined, { timeout: 2_147_483_647 });
      expect(result.isError).not.toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toContain(`"rows":[${ROW}]`);
    } finally {
      await client.close();
    }
  });
});

describe('restoreNonFinite', () => {
  test('"NaN", "Infinity", "-Infinity" in a number column are numbers again; text stays text', () => {
    const r: QueryResult = {
      name: 'q1', oql: 'SELECT',
      columns: [{ name: 'd', type: 'number' }, { name: 's', type: 'string' }, { name: 'l', type: 'list' }],
      rows: [[NaN, 'NaN', ['NaN', 1]], [Infinity, 'Infinity', []], [-Infinity, '-Infinity', null], [1.5, 'x', null], [null, null, null]],
      rowCount: 5, truncated: false, elapsedMs: 1,
    };
    const back = restoreNonFinite(parseJsonExact(stringifyJson(r)) as QueryResult);
    expect(back.rows.map((row) => row[0])).toEqual([NaN, Infinity, -Infinity, 1.5, null]);
    expect(back.rows.map((row) => row[1])).toEqual(['NaN', 'Infinity', '-Infinity', 'x', null]);
    // A list may hold text: its "NaN" is left as it was read.
    expect(back.rows[0]![2]).toEqual(['NaN', 1]);
    expect(formatTable(back)).toBe(formatTable(r));
  });
});
