/**
 * A call's `onProgress` hears every report before the call returns and none after it. The
 * addon's reports reach JavaScript through a queue and may trail its result: a cached
 * `openHeap()` told all its `verifying cache` reports after it had returned, and `reportData()`
 * or `wasteData()` often their last ones (a progress bar drawn again after the work was done).
 * And a query whose signal is aborted while it runs (from its own onProgress) ends with
 * ERR_CANCELLED, as queryCount() does, where query() returned its rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

import { openHeap, type ProgressEvent } from '../ts/index.js';
import { nextTurn } from '../ts/session/next-turn.js';
import { root, run } from './tools/run.js';

const known = path.resolve(__dirname, '../fixtures/dumps/KnownHeap-jdk17-coops.hprof');

/**
 * Holds this thread (the event loop) for half a second while the addon's worker runs on: its
 * reports and its result are then all queued when the loop next looks, in the order the loop
 * takes them, which is the race a slow or busy loop meets.
 */
function holdTheLoop(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
}

/** Reports heard before the call returned, and after. */
async function heard<T>(run: (onProgress: (e: ProgressEvent) => void) => Promise<T>): Promise<{ before: ProgressEvent[]; after: ProgressEvent[] }> {
  const before: ProgressEvent[] = [];
  const after: ProgressEvent[] = [];
  let returned = false;
  // Held as the call starts (an open) and at its first report (a report's computation, which
  // starts its native work a few turns after it is called).
  const running = run((e) => {
    if (before.length + after.length === 0) holdTheLoop();
    (returned ? after : before).push({ phase: e.phase, done: e.done, total: e.total });
  });
  holdTheLoop();
  await running;
  returned = true;
  // Whatever was still queued arrives within a few turns of the event loop.
  for (let i = 0; i < 20; i++) await nextTurn();
  return { before, after };
}

describe('progress reports end with the call', () => {
  const cacheDir = mkdtempSync(path.join(tmpdir(), 'heapql-progress-end-'));
  afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

  test("a cached openHeap() tells its 'verifying cache' reports before it returns", async () => {
    (await openHeap(known, { cacheDir })).close();
    const { before, after } = await heard((onProgress) => openHeap(known, { cacheDir, onProgress }).then((heap) => heap.close()));
    expect(after).toEqual([]);
    const verifying = before.filter((e) => e.phase === 'verifying cache');
    expect(verifying.length).toBeGreaterThan(0);
    expect(verifying.at(-1)!.done).toBe(verifying.at(-1)!.total);
  });

  test.each(['reportData', 'wasteData'] as const)('%s tells its last report before it returns (three runs)', async (call) => {
    const heap = await openHeap(known);
    try {
      await heap.analyze();
      for (let run = 0; run < 3; run++) {
        const { before, after } = await heard<unknown>((onProgress) => heap[call]({ onProgress }));
        expect(after).toEqual([]);
        expect(before.length).toBeGreaterThan(0);
        expect(before.at(-1)!.done).toBe(before.at(-1)!.total);
      }
    } finally {
      heap.close();
    }
  });
});

describe('a query aborted while it runs', () => {
  test('query() ends with ERR_CANCELLED, as queryCount() does, rather than return its rows', async () => {
    const heap = await openHeap(known);
    try {
      for (const call of ['query', 'queryCount'] as const) {
        const controller = new AbortController();
        let reports = 0;
        const running = heap[call]('SELECT s, toString(s) FROM java.lang.String s', {
          signal: controller.signal,
          onProgress: () => {
            reports++;
            controller.abort();
          },
        });
        // The scan has ended when its reports are heard: the abort comes after it.
        holdTheLoop();
        await expect(running, call).rejects.toMatchObject({ code: 'ERR_CANCELLED', message: 'the query was cancelled' });
        expect(reports, call).toBeGreaterThan(0);
      }
      // The heap goes on answering.
      expect((await heap.query('SELECT COUNT(*) AS n FROM java.lang.String s')).rows).toEqual([[2959]]);
    } finally {
      heap.close();
    }
  });
});

