/**
 * The REPL command table's backend over HTTP: what `HeapSession` does in the terminal, the
 * browser asks of the server (POST /query, /analyze; GET /status, /classes, /objects/…).
 * `status` and the class names are kept from the last answers, as the table reads them
 * synchronously.
 */
import { plan } from '../plan/index.js';
import type { ReplBackend } from '../repl/backend.js';
import { ReplError } from '../repl/errors.js';
import type { QueryResult, VizSpec } from '../query/schema.js';
import type { AnalysisState, ClassView, DominatorView, ObjectView, PathStep, ProgressEvent, ReferenceList, SessionStatus } from '../session/types.js';
import type { Api, ServerStatusBody } from './api.js';

const STATES: Record<ServerStatusBody['status'], AnalysisState> = { not_started: 'query-only', analyzing: 'analyzing', ready: 'full', failed: 'failed' };

export class HttpBackend implements ReplBackend {
  reachableOnly = false;
  private last: ServerStatusBody | null = null;
  private names: string[] = [];
  private fields = new Map<string, Promise<string[]>>();

  constructor(private readonly api: Api) {}

  /** Reads the status and the class names once (before the first statement). */
  async connect(): Promise<ServerStatusBody> {
    const s = await this.refresh();
    this.reachableOnly = s.reachableOnly;
    this.names = await this.api.get<string[]>('/classes');
    return s;
  }

  async refresh(): Promise<ServerStatusBody> {
    this.last = await this.api.status();
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
   * once, with its caret, exactly as in the terminal, without a round trip.
   */
  async query(oql: string, options: { name?: string; viz?: VizSpec | null }): Promise<QueryResult> {
    plan(oql, { fullPath: this.status.state === 'full', reachableOnly: this.reachableOnly });
    return this.api.post<QueryResult>('/query', {
      query: oql,
      reachableOnly: this.reachableOnly,
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.viz ? { viz: options.viz } : {}),
    });
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
    return this.api.get<ClassView[]>(`/classes/describe?name=${encodeURIComponent(name)}`);
  }

  /** Instance field names of a class, for completion (asked once per class). */
  fieldsOf(className: string): Promise<string[]> {
    let f = this.fields.get(className);
    if (!f) {
      f = this.describeClass(className).then(
        (views) => [...new Set(views.flatMap((v) => v.fields.map((x) => x.name)))],
        () => [],
      );
      this.fields.set(className, f);
    }
    return f;
  }

  async resolveObject(spec: string): Promise<number> {
    return (await this.api.get<{ objectId: number }>(`/objects/resolve?spec=${encodeURIComponent(spec)}`)).objectId;
  }

  object(objectId: number): Promise<ObjectView> {
    return this.api.get<ObjectView>(`/objects/${objectId}`);
  }

  referents(objectId: number, limit = 25): Promise<ReferenceList> {
    return this.api.get<ReferenceList>(`/objects/${objectId}/referents?limit=${limit}`);
  }

  referrers(objectId: number, limit = 25): Promise<ReferenceList> {
    return this.api.get<ReferenceList>(`/objects/${objectId}/referrers?limit=${limit}`);
  }

  async pathToRoot(objectId: number, maxSteps?: number): Promise<PathStep[] | null> {
    return (await this.api.get<{ path: PathStep[] | null }>(`/objects/${objectId}/path${maxSteps === undefined ? '' : `?maxSteps=${maxSteps}`}`)).path;
  }

  dominator(objectId: number, limit = 10): Promise<DominatorView> {
    return this.api.get<DominatorView>(`/objects/${objectId}/dominator?limit=${limit}`);
  }

  /**
   * POST /analyze, then follow GET /status until the analysis is ready (progress on the way).
   * The server analyzes in its own mode (`--reachable-only` or not).
   */
  async analyze(options: { onProgress?: (e: ProgressEvent) => void; signal?: AbortSignal }): Promise<void> {
    await this.api.post('/analyze');
    for (;;) {
      if (options.signal?.aborted) throw new ReplError('stopped waiting; the analysis goes on in the server (the status line shows it)');
      let s: ServerStatusBody;
      try {
        s = await this.refresh();
      } catch {
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (s.status === 'ready') return;
      if (s.status === 'failed') throw new ReplError(`the analysis failed: ${s.reason}`);
      if (s.status === 'not_started') throw new ReplError('the analysis was cancelled on the server');
      if (s.progress) options.onProgress?.(s.progress);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
