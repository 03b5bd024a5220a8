/**
 * The session core: one open heap and everything a front asks of it (queries, plans, the full
 * analysis with progress and cancellation, report data, point look-ups). See
 * docs/architecture.md, "The session core".
 */
export { HeapSession, openHeap } from './session.js';
export type { OpenOptions, AnalyzeOptions, ObjectLookupOptions, CacheStatus, DumpInfo, DumpWarning, HeapBytes, HeapCounts, HeapShare, HistogramRow } from './session.js';
export { MAX_QUERY_LENGTH } from '../oql/index.js';
export { prepareQuery, type PreparedQuery, type PrepareOptions, type QueryOptions, type PrepareCallOptions, type ExplainOptions, type CountOptions, type RowTotal, type StreamedRow, type RowBatch, type StreamSummary } from './query.js';
export { buildReport } from './report.js';
export { buildWaste } from './waste.js';
export type * from './types.js';
