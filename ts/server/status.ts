/** The body of `GET /status`: the analysis state as the HTTP API names it, and the dump served. */
import type { ProgressEvent, SessionStatus } from '../session/index.js';
import { CANCELLED_NOTE } from './analysis-routes.js';
import type { ServerContext } from './context.js';
import { toApiError } from './errors.js';
import { serverStatus } from './full-path.js';

/**
 * The running analysis's progress as the HTTP API gives it (`GET /status`, a report's 202):
 * `total` is at least 1 and `done` between 0 and `total`, so that `done / total` is always a
 * fraction from 0 to 1 a client can divide out. Before the analysis's first report it is
 * `{phase: "starting", done: 0, total: 1}` (a phase that reported no total counts 0 of 1).
 */
export function progressBody(p: ProgressEvent | null): ProgressEvent {
  if (!p) return { phase: 'starting', done: 0, total: 1 };
  const total = p.total >= 1 ? p.total : 1;
  return { phase: p.phase, done: p.done > 0 ? Math.min(p.done, total) : 0, total };
}

/** Which dump is served: the same fields in every state. */
function dumpFields(ctx: ServerContext, path: string, objects: number, classes: number): Record<string, unknown> {
  return { dump: path, dumpId: ctx.dump.id, dumpNumber: ctx.dump.number, dumpCount: ctx.dump.count, objects, classes };
}

/**
 * The body of `GET /status` (`note` after `DELETE /analyze` cancelled the analysis). When the dump can no longer be read (cut short or written to on
 * disk since it was opened) the status is `dump_unreadable` with the reason and what to do,
 * still a 200: the status is the one request that must always answer.
 */
export function statusBody(ctx: ServerContext): Record<string, unknown> {
  let s: SessionStatus;
  try {
    s = ctx.session.status;
  } catch (err) {
    const e = toApiError(err, ctx.session);
    if (e.kind !== 'dump_unreadable') throw e;
    return { status: 'dump_unreadable', reason: e.message, reachableOnly: ctx.session.reachableOnly, ...dumpFields(ctx, ctx.session.path, ctx.dump.objects, ctx.dump.classes) };
  }
  const status = serverStatus(s);
  return {
    status,
    ...(status === 'analyzing' ? { progress: progressBody(s.progress) } : {}),
    ...(status === 'failed' ? { reason: s.error ?? 'unknown reason' } : {}),
    ...(status === 'not_started' && ctx.analysisCancelled ? { note: CANCELLED_NOTE } : {}),
    reachableOnly: s.reachableOnly,
    ...dumpFields(ctx, s.path, s.objects, s.classes),
  };
}
