/**
 * The browser REPL's HTTP client for the server it was loaded from (same origin, relative
 * URLs). It tracks whether the server answers: a failed request marks the connection lost and
 * the caller's `onConnection` hears about it; the status poll (main.ts) brings it back. It also
 * tracks which dump answers (the `x-heapql-dump` header of every answer, GET /status's
 * `dumpId`): a server restarted on another dump is seen on its first answer (`onDumpChanged`),
 * as object ids of earlier results name other objects there.
 *
 * A request of a statement takes its AbortSignal (Escape, Ctrl-C, the Stop button): aborted, it
 * is a `cancelled` error (HeapqlError ERR_CANCELLED, as the terminal's Ctrl-C), and the server,
 * seeing the client go, stops the query's scan. An answer is read a piece at a time, so that
 * one larger than the page can hold is refused with advice (add a LIMIT) instead of failing
 * as "Failed to fetch", and a body cut off (the connection lost, the server stopped) says so.
 */
import { HeapqlError } from '../errors.js';
import { parseJsonExact } from '../query/json.js';
import { ReplError } from '../repl/errors.js';
import type { QueryErrorDetails } from '../server/errors.js';

export interface ServerStatusBody {
  status: 'not_started' | 'analyzing' | 'ready' | 'failed' | 'dump_unreadable';
  /** While `analyzing`: `total` ≥ 1 and 0 ≤ `done` ≤ `total` (`{phase: 'starting', done: 0, total: 1}` before the first report). */
  progress?: { phase: string; done: number; total: number };
  reason?: string;
  /** Why the state is `not_started` again: DELETE /analyze cancelled the analysis. */
  note?: string;
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

/**
 * Longest answer text, in UTF-16 units, the page reads: a JavaScript string holds at most
 * 2^29 − 24 of them in Chromium (V8), and `Response.text()` of a longer answer fails with a bare
 * "Failed to fetch". (The answer's JSON is then parsed into rows, which take more memory still.)
 */
export const ANSWER_TEXT_MAX = 2 ** 29 - 24;

/** What a statement says when Escape, Ctrl-C or the Stop button cancelled it (the dispatcher prints `cancelled`). */
export function cancelledError(): HeapqlError {
  return new HeapqlError('ERR_CANCELLED', 'cancelled');
}

/**
 * The server refused a request (a 4xx answer): its message, shown as is, the HTTP status, and
 * what an OQL error's 400 adds (its place, its reason, the name the dump lacks).
 */
export class AnswerError extends ReplError {
  constructor(
    message: string,
    readonly status: number,
    readonly details: QueryErrorDetails = {},
  ) {
    super(message);
  }
}

/** A size in bytes (or UTF-16 units), for messages: `1 kB`, `12.5 MB`, `537 MB`. */
function mb(units: number): string {
  if (units < 1e6) return `${Math.max(1, Math.ceil(units / 1e3))} kB`;
  return `${(units / 1e6).toFixed(units < 1e7 ? 1 : 0)} MB`;
}

/** What to do about an answer too large for the page. */
const TOO_LARGE_ADVICE =
  'add a LIMIT (or a WHERE, fewer columns, an aggregate) to the query, or run it with the CLI (heapql query <dump> --query … --format csv > file)';

export class Api {
  online = true;
  /** The connection was lost or came back; `opening`: the server is there, still opening its dump. */
  onConnection: (online: boolean, opening?: boolean) => void = () => {};
  /** The dump the server served at its last answer (null before the first). */
  dumpId: string | null = null;
  /** The server answered from another dump than before (it was restarted on another file). */
  onDumpChanged: (before: string, now: string) => void = () => {};

  /** Whether the last lost connection was a server still opening its dump. */
  private opening = false;

  private mark(online: boolean, opening = false): void {
    if (online !== this.online || opening !== this.opening) {
      this.online = online;
      this.opening = opening;
      this.onConnection(online, opening);
    }
  }

  /** Longest answer text the page reads (ANSWER_TEXT_MAX; tests make it smaller). */
  answerTextMax = ANSWER_TEXT_MAX;

  /** One request; an error answer becomes a ReplError (the server's message, shown as is). */
  async request<T>(path: string, init: RequestInit = {}): Promise<T> {
    return (await this.call<T>(path, init)).body;
  }

