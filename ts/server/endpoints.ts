/**
 * The server's endpoint catalog, written once: `GET /version`, `GET /`, the startup banner and
 * the `Allow` header of a 405 all read it, so they cannot disagree with the routes.
 */
export interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  description: string;
}

export const ENDPOINTS: readonly Endpoint[] = [
  { method: 'GET', path: '/', description: 'welcome text and this endpoint catalog' },
  { method: 'GET', path: '/version', description: 'the heapql version and the endpoint catalog (JSON)' },
  { method: 'GET', path: '/status', description: 'analysis state: not_started, analyzing (with progress: phase, done of total, total ≥ 1), ready, failed (with the reason), dump_unreadable; which dump is served (dumpId, dumpNumber of dumpCount)' },
  { method: 'POST', path: '/analyze', description: 'start the full analysis: started, already_running or already_done' },
  { method: 'DELETE', path: '/analyze', description: 'cancel the running analysis, answered once it stopped: cancelled, not_running or already_done' },
  { method: 'POST', path: '/', description: 'run OQL (raw text, or JSON {"query", "limit"}); answers a QueryResult' },
  { method: 'POST', path: '/query', description: 'the same as POST /' },
  { method: 'POST', path: '/stream', description: 'run OQL; rows as NDJSON, one object per row, sent while the scan runs' },
  { method: 'POST', path: '/pages', description: 'run OQL a page at a time (JSON {"query", "pageRows"}): {cursor, pageRows, result}, the first page as a QueryResult and the cursor of the rest (null: the result is whole)' },
  { method: 'GET', path: '/pages/:id', description: 'the next rows of a paged result (?from=N&rows=M): {from, rows, done, truncated?, note?}' },
  { method: 'DELETE', path: '/pages/:id', description: 'close a paged result: stops its scan and its count' },
  { method: 'GET', path: '/pages/:id/rows', description: 'rows of a paged result from row N on (?from=N&rows=M), read by a run of the query that seeks there, or by the run of the last request when that ended at row N (the cursor stays where it is): {from, rows, columns, done, truncated?, note?}' },
  { method: 'GET', path: '/pages/:id/count', description: 'the whole row count of a paged result, answered once known: {rowCount, truncated}' },
  { method: 'GET', path: '/help', description: 'the OQL reference (JSON): keywords, functions, attributes, methods, named queries, examples' },
  { method: 'GET', path: '/schema', description: 'the JSON Schema of QueryResult' },
  { method: 'GET', path: '/report', description: 'the full report (JSON; ?format=md for Markdown, ?limit=N caps every list); the first request starts the analysis' },
  { method: 'GET', path: '/report/overview', description: 'system overview (?format=md, ?limit=N)' },
  { method: 'GET', path: '/report/leaks', description: 'leak suspects (?format=md, ?limit=N)' },
  { method: 'GET', path: '/report/top', description: 'top consumers (?format=md, ?limit=N)' },
  { method: 'GET', path: '/report/threads', description: 'thread overview (?format=md, ?limit=N)' },
  { method: 'GET', path: '/classes', description: 'class names (?pattern=substring), for completion' },
  { method: 'GET', path: '/classes/describe', description: 'one class by ?name=: fields, statics, instances, superclasses' },
  { method: 'GET', path: '/objects/resolve', description: 'an object named by ?spec= (Class#index, #index, 0x address) → {objectId}' },
  { method: 'GET', path: '/objects/:id', description: 'one object: class, address, sizes, GC roots, fields (?dump=<dumpId>: 409 if another dump is served now)' },
  { method: 'GET', path: '/objects/:id/referents', description: 'what the object refers to (?limit=N)' },
  { method: 'GET', path: '/objects/:id/referrers', description: 'what refers to the object (?limit=N; full analysis)' },
  { method: 'GET', path: '/objects/:id/path', description: 'a shortest path from a GC root to the object (?maxSteps=N; full analysis)' },
  { method: 'GET', path: '/objects/:id/dominator', description: 'immediate dominator and biggest dominated objects (?limit=N; full analysis)' },
  { method: 'GET', path: '/repl', description: 'the browser REPL' },
  { method: 'GET', path: '/repl.js', description: 'the browser REPL\'s script' },
];

/** The methods a path answers, for the `Allow` header of a 405 (GET implies HEAD). */
export function allowedMethods(path: string): string[] {
  const methods = ENDPOINTS.filter((e) => e.path === path).map((e) => e.method);
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

/** Distinct paths in catalog order. */
export function endpointPaths(): string[] {
  return [...new Set(ENDPOINTS.map((e) => e.path))];
}
