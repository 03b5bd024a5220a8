/**
 * A cancelled openHeap() or analyze() said only "cancelled" (the addon's word): not what was
 * cancelled, nor how far it had got. Now: `opening <file> was cancelled during the records phase
 * (42% done)`, `the analysis of <file> was cancelled during the dominators phase (25% done)`,
 * the code still ERR_CANCELLED and the error's `progress` the last report the caller saw.
 * Aborted from the caller's own onProgress at a real point of a real fixture dump: the work may
 * run on a little before it sees the cancel, so the phase named is the one of the last report,
 * at or after the one the abort was made in.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';

import { HeapqlError, openHeap, type ProgressEvent } from '../ts/index.js';
import { rejection } from './tools/thrown.js';

const root = path.resolve(__dirname, '..');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');

const OPEN_PHASES = ['records', 'index', 'done'];
const ANALYSIS_PHASES = ['graph', 'dominators', 'retained'];

/** A report as the error keeps it. */
const report = (e: ProgressEvent | null) => (e === null ? null : { phase: e.phase, done: e.done, total: e.total });

/** `during the <phase> phase (N% done)` of a report, as the message says it. */
function during(p: ProgressEvent): string {
  if (p.phase === 'done') return 'at its end, every phase done';
  return `during the ${p.phase} phase (${Math.floor((100 * p.done) / p.total)}% done)`;
}

describe('a cancelled openHeap() says what it was opening and how far it got', () => {
  test.each(['records', 'index'])('aborted at the first report of the %s phase', async (phase) => {
    const controller = new AbortController();
    let last: ProgressEvent | null = null;
    const err = await rejection(
      openHeap(known, {
        signal: controller.signal,
        onProgress: (e) => {
          last = e;
          if (e.phase === phase) controller.abort();
        },
      }),
      HeapqlError,
    );
    expect(err.code).toBe('ERR_CANCELLED');
    expect(err.exitCode).toBe(130);
    // The last report the caller saw, at or after the phase it aborted in.
    expect(err.progress).toEqual(report(last));
    const p = err.progress!;
    expect(OPEN_PHASES.indexOf(p.phase)).toBeGreaterThanOrEqual(OPEN_PHASES.indexOf(phase));
    expect(err.message).toBe(`opening ${known} was cancelled ${during(p)}`);
  });

  test('a signal aborted before the call: cancelled before it started', async () => {
    const err = await rejection(openHeap(known, { signal: AbortSignal.abort() }), HeapqlError);
    expect(err).toMatchObject({ code: 'ERR_CANCELLED', message: `opening ${known} was cancelled before it started (its signal had aborted already)` });
    expect(err.progress).toBeUndefined();
  });
});

describe('a cancelled analyze() says which dump and the phase it was in', () => {
  // (Not in `retained`, its last and shortest phase: it may end before it sees the cancel.)
  test.each(['graph', 'dominators'])('aborted at the first report of the %s phase', async (phase) => {
    const heap = await openHeap(known);
    try {
      const controller = new AbortController();
      let last: ProgressEvent | null = null;
      const err = await rejection(
        heap.analyze({
          signal: controller.signal,
          onProgress: (e) => {
            last = e;
            if (e.phase === phase) controller.abort();
          },
        }),
        HeapqlError,
      );
      expect(err.code).toBe('ERR_CANCELLED');
      const p = err.progress!;
      expect(p).toEqual(report(last));
      expect(ANALYSIS_PHASES.indexOf(p.phase)).toBeGreaterThanOrEqual(ANALYSIS_PHASES.indexOf(phase));
      expect(err.message).toBe(`the analysis of ${known} was cancelled ${during(p)}`);
      // The session is back on the query-only path, and says no error.
      expect(heap.status).toMatchObject({ state: 'query-only', error: null, progress: null });
    } finally {
      heap.close();
    }
  });

  test('cancelAnalysis() during the dominators phase: every caller is told so', async () => {
    const heap = await openHeap(known);
    try {
      let last: ProgressEvent | null = null;
      const run = heap.analyze({
        onProgress: (e) => {
          last = e;
          if (e.phase === 'dominators') heap.cancelAnalysis();
        },
      });
      const err = await rejection(run, HeapqlError);
      expect(err.code).toBe('ERR_CANCELLED');
      expect(err.progress).toEqual(report(last));
      expect(['dominators', 'retained']).toContain(err.progress!.phase);
      expect(err.message).toBe(`the analysis of ${known} was cancelled ${during(err.progress!)}`);
    } finally {
      heap.close();
    }
  });

  test('one of two callers that stops waiting: told how far the analysis is, which goes on', async () => {
    const heap = await openHeap(known);
    try {
      const controller = new AbortController();
      const first = heap.analyze({ signal: controller.signal, onProgress: (e) => e.phase === 'graph' && controller.abort() });
      const second = heap.analyze();
      const err = await rejection(first, HeapqlError);
      expect(err.code).toBe('ERR_CANCELLED');
      expect(err.message).toMatch(/^stopped waiting for the analysis of .+KnownHeap-jdk17-coops\.hprof \(during the (graph|dominators|retained) phase \(\d+% done\)\), which goes on for the others waiting on it$/);
      expect(err.message).toContain(during(err.progress!));
      await second;
      expect(heap.status.state).toBe('full');
    } finally {
      heap.close();
    }
  });

  test('a signal aborted before the call: cancelled before it started', async () => {
    const heap = await openHeap(known);
    try {
      const err = await rejection(heap.analyze({ signal: AbortSignal.abort() }), HeapqlError);
      expect(err).toMatchObject({ code: 'ERR_CANCELLED', message: `the analysis of ${known} was cancelled before it started (its signal had aborted already)` });
      expect(heap.status.state).toBe('query-only');
    } finally {
      heap.close();
    }
  });
});

describe('a cancelled report or waste computation says so, and how far it got', () => {
  test.each([
    ['reportData', 'computing the report of'],
    ['wasteData', 'computing the waste checks of'],
  ] as const)('%s aborted at its first progress report', async (call, what) => {
    const heap = await openHeap(known);
    try {
      await heap.analyze();
      const controller = new AbortController();
      let last: ProgressEvent | null = null;
      const err = await rejection(
        heap[call]({
          signal: controller.signal,
          onProgress: (e) => {
            last = e;
            controller.abort();
          },
        }),
        HeapqlError,
      );
      expect(err.code).toBe('ERR_CANCELLED');
      expect(err.progress).toEqual(report(last));
      expect(err.message).toBe(`${what} ${known} was cancelled ${during(err.progress!)}`);
      const before = await rejection(heap[call]({ signal: AbortSignal.abort() }), HeapqlError);
      expect(before).toMatchObject({ code: 'ERR_CANCELLED', message: `${what} ${known} was cancelled before it started (its signal had aborted already)` });
    } finally {
      heap.close();
    }
  });
});