  /**
   * One request, with the dump that answered it (its `dumpId`; null when not said). `init.signal`
   * aborted: a `cancelled` error (`cancelledError`), the connection not marked lost.
   */
  async call<T>(path: string, init: RequestInit = {}): Promise<{ body: T; dump: string | null }> {
    const signal = init.signal ?? null;
    let res: Response;
    try {
      res = await fetch(path, { ...init, cache: 'no-store' });
    } catch (err) {
      if (signal?.aborted) throw cancelledError();
      this.mark(false);
      throw new HeapqlError('ERR_IO', `cannot reach the heapql server (${(err as Error).message}); it may have stopped — retrying`);
    }
    const dump = res.headers.get(DUMP_HEADER);
    if (res.status === 503 && dump === null) {
      // Started again and still opening its dump (the port is bound first, listen.ts): no dump
      // answers yet, so not back yet; the status poll brings it back once it serves one.
      this.mark(false, true);
      const e = (jsonOrNull(await res.text().catch(() => '')) as { error?: { message?: string } } | null)?.error;
      throw new HeapqlError('ERR_IO', `${e?.message ?? 'the heapql server is not serving yet'} — waiting for it`);
    }
    this.mark(true);
    if (dump !== null && dump !== this.dumpId) {
      const before = this.dumpId;
      this.dumpId = dump;
      if (before !== null) this.onDumpChanged(before, dump);
    }
    const type = res.headers.get('content-type') ?? '';
    const text = await this.readText(res, signal);
    // Exact: a Java long beyond 2^53 in a result is a bigint, as in the terminal REPL.
    const body: unknown = type.includes('json') ? parseAnswer(text) : text;
    if (!res.ok) {
      const e = (body as { error?: { kind: string; message: string } & QueryErrorDetails }).error;
      if (e && res.status < 500) {
        const { line, column, reason, hint, unknownName } = e;
        throw new AnswerError(e.message, res.status, { line, column, reason, hint, unknownName });
      }
      throw new HeapqlError('ERR_SERVER', e ? `${e.kind}: ${e.message}` : `HTTP ${res.status}`);
    }
    return { body: body as T, dump };
  }

  /**
   * The answer's text. One sent whole (with its Content-Length: all but long results) is read
   * at once; a streamed one a piece at a time, refused (the rest not read, which cancels the
   * query on the server) once longer than the page can hold. A body that breaks off is said to
   * be one, with how much had come, rather than the browser's "Failed to fetch".
   */
  private async readText(res: Response, signal: AbortSignal | null): Promise<string> {
    if (!res.body) return '';
    const length = Number(res.headers.get('content-length') ?? Number.NaN);
    if (Number.isSafeInteger(length) && length <= this.answerTextMax) {
      try {
        return await res.text();
      } catch (err) {
        if (signal?.aborted) throw cancelledError();
        throw brokeOff(err, 0);
      }
    }
    // (Chromium reports an answer read so as cancelled (net::ERR_ABORTED) once read whole: harmless.)
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const parts: string[] = [];
    let units = 0;
    let bytes = 0;
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (signal?.aborted) throw cancelledError();
        throw brokeOff(err, bytes);
      }
      if (chunk.done) break;
      bytes += chunk.value.byteLength;
      const text = decoder.decode(chunk.value, { stream: true });
      units += text.length;
      if (units > this.answerTextMax) {
        void reader.cancel().catch(() => {});
        throw new HeapqlError('ERR_IO', `the answer is too large for the browser (more than ${mb(this.answerTextMax)} of JSON; the page can hold no more): ${TOO_LARGE_ADVICE}`);
      }
      parts.push(text);
    }
    parts.push(decoder.decode());
    return parts.join('');
  }

  get<T>(path: string, signal?: AbortSignal | null): Promise<T> {
    return this.request<T>(path, signal ? { signal } : {});
  }

  post<T>(path: string, json?: unknown, signal?: AbortSignal | null): Promise<T> {
    return this.request<T>(path, postInit(json, signal));
  }

  /** A POST with the dump that answered it. */
  postCall<T>(path: string, json?: unknown, signal?: AbortSignal | null): Promise<{ body: T; dump: string | null }> {
    return this.call<T>(path, postInit(json, signal));
  }

  status(signal?: AbortSignal | null): Promise<ServerStatusBody> {
    return this.get<ServerStatusBody>('/status', signal);
  }
}

function postInit(json: unknown, signal?: AbortSignal | null): RequestInit {
  const init: RequestInit = json === undefined ? { method: 'POST' } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) };
  if (signal) init.signal = signal;
  return init;
}

/** An answer whose body broke off after `bytes` (0: not known) had come. */
function brokeOff(err: unknown, bytes: number): HeapqlError {
  return new HeapqlError(
    'ERR_IO',
    `the server's answer broke off${bytes > 0 ? ` after ${mb(bytes)}` : ''} (${(err as Error).message}): the connection was lost, or the server stopped or failed while sending it. ` +
      `If the answer is very large, ${TOO_LARGE_ADVICE}`,
    { cause: err },
  );
}

/**
 * A JSON answer's value (`parseJsonExact`). A text that is not JSON (a body the server broke
 * off, which a proxy may pass on as ended) says so rather than "internal error: Unexpected end".
 */
/** A short JSON answer, or null when it is none. */
function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function parseAnswer(text: string): unknown {
  try {
    return parseJsonExact(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new HeapqlError('ERR_IO', `the server's answer is not whole JSON (${err.message}): it broke off, or the server failed while sending it; run the statement again`, { cause: err });
  }
}