describe('a progress callback that throws', () => {
  // Thrown inside the addon's callback, it was an uncaught exception: no catch of the call could
  // take it, and it ended the process. Now it stops the call, which rejects with it.
  const bug = () => new Error('a bug in the caller’s callback');
  const throwing = (errors: Error[]) => () => {
    const e = bug();
    errors.push(e);
    throw e;
  };

  test('ends openHeap() with its error, the work stopped', async () => {
    const errors: Error[] = [];
    const outcome = await openHeap(known, { onProgress: throwing(errors) }).then(() => 'resolved', (e: unknown) => e);
    expect(errors).toHaveLength(1);
    expect(outcome).toBe(errors[0]);
  });

  test('ends analyze(), the queries and the report computations with its error; the heap goes on', async () => {
    const heap = await openHeap(known);
    try {
      const q = 'SELECT s, toString(s) FROM java.lang.String s';
      const calls: [string, (onProgress: () => void) => Promise<unknown>][] = [
        ['query', (onProgress) => heap.query(q, { onProgress })],
        ['queryCount', (onProgress) => heap.queryCount(q, { onProgress })],
        ['queryStream', async (onProgress) => {
          for await (const _row of heap.queryStream(q, { onProgress, batchRows: 10 })) {
            // every row read
          }
        }],
        ['analyze', (onProgress) => heap.analyze({ onProgress })],
      ];
      for (const [name, run] of calls) {
        const errors: Error[] = [];
        const outcome = await run(throwing(errors)).then(() => 'resolved', (e: unknown) => e);
        expect(errors, name).toHaveLength(1);
        expect(outcome, name).toBe(errors[0]);
      }
      expect(heap.status.state).toBe('query-only');
      await heap.analyze();
      for (const call of ['reportData', 'wasteData'] as const) {
        const errors: Error[] = [];
        const outcome = await heap[call]({ onProgress: throwing(errors) }).then(() => 'resolved', (e: unknown) => e);
        expect(errors, call).toHaveLength(1);
        expect(outcome, call).toBe(errors[0]);
      }
      expect((await heap.query('SELECT COUNT(*) AS n FROM java.lang.String s')).rows).toEqual([[2959]]);
    } finally {
      heap.close();
    }
  });
});

describe('a subscriber that throws', () => {
  // Thrown into the state change as the analysis began, it failed analyze() and left the state
  // `analyzing` for good: a later analyze() joined an analysis that never ran and resolved
  // without one. Now the session goes on and the error is raised as an event handler's is (an
  // uncaught exception, heard here by process.on). In a process of its own: the test runner
  // takes an uncaught exception for its own failure.
  test('disturbs neither the analysis nor the state; its error is an uncaught exception', async () => {
    const dist = path.join(root, 'dist/index.js');
    const script = [
      `import { openHeap } from ${JSON.stringify(dist)};`,
      'const errors = [];',
      "process.on('uncaughtException', (e) => errors.push(e.message));",
      `const heap = await openHeap(${JSON.stringify(known)});`,
      'let states = 0;',
      "heap.subscribe((e) => { if (e.type === 'state' && states++ === 0) throw new Error('a listener bug'); });",
      "const outcome = await heap.analyze().then(() => 'resolved', (e) => e.message);",
      'await new Promise((r) => setImmediate(r));',
      "const retained = await heap.query('SELECT SUM(o.@retainedHeapSize) AS r FROM INSTANCEOF java.lang.Object o WHERE dominatorof(o) = null').then((r) => r.rows[0][0] > 0, (e) => e.code);",
      'console.log(JSON.stringify({ outcome, state: heap.status.state, analyzed: heap.analyzed, retained, errors }));',
      'heap.close();',
    ].join('\n');
    const r = await run(process.execPath, ['--input-type=module', '-e', script]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ outcome: 'resolved', state: 'full', analyzed: true, retained: true, errors: ['a listener bug'] });
  });
});
