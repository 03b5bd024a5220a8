/**
 * `heapql mcp --dump N` on a file with two heap dumps (../shared/corpus's JVMTI agent dump, two
 * snapshots): N picks one, never merged; an N past the file's dumps leaves the server running
 * and every tool says so and what to do: no tool picks a dump, the server must be restarted with
 * another --dump. Before, the answer named the dumps there are and nothing to do about it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const twoDumps = path.resolve(root, '../shared/corpus/oracle_jdk7_21_hprofagent.hprof');
const NO_TIMEOUT = { timeout: 2_147_483_647 };

async function withServer(args: string[], body: (call: (name: string, a?: Record<string, unknown>) => Promise<{ isError: boolean; text: string }>) => Promise<void>) {
  expect(existsSync(twoDumps), `${twoDumps} is missing`).toBe(true);
  const client = new Client({ name: 'heapql-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', twoDumps, '--no-cache', ...args], cwd: root, stderr: 'ignore' }));
  try {
    await body(async (name, a = {}) => {
      const r = await client.callTool({ name, arguments: a }, undefined, NO_TIMEOUT);
      return { isError: r.isError === true, text: (r.content as { text: string }[])[0]!.text };
    });
  } finally {
    await client.close();
  }
}

describe('heapql mcp --dump on a file with two heap dumps', () => {
  it('--dump 2 serves the second snapshot', async () => {
    await withServer(['--dump', '2'], async (call) => {
      const d = await call('describe_dump');
      expect(d.isError, d.text).toBe(false);
      expect(JSON.parse(d.text).dump).toEqual({ index: 1, count: 2 });
    });
  });

  it('compare_with_baseline against a file of two heap dumps says which it read: the first', async () => {
    await withServer(['--dump', '2'], async (call) => {
      const answer = await call('compare_with_baseline', { baseline: twoDumps, limit: 1 });
      expect(answer.isError, answer.text).toBe(false);
      const cmp = JSON.parse(answer.text);
      expect(cmp.baselineDump).toEqual({ index: 0, count: 2 });
      expect(cmp.baselineDumpNote).toBe('the baseline file holds 2 heap dumps (snapshots): the comparison reads heap dump 1, the first; no tool picks another');
      // The two snapshots as describe_dump counts them with --dump 1 and --dump 2.
      expect(cmp.totals.baseline.objects).toBe(3632);
      expect(cmp.totals.current.objects).toBe(3665);
      // A baseline of one heap dump needs no word on it.
      const one = JSON.parse((await call('compare_with_baseline', { baseline: path.join(root, 'fixtures/demo/demo.hprof'), limit: 1 })).text);
      expect(one).not.toHaveProperty('baselineDump');
      expect(one).not.toHaveProperty('baselineDumpNote');
    });
  });

  it('--dump 3: every tool says there is none and to restart the server with --dump 1 to 2', async () => {
    await withServer(['--dump', '3'], async (call) => {
      for (const name of ['describe_dump', 'list_classes']) {
        const answer = await call(name);
        expect(answer.isError).toBe(true);
        expect(answer.text).toBe(
          'ERR_NO_SUCH_DUMP: the file has 2 heap dump(s); there is no heap dump number 3 (counting from 1)\n' +
            "(In this MCP server: no tool picks the heap dump; restart the server with --dump 1 to --dump 2 in its arguments (the client's configuration).)",
        );
      }
    });
  });
});
