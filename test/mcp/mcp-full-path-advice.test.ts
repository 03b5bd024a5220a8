/**
 * A query that needs the full analysis, run or explained before it: the tool error says to call
 * analyze_heap (as the README's MCP section says), with the caret under what needs it, and not
 * the planner's advice for the other fronts, none of which an assistant can follow here ("— run
 * `heapql analyze`", "hint: run `heapql analyze` or the report command; in the REPL, !analyze;
 * on the server, POST /analyze"). The real CLI over stdio, the MCP SDK's client, the demo dump.
 */
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

describe('heapql mcp: a full-path query before the analysis', () => {
  let client: Client;
  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', demo, '--no-cache'], cwd: root, stderr: 'pipe' });
    client = new Client({ name: 'heapql-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
  });

  it.each([
    ['SELECT o, o.@retainedHeapSize FROM java.util.HashMap o', '@retainedHeapSize requires the full analysis pipeline', '          ^^^^^^^^^^^^^^^^^^^'],
    ['SELECT dominators(o) FROM java.util.HashMap o', 'dominator queries (dominators()) require the full analysis pipeline', '       ^^^^^^^^^^^^^'],
    ['SELECT o.@inbounds FROM java.util.HashMap o', 'reference-graph queries (@inbounds) need the full path', '       ^^^^^^^^^^^'],
  ])('%s', async (query, reason, caret) => {
    for (const tool of ['run_oql', 'explain_oql']) {
      const answer = await client.callTool({ name: tool, arguments: { query } });
      expect(answer.isError, tool).toBe(true);
      const text = (answer.content as { text: string }[])[0]!.text;
      const column = caret.indexOf('^') + 1;
      expect(text, tool).toBe(`OQL error: query:1:${column}: ${reason}\n  ${query}\n  ${caret}\n(In this MCP server: call the analyze_heap tool first, then retry.)`);
    }
  });
});
