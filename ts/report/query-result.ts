/**
 * The query layer's QueryResult, as the report folds it in. `ts/query/schema.ts` owns the
 * definition (`ts/query/validate.ts` its validation); the report re-exports it so report code
 * has one import site.
 */
export { ObjectRefSchema, QueryResultSchema, VizSchema } from '../query/schema.js';
export { validateQueryResult } from '../query/validate.js';
export type { Column, ObjectRef, QueryResult, Value, VizKind, VizSpec } from '../query/schema.js';
