/** The analysis state as tools report it (the session's status without the dump's facts). */
import type { HeapSession } from '../session/index.js';

export function analysisState(heap: HeapSession) {
  const s = heap.status;
  return {
    state: s.state,
    /** Queries default to reachable objects only. */
    reachableOnly: s.reachableOnly,
    /** The finished analysis's mode, or null. */
    analysis: s.analysis,
    progress: s.progress,
    error: s.error,
  };
}

/** What an assistant can do next, given the analysis state. */
export function nextStep(heap: HeapSession): string {
  switch (heap.status.state) {
    case 'full':
      return 'The full analysis is done: retained sizes, dominators, referrers, paths to GC roots and every report section are available.';
    case 'analyzing':
      return 'The full analysis is running: analyze_heap joins it and waits; analysis_status shows its progress.';
    case 'failed':
      return `The last analysis failed (${heap.status.error}); OQL without retained sizes still works.`;
    default:
      return 'Query-only: OQL (without @retainedHeapSize, dominators(), @inbounds, path()), object fields and referents, classes and named queries work now. Call analyze_heap for retained sizes, referrers, paths to GC roots and the report sections.';
  }
}
