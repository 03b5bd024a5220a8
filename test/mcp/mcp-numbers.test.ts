/**
 * `heapql mcp` numbers are exact: a long past 2^53 keeps every digit (JSON.parse would round
 * it, so the answer's text is compared), and each answer equals `heapql query --format json` on
 * the same dump. Expected values are Java's own constants and the fixture program's arrays
 * (fixtures/programs/KnownHeap.java: `long[] longs = {0L, -1L, 1L << 40, 9_007_199_254_740_991L}`).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const NO_TIMEOUT = { timeout: 2_147_483_647 };

let client: Client;
beforeAll(async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', known, '--no-cache'], cwd: root, stderr: 'pipe' });
  client = new Client({ name: 'heapql-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(() => client.close());

async function text(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args }, undefined, NO_TIMEOUT);
  expect(result.isError).toBeFalsy();
  return (result.content as { text: string }[])[0]!.text;
}

/** The rows of a query's answer as text (`"rows":[…]` up to the next key), spaces removed. */
function rowsText(json: string): string {
  const m = /"rows":\s*(\[[\s\S]*?\])\s*,\s*"(?:rowCount|columns|truncated)"/.exec(json);
  expect(m, json.slice(0, 300)).not.toBeNull();
  return m![1]!.replace(/\s+/g, '');
}

/** The same query on the command line (no MCP): its rows as text. */
function cliRows(query: string): string {
  return rowsText(execFileSync(process.execPath, [bin, 'query', known, '--no-cache', '--format', 'json', '--query', query], { cwd: root, encoding: 'utf8' }));
}

describe('heapql mcp numbers', () => {
  it('longs past 2^53 keep every digit, as heapql query gives them', async () => {
    const described = JSON.parse(await text('describe_class', { name: 'java.lang.Long' }));
    const address = described.classes[0].classObject.address;
    const query = `SELECT c.MAX_VALUE, c.MIN_VALUE, c.SIZE FROM OBJECTS ${address} c`;
    const rows = rowsText(await text('run_oql', { query }));
    expect(rows).toBe('[[9223372036854775807,-9223372036854775808,64]]');
    expect(rows).toBe(cliRows(query));
    // describe_class gives a long static past 2^53 as its digits (a string), never rounded.
    const statics = Object.fromEntries(described.classes[0].statics.map((s: { name: string; value: unknown }) => [s.name, s.value]));
    expect(statics).toMatchObject({ MAX_VALUE: '9223372036854775807', MIN_VALUE: '-9223372036854775808', SIZE: 64 });
  });

  it('array elements and arithmetic, as heapql query gives them', async () => {
    const arrays = 'SELECT a[0], a[1], a[2], a[3] FROM long[] a WHERE a.@length = 4 AND a[3] = 9007199254740991';
    const rows = rowsText(await text('run_oql', { query: arrays }));
    expect(rows).toBe(`[[0,-1,${2 ** 40},9007199254740991]]`);
    expect(rows).toBe(cliRows(arrays));
    const sums = 'SELECT SUM(s.@usedHeapSize) AS bytes, COUNT(*) AS n FROM java.lang.String s';
    expect(rowsText(await text('run_oql', { query: sums }))).toBe(cliRows(sums));
  });
});
