/**
 * A query longer than the longest heapql takes (a generated 1.5 MB IN list), end to end through
 * `heapql query --query-file`: refused with exit 2 before the dump is read, the message naming
 * both lengths, and the long line shown as a window around the caret rather than echoed whole.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { heapql, root } from '../tools/run.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-too-long-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

it('a 1.5 MB query file: exit 2, both lengths named, a short window of the line under the message', async () => {
  const query = `SELECT s FROM java.lang.String s WHERE s.hash IN (${Array.from({ length: 200_000 }, (_, i) => i).join(', ')})\n`;
  expect(query.length).toBeGreaterThan(1_000_000);
  const file = path.join(tmp, 'big.oql');
  writeFileSync(file, query);
  const r = await heapql(['query', demo, '--no-cache', '--query-file', file]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0]).toBe(`error: ${file}:1:200001: the query is ${(query.length - 1).toLocaleString('en-US')} characters long; the longest query heapql takes is 200,000 characters`);
  expect(lines[1]).toMatch(/^ {2}…[\d, ]+…$/);
  expect(lines[1]!.length).toBeLessThan(250);
  expect(lines[2]).toMatch(/^ +\^$/);
  expect(lines[3]).toMatch(/^ {2}hint: shorten it: split a long OR chain over several queries/);
  expect(lines).toHaveLength(4);
});
