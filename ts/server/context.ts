/** What every route module gets: the session and the server's options. */
import type { StoredQuery } from '../report/config.js';
import type { HeapSession } from '../session/index.js';
import { dumpIdentity, type DumpIdentity } from './dump-identity.js';
import { STALL_MS } from './held-scans.js';
import { replScript } from './web-assets.js';

export interface ServerOptions {
  /** The port the server listens on (a function when it is known only after binding, `--port 0`). */
  port: number | (() => number);
  /**
   * The lazy rule (design.md §5): the first report request starts the analysis and answers 202.
   * False (`--no-auto-analyze`): report requests answer 503 `not_ready` until `POST /analyze`.
   */
  autoAnalyze?: boolean;
  /** Queries and the analysis see only objects reachable from GC roots (`--reachable-only`). */
  reachableOnly?: boolean;
  /** Seconds a 202 asks the client to wait (`Retry-After`); default 2. */
  retryAfterSeconds?: number;
  /** The browser REPL's script (default: the esbuild bundle in dist/web); null when it is not built. */
  replScript?: () => string | null;
  /** The config file's named `[[query]]` entries: `GET /help` lists them, the browser REPL's `!run` runs them. */
  storedQueries?: StoredQuery[];
  /** How long a streamed answer's client may read nothing before its scan counts as held (held-scans.ts; default STALL_MS). */
  stallMs?: number;
}

export interface ServerContext {
  session: HeapSession;
  /** Which dump the server serves (taken when the app was made). */
  dump: DumpIdentity;
  port(): number;
  autoAnalyze: boolean;
  reachableOnly: boolean;
  retryAfterSeconds: number;
  replScript: () => string | null;
  /** `DELETE /analyze` cancelled the last analysis and none started since (GET /status notes it). */
  analysisCancelled: boolean;
  storedQueries: StoredQuery[];
  /** held-scans.ts: a streamed answer whose client read nothing this long holds its scan. */
  stallMs: number;
}

export function serverContext(session: HeapSession, options: ServerOptions): ServerContext {
  const port = options.port;
  return {
    session,
    dump: dumpIdentity(session),
    port: typeof port === 'function' ? port : () => port,
    autoAnalyze: options.autoAnalyze ?? true,
    reachableOnly: options.reachableOnly ?? false,
    retryAfterSeconds: options.retryAfterSeconds ?? 2,
    replScript: options.replScript ?? replScript,
    analysisCancelled: false,
    storedQueries: options.storedQueries ?? [],
    stallMs: options.stallMs ?? STALL_MS,
  };
}
