/**
 * The browser REPL's HTTP client for the server it was loaded from (same origin, relative
 * URLs). It tracks whether the server answers: a failed request marks the connection lost and
 * the caller's `onConnection` hears about it; the status poll (main.ts) brings it back. It also
 * tracks which dump answers (the `x-heapql-dump` header of every answer, GET /status's
 * `dumpId`): a server restarted on another dump is seen on its first answer (`onDumpChanged`),
 * as object ids of earlier results name other objects there.
 */
import { HeapqlError } from '../errors.js';
import { parseJsonExact } from '../query/json.js';
import { ReplError } from '../repl/errors.js';

export interface ServerStatusBody {
  status: 'not_started' | 'analyzing' | 'ready' | 'failed' | 'dump_unreadable';
  progress?: { phase: string; done: number; total: number };
  reason?: string;
  reachableOnly: boolean;
  dump: string;
  /** Which dump is served (changes when the server is started on another one). */
  dumpId?: string;
  /** The heap dump of the file served, 1-based (`--dump N`), and how many the file holds. */
  dumpNumber?: number;
  dumpCount?: number;
  objects: number;
  classes: number;
}

/** The header of every answer that names the dump served (ts/server/app.ts `DUMP_HEADER`). */
export const DUMP_HEADER = 'x-heapql-dump';

export class Api {
  online = true;
  onConnection: (online: boolean) => void = () => {};
  /** The dump the server served at its last answer (null before the first). */
  dumpId: string | null = null;
  /** The server answered from another dump than before (it was restarted on another file). */
  onDumpChanged: (before: string, now: string) => void = () => {};

  private mark(online: boolean): void {
    if (online !== this.online) {
      this.online = online;
      this.onConnection(online);
    }
  }

  /** One request; an error answer becomes a ReplError (the server's message, shown as is). */
  async request<T>(path: string, init: RequestInit = {}): Promise<T> {
    return (await this.call<T>(path, init)).body;
  }

  /** One request, with the dump that answered it (its `dumpId`; null when not said). */
  async call<T>(path: string, init: RequestInit = {}): Promise<{ body: T; dump: string | null }> {
    let res: Response;
    try {
      res = await fetch(path, { ...init, cache: 'no-store' });
    } catch (err) {
      this.mark(false);
      throw new HeapqlError('ERR_IO', `cannot reach the heapql server (${(err as Error).message}); it may have stopped — retrying`);
    }
    this.mark(true);
    const dump = res.headers.get(DUMP_HEADER);
    if (dump !== null && dump !== this.dumpId) {
      const before = this.dumpId;
      this.dumpId = dump;
      if (before !== null) this.onDumpChanged(before, dump);
    }
    const type = res.headers.get('content-type') ?? '';
    // Exact: a Java long beyond 2^53 in a result is a bigint, as in the terminal REPL.
    const body: unknown = type.includes('json') ? parseJsonExact(await res.text()) : await res.text();
    if (!res.ok) {
      const e = (body as { error?: { kind: string; message: string } }).error;
      if (e && res.status < 500) throw new ReplError(e.message);
      throw new HeapqlError('ERR_SERVER', e ? `${e.kind}: ${e.message}` : `HTTP ${res.status}`);
    }
    return { body: body as T, dump };
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>(path);
  }

  post<T>(path: string, json?: unknown): Promise<T> {
    return this.request<T>(path, postInit(json));
  }

  /** A POST with the dump that answered it. */
  postCall<T>(path: string, json?: unknown): Promise<{ body: T; dump: string | null }> {
    return this.call<T>(path, postInit(json));
  }

  status(): Promise<ServerStatusBody> {
    return this.get<ServerStatusBody>('/status');
  }
}

function postInit(json: unknown): RequestInit {
  return json === undefined ? { method: 'POST' } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) };
}
