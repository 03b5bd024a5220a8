/**
 * The MCP server as a library embeds it: `createMcpServer` on an McpContext, the SDK's client
 * linked to it by the SDK's in-memory transport (no child process).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

import { createMcpServer, McpContext, type McpLog } from '../../ts/mcp/index.js';

const NO_TIMEOUT = { timeout: 2_147_483_647 };
const quiet: McpLog = { notice: () => {}, warn: () => {}, error: () => {} };

export interface Embedded {
  ctx: McpContext;
  client: Client;
  call: (name: string, args?: Record<string, unknown>) => Promise<{ isError: boolean; texts: string[] }>;
  /** A call that must succeed, with the progress notifications it got (the SDK's `onprogress`) and its JSON answer. */
  callWithProgress: (name: string, args?: Record<string, unknown>) => Promise<{ seen: Progress[]; result: Record<string, unknown> }>;
  close: () => Promise<void>;
}

export interface EmbeddedOptions {
  /** The server's `--reachable-only` (default false). */
  reachableOnly?: boolean;
  /** Sees the context before the server is made (to start or await the dump's index). */
  context?: (ctx: McpContext) => void | Promise<void>;
}

/** A server on `dump` and a client connected to it; `setup` runs on the server before the client connects. */
export async function embedded(dump: string, setup: (server: ReturnType<typeof createMcpServer>) => void = () => {}, options: EmbeddedOptions = {}): Promise<Embedded> {
  const ctx = new McpContext({ path: dump, reachableOnly: options.reachableOnly ?? false, log: quiet });
  await options.context?.(ctx);
  const server = createMcpServer(ctx);
  setup(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'heapql-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    ctx,
    client,
    call: async (name, args = {}) => {
      const result = await client.callTool({ name, arguments: args }, undefined, NO_TIMEOUT);
      return { isError: result.isError === true, texts: (result.content as { text: string }[]).map((c) => c.text) };
    },
    callWithProgress: (name, args = {}) => callWithProgress(client, name, args),
    close: async () => {
      await client.close();
      await server.close();
      await ctx.close();
    },
  };
}

/** A tool call of `client` that succeeds, with the progress reports it was sent and its answer's JSON. */
export async function callWithProgress(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ seen: Progress[]; result: Record<string, unknown> }> {
  const seen: Progress[] = [];
  const answer = await client.callTool({ name, arguments: args }, undefined, { ...NO_TIMEOUT, onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true });
  expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
  return { seen, result: JSON.parse((answer.content as { text: string }[])[0]!.text) as Record<string, unknown> };
}

/** Progress numbers that only grow, as MCP asks. */
export function expectGrowing(seen: Progress[]): void {
  const numbers = seen.map((p) => p.progress);
  for (let i = 1; i < numbers.length; i++) expect(numbers[i]!, `${JSON.stringify(seen)}`).toBeGreaterThan(numbers[i - 1]!);
}
