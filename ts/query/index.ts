// Query model and output: QueryResult schema/types and validation, batch conversion, formatting, query files,
// `-- @viz` directives, named queries. Running queries on a heap is ts/session's.
export * from './schema.js';
export * from './validate.js';
export * from './convert.js';
export * from './format.js';
export * from './json.js';
export * from './viz.js';
export * from './queryfile.js';
export * from './named.js';
