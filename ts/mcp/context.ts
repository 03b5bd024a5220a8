/**
 * The state one MCP server keeps: the dump's session (opened in the background so the client's
 * handshake does not wait for the index), the baseline dump for comparisons (opened on first
 * use), and the report sections computed once per list length and analysis.
 */
import { HeapqlError } from '../errors.js';
import { openHeap, type HeapSession, type OpenOptions, type ProgressEvent, type ReportSections } from '../session/index.js';
import { indexProgress, type CallProgress } from './progress.js';
import { cutText } from './result.js';

/** Dump warnings the first answer (and compare_with_baseline, the baseline's) lists. */
const DUMP_WARNINGS_SHOWN = 10;

/**
 * A dump's warnings as answers list them: the first DUMP_WARNINGS_SHOWN, each with its byte
 * offset unless it names it, and how many more there are.
 */
export function warningLines(heap: HeapSession): string[] {
  const warnings = heap.warnings();
  const shown = warnings.slice(0, DUMP_WARNINGS_SHOWN).map((w) => {
    const at = w.offset > 0 && !/offset/i.test(w.message) ? ` (at byte offset ${w.offset})` : '';
    return `${cutText(w.message, 500)}${at}`;
  });
  return warnings.length > shown.length ? [...shown, `and ${warnings.length - shown.length} more`] : shown;
}

export interface McpOptions {
  /** The dump to investigate. */
  path: string;
  /** Which heap dump of the file, 0-based. */
  dump?: number;
  /** Queries and the analysis see only objects reachable from GC roots. */
  reachableOnly: boolean;
  /** A baseline dump for `compare_with_baseline` (the tool may also name one). */
  baselinePath?: string;
  /** The index cache, as the CLI's dump commands use it (absent: no cache). */
  cache?: McpCacheOptions;
  /** Where log lines go (never stdout: it carries the protocol). */
  log: McpLog;
}

/**
 * A dump's index while it is built, as the tool calls waiting for it follow it: its last progress
 * report, and the calls told each report (their progress notifications, by indexProgress). `what`
 * names the dump in the messages (`the dump`, `the baseline dump`).
 */
class IndexWatch {
  private building = true;
  private last: ProgressEvent | null = null;
  private readonly followers = new Set<(event: ProgressEvent) => void>();

  constructor(private readonly what: string) {}

  /** The open's onProgress. */
  readonly report = (event: ProgressEvent): void => {
    if (!this.building) return;
    this.last = event;
    for (const f of [...this.followers]) f(event);
  };

  /** The dump opened or failed to: nobody is told more. */
  done(): void {
    this.building = false;
    this.last = null;
    this.followers.clear();
  }

  /**
   * Tells `call` the index's latest report at once, then each as it comes, until done() or the
   * returned function is called. Nothing once the dump is open, or when the client asked for no
   * progress.
   */
  follow(call: CallProgress): () => void {
    if (!this.building || !call.wanted) return () => {};
    const follower = indexProgress(call, this.what);
    if (this.last !== null) follower(this.last);
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }
}

/** The baseline dump being opened or open, its index followed while it is built (McpContext.baseline). */
interface BaselineOpening {
  path: string;
  session: Promise<HeapSession>;
  /** The session once open. */
  opened: HeapSession | null;
  index: IndexWatch;
}

/** One computation of the report's sections, and how many calls wait on it. */
interface SectionsComputation {
  result: Promise<ReportSections>;
  controller: AbortController;
  waiters: number;
}

function cancelled(): HeapqlError {
  return new HeapqlError('ERR_CANCELLED', 'the request was cancelled');
}

/** The CLI's cache options (`--no-cache`, `--cache-dir`, `--cache-max`). */
export interface McpCacheOptions {
  noCache?: boolean;
  cacheDir?: string;
  cacheMax?: number;
}

/** The server's stderr: notices and warnings (a quiet CLI drops them), and errors. */
export interface McpLog {
  notice: (line: string) => void;
  warn: (line: string) => void;
  error: (line: string) => void;
}

