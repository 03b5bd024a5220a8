/**
 * The browser REPL's HTTP client for the server it was loaded from (same origin, relative
 * URLs). It tracks whether the server answers: a failed request marks the connection lost and
 * the caller's `onConnection` hears about it; the status poll (main.ts) brings it back.
 */
import { HeapqlError } from '../errors.js';
import { parseJsonExact } from '../query/json.js';
import { ReplError } from '../repl/errors.js';

export interface ServerStatusBody {
  status: 'not_started' | 'analyzing' | 'ready' | 'failed';
  progress?: { phase: string; done: number; total: number };
  reason?: string;
  reachableOnly: boolean;
  dump: string;
  objects: number;
  classes: number;
}

export class Api {
  online = true;
  onConnection: (online: boolean) => void = () => {};

  private mark(online: boolean): void {
    if (online !== this.online) {
      this.online = online;
      this.onConnection(online);
    }
  }

  /** One request; an error answer becomes a ReplError (the server's message, shown as is). */
  async request<T>(path: string, init: RequestInit = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(path, { ...init, cache: 'no-store' });
    } catch (err) {
      this.mark(false);
      throw new HeapqlError('ERR_IO', `cannot reach the heapql server (${(err as Error).message}); it may have stopped — retrying`);
    }
    this.mark(true);
    const type = res.headers.get('content-type') ?? '';
    // Exact: a Java long beyond 2^53 in a result is a bigint, as in the terminal REPL.
    const body: unknown = type.includes('json') ? parseJsonExact(await res.text()) : await res.text();
    if (!res.ok) {
      const e = (body as { error?: { kind: string; message: string } }).error;
      if (e && res.status < 500) throw new ReplError(e.message);
      throw new HeapqlError('ERR_SERVER', e ? `${e.kind}: ${e.message}` : `HTTP ${res.status}`);
    }
    return body as T;
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>(path);
  }

  post<T>(path: string, json?: unknown): Promise<T> {
    return this.request<T>(path, json === undefined ? { method: 'POST' } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) });
  }

  status(): Promise<ServerStatusBody> {
    return this.get<ServerStatusBody>('/status');
  }
}
