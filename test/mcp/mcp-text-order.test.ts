/**
 * The orders of list_classes and compare_with_baseline are every front's: texts in Java's order
 * (`String.compareTo`, by UTF-16 unit: ts/text-order.ts), not the locale's; list_classes by
 * shallow bytes in the class histogram's order (shallow bytes, then instances, then name), so
 * its first rows are `heapql summary`'s topClasses. Before, both tools broke ties with
 * `localeCompare` (`byte[]` before `Demo`, `java.lang.reflect.Field` before
 * `java.util.LinkedList$Node` of the same shallow bytes but more instances).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const knownCoops = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
/** A HotSpot 8 dump nobody on this project wrote (../shared/corpus/README.md). */
const hprof64 = path.resolve(root, '../shared/corpus/hprof-64.bin');
const NO_TIMEOUT = { timeout: 2_147_483_647 };

/** Java's order of texts: by UTF-16 unit, as JavaScript's `<` compares strings. */
const javaOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

async function connect(dump: string): Promise<Client> {
  expect(existsSync(dump), `${dump} is missing`).toBe(true);
  const client = new Client({ name: 'heapql-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', dump, '--no-cache'], cwd: root, stderr: 'ignore' }));
  return client;
}

async function json(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await client.callTool({ name, arguments: args }, undefined, NO_TIMEOUT);
  const text = (result.content as { text: string }[])[0]!.text;
  expect(result.isError, text).toBeFalsy();
  return JSON.parse(text);
}

/** Every row of list_classes, page after page. */
async function allClasses(client: Client, sortBy: string): Promise<{ className: string; instances: number; shallowBytes: number }[]> {
  const rows = [];
  let offset = 0;
  for (;;) {
    const page = await json(client, 'list_classes', { sortBy, offset, limit: 500 });
    rows.push(...page.classes);
    if (page.nextOffset === undefined) return rows;
    offset = page.nextOffset;
  }
}

describe('heapql mcp: list_classes and compare_with_baseline in every front\'s order', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(demo);
  });
  afterAll(async () => {
    await client.close();
  });

  it('list_classes by name: Java\'s order of texts (Demo before byte[])', async () => {
    const names = (await allClasses(client, 'name')).map((r) => r.className);
    expect(names).toHaveLength(769);
    expect(names).toEqual([...names].sort(javaOrder));
    expect(names.indexOf('Demo')).toBeLessThan(names.indexOf('byte[]'));
  });

  it('list_classes by count: most instances first, then most shallow bytes, then the name', async () => {
    const rows = await allClasses(client, 'count');
    const expected = [...rows].sort((a, b) => b.instances - a.instances || b.shallowBytes - a.shallowBytes || javaOrder(a.className, b.className));
    expect(rows).toEqual(expected);
  });

  it('compare_with_baseline: rows of the same growth by name in Java\'s order', async () => {
    const cmp = await json(client, 'compare_with_baseline', { baseline: knownCoops, limit: 500 });
    expect(cmp.rows.length).toBe(cmp.matchingRows);
    const expected = [...cmp.rows].sort((a, b) => b.bytesDelta - a.bytesDelta || javaOrder(a.className, b.className));
    expect(cmp.rows.map((r: { className: string }) => r.className)).toEqual(expected.map((r) => r.className));
  });
});

describe('heapql mcp: list_classes by shallow bytes as heapql summary orders its top classes', () => {
  it('on a HotSpot 8 dump of the corpus, the first rows are the summary\'s topClasses', async () => {
    const client = await connect(hprof64);
    try {
      const summary = JSON.parse(execFileSync(process.execPath, [bin, 'summary', hprof64, '--format', 'json', '--no-cache', '--quiet'], { cwd: root }).toString());
      const top: { className: string; instances: number; shallow: number }[] = summary.topClasses;
      expect(top).toHaveLength(20);
      const rows = (await json(client, 'list_classes', { limit: top.length })).classes;
      expect(rows).toEqual(top.map((t) => ({ className: t.className, instances: t.instances, shallowBytes: t.shallow })));
      // describe_dump's top 10 are the same rows.
      const dump = await json(client, 'describe_dump', {});
      expect(dump.topClasses).toEqual(top.slice(0, 10));
    } finally {
      await client.close();
    }
  });
});
