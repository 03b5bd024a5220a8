/**
 * OQL errors and the `limit` of a query request, over real loopback HTTP (listen.ts binds
 * 127.0.0.1), on the demo dump before any analysis:
 * - a query that needs the full analysis is refused where it asks for it, as every other OQL
 *   error is (`line`, `column`, `reason`, the message `query:L:C: …` with the line and a
 *   caret), on POST /query, /stream and /pages, with the server's advice (POST /analyze) and
 *   not the other fronts' (`heapql analyze`);
 * - the JSON `limit` overrides the query's own `LIMIT` either way, as the service
 *   specification says ("overrides a LIMIT clause in the query").
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { listen, type RunningServer } from '../ts/server/listen.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

let session: HeapSession;
let server: RunningServer;
beforeAll(async () => {
  session = await openHeap(demo);
  server = await listen(session, 0);
});
afterAll(async () => {
  await server?.close();
  session?.close();
});

const post = (route: string, body: string, headers: Record<string, string> = {}) => fetch(`${server.url}${route}`, { method: 'POST', body, headers });

describe('a query that needs the full analysis, before it ran', () => {
  const query = 'SELECT s.createdAt, s.@retainedHeapSize FROM Demo$Session s';
  const json = { 'content-type': 'application/json' };

  test('POST /query, /stream and /pages: 400 with line, column and reason, the message with the line and a caret', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const [route, body, headers] of [
      ['/query', query, {}],
      ['/query', JSON.stringify({ query, limit: 3 }), json],
      ['/stream', query, {}],
      ['/pages', JSON.stringify({ query, pageRows: 10 }), json],
    ] as const) {
      const res = await post(route, body, headers);
      expect(res.status, route).toBe(400);
      const { ok, error } = (await res.json()) as { ok: boolean; error: Record<string, unknown> & { message: string; reason: string } };
      expect(ok).toBe(false);
      expect(error, route).toEqual({
        kind: 'query',
        message: expect.any(String),
        line: 1,
        column: 21,
        reason: '@retainedHeapSize requires the full analysis pipeline: POST /analyze to run the full analysis, then retry once GET /status says ready',
      });
      // The place as the CLI and MCP say it (`query:1:21`), the line, the caret under `s.@retainedHeapSize`.
      expect(error.message.split('\n'), route).toEqual([`query:1:21: ${error.reason}`, `  ${query}`, `  ${' '.repeat(20)}${'^'.repeat('s.@retainedHeapSize'.length)}`]);
      // The other fronts' advice (the planner's hint, `heapql analyze`) is not the server's.
      expect(error.message).not.toMatch(/heapql analyze|hint:/);
    }
    expect(session.status.state).toBe('query-only');
  });

  test('on a later line, after a -- @viz line: the line and column of the text sent', async () => {
    const text = '-- @viz histogram\nSELECT s.createdAt\n  FROM Demo$Session s\n  WHERE dominatorof(s) != null';
    const res = await post('/query', text);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { message: string; line: number; column: number; reason: string } };
    expect({ line: error.line, column: error.column }).toEqual({ line: 4, column: 9 });
    expect(error.reason).toMatch(/: POST \/analyze to run the full analysis, then retry once GET \/status says ready$/);
    expect(error.message.split('\n')).toEqual([`query:4:9: ${error.reason}`, '    WHERE dominatorof(s) != null', `  ${' '.repeat(8)}${'^'.repeat('dominatorof(s)'.length)}`]);
  });
});

describe('the JSON limit', () => {
  test('overrides the query\'s LIMIT, larger or smaller (the service specification\'s rule)', async () => {
    const rows = async (query: string, limit: number) => {
      const res = await post('/query', JSON.stringify({ query, limit }), { 'content-type': 'application/json' });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { rowCount: number; truncated: boolean };
      return [body.rowCount, body.truncated];
    };
    expect(await rows('SELECT s.createdAt FROM Demo$Session s LIMIT 1', 5)).toEqual([5, true]);
    expect(await rows('SELECT s.createdAt FROM Demo$Session s LIMIT 50', 3)).toEqual([3, true]);
  });
});
