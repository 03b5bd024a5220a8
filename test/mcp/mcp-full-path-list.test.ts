/**
 * run_oql's description and the query-only state's next step (describe_dump, analysis_status)
 * name every OQL construct that needs analyze_heap, and each is refused before it with that
 * advice. Before, they named @retainedHeapSize, dominators(), @inbounds and path() only, so an
 * assistant had no warning that @outbounds (whose referents inspect_object gives at once),
 * dominatorof(), inbounds(), outbounds() or AS RETAINED SET would be refused.
 */
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { embedded, type Embedded } from './embedded.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

/** Each construct the planner keeps to the full path, and a query on the demo dump that uses it. */
const FULL_PATH: [string, string][] = [
  ['@retainedHeapSize', 'SELECT m.@retainedHeapSize FROM java.util.HashMap m'],
  ['AS RETAINED SET', 'SELECT AS RETAINED SET m FROM java.util.HashMap m'],
  ['dominators()', 'SELECT dominators(m) FROM java.util.HashMap m'],
  ['dominatorof()', 'SELECT dominatorof(m) FROM java.util.HashMap m'],
  ['@inbounds', 'SELECT m.@inbounds FROM java.util.HashMap m'],
  ['@outbounds', 'SELECT m.@outbounds FROM java.util.HashMap m'],
  ['inbounds()', 'SELECT inbounds(m) FROM java.util.HashMap m'],
  ['outbounds()', 'SELECT outbounds(m) FROM java.util.HashMap m'],
  ['path()', 'SELECT path(m, m) FROM java.util.HashMap m'],
];

describe('heapql mcp: what OQL needs analyze_heap, said before it is refused', () => {
  let s: Embedded;
  beforeAll(async () => {
    s = await embedded(demo);
  });
  afterAll(async () => {
    await s.close();
  });

  it('each construct is refused on the query-only path, with the advice to call analyze_heap', async () => {
    for (const [construct, query] of FULL_PATH) {
      const answer = await s.call('run_oql', { query });
      expect(answer.isError, `${construct}: ${answer.texts[0]}`).toBe(true);
      expect(answer.texts[0]).toMatch(/^OQL error: query:1:\d+: /);
      expect(answer.texts[0]).toMatch(/\(In this MCP server: call the analyze_heap tool first, then retry\.\)$/);
    }
  });

  it('run_oql\'s description and the query-only next step name each of them', async () => {
    const { tools } = await s.client.listTools();
    const runOql = tools.find((t) => t.name === 'run_oql')!;
    const next = JSON.parse((await s.call('describe_dump')).texts[0]!).next as string;
    expect(next).toMatch(/^Query-only: /);
    for (const [construct] of FULL_PATH) {
      expect(runOql.description, construct).toContain(construct);
      expect(next, construct).toContain(construct);
    }
  });
});
