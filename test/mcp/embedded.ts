/**
 * The MCP server as a library embeds it: `createMcpServer` on an McpContext, the SDK's client
 * linked to it by the SDK's in-memory transport (no child process).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

import { createMcpServer, McpContext, type McpLog } from '../../ts/mcp/index.js';

const NO_TIMEOUT = { timeout: 2_147_483_647 };
const quiet: McpLog = { notice: () => {}, warn: () => {}, error: () => {} };

export interface Embedded {
  ctx: McpContext;
  client: Client;
  call: (name: string, args?: Record<string, unknown>) => Promise<{ isError: boolean; texts: string[] }>;
  close: () => Promise<void>;
}

/** A server on `dump` and a client connected to it; `setup` runs on the server before the client connects. */
export async function embedded(dump: string, setup: (server: ReturnType<typeof createMcpServer>) => void = () => {}): Promise<Embedded> {
  const ctx = new McpContext({ path: dump, reachableOnly: false, log: quiet });
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
    close: async () => {
      await client.close();
      await server.close();
      await ctx.close();
    },
  };
}
