/**
 * Scans the server holds open for clients that are not reading. A scan paused for its reader
 * holds one of the addon's worker threads (libuv's pool: 4 threads by default, which the analysis, every
 * query and every look-up also run on): four clients that stopped reading a streamed answer
 * (`curl … /stream | less`, a script that forgot its response) held them all, and every other
 * request of every client waited for ever.
 *
 * So the server keeps at most HELD_MAX such scans: a paged result's cursor whose scan is
 * paused, and a streamed answer (`POST /stream`, a long `POST /query`) whose client has read
 * nothing for STALL_MS, and a paged result's run from a row on kept for its next request. Past
 * that, such a run is stopped first, then the one waiting longest (a cursor is closed; a
 * stream ends with an error line, a long `/query` body breaks off), so that half the pool's
 * threads always stay for the analysis and the other requests.
 */
/**
 * The scans are kept per server: by its context (context.ts `ServerContext`, which takes its
 * STALL_MS from here, so only its identity is used here: no import back).
 */
type ServerKey = object;

/**
 * The size of libuv's thread pool, which the addon's work runs on: `UV_THREADPOOL_SIZE` as libuv
 * reads it at start-up (a whole number, at most 1024), else its default of 4.
 */
export function threadPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number.parseInt(env.UV_THREADPOOL_SIZE ?? '', 10);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 1024) : 4;
}

/**
 * Paused scans kept at once: half the pool, so that the other half stays free for the analysis
 * and the other requests (2 of the default 4 threads). At least one, or no paged result could
 * pause at all: with a pool of one thread, that one paused scan holds it.
 */
export const HELD_MAX = Math.max(1, Math.floor(threadPoolSize() / 2));
/** A streamed answer whose client read nothing this long counts as held. */
export const STALL_MS = 1000;

export interface HeldScan {
  /**
   * Since when (performance.now) the scan waits for its client; null while it works or
   * once it holds no thread (its scan has ended).
   */
  waitingSince(): number | null;
  /** Whether it counts from `waitingSince` on (a cursor at once; a stream after STALL_MS). */
  readonly stallMs: number;
  /**
   * Stopped before any other held scan, the longest waiting first among these: stopping it costs
   * its client nothing but a run again (a paged result's run from a row on, kept between
   * requests), where another's client loses its cursor or its answer.
   */
  readonly first?: boolean;
  /** Stops the scan, saying why to its client where it can. */
  stop(reason: string): void;
}

/** Why a held scan was stopped, in the words its client sees. */
export const STOPPED_REASON =
  `the server stopped this scan: its client was not reading it, and the server keeps at most ${HELD_MAX} scans waiting for their clients ` +
  '(each holds one of the worker threads every query runs on); ask again, and read the answer as it comes';

interface Registry {
  scans: Set<HeldScan>;
  timer: NodeJS.Timeout | null;
}

const registries = new WeakMap<ServerKey, Registry>();

function registry(ctx: ServerKey): Registry {
  let r = registries.get(ctx);
  if (!r) registries.set(ctx, (r = { scans: new Set(), timer: null }));
  return r;
}

/** Registers a scan; the function returned forgets it (its answer ended, or it was closed). */
export function holdScan(ctx: ServerKey, scan: HeldScan): () => void {
  const r = registry(ctx);
  r.scans.add(scan);
  // Checked now and then while scans are open: a request already waiting for a thread that four
  // stalled scans hold would otherwise wait until another request came.
  r.timer ??= setInterval(() => relieve(ctx), Math.max(50, Math.min(STALL_MS, 250))).unref();
  relieve(ctx);
  return () => {
    r.scans.delete(scan);
    if (r.scans.size === 0 && r.timer) {
      clearInterval(r.timer);
      r.timer = null;
    }
  };
}

/** Stops the scans waiting longest while more than HELD_MAX wait for their clients. */
export function relieve(ctx: ServerKey, now = performance.now()): void {
  const r = registries.get(ctx);
  if (!r || r.scans.size <= HELD_MAX) return;
  const held: [number, HeldScan][] = [];
  for (const scan of r.scans) {
    const since = scan.waitingSince();
    if (since !== null && now - since >= scan.stallMs) held.push([since, scan]);
  }
  if (held.length <= HELD_MAX) return;
  held.sort((a, b) => Number(b[1].first ?? false) - Number(a[1].first ?? false) || a[0] - b[0]);
  for (const [, scan] of held.slice(0, held.length - HELD_MAX)) {
    r.scans.delete(scan);
    scan.stop(STOPPED_REASON);
  }
}
