/**
 * The HTTP server's app in process (`app.request`, no socket) on the demo dump: every endpoint,
 * every analysis state, every error kind with its status, and the Host/Origin guard. Real
 * loopback HTTP (streaming, 413 on a chunked upload, concurrency) is in server-http.test.ts.
 */
import path from 'node:path';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { validateQueryResult } from '../ts/query/validate.js';
import { createApp } from '../ts/server/app.js';
import { catalog, ENDPOINTS } from '../ts/server/endpoints.js';
import { EXAMPLES } from '../ts/server/help.js';
import { plan } from '../ts/plan/index.js';
import { VERSION } from '../ts/version.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const facts = JSON.parse(readFileSync(path.join(root, 'fixtures/demo/demo.facts.json'), 'utf8')) as {
  classes: { name: string; instances: number }[];
};
const sessions = facts.classes.find((c) => c.name === 'Demo$Session')!.instances;

const PORT = 7070;
const BASE = `http://127.0.0.1:${PORT}`;

type App = ReturnType<typeof createApp>;

function get(app: App, p: string, headers: Record<string, string> = {}) {
  return app.request(`${BASE}${p}`, { headers: { host: `127.0.0.1:${PORT}`, ...headers } });
}
function post(app: App, p: string, body?: string, headers: Record<string, string> = {}) {
  return app.request(`${BASE}${p}`, { method: 'POST', body, headers: { host: `127.0.0.1:${PORT}`, ...headers } });
}
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** An error answer: `details` are what an OQL error's adds (its place, reason, name); none by default. */
async function expectError(res: Response, status: number, kind: string, message?: RegExp, details: Record<string, unknown> = {}) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { ok: boolean; error: { kind: string; message: string } };
  expect(body).toEqual({ ok: false, error: { kind, message: expect.any(String), ...details } });
  if (message) expect(body.error.message).toMatch(message);
  return body.error.message;
}

/** Polls GET /status (bounded by count, not time) until it leaves `analyzing`. */
async function waitForAnalysis(app: App): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100_000; i++) {
    const s = (await (await get(app, '/status')).json()) as Record<string, unknown>;
    if (s.status !== 'analyzing') return s;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the analysis did not end');
}

