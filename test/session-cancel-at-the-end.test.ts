/**
 * A cancel (the CLI's Ctrl-C) sent while a step's result is on its way wins, as it does for the
 * analysis: opening a dump whose index is read from the cache (or whose cache entry is being
 * written), and building a report read from the cache, take no time to cancel mid-way; they
 * used to resolve as if nothing had happened, and `heapql` went on (to exit 0, a report written)
 * after saying `interrupted: stopping…`. Now they fail with ERR_CANCELLED; the cache entry,
 * written whole, stays.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap } from '../ts/session/index.js';

const demo = path.resolve(__dirname, '../fixtures/demo/demo.hprof');
let cacheDir: string;

beforeAll(async () => {
  cacheDir = mkdtempSync(path.join(tmpdir(), 'heapql-cancel-end-'));
  // Fill the cache: index, analysis and report.
  const heap = await openHeap(demo, { cacheDir });
  try {
    await heap.analyze({ forReport: true });
    await heap.report();
  } finally {
    heap.close();
  }
  expect(readdirSync(cacheDir).length).toBeGreaterThan(0);
});
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe('a cancel as a cached step ends', () => {
  it('opening from the cache: ERR_CANCELLED, and the cache still serves the next open', async () => {
    const controller = new AbortController();
    const opening = openHeap(demo, { cacheDir, signal: controller.signal });
    controller.abort();
    await expect(opening).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    const heap = await openHeap(demo, { cacheDir });
    try {
      expect(heap.cacheStatus().uses).toContainEqual({ step: 'index', used: 'hit' });
    } finally {
      heap.close();
    }
  });

  it('a report read from the cache: ERR_CANCELLED', async () => {
    const heap = await openHeap(demo, { cacheDir });
    try {
      await heap.analyze({ forReport: true });
      const controller = new AbortController();
      const building = heap.report({ signal: controller.signal });
      controller.abort();
      await expect(building).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    } finally {
      heap.close();
    }
  });
});
