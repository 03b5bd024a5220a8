/**
 * `GET /report` and `/report/overview|leaks|top|threads` (`?format=md`, `?limit=N`: every list
 * capped at N rows, the one rule of ts/report/limit.ts), with the
 * lazy rule of design.md §5: before any analysis the first request starts it and answers 202
 * with `Retry-After` (or 503 `not_ready` when the server runs with `--no-auto-analyze`); while it
 * runs, 202; after a failure, 500 `analysis_failed` until `POST /analyze` starts it again.
 * A HEAD gets the status and headers of that GET, no body, and starts nothing: neither the
 * analysis (before it, 202 with `Retry-After` all the same) nor the report's build (once ready:
 * 200 with the format's content type, without a content length).
 */
import type { Context, Hono } from 'hono';

import { renderMarkdown, renderMarkdownSection } from '../report/markdown.js';
import { capSections, DEFAULT_LIST_ROWS, DEFAULT_TOP_STRINGS } from '../report/limit.js';
import type { ReportModel } from '../report/model.js';
import type { ServerContext } from './context.js';
import { ApiError, toApiError } from './errors.js';
import { jsonAnswer } from './json.js';
import { serverStatus } from './full-path.js';
import { progressBody } from './status.js';

type Section = 'overview' | 'leaks' | 'top' | 'threads';

const MAX_LIMIT = 10_000;
const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';
/** Report models kept, by list lengths (each is a few hundred KB at most). */
const CACHED_MODELS = 4;

function limitParam(c: Context): number | undefined {
  const raw = c.req.query('limit');
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_LIMIT) throw new ApiError(400, 'query', `limit must be a whole number from 1 to ${MAX_LIMIT}, not '${raw}'`);
  return n;
}

function formatParam(c: Context): 'json' | 'md' {
  const f = c.req.query('format');
  if (f === undefined || f === 'json') return 'json';
  if (f === 'md' || f === 'markdown') return 'md';
  throw new ApiError(400, 'query', `format must be json or md, not '${f}'`);
}

function sectionOf(model: ReportModel, section: Section): unknown {
  switch (section) {
    case 'overview':
      return model.overview;
    case 'leaks':
      return model.leakSuspects;
    case 'top':
      return model.topConsumers;
    case 'threads':
      return model.threads;
  }
}

export function reportRoutes(app: Hono, ctx: ServerContext): void {
  const models = new Map<string, Promise<ReportModel>>();

  /**
   * The report a request with this `limit` is cut from (ts/report/limit.ts), built once per
   * list lengths (a failed build is retried): every limit up to the defaults is cut from the
   * default report (every thread, 25 rows a list, 20 duplicate strings: the CLI's report, whose
   * data the cache may already hold); a longer one is built at its length.
   */
  function model(limit: number | undefined): Promise<ReportModel> {
    const rows = limit !== undefined && limit > DEFAULT_LIST_ROWS ? limit : undefined;
    const strings = Math.max(limit ?? DEFAULT_TOP_STRINGS, DEFAULT_TOP_STRINGS);
    const key = `${rows ?? 'default'}/${strings}`;
    let p = models.get(key);
    if (!p) {
      p = ctx.session.report({ reachableOnly: ctx.reachableOnly, limit: rows, topStrings: strings });
      p.catch(() => models.delete(key));
      models.set(key, p);
      while (models.size > CACHED_MODELS) models.delete(models.keys().next().value!);
    }
    return p;
  }

  /**
   * The answer while the analysis is not ready, or null when it is. A HEAD (`head`) gets the
   * status and headers a GET would, and starts nothing: before any analysis that is the 202
   * with `Retry-After` of the GET that would start it, though none starts.
   */
  function notReady(c: Context, head: boolean): Response | null {
    const status = ctx.session.status;
    switch (serverStatus(status)) {
      case 'ready':
        return null;
      case 'failed':
        throw new ApiError(500, 'analysis_failed', `the analysis failed: ${status.error}; POST /analyze to try again`);
      case 'not_started':
        if (!ctx.autoAnalyze) {
          throw new ApiError(503, 'not_ready', 'the analysis has not started (the server runs with --no-auto-analyze): POST /analyze first, then retry once GET /status says ready');
        }
        if (!head) ctx.session.startAnalysis({ reachableOnly: ctx.reachableOnly, forReport: true });
        break;
      case 'analyzing':
        break;
    }
    const now = ctx.session.status;
    c.header('Retry-After', String(ctx.retryAfterSeconds));
    return c.json(
      {
        ok: true,
        status: 'analyzing',
        progress: progressBody(now.progress),
        message: `the full analysis is running; retry in ${ctx.retryAfterSeconds} s (GET /status shows the progress)`,
      },
      202,
    );
  }

  async function answer(c: Context, section: Section | null): Promise<Response> {
    const format = formatParam(c);
    const limit = limitParam(c);
    // Hono answers HEAD with the GET route, then drops the body: a HEAD must not start the
    // analysis nor build the report (a GET after the analysis builds it once per `limit`).
    const head = c.req.method === 'HEAD';
    const waiting = notReady(c, head);
    if (waiting) return waiting;
    if (head) return c.body(null, 200, { 'content-type': format === 'md' ? MARKDOWN_TYPE : 'application/json' });
    let m: ReportModel;
    try {
      m = capSections(await model(limit), limit);
    } catch (err) {
      throw toApiError(err, ctx.session);
    }
    if (format === 'md') {
      const text = section === null ? renderMarkdown(m) : renderMarkdownSection(m, section);
      return c.body(text, 200, { 'content-type': MARKDOWN_TYPE });
    }
    return jsonAnswer(c, section === null ? m : sectionOf(m, section));
  }

  app.get('/report', (c) => answer(c, null));
  for (const section of ['overview', 'leaks', 'top', 'threads'] as const) app.get(`/report/${section}`, (c) => answer(c, section));
}
