/**
 * The analysis state as the HTTP API names it (`GET /status`, the specification's words) from
 * the session's state, and what to do about a feature of the full path in each state (the words
 * of `POST /query` and of the look-ups).
 */
import type { SessionStatus } from '../session/index.js';
import { CANCELLED_NOTE } from './analysis-routes.js';
import type { ServerContext } from './context.js';
import { toApiError } from './errors.js';

export type ServerStatus = 'not_started' | 'analyzing' | 'ready' | 'failed';

export function serverStatus(s: SessionStatus): ServerStatus {
  switch (s.state) {
    case 'query-only':
      return 'not_started';
    case 'analyzing':
      return 'analyzing';
    case 'full':
      return 'ready';
    case 'failed':
      return 'failed';
  }
}

/**
 * What to do when something needs the full analysis, in the server's state now: POST /analyze
 * before it, wait while it runs, try again after a failure.
 */
export function fullPathAdvice(s: SessionStatus): string {
  switch (serverStatus(s)) {
    case 'analyzing':
      return `the full analysis is running (${s.progress?.phase ?? 'starting'}); retry once GET /status says ready`;
    case 'failed':
      return `the last analysis failed (${s.error}); POST /analyze to try again`;
    case 'ready':
      // The analysis ended between the failed call and this answer.
      return 'the full analysis has just finished: retry';
    case 'not_started':
      return 'POST /analyze to run the full analysis, then retry once GET /status says ready';
  }
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
    const e = toApiError(err);
    if (e.kind !== 'dump_unreadable') throw e;
    return { status: 'dump_unreadable', reason: e.message, reachableOnly: ctx.session.reachableOnly, ...dumpFields(ctx, ctx.session.path, ctx.dump.objects, ctx.dump.classes) };
  }
  const status = serverStatus(s);
  return {
    status,
    ...(status === 'analyzing' ? { progress: s.progress ?? { phase: 'starting', done: 0, total: 0 } } : {}),
    ...(status === 'failed' ? { reason: s.error ?? 'unknown reason' } : {}),
    ...(status === 'not_started' && ctx.analysisCancelled ? { note: CANCELLED_NOTE } : {}),
    reachableOnly: s.reachableOnly,
    ...dumpFields(ctx, s.path, s.objects, s.classes),
  };
}
