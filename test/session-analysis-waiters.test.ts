/**
 * Several callers of one analysis (an MCP server's concurrent `analyze_heap` calls, a library
 * user's two `analyze()` calls): a caller that aborts only stops waiting; the analysis is
 * cancelled when every caller waiting on it has aborted, or by `cancelAnalysis()`, and one
 * started by `startAnalysis()` runs on until `cancelAnalysis()`. A cancelled analysis still
 * winding down is no analysis to join: `analyze()` then waits for it and starts a new one.
 *
 * The aborts here are sent synchronously, before the addon can have answered (an abort that
 * reaches the analysis after its native work finished still cancels it: test/session.test.ts),
 * so the small demo dump is enough.
 */
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

let session: HeapSession | undefined;
afterEach(() => {
  session?.close();
  session = undefined;
});

/** Resolves with the state the running analysis ends in. */
function ended(heap: HeapSession): Promise<string> {
  return new Promise((resolve) => {
    const stop = heap.subscribe((e) => {
      if (e.type === 'state' && e.status.state !== 'analyzing') {
        stop();
        resolve(e.status.state);
      }
    });
  });
}

async function open(): Promise<HeapSession> {
  session = await openHeap(demo);
  return session;
}

describe('one analysis, several callers', () => {
  test('a caller that aborts stops waiting; the others get the finished analysis', async () => {
    const heap = await open();
    const a = new AbortController();
    // Its refusal is taken as it comes (the others are awaited first).
    const first = heap.analyze({ signal: a.signal }).then(() => null, (err: unknown) => err);
    const second = heap.analyze();
    const third = heap.analyze({ signal: new AbortController().signal });
    a.abort();
    await expect(second).resolves.toBeUndefined();
    await expect(third).resolves.toBeUndefined();
    expect(await first).toMatchObject({ code: 'ERR_CANCELLED', message: expect.stringMatching(/stopped waiting .* goes on for the others/) });
    expect(heap.status).toMatchObject({ state: 'full', error: null });
    expect(heap.analyzed).toBe(true);
  });

  test('the analysis is cancelled when every caller waiting on it has aborted', async () => {
    const heap = await open();
    const [a, b] = [new AbortController(), new AbortController()];
    const first = heap.analyze({ signal: a.signal });
    const second = heap.analyze({ signal: b.signal });
    a.abort();
    expect(heap.status.state).toBe('analyzing');
    b.abort();
    await expect(first).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    await expect(second).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    expect(heap.status).toMatchObject({ state: 'query-only', error: null });
    expect(heap.analyzed).toBe(false);
  });

  test('cancelAnalysis() cancels it for every caller', async () => {
    const heap = await open();
    const first = heap.analyze();
    const second = heap.analyze({ signal: new AbortController().signal });
    expect(heap.cancelAnalysis()).toBe(true);
    // Already being cancelled: nothing more to cancel.
    expect(heap.cancelAnalysis()).toBe(false);
    await expect(first).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    await expect(second).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    expect(heap.status.state).toBe('query-only');
  });

  test('one started by startAnalysis() runs on when the only caller waiting on it aborts', async () => {
    const heap = await open();
    expect(heap.startAnalysis()).toBe('started');
    const end = ended(heap);
    const a = new AbortController();
    const waiting = heap.analyze({ signal: a.signal });
    a.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    expect(await end).toBe('full');
    expect(heap.status).toMatchObject({ state: 'full', error: null });
  });

  test('analyze() right after cancelAnalysis() waits for the cancelled one to wind down and runs a new one', async () => {
    const heap = await open();
    const states: string[] = [];
    heap.subscribe((e) => e.type === 'state' && states.push(e.status.state));
    expect(heap.startAnalysis()).toBe('started');
    expect(heap.cancelAnalysis()).toBe(true);
    // Still winding down: the state has not changed yet.
    expect(heap.status.state).toBe('analyzing');
    await heap.analyze();
    expect(heap.status).toMatchObject({ state: 'full', error: null });
    expect(states).toEqual(['analyzing', 'query-only', 'analyzing', 'full']);
  });

  test('cancelAnalysis() while a startAnalysis() waits for the wind-down cancels that start too', async () => {
    const heap = await open();
    heap.startAnalysis();
    heap.cancelAnalysis();
    expect(heap.startAnalysis()).toBe('started');
    // The start waiting for the wind-down is what there is to cancel now.
    expect(heap.cancelAnalysis()).toBe(true);
    await heap.analysisSettled();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heap.status.state).toBe('query-only');
    expect(heap.analyzed).toBe(false);
  });

  test('a caller waiting for a cancelled analysis to wind down stops at its own abort', async () => {
    const heap = await open();
    heap.startAnalysis();
    heap.cancelAnalysis();
    const a = new AbortController();
    const waiting = heap.analyze({ signal: a.signal });
    a.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    // Answered before the cancelled analysis has wound down.
    expect(heap.status.state).toBe('analyzing');
    await heap.analysisSettled();
    expect(heap.status.state).toBe('query-only');
  });

  test('startAnalysis() right after cancelAnalysis() starts a new one too', async () => {
    const heap = await open();
    heap.startAnalysis();
    heap.cancelAnalysis();
    expect(heap.startAnalysis()).toBe('started');
    await heap.analyze();
    expect(heap.status.state).toBe('full');
  });
});
