/**
 * run_oql and run_named_query send MCP progress notifications when the request carries a
 * progressToken (the SDK's client sends one for `onprogress`): as the query scans and as its
 * counting run (totalRows) scans. Without them a long query sent nothing, and a client that keeps
 * a request alive while progress comes (`resetTimeoutOnProgress`) gave up at its request timeout
 * anyway: a GROUP BY over the strings of the 1 GiB benchmark dump took 100 s, past the SDK's 60 s.
 * The real CLI over stdio, the MCP SDK's client, a fixture dump of 168,473 objects: the executor
 * reports every 65,536 objects of a scan, so each scan over every object reports before its end.
 */
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { callWithProgress, expectGrowing } from './embedded.js';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');

describe('heapql mcp: progress of a query', () => {
  let client: Client;
  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', known, '--no-cache'], cwd: root, stderr: 'pipe' });
    client = new Client({ name: 'heapql-test', version: '1.0.0' });
    await client.connect(transport);
    // The dump's index first: a call made while it is built reports the index's progress too
    // (test/mcp/mcp-index-progress.test.ts), and these tests look at the queries' own reports.
    await client.callTool({ name: 'describe_dump', arguments: {} });
  });
  afterAll(async () => {
    await client.close();
  });

  /** Numbers that only grow, as MCP asks, each with a message saying the stage. */
  function expectStages(seen: Progress[]) {
    expectGrowing(seen);
    for (const p of seen) expect(p.message).toMatch(/^(scanning objects|counting rows): \d+( of \d+)?$/);
  }

  it('run_oql: the scan, then the counting run behind totalRows', async () => {
    const { seen, result } = await callWithProgress(client, 'run_oql', { query: 'SELECT o FROM INSTANCEOF java.lang.Object o', maxRows: 5 });
    expect(result.truncated).toBe(true);
    expect(result.totalRows).toBeGreaterThan(5);
    expectStages(seen);
    const stages = seen.map((p) => p.message!.split(':')[0]);
    expect(stages).toContain('scanning objects');
    // The counting run's reports come after the scan's. (Not required: on a dump this small its
    // scan may end before the session has delivered any of them, which it then drops.)
    const counting = stages.indexOf('counting rows');
    if (counting >= 0) expect(stages.slice(counting).every((s) => s === 'counting rows')).toBe(true);
  });

  it('run_oql without a counting run: the scan alone', async () => {
    const { seen, result } = await callWithProgress(client, 'run_oql', { query: 'SELECT COUNT(*) AS n FROM INSTANCEOF java.lang.Object o WHERE o.@usedHeapSize > 16' });
    expect(result.truncated).toBe(false);
    expectStages(seen);
    expect(seen.map((p) => p.message!.split(':')[0])).toContain('scanning objects');
    expect(seen.map((p) => p.message!.split(':')[0])).not.toContain('counting rows');
  });

  it('run_named_query', async () => {
    const { seen, result } = await callWithProgress(client, 'run_named_query', { name: 'duplicate-strings', maxRows: 2 });
    expect(result.name).toBe('duplicate-strings');
    expectStages(seen);
    expect(seen.map((p) => p.message!.split(':')[0])).toContain('scanning objects');
  });
});
