/**
 * Point look-ups for the browser REPL (its `!classes`, `!describe`, `!obj`, `!refs`, `!path`,
 * `!dom` and completion): each reads one object or class through the session, no heap scan.
 */
import type { Context, Hono } from 'hono';

import { terminalText } from '../terminal-text.js';
import type { ServerContext } from './context.js';
import { ApiError, toApiError } from './errors.js';

/**
 * The `:id` of `/objects/:id…`: an object's index, digits only (400 for anything else: an
 * address, a sign, a fraction, an exponent), and 404 when the heap has no such object.
 */
function objectId(ctx: ServerContext, c: Context): number {
  sameDump(ctx, c);
  const raw = c.req.param('id') ?? '';
  if (!/^\d+$/.test(raw)) {
    throw new ApiError(
      400,
      'query',
      `'${raw}' is not an object id: an object id is the object's index, a whole number written in digits (as in GET /objects/12 or a result's objectId); ` +
        `an address (0x…) or Class#index is looked up with GET /objects/resolve?spec=`,
    );
  }
  const id = Number(raw);
  const count = ctx.session.status.objects;
  if (id >= count) {
    // The library's words (session.ts objectIndex), for an empty heap too.
    const has = count === 0 ? 'the heap has no objects' : `the heap has objects 0 to ${count - 1}`;
    throw new ApiError(404, 'not_found', `object ${raw} does not exist (${has})`);
  }
  return id;
}

/**
 * `?dump=<id>`: the dump (its `dumpId` in GET /status) the client's object id came from. An id
 * of another dump names another object here, or none: 409 `dump_changed`, never that object.
 */
function sameDump(ctx: ServerContext, c: Context): void {
  const given = c.req.query('dump');
  if (given === undefined || given === ctx.dump.id) return;
  throw new ApiError(
    409,
    'dump_changed',
    `the server now serves another dump (${terminalText(ctx.session.path, { keepBackslashes: true })}, dumpId ${ctx.dump.id}) than the one this object id came from ` +
      `(dumpId ${terminalText(given)}): there it names another object or none; run the query again`,
  );
}

function intParam(c: Context, name: string, fallback: number, max: number): number {
  const raw = c.req.query(name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max) throw new ApiError(400, 'query', `${name} must be a whole number from 0 to ${max}, not '${raw}'`);
  return Number(raw);
}

function required(c: Context, name: string, example: string): string {
  const v = c.req.query(name);
  if (v === undefined || v.trim() === '') throw new ApiError(400, 'query', `the ?${name}= parameter is required, e.g. ${example}`);
  return v;
}

/**
 * Runs a look-up and maps the session's errors (no such object; needs the analysis, with what
 * to do in the server's state now, the words of POST /query).
 */
async function lookup(ctx: ServerContext, c: Context, run: () => unknown): Promise<Response> {
  try {
    return c.json((await run()) as object);
  } catch (err) {
    throw toApiError(err, ctx.session);
  }
}

export function heapRoutes(app: Hono, ctx: ServerContext): void {
  const s = ctx.session;
  app.get('/classes', (c) => c.json(s.classes(c.req.query('pattern') || undefined)));
  app.get('/classes/describe', (c) =>
    lookup(ctx, c, async () => {
      const name = required(c, 'name', '/classes/describe?name=java.lang.String');
      const views = await s.describeClass(name);
      if (views.length === 0) throw new ApiError(404, 'not_found', `${s.noClassMessage(name)} (GET /classes?pattern= lists the classes whose names contain a text)`);
      return views;
    }),
  );
  app.get('/objects/resolve', (c) =>
    lookup(ctx, c, () => {
      sameDump(ctx, c);
      return { objectId: s.resolveObject(required(c, 'spec', '/objects/resolve?spec=java.lang.String%2312')) };
    }),
  );
  app.get('/objects/:id', (c) =>
    lookup(ctx, c, () => s.object(objectId(ctx, c), { fieldOffset: intParam(c, 'fieldOffset', 0, 2 ** 31), fieldLimit: intParam(c, 'fieldLimit', 100, 10_000) })),
  );
  app.get('/objects/:id/referents', (c) => lookup(ctx, c, () => s.referents(objectId(ctx, c), intParam(c, 'limit', 25, 10_000))));
  app.get('/objects/:id/referrers', (c) => lookup(ctx, c, () => s.referrers(objectId(ctx, c), intParam(c, 'limit', 25, 10_000))));
  app.get('/objects/:id/path', (c) => lookup(ctx, c, async () => ({ path: await s.pathToRoot(objectId(ctx, c), intParam(c, 'maxSteps', 100, 1_000_000)) })));
  app.get('/objects/:id/dominator', (c) => lookup(ctx, c, () => s.dominator(objectId(ctx, c), intParam(c, 'limit', 10, 10_000))));
}
