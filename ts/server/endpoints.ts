/**
 * The server's endpoint catalog, written once: `GET /version`, `GET /`, the startup banner and
 * the `Allow` header of a 405 all read it, so they cannot disagree with the routes.
 */
export interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  description: string;
  /** The URL parameters it reads (`?name=`); any other is refused (`checkParams`). */
  params?: readonly string[];
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
  { method: 'GET', path: '/pages/:id', description: 'the next rows of a paged result (?from=N&rows=M): {from, rows, done, truncated?, note?}', params: ['from', 'rows'] },
  { method: 'DELETE', path: '/pages/:id', description: 'close a paged result: stops its scan and its count' },
  { method: 'GET', path: '/pages/:id/rows', description: 'rows of a paged result from row N on (?from=N&rows=M), read by a run of the query that seeks there, or by the run of the last request when that ended at row N (the cursor stays where it is): {from, rows, columns, done, truncated?, note?}', params: ['from', 'rows'] },
  { method: 'GET', path: '/pages/:id/count', description: 'the whole row count of a paged result, answered once known: {rowCount, truncated}' },
  { method: 'GET', path: '/help', description: 'the OQL reference (JSON): keywords, functions, attributes, methods, named queries, examples' },
  { method: 'GET', path: '/schema', description: 'the JSON Schema of QueryResult' },
  { method: 'GET', path: '/report', description: 'the full report (JSON; ?format=md for Markdown, ?limit=N caps every list); the first request starts the analysis', params: ['format', 'limit'] },
  { method: 'GET', path: '/report/overview', description: 'system overview (?format=md, ?limit=N)', params: ['format', 'limit'] },
  { method: 'GET', path: '/report/leaks', description: 'leak suspects (?format=md, ?limit=N)', params: ['format', 'limit'] },
  { method: 'GET', path: '/report/top', description: 'top consumers (?format=md, ?limit=N)', params: ['format', 'limit'] },
  { method: 'GET', path: '/report/threads', description: 'thread overview (?format=md, ?limit=N)', params: ['format', 'limit'] },
  { method: 'GET', path: '/classes', description: 'class names (?pattern=substring), for completion', params: ['pattern'] },
  { method: 'GET', path: '/classes/describe', description: 'one class by ?name=: fields, statics, instances, superclasses', params: ['name'] },
  { method: 'GET', path: '/objects/resolve', description: 'an object named by ?spec= (Class#index, #index, 0x address) → {objectId}', params: ['spec', 'dump'] },
  { method: 'GET', path: '/objects/:id', description: 'one object: class, address, sizes, GC roots, fields (?dump=<dumpId>: 409 if another dump is served now)', params: ['dump', 'fieldOffset', 'fieldLimit'] },
  { method: 'GET', path: '/objects/:id/referents', description: 'what the object refers to (?limit=N)', params: ['dump', 'limit'] },
  { method: 'GET', path: '/objects/:id/referrers', description: 'what refers to the object (?limit=N; full analysis)', params: ['dump', 'limit'] },
  { method: 'GET', path: '/objects/:id/path', description: 'a shortest path from a GC root to the object (?maxSteps=N; full analysis)', params: ['dump', 'maxSteps'] },
  { method: 'GET', path: '/objects/:id/dominator', description: 'immediate dominator and biggest dominated objects (?limit=N; full analysis)', params: ['dump', 'limit'] },
  { method: 'GET', path: '/repl', description: 'the browser REPL', params: ['pageRows'] },
  { method: 'GET', path: '/repl.js', description: 'the browser REPL\'s script' },
];

/** The catalog as `GET /version` and `GET /` say it: `{method, path, description}` each. */
export function catalog(): { method: string; path: string; description: string }[] {
  return ENDPOINTS.map(({ method, path, description }) => ({ method, path, description }));
}

/** The methods a path answers, for the `Allow` header of a 405 (GET implies HEAD). */
export function allowedMethods(path: string): string[] {
  const methods = ENDPOINTS.filter((e) => e.path === path).map((e) => e.method);
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

/** Distinct paths in catalog order. */
export function endpointPaths(): string[] {
  return [...new Set(ENDPOINTS.map((e) => e.path))];
}

/** The catalog's endpoint a request is for (HEAD: the GET), or null (a 404 or 405 follows). */
function endpointOf(method: string, path: string): Endpoint | null {
  const m = method === 'HEAD' ? 'GET' : method;
  return (
    ENDPOINTS.find((e) => {
      if (e.method !== m) return false;
      const a = e.path.split('/');
      const b = path.split('/');
      return a.length === b.length && a.every((part, i) => (part.startsWith(':') ? b[i] !== '' : part === b[i]));
    }) ?? null
  );
}

/**
 * The URL's parameters against those its endpoint reads: one it does not read (a misspelt
 * `?limt=3` answered the whole list as if it were not there) or one given twice (which of the
 * two counted was the router's choice) is a 400 `query` naming it and the endpoint's parameters.
 * `names` are the parameters' names as decoded, in order.
 */
export function paramsProblem(method: string, path: string, names: readonly string[]): string | null {
  const endpoint = endpointOf(method, path);
  if (!endpoint) return null;
  const known = endpoint.params ?? [];
  const takes = known.length === 0 ? 'it takes no parameters' : `it takes ${known.map((k) => `?${k}=`).join(', ')}`;
  const where = `${method === 'HEAD' ? 'GET' : method} ${endpoint.path}`;
  const seen = new Set<string>();
  for (const name of names) {
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
    if (!known.includes(name)) return `unknown URL parameter ${shown} for ${where}: ${takes}`;
    if (seen.has(name)) return `the URL parameter ${shown} is given twice for ${where}: give it once`;
    seen.add(name);
  }
  return null;
}
