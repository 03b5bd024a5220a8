/**
 * The HTTP server as a hono app over one `HeapSession` (it never talks to the addon itself).
 * Testable in process with `app.request(...)`; `listen.ts` binds it to a port.
 *
 * Order of checks: Host and Origin (guard.ts) for every request, then the routes; a known path
 * with another method is a 405 with `Allow`, anything else a 404. Every error is
 * `{ok: false, error: {kind, message}}` (errors.ts).
 */
import { Hono } from 'hono';

import { queryResultJsonSchema } from '../query/schema.js';
import type { HeapSession } from '../session/index.js';
import { terminalText } from '../terminal-text.js';
import { VERSION } from '../version.js';
import { analysisRoutes } from './analysis-routes.js';
import { serverContext, type ServerContext, type ServerOptions } from './context.js';
import { allowedMethods, catalog, endpointPaths, ENDPOINTS, paramsProblem } from './endpoints.js';
import { ApiError, errorBody, toApiError } from './errors.js';
import { checkRequest } from './guard.js';
import { heapRoutes } from './heap-routes.js';
import { oqlReference } from './help.js';
import { queryRoutes } from './query-routes.js';
import { replPage } from './repl-page.js';
import { reportRoutes } from './report-routes.js';
import { statusBody } from './status.js';

export type { ServerOptions } from './context.js';

/** Headers on every answer: no sniffing, no framing by other sites, nothing cached. */
const COMMON_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The header of every answer that names the dump served (its `dumpId`). */
export const DUMP_HEADER = 'x-heapql-dump';

/** An `ApiError` as the JSON answer every error gets. */
export function errorResponse(err: ApiError): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...COMMON_HEADERS, ...err.headers };
  return new Response(JSON.stringify(errorBody(err.kind, err.message, err.details)), { status: err.status, headers });
}

/**
 * A URL parameter that is not percent-encoded UTF-8 (`?name=%ff`, `%zz`, an encoded lone
 * surrogate) is a 400 naming it: the router would otherwise take its text as it was written, and
 * look up a class named `%ff`.
 */
function checkQueryEncoding(url: string): void {
  const at = url.indexOf('?');
  if (at < 0) return;
  for (const part of url.slice(at + 1).split('&')) {
    const eq = part.indexOf('=');
    for (const piece of eq < 0 ? [part] : [part.slice(0, eq), part.slice(eq + 1)]) {
      try {
        decodeURIComponent(piece.replace(/\+/g, ' '));
      } catch {
        const name = eq < 0 ? part : part.slice(0, eq);
        throw new ApiError(
          400,
          'query',
          `the URL's parameter ${JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name)} is not percent-encoded UTF-8 (${JSON.stringify(piece.length > 60 ? `${piece.slice(0, 60)}…` : piece)}): write each byte of a character's UTF-8 as %XX (encodeURIComponent does)`,
        );
      }
    }
  }
}

/** The URL's parameters are those its endpoint reads, each once (`paramsProblem`). */
function checkParams(method: string, path: string, url: string): void {
  const at = url.indexOf('?');
  if (at < 0) return;
  const names = [...new URLSearchParams(url.slice(at + 1)).keys()];
  const problem = paramsProblem(method, path, names);
  if (problem !== null) throw new ApiError(400, 'query', problem);
}

function welcome(ctx: ServerContext): string {
  const base = `http://127.0.0.1:${ctx.port()}`;
  const width = Math.max(...ENDPOINTS.map((e) => `${e.method} ${e.path}`.length));
  return [
    // The file name as a terminal shows it: a line break or a bidi override in it cannot fake a
    // line or reorder the banner (the HTML welcome escapes it further).
    `heapql ${VERSION}: heap dump ${terminalText(ctx.session.path, { keepBackslashes: true })}${ctx.dump.count > 1 ? ` (heap dump ${ctx.dump.number} of ${ctx.dump.count})` : ''}`,
    `browser REPL: ${base}/repl`,
    '',
    'endpoints:',
    ...ENDPOINTS.map((e) => `  ${`${e.method} ${e.path}`.padEnd(width)}  ${e.description}`),
    '',
    'examples:',
    `  curl -s ${base}/status`,
    `  curl -s ${base}/query -d 'SELECT COUNT(*) FROM java.lang.String'`,
    '',
  ].join('\n');
}

export function createApp(session: HeapSession, options: ServerOptions): Hono {
  const ctx = serverContext(session, options);
  const app = new Hono();

  app.use('*', async (c, next) => {
    checkRequest(c.req.raw.headers, c.req.method, c.req.path, ctx.port(), c.req.url);
    checkQueryEncoding(c.req.url);
    checkParams(c.req.method, c.req.path, c.req.url);
    await next();
    for (const [k, v] of Object.entries(COMMON_HEADERS)) if (!c.res.headers.has(k)) c.res.headers.set(k, v);
    // Which dump answered (GET /status's dumpId): a client keeping object ids sees a change at once.
    c.res.headers.set(DUMP_HEADER, ctx.dump.id);
  });

  app.get('/', (c) => {
    // A browser asking for a page gets the welcome as HTML with a link to the REPL.
    if ((c.req.header('accept') ?? '').includes('text/html')) {
      const text = welcome(ctx).replace(/[&<>]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[ch]!);
      return c.html(`<!doctype html><meta charset="utf-8"><title>heapql server</title><p><a href="/repl">Open the browser REPL</a></p><pre>${text}</pre>`);
    }
    return c.json({ name: 'heapql server', version: VERSION, dump: session.path, welcome: welcome(ctx), repl: '/repl', endpoints: catalog() });
  });
  app.get('/version', (c) => c.json({ version: VERSION, endpoints: catalog() }));
  app.get('/status', (c) => c.json(statusBody(ctx)));
  analysisRoutes(app, ctx);
  app.get('/help', (c) => c.json({ ...oqlReference(), storedQueries: ctx.storedQueries }));
  app.get('/schema', (c) => c.json(queryResultJsonSchema()));
  queryRoutes(app, ctx);
  reportRoutes(app, ctx);
  heapRoutes(app, ctx);
  app.get('/repl', (c) => c.html(replPage(), 200, { 'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'" }));
  app.get('/repl.js', (c) => {
    const script = ctx.replScript();
    if (script === null) throw new ApiError(404, 'not_found', 'the browser REPL is not built: run npm run build');
    return c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8' });
  });

  for (const path of endpointPaths()) {
    app.all(path, (c) => {
      const allow = allowedMethods(path);
      throw new ApiError(405, 'method_not_allowed', `${c.req.method} is not allowed on ${path}; use ${allow.join(' or ')}`, { allow: allow.join(', ') });
    });
  }
  app.notFound((c) => errorResponse(new ApiError(404, 'not_found', `no endpoint ${c.req.method} ${c.req.path}; GET /version lists them`)));
  app.onError((err) => errorResponse(toApiError(err, session)));
  return app;
}

/** The startup banner's text (the CLI prints it once the port is bound). */
export function banner(session: HeapSession, port: number): string {
  return welcome(serverContext(session, { port }));
}
