/**
 * Starting and cancelling the full analysis: `POST /analyze` starts it (or says it runs or is
 * done) and `DELETE /analyze` cancels it for everyone waiting on it (the browser REPL's Escape
 * during `!analyze`, or any client). A cancel is remembered until another analysis starts, so
 * that `GET /status` can say why the state went back to `not_started`.
 */
import type { Hono } from 'hono';

import type { ServerContext } from './context.js';

/** What `DELETE /analyze` answers in `status`. */
export type CancelOutcome = 'cancelled' | 'not_running' | 'already_done';

/** What `GET /status` says after `DELETE /analyze` cancelled the analysis. */
export const CANCELLED_NOTE = 'the last analysis was cancelled (DELETE /analyze); POST /analyze starts it again';

export function analysisRoutes(app: Hono, ctx: ServerContext): void {
  const { session } = ctx;
  // A new analysis (POST /analyze, a report's lazy start) makes the note of the last cancel stale.
  session.subscribe((e) => {
    if (e.type === 'state' && e.status.state === 'analyzing') ctx.analysisCancelled = false;
  });

  app.post('/analyze', (c) => c.json({ ok: true, status: session.startAnalysis({ reachableOnly: ctx.reachableOnly }) }));

  // Answered once the analysis has stopped, so that GET /status right after says where it is.
  app.delete('/analyze', async (c) => {
    const stopping = session.cancelAnalysis();
    await session.analysisSettled();
    const state = session.status.state;
    let status: CancelOutcome;
    if (state === 'full') status = 'already_done';
    else if (!stopping) status = 'not_running';
    else status = 'cancelled';
    if (status === 'cancelled' && state === 'query-only') ctx.analysisCancelled = true;
    return c.json({ ok: true, status });
  });
}
