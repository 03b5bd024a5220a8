/** The analysis state as tools report it (the session's status without the dump's facts). */
import type { HeapSession } from '../session/index.js';
import { FULL_PATH_OQL } from './limits.js';
import { inThisServer } from './result.js';

export function analysisState(heap: HeapSession) {
  const s = heap.status;
  return {
    state: s.state,
    /** Queries default to reachable objects only. */
    reachableOnly: s.reachableOnly,
    /** The finished analysis's mode, or null. */
    analysis: s.analysis,
    progress: s.progress,
    /** Why the last analysis failed, its advice said as this server's tools. */
    error: s.error === null ? null : inThisServer(s.error),
  };
}

/**
 * Why something that needs the full analysis (`what`: "the report") cannot be had now and what to
 * do, by the analysis state: not run (call analyze_heap), running (wait for it), failed (why).
 */
export function needsAnalysis(heap: HeapSession, what: string): string {
  const s = heap.status;
  if (s.state === 'analyzing') return `${what} needs the full analysis, which is running now: call analyze_heap to wait for it, then ask again`;
  if (s.state === 'failed') return `${what} needs the full analysis, which failed: ${inThisServer(s.error ?? '')} (analyze_heap tries again)`;
  return `${what} needs the full analysis, which has not run: call analyze_heap first, then ask again`;
}

/** What an assistant can do next, given the analysis state. */
export function nextStep(heap: HeapSession): string {
  switch (heap.status.state) {
    case 'full':
      return 'The full analysis is done: retained sizes, dominators, referrers, paths to GC roots and every report section are available.';
    case 'analyzing':
      return 'The full analysis is running: analyze_heap joins it and waits; analysis_status shows its progress.';
    case 'failed':
      return `The last analysis failed (${inThisServer(heap.status.error ?? '')}); OQL without retained sizes still works.`;
    default:
      return `Query-only: OQL (without ${FULL_PATH_OQL}), object fields and referents, classes and named queries work now. Call analyze_heap for retained sizes, referrers, paths to GC roots and the report sections.`;
  }
}
