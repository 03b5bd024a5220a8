/** The heapql library: open a dump, read its index, query it. */
export { openHeap, Heap } from './heap.js';
export type { OpenOptions, AnalyzeOptions, ProgressEvent, DumpInfo, DumpWarning, HistogramRow, HeapCounts } from './heap.js';
export { HeapqlError } from './errors.js';
export { buildSummary, type HeapSummary } from './report/summary.js';
export type { QueryOptions, StreamedRow } from './query/session.js';
export type { QueryResult, Value, ObjectRef, VizSpec } from './query/schema.js';
