/**
 * A tool called right after the server started waits for the dump's index; it sent no progress
 * meanwhile, so a client that keeps a request alive while progress comes (the SDK's
 * `resetTimeoutOnProgress`) could give up on a big dump before the first answer. Now the call
 * sends the index's progress (`indexing the dump: records 1048576 of …`) while it waits, then
 * its own (a query's scans, the analysis's phases), all numbered so that they only grow.
 * The MCP SDK's client on the in-memory transport, a server (createMcpServer) started on a
 * synthetic dump of 4 M objects (100 MB, indexed in a second or so here) and called at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { embedded, expectGrowing } from './embedded.js';
import { writeSlowDump } from './slow-dump.js';
const INDEX = /^indexing the dump: ((records|index|inflate|gzip member table|verifying cache|writing cache) \d+( of \d+)?|done)$/;

let dir: string;
let dump: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-mcp-index-progress-'));
  dump = writeSlowDump(dir, 4_000_000);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A server whose dump starts indexing now, and a client connected to it. */
async function startServer() {
  let indexed = false;
  const s = await embedded(dump, undefined, { context: (ctx) => void ctx.heap().then(() => (indexed = true), () => {}) });
  return { ctx: s.ctx, indexed: () => indexed, call: s.callWithProgress, close: s.close };
}

describe('heapql mcp: a call made before the index is built reports the index', () => {
  it('describe_dump: the index phases while it waits, then the answer', async () => {
    const s = await startServer();
    try {
      expect(s.indexed(), 'the index was built before the call: the test needs a bigger dump').toBe(false);
      const { seen, result } = await s.call('describe_dump', {});
      expect(result.analysis).toMatchObject({ state: 'query-only' });
      expect(seen.length).toBeGreaterThan(0);
      for (const p of seen) {
        expect(p.message).toMatch(INDEX);
        expect(p.total).toBeUndefined();
      }
      expect(seen.map((p) => p.message!.split(' ')[3])).toContain('records');
      expectGrowing(seen);
      // Once open, a call waits for nothing and reports nothing of the index.
      const again = await s.call('describe_dump', {});
      expect(again.seen).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('run_oql: the index, then the scan, one sequence of numbers', async () => {
    const s = await startServer();
    try {
      expect(s.indexed(), 'the index was built before the call: the test needs a bigger dump').toBe(false);
      const { seen, result } = await s.call('run_oql', { query: 'SELECT COUNT(*) AS n FROM Node x WHERE x.next != null' });
      expect(result.rows).toEqual([[3_999_999]]);
      const stages = seen.map((p) => (INDEX.test(p.message!) ? 'index' : p.message!.split(':')[0]));
      expect(stages[0]).toBe('index');
      expect(stages).toContain('scanning objects');
      // Every index report comes before the query's.
      expect(stages.slice(stages.indexOf('scanning objects')).every((st) => st === 'scanning objects')).toBe(true);
      expectGrowing(seen);
    } finally {
      await s.close();
    }
  });

  it('analyze_heap: the index, then the phases laid end to end above it, the last at its total', async () => {
    const s = await startServer();
    try {
      expect(s.indexed(), 'the index was built before the call: the test needs a bigger dump').toBe(false);
      const { seen, result } = await s.call('analyze_heap', {});
      expect(result.state).toBe('full');
      const index = seen.filter((p) => INDEX.test(p.message!));
      const analysis = seen.filter((p) => !INDEX.test(p.message!));
      expect(index.length).toBeGreaterThan(0);
      expect(seen.slice(0, index.length)).toEqual(index);
      const base = index[index.length - 1]!.progress;
      for (const p of analysis) {
        expect(p.total).toBe(base + 3);
        expect(p.message).toMatch(/^(graph|dominators|retained): \d+ of \d+$|^analysis finished$/);
        // Hundredths as JSON writes them (2.72, not 2.7199999999999998).
        expect(String(p.progress)).toMatch(/^\d+(\.\d{1,2})?$/);
      }
      expect(analysis[analysis.length - 1]!.progress).toBe(base + 3);
      expectGrowing(seen);
    } finally {
      await s.close();
    }
  });
});
