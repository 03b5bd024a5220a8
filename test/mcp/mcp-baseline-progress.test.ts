/**
 * compare_with_baseline opens the baseline dump on first use and then runs its queries on both
 * dumps; it sent no progress meanwhile, so a client that keeps a request alive while progress
 * comes (the SDK's `resetTimeoutOnProgress`) could give up on a big baseline before the answer.
 * Now the call sends the baseline's index (`indexing the baseline dump: records 1048576 of …`)
 * while it waits, then each query's scan, named by its dump (`scanning the baseline dump
 * (reachable objects by class): …`, `scanning this dump (…)`), all numbered so that they only
 * grow. The MCP SDK's client on the in-memory transport, a server (createMcpServer) on a small
 * synthetic dump, open before the call, and a baseline of 4 M objects (100 MB).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { embedded, expectGrowing } from './embedded.js';
import { writeSlowDump } from './slow-dump.js';

const BASELINE_INDEX = /^indexing the baseline dump: ((records|index|inflate|gzip member table|verifying cache|writing cache) \d+( of \d+)?|done)$/;
const SCAN = /^scanning (the baseline dump|this dump) \((reachable objects by class|reachable int\[\] arrays)\)(, finding the reachable objects)?: (started|\d+( of \d+)?)$/;
const FINDING = ', finding the reachable objects';

let dir: string;
let current: string;
let baseline: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-mcp-baseline-progress-'));
  current = writeSlowDump(dir, 1000, 'current.hprof');
  baseline = writeSlowDump(dir, 4_000_000, 'baseline.hprof');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A server on the small dump (its index built before any call) and a client connected to it. */
async function startServer(reachableOnly: boolean) {
  const s = await embedded(current, undefined, { reachableOnly, context: async (ctx) => void (await ctx.heap()) });
  return { compare: (args: Record<string, unknown>) => s.callWithProgress('compare_with_baseline', args), close: s.close };
}

/** The index reports of a call: the baseline's, each as BASELINE_INDEX, the records phase among them. */
function expectBaselineIndex(seen: Progress[]) {
  expect(seen.length, 'no index report came while the baseline was opened').toBeGreaterThan(0);
  for (const p of seen) {
    expect(p.message).toMatch(BASELINE_INDEX);
    expect(p.total).toBeUndefined();
  }
  expect(seen.map((p) => p.message!.split(' ')[4])).toContain('records');
}

/** The Node row of the comparison: 4 M nodes in the baseline, 1 000 in this dump. */
function expectNodes(result: Record<string, unknown>) {
  const rows = result.rows as { className: string; baselineCount: number; currentCount: number }[];
  expect(rows.find((r) => r.className === 'Node')).toMatchObject({ baselineCount: 4_000_000, currentCount: 1000 });
}

describe('heapql mcp: compare_with_baseline reports the baseline while it waits for it', () => {
  it('the baseline named by the call: its index while it is opened, then the answer; once open, nothing', async () => {
    const s = await startServer(false);
    try {
      const { seen, result } = await s.compare({ baseline, changedOnly: false });
      expect(result.baseline).toBe(baseline);
      expectNodes(result);
      // Every object counted (the histograms come from the indexes): no query ran, only the index was waited for.
      expectBaselineIndex(seen);
      expectGrowing(seen);
      const again = await s.compare({ baseline, changedOnly: false });
      expect(again.seen).toEqual([]);
      expect(again.result.rows).toEqual(result.rows);
    } finally {
      await s.close();
    }
  });

  it('two calls made together share the opening, both told its index', async () => {
    const s = await startServer(false);
    try {
      const [a, b] = await Promise.all([s.compare({ baseline }), s.compare({ baseline })]);
      for (const call of [a, b]) {
        expectBaselineIndex(call.seen);
        expectGrowing(call.seen);
      }
      expect(b.result.rows).toEqual(a.result.rows);
    } finally {
      await s.close();
    }
  });

  it('--reachable-only: the index, then the scan of the baseline, then of this dump, one sequence of numbers', async () => {
    const s = await startServer(true);
    try {
      const { seen, result } = await s.compare({ baseline, changedOnly: false });
      expect(result.reachableOnly).toBe(true);
      expectNodes(result);
      const index = seen.filter((p) => BASELINE_INDEX.test(p.message!));
      expectBaselineIndex(index);
      // The index first, then the queries' reports, each named by its dump.
      expect(seen.slice(0, index.length)).toEqual(index);
      const scans = seen.slice(index.length);
      for (const p of scans) {
        expect(p.message).toMatch(SCAN);
        expect(p.total).toBeUndefined();
      }
      const stages = scans.map((p) => p.message!.replace(/: .*$/, '').replace(FINDING, ''));
      const onBaseline = 'scanning the baseline dump (reachable objects by class)';
      const onThis = 'scanning this dump (reachable objects by class)';
      expect(stages[0]).toBe(onBaseline);
      expect(scans[0]!.message).toBe(`${onBaseline}: started`);
      // The baseline's reachable objects were found, then its 4 M objects scanned, with reports
      // on the way of both, not just started.
      const finding = scans.filter((p) => p.message!.startsWith(`${onBaseline}${FINDING}: `));
      const scanning = scans.filter((p) => p.message!.startsWith(`${onBaseline}: `) && / of \d+$/.test(p.message!));
      expect(finding.length, 'reports while the reachable objects are found').toBeGreaterThan(1);
      expect(scanning.length).toBeGreaterThan(0);
      expect(scans.indexOf(finding[finding.length - 1]!)).toBeLessThan(scans.indexOf(scanning[0]!));
      expect(stages).toContain(onThis);
      expect(scans.find((p) => p.message!.startsWith(onThis))!.message).toBe(`${onThis}: started`);
      // Every report of the baseline's scan before any of this dump's.
      const first = stages.indexOf(onThis);
      expect(stages.slice(0, first).every((st) => st === onBaseline)).toBe(true);
      expect(stages.slice(first).every((st) => st === onThis)).toBe(true);
      expectGrowing(seen);

      // Once open, the queries still report (no index any more, and the reachable objects are known).
      const again = await s.compare({ baseline, changedOnly: false });
      expect(again.seen.length).toBeGreaterThan(0);
      for (const p of again.seen) {
        expect(p.message).toMatch(SCAN);
        expect(p.message).not.toContain(FINDING);
      }
      expect(again.result.rows).toEqual(result.rows);
    } finally {
      await s.close();
    }
  });
});