describe('server app, lazy analysis (the default)', () => {
  let session: HeapSession;
  let app: App;
  beforeAll(async () => {
    session = await openHeap(demo);
    app = createApp(session, { port: PORT, replScript: () => '/* bundle */' });
  });
  afterAll(() => session.close());

  test('GET /version: the version and every endpoint as {method, path, description}', async () => {
    const res = await get(app, '/version');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { version: string; endpoints: unknown[] };
    expect(body.version).toBe(VERSION);
    expect(body.endpoints).toEqual(catalog());
    for (const e of body.endpoints) expect(Object.keys(e as object).sort()).toEqual(['description', 'method', 'path']);
    expect(ENDPOINTS.map((e) => `${e.method} ${e.path}`)).toEqual(
      expect.arrayContaining(['GET /', 'GET /version', 'GET /status', 'POST /analyze', 'POST /', 'POST /query', 'POST /stream', 'GET /help', 'GET /schema', 'GET /report', 'GET /report/overview', 'GET /report/leaks', 'GET /report/top', 'GET /report/threads', 'GET /repl']),
    );
  });

  test('GET /: welcome text plus the catalog (JSON), an HTML page with the REPL link for a browser', async () => {
    const body = (await (await get(app, '/')).json()) as { welcome: string; endpoints: unknown[]; repl: string };
    expect(body.endpoints).toEqual(catalog());
    expect(body.repl).toBe('/repl');
    expect(body.welcome).toContain(`${BASE}/repl`);
    for (const e of ENDPOINTS) expect(body.welcome).toContain(`${e.method} ${e.path}`);
    const html = await get(app, '/', { accept: 'text/html' });
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    expect(await html.text()).toContain('<a href="/repl">');
  });

  test('GET /help: the OQL reference from the planner tables; every example plans', async () => {
    const help = (await (await get(app, '/help')).json()) as Record<string, any>;
    expect(help.keywords).toContain('SELECT');
    expect(help.attributes).toContainEqual({ name: '@retainedHeapSize', fullPath: true });
    expect(help.attributes).toContainEqual({ name: '@usedHeapSize', fullPath: false });
    expect(help.functions).toContainEqual({ name: 'path', args: 2, fullPath: true });
    expect(help.functions).toContainEqual({ name: 'classof', args: 1, fullPath: false });
    expect(help.aggregates.map((a: { name: string }) => a.name)).toEqual(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'MEDIAN', 'PERCENTILE']);
    expect(help.methods.map((m: { name: string }) => m.name)).toContain('getUsedHeapSize()');
    expect(help.namedQueries.map((q: { name: string }) => q.name)).toContain('duplicate-strings');
    expect(help.examples.length).toBe(EXAMPLES.length);
    for (const e of help.examples as { oql: string; fullPath: boolean }[]) {
      const oql = e.oql.replace(/^--.*\n/, '');
      expect(() => plan(oql, { fullPath: true })).not.toThrow();
      if (!e.fullPath) expect(() => plan(oql, { fullPath: false })).not.toThrow();
    }
  });

  test('GET /schema: the QueryResult schema the code validates with', async () => {
    const schema = (await (await get(app, '/schema')).json()) as Record<string, any>;
    expect(schema.title).toBe('QueryResult');
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['name', 'oql', 'columns', 'rows', 'rowCount', 'truncated', 'elapsedMs']));
  });

  test('POST / and /query: raw text or JSON {query, limit}; limit overrides LIMIT; a valid QueryResult', async () => {
    const text = await post(app, '/', 'SELECT COUNT(*) FROM Demo$Session');
    expect(text.status).toBe(200);
    const r1 = (await text.json()) as { rows: unknown[][] };
    expect(validateQueryResult(r1).ok).toBe(true);
    expect(r1.rows).toEqual([[sessions]]);

    const json = await post(app, '/query', JSON.stringify({ query: 'SELECT s FROM Demo$Session s LIMIT 50', limit: 3 }), { 'content-type': 'application/json' });
    const r2 = (await json.json()) as { rows: unknown[][]; rowCount: number; truncated: boolean };
    expect(r2.rowCount).toBe(3);
    expect(r2.truncated).toBe(true);
    // JSON without the content type is still recognized (no OQL statement starts with `{`).
    const bare = (await (await post(app, '/query', '{"query": "SELECT COUNT(*) FROM Demo$Session"}')).json()) as { rows: unknown[][] };
    expect(bare.rows).toEqual([[sessions]]);
  });

  test('bad queries and requests: 400 query with the reason', async () => {
    const syntax = { line: 1, column: 1, reason: expect.stringMatching(/^unexpected "SELEKT"/), hint: expect.any(String) };
    expect(await expectError(await post(app, '/query', 'SELEKT 1 FROM x'), 400, 'query', undefined, syntax)).toMatch(/query:1:1/);
    await expectError(await post(app, '/query', '{"limit": 3}', { 'content-type': 'application/json' }), 400, 'query', /"query"/);
    await expectError(await post(app, '/query', '{"query": 5}'), 400, 'query', /"query"/);
    await expectError(await post(app, '/query', '{"query": "SELECT COUNT(*) FROM Demo$Session", "limit": -1}'), 400, 'query', /limit/);
    await expectError(await post(app, '/query', '{"query": "SELECT COUNT(*) FROM Demo$Session", "lmit": 1}'), 400, 'query', /lmit/);
    await expectError(await post(app, '/query', '{not json'), 400, 'query', /not valid JSON/);
    await expectError(await post(app, '/query', ''), 400, 'query', /empty/);
    const nosuch = { line: 1, column: 8, reason: expect.stringMatching(/^Demo\$Session has no field 'nosuchfield' /), unknownName: expect.objectContaining({ name: 'nosuchfield' }) };
    await expectError(await post(app, '/stream', 'SELECT nosuchfield FROM Demo$Session'), 400, 'query', undefined, nosuch);
  });

  test("an OQL error's 400 says where (line, column), what (reason, hint) and, for a name the dump lacks, the name (unknownName)", async () => {
    const json = { 'content-type': 'application/json' };
    const field = 'SELECT s.id,\n       s.nosuch\nFROM Demo$Session s';
    for (const [route, body, headers] of [
      ['/query', field, {}],
      ['/stream', field, {}],
      ['/pages', JSON.stringify({ query: field, pageRows: 10 }), json],
    ] as const) {
      const res = await post(app, route, body, headers);
      expect(res.status, route).toBe(400);
      const { error } = (await res.json()) as { error: Record<string, unknown> & { message: string; reason: string; unknownName: { fields: string[] } } };
      expect(error, route).toEqual({
        kind: 'query',
        message: expect.any(String),
        line: 2,
        column: 10,
        reason: `Demo$Session has no field 'nosuch' (its fields: ${error.unknownName.fields.join(', ')})`,
        unknownName: {
          kind: 'field',
          name: 'nosuch',
          className: 'Demo$Session',
          classCount: 1,
          fields: expect.arrayContaining(['id', 'user', 'createdAt']),
          quotedMessage: `"Demo$Session" has no field "nosuch" (its fields: ${error.unknownName.fields.map((f) => JSON.stringify(f)).join(', ')})`,
        },
      });
      // The message as before: the place, the reason, the line and the caret.
      expect(error.message.split('\n'), route).toEqual([`query:2:10: ${error.reason}`, '         s.nosuch', '           ^^^^^^']);
    }
    const klass = await post(app, '/query', 'SELECT COUNT(*)\n  FROM Demo$Sessio s');
    expect(((await klass.json()) as { error: unknown }).error).toEqual({
      kind: 'query',
      message: expect.stringMatching(/^query:2:8: class Demo\$Sessio is not in this dump; did you mean Demo\$Session\?\n/),
      line: 2,
      column: 8,
      reason: 'class Demo$Sessio is not in this dump; did you mean Demo$Session?',
      unknownName: {
        kind: 'class',
        name: 'Demo$Sessio',
        suggestions: ['Demo$Session'],
        quotedMessage: 'class "Demo$Sessio" is not in this dump; did you mean "Demo$Session"?',
      },
    });
    // A syntax error: its place, its reason and its hint.
    const syntax = await post(app, '/query', 'SELECT COUNT(*) AS n FORM Demo$Session s');
    expect(((await syntax.json()) as { error: unknown }).error).toEqual({
      kind: 'query',
      message: expect.stringMatching(/^query:1:22: unexpected "FORM"/),
      line: 1,
      column: 22,
      reason: expect.stringMatching(/^unexpected "FORM"/),
      hint: 'did you mean FROM?',
    });
  });

  test('413 body_too_large above 65536 bytes, at exactly 65536 not', async () => {
    const atLimit = `SELECT COUNT(*) FROM Demo$Session ${'-'.repeat(65536 - 'SELECT COUNT(*) FROM Demo$Session '.length)}`;
    expect(Buffer.byteLength(atLimit)).toBe(65536);
    // The filler is a comment that starts with `--`: the query still runs.
    expect((await post(app, '/query', atLimit)).status).toBe(200);
    const res = await post(app, '/query', `${atLimit}-`);
    await expectError(res, 413, 'body_too_large', /65536 bytes/);
    expect(res.headers.get('connection')).toBe('close');
    await expectError(await post(app, '/stream', 'x'.repeat(70_000)), 413, 'body_too_large');
  });

  test('a body without Content-Length is counted while it is read, and reading stops at the limit', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 16384;
        controller.enqueue(new Uint8Array(16384).fill(0x20));
        if (pulled >= 1 << 30) controller.close();
      },
    });
    const res = await app.request(`${BASE}/query`, { method: 'POST', body, headers: { host: `127.0.0.1:${PORT}` }, duplex: 'half' } as RequestInit);
    await expectError(res, 413, 'body_too_large');
    expect(pulled).toBeLessThan(65536 + 4 * 16384);
  });

  test('404 not_found for unknown paths; 405 method_not_allowed with Allow', async () => {
    await expectError(await get(app, '/nope'), 404, 'not_found', /GET \/nope/);
    await expectError(await get(app, '/report/garbage'), 404, 'not_found');
    const wrong = await get(app, '/query');
    await expectError(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('POST');
    const del = await app.request(`${BASE}/status`, { method: 'DELETE', headers: { host: `127.0.0.1:${PORT}` } });
    await expectError(del, 405, 'method_not_allowed');
    expect(del.headers.get('allow')).toBe('GET, HEAD');
    const root405 = await app.request(`${BASE}/`, { method: 'PUT', headers: { host: `127.0.0.1:${PORT}` } });
    expect(root405.headers.get('allow')).toBe('GET, POST, HEAD');
    expect((await post(app, '/analyze', undefined)).status).toBe(200);
    session.cancelAnalysis();
    await waitForAnalysis(app);
  });

  test('Host must be 127.0.0.1:<port> or localhost:<port>; a foreign Origin is refused; no CORS grant', async () => {
    expect((await get(app, '/status', { host: `localhost:${PORT}` })).status).toBe(200);
    await expectError(await get(app, '/status', { host: 'evil.example:7070' }), 403, 'forbidden', /DNS rebinding/);
    await expectError(await get(app, '/status', { host: '127.0.0.1:7071' }), 403, 'forbidden');
    await expectError(await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session', { origin: 'http://evil.example' }), 403, 'forbidden', /cross-origin/);
    await expectError(await post(app, '/analyze', undefined, { origin: 'http://127.0.0.1:9999' }), 403, 'forbidden');
    await expectError(await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session', { 'sec-fetch-site': 'cross-site' }), 403, 'forbidden');
    // A link on another site may open the REPL page, but not start the analysis or a look-up.
    const link = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };
    expect(session.status.state).toBe('query-only');
    expect((await get(app, '/repl', link)).status).toBe(200);
    await expectError(await get(app, '/report/overview', link), 403, 'forbidden', /may open only/);
    await expectError(await get(app, '/report', link), 403, 'forbidden');
    expect(session.status.state).toBe('query-only');
    const own = await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session', { origin: BASE, 'sec-fetch-site': 'same-origin' });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await app.request(`${BASE}/query`, { method: 'OPTIONS', headers: { host: `127.0.0.1:${PORT}`, origin: 'http://evil.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('point look-ups: classes, describe, resolve, object, referents; full-path ones say POST /analyze', async () => {
    const classes = (await (await get(app, '/classes?pattern=demo$sess')).json()) as string[];
    expect(classes).toContain('Demo$Session');
    const views = (await (await get(app, '/classes/describe?name=Demo$Session')).json()) as { instances: number }[];
    expect(views[0]!.instances).toBe(sessions);
    const first = (await (await post(app, '/query', 'SELECT s FROM Demo$Session s LIMIT 1')).json()) as { rows: { objectId: number; address: string }[][] };
    const ref = first.rows[0]![0]!;
    const resolved = (await (await get(app, `/objects/resolve?spec=${encodeURIComponent(`Demo$Session#${ref.objectId}`)}`)).json()) as { objectId: number };
    expect(resolved.objectId).toBe(ref.objectId);
    const obj = (await (await get(app, `/objects/${ref.objectId}`)).json()) as { object: { address: string } };
    expect(obj.object.address).toBe(ref.address);
    expect((await get(app, `/objects/${ref.objectId}/referents`)).status).toBe(200);
    await expectError(await get(app, `/objects/${ref.objectId}/referrers`), 400, 'query', /POST \/analyze/);
    await expectError(await get(app, '/objects/999999999'), 404, 'not_found');
    await expectError(await get(app, '/objects/resolve?spec=Nope%2312'), 404, 'not_found');
    await expectError(await get(app, '/classes/describe'), 400, 'query', /name=/);
  });

  test('an object id that is not an index is a 400 saying what one is; an unknown class a 404 with the message of the other fronts', async () => {
    // 0x10 would be object 16, which exists: an address is not an index, and is not taken for one.
    expect((await get(app, '/objects/16')).status).toBe(200);
    for (const id of ['abc', '1.5', '1e3', '0x10', '-1', '+5']) {
      for (const tail of ['', '/referents', '/path']) {
        await expectError(await get(app, `/objects/${encodeURIComponent(id)}${tail}`), 400, 'query', /is not an object id: an object id is the object's index, a whole number .*\/objects\/resolve\?spec=/);
      }
    }
    await expectError(await get(app, '/objects/999999999'), 404, 'not_found', /object 999999999 does not exist \(the heap has objects 0 to \d+\)/);
    // As resolveObject: a sign or a prefix after '#' names no object (not a class '#-').
    for (const spec of ['#-1', '#+5', '# 5', '#0x5', 'Demo$Session#-1']) {
      await expectError(await get(app, `/objects/resolve?spec=${encodeURIComponent(spec)}`), 400, 'query', /names no object: write <class>#<index>, #<index> or an address 0x/);
    }
    await expectError(await get(app, '/classes/describe?name=Zzqx'), 404, 'not_found', /^no class named 'Zzqx' in this dump \(GET \/classes\?pattern= /);
    await expectError(await get(app, '/classes/describe?name=NoSuch'), 404, 'not_found', /^no class named 'NoSuch' in this dump; classes containing 'NoSuch': java\.lang\.NoSuch/);
    // The words of the REPL's backend and the MCP tool: the session's, with the near names.
    await expectError(await get(app, '/classes/describe?name=com.acme.Session'), 404, 'not_found', new RegExp(`^${escapeRegExp(session.noClassMessage('com.acme.Session'))} \\(`));
    await expectError(await get(app, '/classes/describe?name=com.acme.Session'), 404, 'not_found', /classes containing 'Session': .*Demo\$Session/);
  });

  test('not_started → lazy report (202 + Retry-After, analysis starts) → ready; full-path queries before ready say POST /analyze', async () => {
    expect(await (await get(app, '/status')).json()).toMatchObject({ status: 'not_started' });
    // Placed as every OQL error is: where the query asks for it, with the server's advice.
    const placed = { line: 1, column: 8, reason: expect.stringMatching(/^@retainedHeapSize requires the full analysis pipeline: POST \/analyze /) };
    const early = await expectError(await post(app, '/query', 'SELECT s.@retainedHeapSize FROM Demo$Session s'), 400, 'query', undefined, placed);
    expect(early).toMatch(/^query:1:8: [^\n]*POST \/analyze/);
    expect(early).not.toMatch(/heapql analyze/);
    await expectError(await post(app, '/query', 'SELECT dominatorof(s) FROM Demo$Session s'), 400, 'query', /POST \/analyze/, { line: 1, column: 8, reason: expect.any(String) });

    const first = await get(app, '/report/leaks');
    expect(first.status).toBe(202);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(await first.json()).toMatchObject({ status: 'analyzing', progress: { phase: expect.any(String), done: expect.any(Number), total: expect.any(Number) } });
    const status = (await (await get(app, '/status')).json()) as Record<string, unknown>;
    if (status.status === 'analyzing') expect(status.progress).toEqual({ phase: expect.any(String), done: expect.any(Number), total: expect.any(Number) });
    else expect(status.status).toBe('ready');
    // A query-only query answers while the analysis runs.
    expect((await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session')).status).toBe(200);
    expect(['already_running', 'already_done']).toContain(((await (await post(app, '/analyze')).json()) as { status: string }).status);

    expect(await waitForAnalysis(app)).toMatchObject({ status: 'ready' });
    expect(await (await post(app, '/analyze')).json()).toEqual({ ok: true, status: 'already_done' });
    const retained = (await (await post(app, '/query', 'SELECT s.@retainedHeapSize AS r FROM Demo$Session s LIMIT 1')).json()) as { rows: number[][] };
    expect(retained.rows[0]![0]).toBeGreaterThan(0);
  });

  test('reports when ready: JSON and Markdown, whole and by section, limit caps the lists', async () => {
    const full = await get(app, '/report');
    expect(full.status).toBe(200);
    const model = (await full.json()) as Record<string, any>;
    expect(Object.keys(model)).toEqual(expect.arrayContaining(['overview', 'leakSuspects', 'topConsumers', 'threads']));
    expect(await (await get(app, '/report/overview')).json()).toEqual(model.overview);
    expect(await (await get(app, '/report/leaks')).json()).toEqual(model.leakSuspects);
    const threads = (await (await get(app, '/report/threads?limit=2')).json()) as { threads: unknown[] };
    expect(model.threads.threads.length).toBeGreaterThan(2);
    expect(threads.threads).toEqual(model.threads.threads.slice(0, 2));
    const top = (await (await get(app, '/report/top?limit=1')).json()) as { biggestClasses: unknown[] };
    expect(top.biggestClasses.length).toBeLessThanOrEqual(1);
    const md = await get(app, '/report/threads?format=md&limit=2');
    expect(md.headers.get('content-type')).toMatch(/text\/markdown/);
    const text = await md.text();
    expect(text).toMatch(/^## Thread Overview/);
    expect(text.match(/^### Thread /gm)!.length).toBe(2);
    expect(await (await get(app, '/report?format=md')).text()).toMatch(/^# Heap report/);
    // The whole report takes the same cap on every list, in JSON and in Markdown (test/report-limit.test.ts has the rule).
    const capped = (await (await get(app, '/report?limit=2')).json()) as Record<string, any>;
    expect(capped.overview.classHistogram).toEqual({ ...model.overview.classHistogram, rows: model.overview.classHistogram.rows.slice(0, 2) });
    expect(capped.threads.threads).toEqual(model.threads.threads.slice(0, 2));
    expect(model.topConsumers.biggestObjects.length).toBeGreaterThan(2);
    expect(capped.topConsumers.biggestObjects).toEqual(model.topConsumers.biggestObjects.slice(0, 2));
    expect((await (await get(app, '/report?format=md&limit=2')).text()).match(/^### Thread /gm)!.length).toBe(2);
    await expectError(await get(app, '/report/leaks?limit=0'), 400, 'query', /limit/);
    expect(((await (await get(app, '/report/overview?limit=3')).json()) as { classHistogram: { rows: unknown[] } }).classHistogram.rows).toHaveLength(3);
    await expectError(await get(app, '/report?format=pdf'), 400, 'query', /format/);
    // After the analysis the full-path look-ups work.
    const first = (await (await post(app, '/query', 'SELECT s FROM Demo$Session s LIMIT 1')).json()) as { rows: { objectId: number }[][] };
    const id = first.rows[0]![0]!.objectId;
    expect(((await (await get(app, `/objects/${id}/path`)).json()) as { path: unknown[] }).path.length).toBeGreaterThan(0);
    await expectError(await get(app, `/objects/${id}/path?maxSteps=x`), 400, 'query', /maxSteps/);
    expect((await get(app, `/objects/${id}/dominator`)).status).toBe(200);
    expect((await get(app, `/objects/${id}/referrers`)).status).toBe(200);
  });

  test('GET /repl: a same-origin page with a strict Content-Security-Policy that loads /repl.js', async () => {
    const page = await get(app, '/repl');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script src="/repl.js"></script>');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(await (await get(app, '/repl.js')).text()).toBe('/* bundle */');
  });
});

describe('server app with --no-auto-analyze', () => {
  let session: HeapSession;
  let app: App;
  beforeAll(async () => {
    session = await openHeap(demo);
    app = createApp(session, { port: PORT, autoAnalyze: false });
  });
  afterAll(() => session.close());

  test('reports answer 503 not_ready until POST /analyze, then 202, then 200', async () => {
    await expectError(await get(app, '/report'), 503, 'not_ready', /POST \/analyze/);
    await expectError(await get(app, '/report/top'), 503, 'not_ready');
    expect(await (await get(app, '/status')).json()).toMatchObject({ status: 'not_started' });
    expect(await (await post(app, '/analyze')).json()).toEqual({ ok: true, status: 'started' });
    const during = await get(app, '/report/top');
    expect([202, 200]).toContain(during.status);
    await waitForAnalysis(app);
    expect((await get(app, '/report/top')).status).toBe(200);
  });
});

describe('server app after a failed analysis', () => {
  let session: HeapSession;
  let app: App;
  let fail = true;
  beforeAll(async () => {
    session = await openHeap(demo);
    // The native analysis fails the first time (as on a dump whose graph cannot be built).
    const handle = session.handle as unknown as { analyze: (...a: unknown[]) => Promise<unknown> };
    const real = handle.analyze.bind(handle);
    handle.analyze = (...a: unknown[]) => (fail ? Promise.reject(new Error('ERR_CORRUPT: object 0x10 refers to itself 3 times')) : real(...a));
    app = createApp(session, { port: PORT });
  });
  afterEach(() => {
    fail = false;
  });
  afterAll(() => session.close());

  test('/status failed with the reason; reports 500 analysis_failed; POST /analyze starts again', async () => {
    expect((await get(app, '/report')).status).toBe(202);
    const failed = await waitForAnalysis(app);
    expect(failed).toMatchObject({ status: 'failed', reason: expect.stringContaining('refers to itself') });
    await expectError(await get(app, '/report/leaks'), 500, 'analysis_failed', /refers to itself/);
    await expectError(await post(app, '/query', 'SELECT s.@retainedHeapSize FROM Demo$Session s'), 400, 'query', /POST \/analyze/, {
      line: 1,
      column: 8,
      reason: expect.stringMatching(/: the last analysis failed \(.*\); POST \/analyze to try again$/),
    });
    expect((await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session')).status).toBe(200);
    fail = false;
    expect(await (await post(app, '/analyze')).json()).toEqual({ ok: true, status: 'started' });
    expect(await waitForAnalysis(app)).toMatchObject({ status: 'ready' });
    expect((await get(app, '/report/leaks')).status).toBe(200);
  });
});

describe('server app on a dump cut short on disk after it was opened', () => {
  let dir: string;
  let session: HeapSession;
  let app: App;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'heapql-server-cut-'));
    const copy = path.join(dir, 'demo.hprof');
    copyFileSync(demo, copy);
    session = await openHeap(copy);
    app = createApp(session, { port: PORT });
  });
  afterAll(() => {
    session.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a query answers 500 dump_unreadable saying what happened and what to do, not internal', async () => {
    expect((await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session')).status).toBe(200);
    truncateSync(path.join(dir, 'demo.hprof'), 1_000_000);
    const message = await expectError(await post(app, '/query', 'SELECT toString(x.user) FROM Demo$Session x'), 500, 'dump_unreadable');
    expect(message).toMatch(/cut short on disk since it was opened/);
    expect(message).toMatch(/start the server again on a complete copy of the dump/);
    await expectError(await get(app, `/report/top`), 500, 'dump_unreadable');
  });
});

describe('server app on a file with no heap dump record', () => {
  let dir: string;
  let session: HeapSession;
  let app: App;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'heapql-server-noheap-'));
    const cut = path.join(dir, 'cut.hprof');
    // demo.hprof up to before its first heap record: strings, classes, traces, no objects.
    writeFileSync(cut, readFileSync(demo).subarray(0, 100_000));
    session = await openHeap(cut);
    app = createApp(session, { port: PORT });
  });
  afterAll(() => {
    session.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the analysis fails saying there is no heap dump, and no report section answers "no suspects"', async () => {
    const first = await get(app, '/report/leaks');
    if (first.status === 202) await waitForAnalysis(app);
    const status = await waitForAnalysis(app);
    expect(status).toMatchObject({ status: 'failed' });
    expect(String(status.reason)).toMatch(/cut\.hprof holds no heap dump \(no HEAP DUMP or HEAP DUMP SEGMENT record/);
    for (const section of ['leaks', 'top', 'overview']) {
      await expectError(await get(app, `/report/${section}`), 500, 'analysis_failed', /holds no heap dump/);
    }
    // The library says the same (the MCP server's analyze_heap goes through it).
    await expect(session.analyze()).rejects.toMatchObject({ code: 'ERR_NO_SUCH_DUMP', message: expect.stringMatching(/there are no objects to analyze/) });
  });
});
