/**
 * `heapql mcp`: get_report_section calls that ask for the same list length share one computation
 * of the report; cancelling one of them stops only that call waiting, and the computation ends
 * for the others (it is cancelled when no call waits on it any more). The dump is written here
 * (test/mcp/slow-dump.ts: a million small objects) so that the report takes long enough for a
 * second call to join it and the first to be cancelled while it runs; the test checks that they
 * did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeSlowDump } from './slow-dump.js';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const NO_TIMEOUT = { timeout: 2_147_483_647 };

let dir: string;
let dump: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-mcp-report-waiters-'));
  dump = writeSlowDump(dir, 1_000_000);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('heapql mcp: one report computation, several get_report_section calls', () => {
  it('cancelling one of two calls waiting on the same report leaves the other its answer', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', dump, '--no-cache'], cwd: root, stderr: 'pipe' });
    const client = new Client({ name: 'heapql-test', version: '1.0.0' });
    await client.connect(transport);
    const status = () => client.callTool({ name: 'analysis_status', arguments: {} }, undefined, NO_TIMEOUT);
    try {
      const analyzed = await client.callTool({ name: 'analyze_heap', arguments: {} }, undefined, NO_TIMEOUT);
      expect(JSON.parse((analyzed.content as { text: string }[])[0]!.text).state).toBe('full');

      const controller = new AbortController();
      const first = client.callTool({ name: 'get_report_section', arguments: { section: 'overview', limit: 3 } }, undefined, { ...NO_TIMEOUT, signal: controller.signal });
      // A round trip after a request: the server has handled it up to its wait for the report.
      await status();
      let secondDone = false;
      const second = client.callTool({ name: 'get_report_section', arguments: { section: 'leak_suspects', limit: 3 } }, undefined, NO_TIMEOUT);
      void second.finally(() => (secondDone = true));
      await status();
      // Both wait on the report still being computed (else this test proves nothing).
      expect(secondDone).toBe(false);
      controller.abort();
      await expect(first).rejects.toThrow(/abort/i);

      const answer = await second;
      const text = (answer.content as { text: string }[])[0]!.text;
      expect(text).not.toMatch(/cancel/);
      expect(answer.isError).toBeFalsy();
      expect(JSON.parse(text)).toMatchObject({ section: 'leak_suspects', thresholdPercent: expect.any(Number) });
      // The computation is kept for the next call with that limit.
      const overview = await client.callTool({ name: 'get_report_section', arguments: { section: 'overview', limit: 3 } }, undefined, NO_TIMEOUT);
      expect(overview.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
