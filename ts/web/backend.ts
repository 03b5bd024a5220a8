/**
 * The REPL command table's backend over HTTP: what `HeapSession` does in the terminal, the
 * browser asks of the server (POST /pages, /analyze; GET /status, /classes, /objects/…).
 * A query's result comes a page at a time (pages.ts): its first page at once, the rest when
 * the page asks for it.
 * `status` and the class names are kept from the last answers, as the table reads them
 * synchronously.
 *
 * Object ids are indices into one dump. Each result is kept with the dump that answered it
 * (`dumpOf`), and a look-up of an object taken from a result (`!obj` with no argument: the
 * current row) names that dump: refused here when the server is known to serve another one
 * now, and sent with `?dump=` so that the server refuses it (409) when it changed unseen.
 *
 * The requests of the statement running take its AbortSignal (`signal`, set by the front):
 * Escape, Ctrl-C or Stop cancels them. A result's NaN and ±Infinity, strings in JSON, are
 * numbers again (`restoreNonFinite`), as in the terminal.
 */
import { OqlNameError } from '../oql/errors.js';
import { plan } from '../plan/index.js';
import type { ReplBackend } from '../repl/backend.js';
import type { StoredQuery } from '../report/config.js';
import { ReplError } from '../repl/errors.js';
import { restoreNonFinite } from '../query/json.js';
import type { QueryResult, VizSpec } from '../query/schema.js';
import type { AnalysisState, ClassView, DominatorView, ObjectView, PathStep, ProgressEvent, ReferenceList, SessionStatus } from '../session/types.js';
import type { CancelOutcome } from '../server/analysis-routes.js';
import type { AnalysisStart } from '../session/types.js';
import { AnswerError, cancelledError, type Api, type ServerStatusBody } from './api.js';
import { PAGE_ROWS_DEFAULT, Pages, type PagesStart } from './pages.js';

const STATES: Record<ServerStatusBody['status'], AnalysisState> = { not_started: 'query-only', analyzing: 'analyzing', ready: 'full', failed: 'failed', dump_unreadable: 'failed' };

/** What a look-up of an object of an earlier dump's result says (the server's 409 says it too, with the dump ids). */
export const OTHER_DUMP_MESSAGE =
  'the server now serves another dump than the one this result came from: its object ids name other objects there, or none; run the query again';

/**
 * The server's refusal of a class or field the dump lacks as the session's error again, made
 * from its 400's data (`unknownName`, `reason`, `line`, `column`), so that the REPL shows it as
 * it shows any OQL error: at the statement's place, or at its place in the config file for a
 * stored query (`!run <name>`). Null for any other error.
 */
function nameErrorFromAnswer(err: unknown): OqlNameError | null {
  if (!(err instanceof AnswerError) || err.status !== 400) return null;
  const { unknownName, reason, line, column } = err.details;
  if (unknownName === undefined || reason === undefined || line === undefined || column === undefined) return null;
  return new OqlNameError(reason, unknownName, { line, column });
}

export class HttpBackend implements ReplBackend {
  reachableOnly = false;
  private last: ServerStatusBody | null = null;
  private names: string[] = [];
  private fields = new Map<string, Promise<string[]>>();
  private readonly dumps = new WeakMap<QueryResult, string>();
  /**
   * The dump the object ids of the statement running come from: a result's (set by the front
   * for a look-up of the current row), or null: ids just resolved on the server's current dump.
   */
  objectsFrom: string | null = null;
  /** The AbortSignal of the statement running (set by the front), taken by its requests. */
  signal: AbortSignal | null = null;

  /** The paged results (pages.ts). */
  readonly pages: Pages;

  /**
   * @param pageRows rows of a result's first page, and of each page fetched after it (a result
   *   of no more rows comes whole).
   */
  constructor(
    private readonly api: Api,
    readonly pageRows = PAGE_ROWS_DEFAULT,
  ) {
    this.pages = new Pages(api);
  }

  /** Reads the status, the class names and the config's named queries once (before the first statement). */
  async connect(): Promise<ServerStatusBody> {
    const s = await this.refresh();
    this.reachableOnly = s.reachableOnly;
    this.fields.clear();
    this.names = await this.api.get<string[]>('/classes');
    const help = await this.api.get<{ storedQueries?: StoredQuery[] }>('/help');
    this.storedQueries = Array.isArray(help.storedQueries) ? help.storedQueries : [];
    return s;
  }

  /** The server's config file's named `[[query]]` entries (`GET /help`), for `!run`. */
  storedQueries: StoredQuery[] = [];

  /** The dump a result came from (a shaped result: the one it was shaped from, `keepDump`). */
  dumpOf(result: QueryResult | null): string | null {
    return (result && this.dumps.get(result)) ?? null;
  }

