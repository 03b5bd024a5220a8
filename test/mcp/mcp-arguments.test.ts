/**
 * `heapql mcp`: a wrong argument to any tool — a number out of range, not whole or beyond 2^53,
 * a string where a number goes, an empty string, a value outside an enum, a missing required
 * argument, an argument the tool does not take — is a tool error (`isError`) naming the
 * argument, what it takes and the value given; the server answers the next call. Driven by the
 * MCP SDK's client over stdio on the compiled CLI.
 */
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_LENGTH } from '../../ts/oql/index.js';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const NO_TIMEOUT = { timeout: 2_147_483_647 };

let client: Client;
beforeAll(async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', demo, '--no-cache'], cwd: root, stderr: 'pipe' });
  client = new Client({ name: 'heapql-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(() => client.close());

async function call(name: string, args: unknown): Promise<{ isError: boolean; text: string }> {
  const result = await client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, NO_TIMEOUT);
  return { isError: result.isError === true, text: (result.content as { text: string }[])[0]!.text };
}

/** The message the SDK puts before every argument error. */
const prefix = (tool: string) => `MCP error -32602: Input validation error: Invalid arguments for tool ${tool}: `;

const MAX_ROWS = 'maxRows must be a whole number from 1 to 500 (default 50)';
const Q = 'SELECT s FROM java.lang.String s';

/** [tool, arguments, the message after the prefix] */
const CASES: [string, Record<string, unknown>, string][] = [
  ['run_oql', { query: Q, maxRows: -1 }, `${MAX_ROWS}, not -1 at maxRows`],
  ['run_oql', { query: Q, maxRows: 0 }, `${MAX_ROWS}, not 0 at maxRows`],
  ['run_oql', { query: Q, maxRows: 1.5 }, `${MAX_ROWS}, not 1.5 at maxRows`],
  // Past 2^53 and past the cap: one message, not one per broken bound.
  ['run_oql', { query: Q, maxRows: 1e20 }, `${MAX_ROWS}, not 100000000000000000000 at maxRows`],
  ['run_oql', { query: Q, maxRows: 501 }, `${MAX_ROWS}, not 501 at maxRows`],
  ['run_oql', { query: Q, maxRows: '5' }, `${MAX_ROWS}, not "5" at maxRows`],
  ['run_oql', { query: Q, maxRows: null }, `${MAX_ROWS}, not null at maxRows`],
  ['run_oql', { query: '' }, 'query must be the OQL text (a string of 1 to 200000 characters), not "" at query'],
  ['run_oql', {}, 'query must be the OQL text (a string of 1 to 200000 characters); it is missing at query'],
  ['run_oql', { query: 5 }, 'query must be the OQL text (a string of 1 to 200000 characters), not 5 at query'],
  ['run_oql', { query: Q, reachableOnly: 'yes' }, 'reachableOnly must be true or false, not "yes" at reachableOnly'],
  // Another tool's argument name: said, with the ones this tool takes.
  ['run_oql', { query: Q, limit: 5 }, "unknown argument 'limit': run_oql takes query, maxRows, reachableOnly"],
  ['run_oql', { query: Q, limit: 5, sortBy: 'name' }, "unknown arguments 'limit', 'sortBy': run_oql takes query, maxRows, reachableOnly"],
  ['explain_oql', { query: Q, maxRows: 5 }, "unknown argument 'maxRows': explain_oql takes query, reachableOnly"],
  ['run_named_query', { name: '' }, 'name must be the name of a named query (a string of 1 to 200 characters), not "" at name'],
  ['list_named_queries', { group: 'x' }, "unknown argument 'group': list_named_queries takes no arguments"],
  ['describe_dump', { verbose: true }, "unknown argument 'verbose': describe_dump takes no arguments"],
  ['list_classes', { offset: -1 }, 'offset must be a whole number from 0 to 4294967295 (default 0), not -1 at offset'],
  ['list_classes', { offset: 1e308 }, 'offset must be a whole number from 0 to 4294967295 (default 0), not 1e+308 at offset'],
  ['list_classes', { limit: 0 }, 'limit must be a whole number from 1 to 500 (default 50), not 0 at limit'],
  ['list_classes', { sortBy: 'size' }, 'sortBy must be one of "shallow", "count", "name", not "size" at sortBy'],
  ['list_classes', { pattern: 7 }, 'pattern must be a part of a class name (a string), not 7 at pattern'],
  ['describe_class', { name: '' }, 'name must be a fully qualified class name (a string of at least one character), not "" at name'],
  ...[-1, 1.5, true, ''].map((object): [string, Record<string, unknown>, string] => [
    'inspect_object',
    { object },
    `object must be an objectId (a whole number from 0, as results give it) or a string: "#1234", an address "0x7f3a…", or "java.util.HashMap#1234", not ${JSON.stringify(object)} at object`,
  ]),
  ['inspect_object', { object: 1, include: 'fields' }, 'include must be a list of some of "fields", "referents", "referrers", "pathToRoot", "dominator", not "fields" at include'],
  ['inspect_object', { object: 1, include: ['fields', 'parents'] }, 'include must be a list of some of "fields", "referents", "referrers", "pathToRoot", "dominator", not "parents" at include[1]'],
  ['inspect_object', { object: 1, fieldOffset: 4294967296 }, 'fieldOffset must be a whole number from 0 to 4294967295 (default 0), not 4294967296 at fieldOffset'],
  ['inspect_object', { object: 1, fieldLimit: 501 }, 'fieldLimit must be a whole number from 1 to 500 (default 50), not 501 at fieldLimit'],
  ['inspect_object', { object: 1, referenceLimit: 0 }, 'referenceLimit must be a whole number from 1 to 200 (default 20), not 0 at referenceLimit'],
  ['analyze_heap', { wait: 'yes' }, 'wait must be true or false, not "yes" at wait'],
  ['analysis_status', { verbose: 1 }, "unknown argument 'verbose': analysis_status takes no arguments"],
  ['cancel_analysis', { force: true }, "unknown argument 'force': cancel_analysis takes no arguments"],
  ['get_report_section', { section: 'suspects' }, 'section must be one of "overview", "leak_suspects", "top_consumers", "threads", "waste", "duplicate_strings", not "suspects" at section'],
  ['get_report_section', { section: 'overview', limit: 101 }, 'limit must be a whole number from 1 to 100 (default 10), not 101 at limit'],
  ['compare_with_baseline', { baseline: '' }, 'baseline must be the path of a heap dump file (a string of 1 to 4096 characters), not "" at baseline'],
  ['compare_with_baseline', { sortBy: 'shallow' }, 'sortBy must be one of "bytes", "count", not "shallow" at sortBy'],
  ['compare_with_baseline', { changedOnly: 1 }, 'changedOnly must be true or false, not 1 at changedOnly'],
];

describe('heapql mcp tool arguments', () => {
  it.each(CASES)('%s %j: a tool error naming the argument', async (tool, args, message) => {
    const answer = await call(tool, args);
    expect(answer).toEqual({ isError: true, text: prefix(tool) + message });
  });

  it('text past its longest: a tool error, before any parsing (the longest OQL text is the parser limit, MAX_QUERY_LENGTH)', async () => {
    const cut = `not "${'x'.repeat(56)}…`;
    const query = await call('run_oql', { query: 'x'.repeat(200_001) });
    expect(query).toEqual({ isError: true, text: `${prefix('run_oql')}query must be the OQL text (a string of 1 to 200000 characters), ${cut} at query` });
    const explain = await call('explain_oql', { query: `SELECT s FROM ${'a.'.repeat(500_000)}X s` });
    expect(explain.text).toMatch(/^MCP error -32602: .*query must be the OQL text \(a string of 1 to 200000 characters\), not "SELECT s FROM a\.a\./);
    expect((await call('run_named_query', { name: 'x'.repeat(201) })).text).toBe(
      `${prefix('run_named_query')}name must be the name of a named query (a string of 1 to 200 characters), ${cut} at name`,
    );
    expect((await call('compare_with_baseline', { baseline: 'x'.repeat(4097) })).text).toBe(
      `${prefix('compare_with_baseline')}baseline must be the path of a heap dump file (a string of 1 to 4096 characters), ${cut} at baseline`,
    );
    // At the longest: read (the parser's limit is the same).
    expect(MAX_QUERY_LENGTH).toBe(200_000);
    const longest = await call('run_oql', { query: `SELECT COUNT(*) FROM java.lang.String s WHERE s.@length >= 0${' '.repeat(200_000 - 60)}` });
    expect(longest.isError).toBe(false);
  });

  it('arguments that are no object: -32602 invalid params in one sentence (not -32603 and a zod dump); the server answers the next call', async () => {
    const sentence = (given: string) =>
      `MCP error -32602: Invalid params: the "arguments" of a tools/call request must be an object of the tool's arguments by name ` +
      `(e.g. {"query": "SELECT …"} for run_oql), not ${given}`;
    for (const [args, given] of [[[1], '[1]'], [null, 'null'], ['SELECT 1', '"SELECT 1"'], [7, '7']] as const) {
      const failed = await client.callTool({ name: 'run_oql', arguments: args as unknown as Record<string, unknown> }, undefined, NO_TIMEOUT).then(
        () => null,
        (err: Error & { code?: number }) => ({ code: err.code, message: err.message }),
      );
      expect(failed).toEqual({ code: -32602, message: sentence(given) });
    }
    // No tool name: said too.
    const nameless = await client.request({ method: 'tools/call', params: { arguments: {} } as never }, CallToolResultSchema, NO_TIMEOUT).then(
      () => null,
      (err: Error & { code?: number }) => ({ code: err.code, message: err.message }),
    );
    expect(nameless).toEqual({
      code: -32602,
      message: `MCP error -32602: Invalid params: a tools/call request's params must have "name", the tool's name (a string, as tools/list gives it), and it is missing`,
    });
    // No params at all.
    const bare = await client.request({ method: 'tools/call' } as never, CallToolResultSchema, NO_TIMEOUT).then(
      () => null,
      (err: Error & { code?: number }) => ({ code: err.code, message: err.message }),
    );
    expect(bare).toEqual({
      code: -32602,
      message: `MCP error -32602: Invalid params: a tools/call request's params must be an object with the tool's "name" and its "arguments", and they are missing`,
    });
    const next = await call('run_oql', { query: 'SELECT COUNT(*) FROM java.lang.String s' });
    expect(next.isError).toBe(false);
    expect(JSON.parse(next.text).rows).toEqual([[3703]]);
  });

  it('a long value is quoted cut', async () => {
    const answer = await call('list_classes', { sortBy: 'x'.repeat(1000) });
    expect(answer.text).toBe(`${prefix('list_classes')}sortBy must be one of "shallow", "count", "name", not "${'x'.repeat(56)}… at sortBy`);
  });

  it('every tool states in its schema that it takes no other arguments; the server still answers', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    const run = tools.find((t) => t.name === 'run_oql')!;
    expect(run.inputSchema.properties!.maxRows).toMatchObject({ type: 'integer', minimum: 1, maximum: 500, default: 50 });
    const answer = await call('run_oql', { query: 'SELECT COUNT(*) FROM java.lang.String s' });
    expect(answer.isError).toBe(false);
    expect(JSON.parse(answer.text).rows).toEqual([[3703]]);
  });
});
