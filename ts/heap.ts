/**
 * The library's heap: `openHeap()` returns a session (ts/session), the one object that talks
 * to the native addon for a dump. `Heap` is its public name in the library.
 */
export { HeapSession as Heap, openHeap } from './session/session.js';
export type { OpenOptions, AnalyzeOptions, ProgressEvent, DumpInfo, DumpWarning, HeapCounts, HeapShare, HistogramRow } from './session/index.js';