  /** `derived` (a result made from `from` in the page: sorted, filtered, …) holds `from`'s objects. */
  keepDump(derived: QueryResult, from: QueryResult | null): void {
    const dump = this.dumpOf(from);
    if (dump !== null && !this.dumps.has(derived)) this.dumps.set(derived, dump);
  }

  /**
   * The `?dump=` of a look-up: the dump its object id came from. Refused at once when the page
   * knows the server serves another one now.
   */
  private dumpQuery(): string {
    const from = this.objectsFrom ?? this.api.dumpId;
    if (from !== null && this.api.dumpId !== null && from !== this.api.dumpId) throw new ReplError(OTHER_DUMP_MESSAGE);
    return from === null ? '' : `dump=${encodeURIComponent(from)}`;
  }

  /** GET /status (with a statement's signal, when one asks). */
  async refresh(signal: AbortSignal | null = null): Promise<ServerStatusBody> {
    this.last = await this.api.status(signal);
    return this.last;
  }

  get status(): SessionStatus {
    const s = this.last;
    const state = s ? STATES[s.status] : 'query-only';
    return {
      path: s?.dump ?? '',
      state,
      reachableOnly: this.reachableOnly,
      analysis: state === 'full' ? { reachableOnly: s!.reachableOnly } : null,
      progress: s?.progress ?? null,
      error: s?.reason ?? null,
      objects: s?.objects ?? 0,
      classes: s?.classes ?? 0,
    };
  }

  /**
   * Plans the query here first (the planner is bundled): a syntax or planning error shows at
   * once, with its caret, exactly as in the terminal, without a round trip. The analysis state
   * known here is that of the last status poll: a query refused only for needing the full
   * analysis asks the server's state first (another tab, or a client of the server, may have
   * analyzed since), and goes to the server when it is ready. The `-- @viz` directive stays in
   * the page and goes on the result here: the REPL warns of a chart it cannot draw itself, so
   * the server's note of it (sent for a directive it is given) would say it twice.
   */
  async query(oql: string, options: { name?: string; viz?: VizSpec | null; signal?: AbortSignal }): Promise<QueryResult> {
    const signal = options.signal ?? this.signal;
    try {
      plan(oql, { fullPath: this.status.state === 'full', reachableOnly: this.reachableOnly });
    } catch (err) {
      if (!needsFullPathOnly(oql, this.reachableOnly) || (await this.refresh(signal)).status !== 'ready') throw err;
    }
    // The previous paged result's scan and count stop in the server: one is open at a time.
    this.pages.closeCurrent();
    let answer: { body: PagesStart; dump: string | null };
    try {
      answer = await this.api.postCall<PagesStart>(
        '/pages',
        {
          query: oql,
          reachableOnly: this.reachableOnly,
          pageRows: this.pageRows,
          ...(options.name !== undefined ? { name: options.name } : {}),
        },
        signal,
      );
    } catch (err) {
      throw nameErrorFromAnswer(err) ?? err;
    }
    const { body: start, dump } = answer;
    restoreNonFinite(start.result);
    const body = this.pages.adopt(start);
    if (options.viz) body.viz = options.viz;
    const from = dump ?? this.api.dumpId;
    if (from !== null) this.dumps.set(body, from);
    return body;
  }

  /** The server's count of a paged result (`!count`), waited for; a count that failed says why. */
  async totalOf(result: QueryResult, signal?: AbortSignal): Promise<{ rowCount: number; truncated: boolean } | null> {
    const total = await this.pages.totalOf(result, signal);
    const failed = this.pages.stateOf(result)?.countFailed ?? null;
    if (total === null && failed !== null && !signal?.aborted) throw new ReplError(`the server could not count the result: ${failed}`);
    return total;
  }

  /** The server's count of a paged result if it came (null: not yet; undefined: a whole result). */
  knownTotalOf(result: QueryResult): { rowCount: number; truncated: boolean } | null | undefined {
    const state = this.pages.stateOf(result);
    return state ? state.total : undefined;
  }

  classNames(): string[] {
    return this.names;
  }

  classes(pattern?: string): string[] {
    if (!pattern) return this.names;
    const p = pattern.toLowerCase();
    return this.names.filter((n) => n.toLowerCase().includes(p));
  }

  describeClass(name: string): Promise<ClassView[]> {
    return this.api.get<ClassView[]>(`/classes/describe?name=${encodeURIComponent(name)}`, this.signal);
  }

  /** Instance field names of a class, for completion (asked once per class). */
  fieldsOf(className: string): Promise<string[]> {
    let f = this.fields.get(className);
    if (!f) {
      // Completion's, never a statement's (it is not cancelled with one).
      f = this.api.get<ClassView[]>(`/classes/describe?name=${encodeURIComponent(className)}`).then(
        (views) => [...new Set(views.flatMap((v) => v.fields.map((x) => x.name)))],
        () => [],
      );
      this.fields.set(className, f);
    }
    return f;
  }