export class McpContext {
  readonly options: McpOptions;
  private readonly opening: Promise<HeapSession>;
  private baselineOpen: BaselineOpening | null = null;
  private sections = new Map<number, SectionsComputation>();
  private closed = false;
  /** The dump's session once open (for what answers say synchronously). */
  private opened: HeapSession | null = null;
  /** The dump's warnings were said in an answer (the first after the dump opened). */
  private warningsSaid = false;
  /** Stops an index still being built when the server shuts down. */
  private readonly stopping = new AbortController();
  /** The index while it is built, for the tool calls waiting for it (`followIndex`). */
  private readonly index = new IndexWatch('the dump');

  constructor(options: McpOptions) {
    this.options = options;
    const started = Date.now();
    this.opening = openHeap(options.path, {
      dump: options.dump,
      ...cacheOpenOptions(options.cache),
      reachableOnly: options.reachableOnly,
      signal: this.stopping.signal,
      onProgress: this.index.report,
    });
    const indexed = () => this.index.done();
    this.opening.then(indexed, indexed);
    this.opening.then(
      (heap) => {
        this.opened = heap;
        options.log.notice(`indexed ${options.path}: ${heap.info().objectCount} objects in ${Date.now() - started} ms`);
        for (const w of heap.warnings()) options.log.warn(`${options.path}: ${w.message}`);
        // A new analysis (another mode, or after a cancel) makes cached sections stale.
        heap.subscribe((e) => e.type === 'state' && e.status.state === 'analyzing' && this.sections.clear());
      },
      // A shutdown while the index is still being built cancels it: that is no error.
      (err: Error) => {
        // Said once: the addon's message names the file already ("cannot open /tmp: is a
        // directory, …", "/x is not an HPROF heap dump …"), and was prefixed with it again.
        if (this.stopping.signal.aborted) return;
        options.log.error(err.message.includes(options.path) ? err.message : `cannot open ${options.path}: ${err.message}`);
      },
    );
  }

  /** The dump's session; waits for the index (throws the open error, e.g. not an HPROF file). */
  heap(): Promise<HeapSession> {
    if (this.closed) return Promise.reject(new HeapqlError('ERR_CLOSED', 'the server is shutting down'));
    return this.opening;
  }

  /**
   * Reports the index's progress to `call` while it waits for the index (a tool called before the
   * dump is open): at once its latest report, then each as it comes, until the dump opens (or
   * fails to) or the returned function is called (the call ended). Nothing when the dump is open
   * or the client asked for no progress.
   */
  followIndex(call: CallProgress): () => void {
    if (this.closed) return () => {};
    return this.index.follow(call);
  }

  /**
   * What reading the dump found wrong with it (cut short, records skipped, …), once: for the first
   * answer after the dump opened, so that an assistant learns that answers rest on what could be
   * read whichever tool it calls first — the CLI prints these warnings on stderr, which an
   * assistant never sees. Null when there is none, the dump is not open yet, or they were said.
   */
  takeDumpWarnings(): string | null {
    const heap = this.opened;
    if (this.warningsSaid || heap === null || this.closed) return null;
    this.warningsSaid = true;
    let count: number;
    let lines: string[];
    try {
      count = heap.warnings().length;
      lines = warningLines(heap);
    } catch {
      // Closed under us: the answer says what went wrong, if anything did.
      return null;
    }
    if (count === 0) return null;
    return [
      `Warning: reading ${heap.path} gave ${count} warning${count === 1 ? '' : 's'}; every answer rests on what ` +
        'could be read (describe_dump lists them again, under warnings):',
      ...lines.map((l) => `- ${l}`),
    ].join('\n');
  }

  /** describe_dump lists the warnings itself: no other answer needs to. */
  dumpWarningsSaid(): void {
    if (this.opened !== null) this.warningsSaid = true;
  }

