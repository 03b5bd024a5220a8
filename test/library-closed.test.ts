/**
 * A heap after `close()`: every method, `status` and `analyzed` throw ERR_CLOSED ("the heap was
 * closed; open the dump again"), as the README's Library section says, also those that need
 * nothing of the addon (a plan, a listener, a list read once and kept, a stream not yet read).
 * `close()` itself stays harmless.
 */
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type Heap } from '../ts/index.js';

const demo = path.resolve(__dirname, '../fixtures/demo/demo.hprof');
const CLOSED = { code: 'ERR_CLOSED', message: 'the heap was closed; open the dump again' };

describe('a closed heap', () => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(demo);
    // Read once and kept by the session: answered from memory before the fix.
    heap.classNames();
    heap.close();
  });

  test.each([
    ['explain', (h: Heap) => h.explain('SELECT s FROM java.lang.String s')],
    ['prepare', (h: Heap) => h.prepare('SELECT s FROM java.lang.String s')],
    ['subscribe', (h: Heap) => h.subscribe(() => {})],
    ['queryStream', (h: Heap) => h.queryStream('SELECT s FROM java.lang.String s')],
    ['queryBatches', (h: Heap) => h.queryBatches('SELECT s FROM java.lang.String s')],
    ['classNames', (h: Heap) => h.classNames()],
    ['classes', (h: Heap) => h.classes('Session')],
    ['noClassMessage', (h: Heap) => h.noClassMessage('Nope')],
    ['startAnalysis', (h: Heap) => h.startAnalysis()],
    ['cancelAnalysis', (h: Heap) => h.cancelAnalysis()],
    ['analyzed', (h: Heap) => h.analyzed],
    ['status', (h: Heap) => h.status],
    ['info', (h: Heap) => h.info()],
    ['resolveObject', (h: Heap) => h.resolveObject('#1')],
  ])('%s throws ERR_CLOSED at once', (_name, use) => {
    expect(() => use(heap)).toThrow(expect.objectContaining(CLOSED));
  });

  test.each([
    ['query', (h: Heap) => h.query('SELECT COUNT(*) FROM java.lang.String')],
    ['queryCount', (h: Heap) => h.queryCount('SELECT s FROM java.lang.String s')],
    ['analyze', (h: Heap) => h.analyze()],
    ['report', (h: Heap) => h.report()],
    ['reportData', (h: Heap) => h.reportData()],
    ['waste', (h: Heap) => h.waste()],
    ['object', (h: Heap) => h.object(1)],
    ['describeClass', (h: Heap) => h.describeClass('Demo$Session')],
    ['retainedByHeap', (h: Heap) => h.retainedByHeap([1])],
  ])('%s rejects with ERR_CLOSED', async (_name, use) => {
    await expect((async () => use(heap))()).rejects.toMatchObject(CLOSED);
  });

  test('a stream loop over a closed heap ends with ERR_CLOSED, not ERR_CANCELLED', async () => {
    const loop = async () => {
      for await (const _row of heap.queryStream('SELECT s FROM java.lang.String s')) break;
    };
    await expect(loop()).rejects.toMatchObject(CLOSED);
  });

  test('close() again is harmless', () => {
    expect(() => heap.close()).not.toThrow();
  });
});

describe('close() while an analysis runs', () => {
  test('the analysis is cancelled and the caller told so; nothing is left running', async () => {
    const heap = await openHeap(demo);
    const states: string[] = [];
    heap.subscribe((e) => e.type === 'state' && states.push(e.status.state));
    const running = heap.analyze();
    heap.close();
    await expect(running).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    expect(states).toEqual(['analyzing']);
    expect(() => heap.status).toThrow(expect.objectContaining(CLOSED));
  });
});

describe('close() while a stream is being read (lib38)', () => {
  // The scan runs at most 8 batches ahead of the loop: with batches of 10 rows, thousands of
  // strings are far from scanned when close() comes.
  const Q = 'SELECT s FROM java.lang.String s';

  test('queryStream: the next row is ERR_CLOSED, as query() says, not "the query was cancelled"', async () => {
    const heap = await openHeap(demo);
    const rows = heap.queryStream(Q, { batchRows: 10 });
    expect((await rows.next()).done).toBe(false);
    heap.close();
    await expect(rows.next()).rejects.toMatchObject(CLOSED);
  });

  test('queryBatches: the same', async () => {
    const heap = await openHeap(demo);
    const batches = heap.queryBatches(Q, { batchRows: 10 });
    expect((await batches.next()).done).toBe(false);
    heap.close();
    await expect(batches.next()).rejects.toMatchObject(CLOSED);
  });

  test('queryCount: a count running when close() comes rejects with ERR_CLOSED', async () => {
    const heap = await openHeap(demo);
    const counting = heap.queryCount("SELECT s FROM java.lang.String s WHERE toString(s) = 'none'");
    heap.close();
    await expect(counting).rejects.toMatchObject(CLOSED);
  });

  test("the caller's own abort stays ERR_CANCELLED", async () => {
    const heap = await openHeap(demo);
    const controller = new AbortController();
    const rows = heap.queryStream(Q, { batchRows: 10, signal: controller.signal });
    expect((await rows.next()).done).toBe(false);
    controller.abort();
    await expect(rows.next()).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    heap.close();
  });
});