  async resolveObject(spec: string): Promise<number> {
    return (await this.api.get<{ objectId: number }>(`/objects/resolve?spec=${encodeURIComponent(spec)}`, this.signal)).objectId;
  }

  /** GET /objects/<id><tail> with `?dump=` (and the other parameters). */
  private lookup<T>(objectId: number, tail: string, params: string[] = []): Promise<T> {
    const query = [...params, this.dumpQuery()].filter((p) => p !== '').join('&');
    return this.api.get<T>(`/objects/${objectId}${tail}${query ? `?${query}` : ''}`, this.signal);
  }

  object(objectId: number): Promise<ObjectView> {
    return this.lookup<ObjectView>(objectId, '');
  }

  referents(objectId: number, limit = 25): Promise<ReferenceList> {
    return this.lookup<ReferenceList>(objectId, '/referents', [`limit=${limit}`]);
  }

  referrers(objectId: number, limit = 25): Promise<ReferenceList> {
    return this.lookup<ReferenceList>(objectId, '/referrers', [`limit=${limit}`]);
  }

  async pathToRoot(objectId: number, maxSteps?: number): Promise<PathStep[] | null> {
    return (await this.lookup<{ path: PathStep[] | null }>(objectId, '/path', maxSteps === undefined ? [] : [`maxSteps=${maxSteps}`])).path;
  }

  dominator(objectId: number, limit = 10): Promise<DominatorView> {
    return this.lookup<DominatorView>(objectId, '/dominator', [`limit=${limit}`]);
  }

  /**
   * POST /analyze, then follow GET /status until the analysis is ready (progress on the way).
   * The server analyzes in its own mode (`--reachable-only` or not). The statement's signal
   * aborted (Escape, Ctrl-C, Stop): an analysis this `!analyze` started is cancelled in the
   * server (DELETE /analyze), as Ctrl-C does in the terminal; one it joined (started by another
   * tab or client) goes on, and only the waiting stops.
   */
  async analyze(options: { onProgress?: (e: ProgressEvent) => void; signal?: AbortSignal }): Promise<void> {
    this.waitingForAnalysis++;
    try {
      await this.followAnalysis(options);
    } finally {
      this.waitingForAnalysis--;
    }
  }

  /** `!analyze`s of this page waiting for the analysis (they say how it ended themselves). */
  waitingForAnalysis = 0;
  /** An `!analyze` of this page said the failure the server's status shows. */
  failureSaid = false;

  private async followAnalysis(options: { onProgress?: (e: ProgressEvent) => void; signal?: AbortSignal }): Promise<void> {
    const signal = options.signal ?? this.signal;
    // Not sent with the signal: a POST cut off by an abort might have started the analysis
    // unknown to us, and then nothing would cancel it.
    const { status: start } = await this.api.post<{ status: AnalysisStart }>('/analyze');
    const stop = () => this.stopAnalysis(start === 'started');
    for (;;) {
      if (signal?.aborted) return stop();
      let s: ServerStatusBody;
      try {
        s = await this.refresh(signal);
      } catch {
        if (signal?.aborted) return stop();
        await pause(1000, signal);
        continue;
      }
      if (s.status === 'ready') return;
      if (s.status === 'failed' || s.status === 'dump_unreadable') this.failureSaid = true;
      if (s.status === 'failed') throw new ReplError(`the analysis failed: ${s.reason}`);
      if (s.status === 'dump_unreadable') throw new ReplError(`the server cannot read its dump any more: ${s.reason}`);
      if (s.status === 'not_started') throw new ReplError('the analysis was cancelled on the server');
      if (s.progress) options.onProgress?.(s.progress);
      await pause(250, signal);
    }
  }

  /**
   * What Escape during `!analyze` does: cancels the analysis it started (DELETE /analyze,
   * answered once it has stopped; `cancelled`), or stops waiting for one it joined. Resolves
   * when the analysis had finished first: it is there.
   */
  private async stopAnalysis(ours: boolean): Promise<void> {
    if (!ours) {
      throw new ReplError('stopped waiting; the analysis was started elsewhere (another tab or client) and goes on in the server (the status line shows it; DELETE /analyze stops it)');
    }
    let outcome: CancelOutcome;
    try {
      ({ status: outcome } = await this.api.request<{ status: CancelOutcome }>('/analyze', { method: 'DELETE' }));
    } catch (err) {
      throw new ReplError(`could not cancel the analysis, which may go on in the server (the status line shows it): ${(err as Error).message}`);
    }
    await this.refresh().catch(() => {});
    if (outcome === 'already_done') return;
    throw cancelledError();
  }
}

/** `ms` milliseconds, or less when `signal` is aborted meanwhile. */
function pause(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Whether the query is refused on the query-only path only for needing the full analysis. */
function needsFullPathOnly(oql: string, reachableOnly: boolean): boolean {
  try {
    return plan(oql, { fullPath: true, reachableOnly }).plan.fullPath;
  } catch {
    return false;
  }
}
