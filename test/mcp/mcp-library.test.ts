/**
 * The MCP server as a library embeds it (`createMcpServer` of ts/mcp, the SDK's client over its
 * in-memory transport): a tool the embedder registers next to heapql's answers as it returns
 * (the dump's warnings ride on heapql's own tools only); run_oql's and run_named_query's
 * elapsedMs is the whole run, the counting run behind totalRows included (countMs of it); a
 * tools/call whose arguments are no object is answered -32602 in one sentence there too (the
 * server's own transport check is on whichever transport it is connected to).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { HeapSession } from '../../ts/session/index.js';
import { embedded } from './embedded.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const NO_TIMEOUT = { timeout: 2_147_483_647 };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-mcp-library-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createMcpServer in a library', () => {
  it("a tool the embedder registers answers as it returns: the dump's warnings come with heapql's tools only", async () => {
    const cut = path.join(dir, 'cut.hprof');
    writeFileSync(cut, readFileSync(demo).subarray(0, 2_000_000));
    const s = await embedded(cut, (server) =>
      server.registerTool('embedder_tool', { description: 'the embedder\'s own' }, async () => ({ content: [{ type: 'text', text: 'mine' }] })),
    );
    try {
      // Open, with its warnings: the next answer of a heapql tool carries them.
      expect((await s.ctx.heap()).warnings().length).toBeGreaterThan(0);
      expect(await s.call('embedder_tool')).toEqual({ isError: false, texts: ['mine'] });
      const classes = await s.call('list_classes', { limit: 1 });
      expect(classes.texts).toHaveLength(2);
      expect(classes.texts[1]).toMatch(/^Warning: reading .*cut\.hprof gave \d+ warnings?; /);
      expect(await s.call('embedder_tool')).toEqual({ isError: false, texts: ['mine'] });
    } finally {
      await s.close();
    }
  });

  it('elapsedMs is the whole run, the counting run behind totalRows included; countMs is that run', async () => {
    const s = await embedded(demo);
    try {
      const heap = (await s.ctx.heap()) as HeapSession & Record<string, unknown>;
      // The query's own time as the session measures it, and a counting run made slower by a timer.
      const queried: number[] = [];
      const query = heap.query.bind(heap);
      heap.query = async (...a: Parameters<HeapSession['query']>) => {
        const result = await query(...a);
        queried.push(result.elapsedMs);
        return result;
      };
      const count = heap.queryCount.bind(heap);
      const DELAY = 300;
      heap.queryCount = async (...a: Parameters<HeapSession['queryCount']>) => {
        await new Promise((resolve) => setTimeout(resolve, DELAY));
        return count(...a);
      };
      for (const [tool, args] of [
        ['run_oql', { query: 'SELECT s FROM java.lang.String s', maxRows: 1 }],
        ['run_named_query', { name: 'top-classes-by-count', maxRows: 1 }],
      ] as const) {
        queried.length = 0;
        const answer = await s.call(tool, args);
        expect(answer.isError, answer.texts[0]).toBe(false);
        const json = JSON.parse(answer.texts[0]!);
        expect(json.truncated).toBe(true);
        expect(json.totalRows).toBeGreaterThan(1);
        expect(queried).toHaveLength(1);
        expect(json.countMs).toBeGreaterThanOrEqual(DELAY - 1);
        // Each rounded to a tenth of a millisecond: that much slack.
        expect(json.elapsedMs).toBeGreaterThanOrEqual(queried[0]! + json.countMs - 0.2);
      }
      // No counting run: no countMs.
      const whole = JSON.parse((await s.call('run_oql', { query: 'SELECT COUNT(*) FROM java.lang.String s' })).texts[0]!);
      expect(whole).not.toHaveProperty('countMs');
      expect(whole.elapsedMs).toBeGreaterThanOrEqual(0);
    } finally {
      await s.close();
    }
  });

  it('a tools/call whose arguments are no object: -32602 in one sentence on the in-memory transport too, told to onerror', async () => {
    const errors: string[] = [];
    const s = await embedded(demo, (server) => {
      server.server.onerror = (err) => errors.push(err.message);
    });
    try {
      const failed = await s.client
        .request({ method: 'tools/call', params: { name: 'run_oql', arguments: 'SELECT 1' } } as never, CallToolResultSchema, NO_TIMEOUT)
        .then(
          () => null,
          (err: Error & { code?: number }) => ({ code: err.code, message: err.message }),
        );
      const sentence =
        `Invalid params: the "arguments" of a tools/call request must be an object of the tool's arguments by name ` +
        `(e.g. {"query": "SELECT …"} for run_oql), not "SELECT 1"`;
      expect(failed).toEqual({ code: -32602, message: `MCP error -32602: ${sentence}` });
      expect(errors).toEqual([sentence]);
      expect(await s.call('run_oql', { query: 'SELECT COUNT(*) FROM java.lang.String s' })).toEqual({ isError: false, texts: [expect.stringContaining('[[3703]]')] });
    } finally {
      await s.close();
    }
  });
});
