/** The heapql library: open a dump, read its index, query it, analyze it, look objects up. */
export { openHeap, Heap } from './heap.js';
export { HeapSession, prepareQuery, MAX_QUERY_LENGTH } from './session/index.js';
export type {
  OpenOptions,
  AnalyzeOptions,
  ProgressEvent,
  DumpInfo,
  DumpWarning,
  HistogramRow,
  HeapCounts,
  HeapShare,
  HeapBytes,
  ObjectLookupOptions,
  PreparedQuery,
  QueryOptions,
  PrepareCallOptions,
  ExplainOptions,
  CountOptions,
  RowTotal,
  StreamedRow,
  CacheStatus,
  BuildReportOptions,
  BuildWasteOptions,
  SectionOptions,
  ReportSections,
  AnalysisState,
  AnalysisStart,
  SessionStatus,
  SessionEvent,
  ObjectView,
  FieldView,
  ObjectKind,
  ReferenceView,
  ReferenceList,
  PathStep,
  DominatorView,
  DominatedView,
  TopOfTree,
  RowBatch,
  StreamSummary,
  ClassView,
} from './session/index.js';
export { HeapqlError, type UnknownName, type CancelledProgress } from './errors.js';
export { buildSummary, type HeapSummary } from './report/summary.js';
export { diffDumps, renderDiff, diffJsonSchema, parseGateRule, type DiffModel, type DiffOptions, type GateRule } from './diff/index.js';
export type { ReportModel, WasteModel, Waste, ReportWarning } from './report/model.js';
export type { QueryResult, Value, ObjectRef, VizSpec } from './query/schema.js';
export { parseJsonExact, restoreNonFinite, stringifyJson } from './query/json.js';
