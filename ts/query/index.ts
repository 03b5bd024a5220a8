// Query model and output: QueryResult schema/types, batch conversion, formatting, query files,
// `-- @viz` directives, named queries. (session.ts, which runs plans on the native executor,
// is the integrator's.)
export * from './schema.js';
export * from './convert.js';
export * from './format.js';
export * from './viz.js';
export * from './queryfile.js';
export * from './named.js';
