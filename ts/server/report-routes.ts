/**
 * `GET /report` and `/report/overview|leaks|top|threads` (`?format=md`, `?limit=N`), with the
 * lazy rule of design.md §5: before any analysis the first request starts it and answers 202
 * with `Retry-After` (or 503 `not_ready` when the server runs with `--no-auto-analyze`); while it
 * runs, 202; after a failure, 500 `analysis_failed` until `POST /analyze` starts it again.
 */
import type { Context, Hono } from 'hono';

import { renderMarkdown, renderMarkdownSection } from '../report/markdown.js';
import type { ReportModel } from '../report/model.js';
import type { ServerContext } from './context.js';
import { ApiError, toApiError } from './errors.js';
import { jsonAnswer } from './json.js';
import { serverStatus } from './status.js';

type Section = 'overview' | 'leaks' | 'top' | 'threads';

/** The core's default list length (histogram rows, consumers…) when no `limit` is given. */
const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 10_000;
/** Report models kept, by list length (each is a few hundred KB at most). */
const CACHED_MODELS = 4;

function limitParam(c: Context, section: Section | null): number | undefined {
  const raw = c.req.query('limit');
  if (raw === undefined) return undefined;
  if (section === 'overview') throw new ApiError(400, 'query', `limit applies to /report, /report/leaks, /report/top and /report/threads (the overview has no list to cap)`);
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

/** A section's JSON with its lists capped at `limit` rows. */
function sectionJson(model: ReportModel, section: Section, limit: number | undefined): unknown {
  const cap = <T>(rows: T[]): T[] => (limit === undefined ? rows : rows.slice(0, limit));
  switch (section) {
    case 'overview':
      return model.overview;
    case 'leaks':
      return { ...model.leakSuspects, suspects: cap(model.leakSuspects.suspects) };
    case 'top': {
      const t = model.topConsumers;
      return {
        ...t,
        biggestObjects: cap(t.biggestObjects),
        biggestClasses: cap(t.biggestClasses),
        biggestClassLoaders: cap(t.biggestClassLoaders),
        biggestPackages: cap(t.biggestPackages),
      };
    }
    case 'threads':
      return { ...model.threads, threads: cap(model.threads.threads) };
  }
}

function capModel(model: ReportModel, limit: number | undefined): ReportModel {
  if (limit === undefined) return model;
  return {
    ...model,
    leakSuspects: sectionJson(model, 'leaks', limit) as ReportModel['leakSuspects'],
    topConsumers: sectionJson(model, 'top', limit) as ReportModel['topConsumers'],
    threads: sectionJson(model, 'threads', limit) as ReportModel['threads'],
  };
}

export function reportRoutes(app: Hono, ctx: ServerContext): void {
  const models = new Map<number, Promise<ReportModel>>();

  /** The report built with lists of `length` rows (once per length; a failed build is retried). */
  function model(length: number): Promise<ReportModel> {
    let p = models.get(length);
    if (!p) {
      p = ctx.session.report({ reachableOnly: ctx.reachableOnly, limit: length });
      p.catch(() => models.delete(length));
      models.set(length, p);
      while (models.size > CACHED_MODELS) models.delete(models.keys().next().value!);
    }
    return p;
  }

  /** The answer while the analysis is not ready, or null when it is. */
  function notReady(c: Context): Response | null {
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
        ctx.session.startAnalysis({ reachableOnly: ctx.reachableOnly, forReport: true });
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
        progress: now.progress ?? { phase: 'starting', done: 0, total: 0 },
        message: `the full analysis is running; retry in ${ctx.retryAfterSeconds} s (GET /status shows the progress)`,
      },
      202,
    );
  }

  async function answer(c: Context, section: Section | null): Promise<Response> {
    const format = formatParam(c);
    const limit = limitParam(c, section);
    const waiting = notReady(c);
    if (waiting) return waiting;
    let m: ReportModel;
    try {
      m = await model(Math.max(limit ?? DEFAULT_LIMIT, DEFAULT_LIMIT));
    } catch (err) {
      throw toApiError(err);
    }
    if (format === 'md') {
      const text = section === null ? renderMarkdown(capModel(m, limit)) : renderMarkdownSection(capModel(m, limit), section);
      return c.body(text, 200, { 'content-type': 'text/markdown; charset=utf-8' });
    }
    return jsonAnswer(c, section === null ? capModel(m, limit) : sectionJson(m, section, limit));
  }

  app.get('/report', (c) => answer(c, null));
  for (const section of ['overview', 'leaks', 'top', 'threads'] as const) app.get(`/report/${section}`, (c) => answer(c, section));
}