  /**
   * The report's sections with lists of at most `limit` rows; needs the full analysis. Calls for
   * the same `limit` share one computation, kept for later calls. An aborted `signal` stops this
   * call waiting (ERR_CANCELLED); the computation is cancelled only when no call waits on it any
   * more, as the session does for the analysis — not for every call joined to it.
   */
  async reportSections(limit: number, signal: AbortSignal): Promise<ReportSections> {
    const heap = await this.heap();
    if (signal.aborted) throw cancelled();
    let computation = this.sections.get(limit);
    if (!computation) {
      const controller = new AbortController();
      const result = heap.reportData({ limit, topStrings: limit, signal: controller.signal });
      const created: SectionsComputation = { result, controller, waiters: 0 };
      computation = created;
      this.sections.set(limit, created);
      // A failed or cancelled computation is not kept.
      result.catch(() => this.forget(limit, created));
    }
    const joined = computation;
    joined.waiters++;
    return new Promise<ReportSections>((resolve, reject) => {
      const leave = () => {
        signal.removeEventListener('abort', onAbort);
        joined.waiters--;
      };
      const onAbort = () => {
        leave();
        if (joined.waiters === 0) {
          // Nobody waits for it: stop it, and let the next call start anew.
          this.forget(limit, joined);
          joined.controller.abort();
        }
        reject(cancelled());
      };
      signal.addEventListener('abort', onAbort);
      joined.result.then(
        (sections) => {
          leave();
          resolve(sections);
        },
        (err: unknown) => {
          leave();
          reject(err);
        },
      );
    });
  }

  private forget(limit: number, computation: SectionsComputation): void {
    if (this.sections.get(limit) === computation) this.sections.delete(limit);
  }

  /**
   * The baseline dump's session: `path` or the one given at startup, opened once. A call that waits
   * for its index (`call`: the tool call's progress) is told the index's progress meanwhile, as
   * followIndex tells the dump's (`indexing the baseline dump: records 1048576 of …`): at once its
   * latest report, then each as it comes; calls that ask while it is opened share the opening,
   * each told.
   */
  async baseline(path: string | undefined, call?: CallProgress): Promise<HeapSession> {
    const wanted = path ?? this.options.baselinePath;
    if (!wanted) {
      throw new HeapqlError(
        'ERR_ARGUMENT',
        'no baseline dump: pass `baseline` (a path to an .hprof file on this machine) or start the server with --baseline <dump>',
      );
    }
    if (this.baselineOpen?.path !== wanted) {
      const previous = this.baselineOpen;
      const index = new IndexWatch('the baseline dump');
      const session = openHeap(wanted, { ...cacheOpenOptions(this.options.cache), signal: this.stopping.signal, onProgress: index.report });
      const opening: BaselineOpening = { path: wanted, session, opened: null, index };
      this.baselineOpen = opening;
      const indexed = () => index.done();
      session.then(indexed, indexed);
      session.then(
        (h) => {
          opening.opened = h;
          for (const w of h.warnings()) this.options.log.warn(`${wanted}: ${w.message}`);
        },
        () => {},
      );
      previous?.session.then((h) => h.close(), () => {});
    }
    const opening = this.baselineOpen;
    const unfollow = call && !this.closed ? opening.index.follow(call) : () => {};
    try {
      return await opening.session;
    } catch (err) {
      if (this.baselineOpen === opening) this.baselineOpen = null;
      throw err;
    } finally {
      unfollow();
    }
  }

  /**
   * Forgets the baseline dump `session` if it is the one open (and closes it), so that the next
   * `baseline()` opens the file anew: for a baseline file changed on disk since it was opened
   * (ERR_DUMP_CHANGED), which the session kept would never read again. True when it was open.
   */
  dropBaseline(session: HeapSession): boolean {
    const open = this.baselineOpen;
    // Another call may have opened it anew already: that one stays.
    if (open?.opened !== session) return false;
    this.baselineOpen = null;
    session.close();
    return true;
  }

  /** Stops indexing, cancels a running analysis and releases both dumps. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopping.abort();
    const all = [this.opening, this.baselineOpen?.session].filter((p): p is Promise<HeapSession> => p !== undefined);
    await Promise.all(all.map((p) => p.then((h) => h.close(), () => {})));
  }
}

/** The session's cache options: on with the CLI's directory and cap, off when absent or --no-cache. */
function cacheOpenOptions(cache: McpCacheOptions | undefined): OpenOptions {
  if (!cache || cache.noCache) return { noCache: true };
  return {
    cache: true,
    ...(cache.cacheDir !== undefined ? { cacheDir: cache.cacheDir } : {}),
    ...(cache.cacheMax !== undefined ? { cacheMax: cache.cacheMax } : {}),
  };
}
