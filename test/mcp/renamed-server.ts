/**
 * `heapql mcp` (the compiled CLI) over stdio, on a copy of the demo dump with some of its names
 * replaced (test/tools/renamed-dump.ts) and the demo itself as the baseline, driven by the MCP
 * SDK's client as an assistant would: for the tests of long text from the dump.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'vitest';

import { RESULT_MAX } from '../../ts/mcp/limits.js';
import { writeRenamedDump } from '../tools/renamed-dump.js';

export const root = path.resolve(__dirname, '../..');
export const demo = path.join(root, 'fixtures/demo/demo.hprof');
const bin = path.join(root, 'bin/heapql.js');
/** The SDK's default request timeout is 60 s; tests set none of their own. */
const NO_TIMEOUT = { timeout: 2_147_483_647 };

export interface RenamedServer {
  client: Client;
  /** Calls a tool: a success whose text is within RESULT_MAX, parsed. */
  call: (name: string, args?: Record<string, unknown>) => Promise<any>;
  close: () => Promise<void>;
}

/** Starts the server on the demo with `names` replaced (internal form: `Demo$Session`, `sun/misc/Unsafe`), each found once. */
export async function startRenamedServer(names: Record<string, string>): Promise<RenamedServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-mcp-renamed-'));
  const dump = path.join(dir, 'renamed.hprof');
  expect(writeRenamedDump(demo, dump, names)).toBe(Object.keys(names).length);
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', dump, '--baseline', demo, '--no-cache'], cwd: root, stderr: 'pipe' });
  const client = new Client({ name: 'heapql-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    call: async (name, args = {}) => {
      const result = await client.callTool({ name, arguments: args }, undefined, NO_TIMEOUT);
      const text = (result.content as { text: string }[])[0]!.text;
      expect(result.isError, text.slice(0, 500)).toBeFalsy();
      expect(text.length).toBeLessThanOrEqual(RESULT_MAX);
      return JSON.parse(text);
    },
    close: async () => {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
