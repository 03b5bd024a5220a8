/**
 * What the REPL's command table needs from a heap and from its front. A `HeapSession` is a
 * `ReplBackend` as it is (the terminal); the browser REPL implements the same interface over
 * HTTP. `ReplIO` is the front's output and file saving. Neither pulls in Node-only modules.
 */
import type { Column, QueryResult, Value, VizSpec } from '../query/schema.js';
import type {
  ClassView,
  DominatorView,
  ObjectView,
  PathStep,
  ProgressEvent,
  ReferenceList,
  SessionStatus,
} from '../session/types.js';

export interface ReplBackend {
  readonly status: SessionStatus;
  /** The reachable mode of queries (`!reachable` / `!all`). */
  reachableOnly: boolean;
  /** `onProgress` is told the objects scanned (the terminal draws its bar with it). */
  query(oql: string, options: { name?: string; viz?: VizSpec | null; signal?: AbortSignal; onProgress?: (e: ProgressEvent) => void }): Promise<QueryResult>;
  classNames(): string[];
  classes(pattern?: string): string[];
  describeClass(name: string): Promise<ClassView[]>;
  /** `Class#index`, `#index`, `index` or `0x…` → the object index (throws with the reason). */
  resolveObject(spec: string): number | Promise<number>;
  object(objectId: number): Promise<ObjectView>;
  referents(objectId: number, limit?: number): Promise<ReferenceList>;
  referrers(objectId: number, limit?: number): Promise<ReferenceList>;
  pathToRoot(objectId: number, maxSteps?: number): Promise<PathStep[] | null>;
  dominator(objectId: number, limit?: number): Promise<DominatorView>;
  analyze(options: { reachableOnly?: boolean; onProgress?: (e: ProgressEvent) => void; signal?: AbortSignal }): Promise<void>;
  /**
   * A query's rows as the executor produces them, a batch at a time, its scan paused while they
   * are not taken (`HeapSession.queryBatches`); `signal` or `return()` stops it. With it and
   * `queryCount` (and a front that takes text as it comes, `ReplIO.write`), a result larger than
   * the display limit is paged (rest.ts): its first rows shown at once, the rest counted, and
   * read only when a command needs it. A batch's `total` is the whole result's count when the
   * executor knew it already (a query that sorts, groups or removes duplicates): then no second
   * run counts it. `skip` starts at the result's row `skip` (from 0; `!tail` reads the last rows
   * so): a plain select seeks there without evaluating the rows before it.
   */
  queryBatches?(
    oql: string,
    options: { name?: string; reachableOnly?: boolean; batchRows?: number; signal?: AbortSignal; onProgress?: (e: ProgressEvent) => void; skip?: number },
  ): AsyncGenerator<
    { columns: Column[]; rows: Value[][]; total?: { rowCount: number; truncated: boolean } },
    { columns: Column[]; note?: string; truncated: boolean }
  >;
  /** How many rows a query gives, none described nor kept: a second run (`HeapSession.queryCount`). */
  queryCount?(oql: string, options: { reachableOnly?: boolean; signal?: AbortSignal }): Promise<{ rowCount: number; truncated: boolean }>;
  /**
   * The whole count of a result the backend holds only the first rows of (the browser's paged
   * results: the server counts them), waited for; null when it has no such result or cannot tell.
   * `!count` answers from it, as the terminal's answers from its own count.
   */
  totalOf?(result: QueryResult, signal?: AbortSignal): Promise<{ rowCount: number; truncated: boolean } | null>;
  /**
   * The whole count of such a result as known now, not waited for: undefined when the backend
   * does not page `result` (its rows are all of it), null while the count is not known yet.
   * `!row N` says `row N of <count>` with it, or `of <rows held>+`, as the terminal's does.
   */
  knownTotalOf?(result: QueryResult): { rowCount: number; truncated: boolean } | null | undefined;
}

export interface ReplIO {
  /** A block of output (no trailing newline needed). */
  print(text: string): void;
  /**
   * One block of a long output (lines ending in a newline), for a front that can take text as
   * it comes: resolves once the front can take more (back-pressure), with false when the text
   * could not go or nothing more should (the output is closed, or `signal` fired). A front
   * without it gets a long table whole through `print` (the browser draws it as one table).
   */
  write?(text: string, signal?: AbortSignal): Promise<boolean>;
  /** One error; the prompt comes back after it. */
  error(text: string): void;
  /**
   * Writes `content` to `path` (terminal: a file, `~/` the home directory; browser: a download);
   * throws with the reason. `content` is the file's text in blocks, each made when it is taken:
   * a front takes one when the one before it is written (back-pressure), so that the text of a
   * big result is never whole in memory. A front that can be stopped checks `signal` before
   * taking a block and, once it fired, throws a `SaveInterrupted` saying what became of the file.
   * Returns where it went when that is not `path` as typed (a browser downloads `x.csv` of
   * `~/out/x.csv` into its own download folder).
   */
  saveFile(path: string, content: Iterable<string>, signal?: AbortSignal): Promise<string | void> | string | void;
  /**
   * Progress of a query's scan until its first rows are shown, of loading or counting a paged
   * result's rest, of `!analyze` (a bar on a terminal); `progressDone` takes it down.
   */
  progress?(event: ProgressEvent): void;
  progressDone?(): void;
  /** `!quit`. */
  quit(): void;
}
