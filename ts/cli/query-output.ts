/**
 * The output of `heapql query` and `heapql analyze`: each query's rows are written while the
 * executor produces them, a batch at a time, waiting for stdout to drain (the scan waits with
 * it), so memory stays bounded however many rows a query has.
 *
 * A result's rows are gathered until there are more than `WHOLE_ROWS` (or the result ended)
 * before anything of it is written: a result that short prints exactly as a whole result always
 * did, and an error up to there prints as it always did (nothing of that query on stdout; JSON
 * stays one valid document). A longer result is streamed: the table's header and first rows
 * have those rows' widths and later rows widen a column they do not fit in, CSV is the same text
 * either way, and JSON writes the result's `rows` before its `columns`, `rowCount`, `truncated`
 * and `elapsedMs` (the columns' types are known after the last row). An error after a result
 * began to be written says so on stderr: the output is cut short (a JSON document is then left
 * unclosed, never a valid-looking one missing rows).
 *
 * A reader that goes away (`| head`) ends the process at the next write (entry.ts's EPIPE
 * handler), which cancels the scan.
 *
 * Each query's scan can be shown while it runs (`ScanProgress`: the terminal's bar on stderr,
 * phase `query <name>`): it is taken down before the result's first text when that text would
 * land on the bar's line (`beforeOutput`), and always once the scan ended, before the result's
 * last text and any `warning:` or `error:` line.
 */
import { performance } from 'node:perf_hooks';

import { HeapqlError } from '../errors.js';
import { formatOqlError, isOqlError, type TextPlace } from '../oql/errors.js';
import { csvHeader, csvRows, formatCsv, formatTable, jsonElement, JSON_ARRAY, StreamedJsonResult, StreamedTable } from '../query/format.js';
import type { Column, QueryResult, Value } from '../query/schema.js';
import type { HeapSession, PreparedQuery, ProgressEvent } from '../session/index.js';
import type { RowBatch, StreamSummary } from '../session/query.js';
import { vizWarning } from '../query/viz.js';
import { errorText, warn } from './stderr.js';

export type OutputFormat = 'table' | 'json' | 'csv';

/** Rows the executor hands over at a time. */
export const BATCH_ROWS = 1000;
/** A result up to this many rows is gathered and printed whole; a longer one is streamed. */
export const WHOLE_ROWS = 1000;

/** A query to run and print. */
export interface OutputJob {
  oql: string;
  name: string;
  prepared: PreparedQuery;
  /** Where it was written, when in a file: an error of its text names the file's line and column. */
  place?: TextPlace;
  /** `file:line` of its `-- @viz` line, when in a file: a chart the result cannot draw is warned of there. */
  vizSource?: string;
}

/** Where the output goes: stdout (with back-pressure) and stderr (the `error:` lines). */
export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: { write(text: string): unknown };
  /** Shows a query's scan while it runs (the terminal's bar); none by default. */
  progress?: (job: OutputJob) => ScanProgress;
}

/** The progress shown for one query's scan (see the top of this file). */
export interface ScanProgress {
  /** The executor's progress, its phase already named after the query (`query q1`). */
  onProgress(event: ProgressEvent): void;
  /** Called just before text of the result is written to stdout. */
  beforeOutput(): void;
  /** The scan is over (or failed, or was stopped): the progress is taken down. */
  stop(): void;
}

const NO_PROGRESS: ScanProgress = { onProgress: () => {}, beforeOutput: () => {}, stop: () => {} };

/** A write to the output that failed (not the query's error). */
class OutputError extends Error {
  constructor(cause: unknown) {
    super(`cannot write the output: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * Writes to a stream, waiting for 'drain' when it asks to, or for Ctrl-C: the text is then
 * the stream's already, and goes out; what comes next (the scan's next rows) hears of the
 * Ctrl-C, so that one that lands after the last row was handed over leaves the result whole.
 */
class Sink {
  /** Whether anything was written. */
  written = false;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly signal: AbortSignal,
  ) {}

  async write(text: string): Promise<void> {
    if (text === '') return;
    const closed = () => (this.stream as { destroyed?: boolean }).destroyed === true;
    if (closed()) throw new OutputError(new Error('the output was closed'));
    this.written = true;
    if (this.stream.write(text) || closed()) {
      if (closed()) throw new OutputError(new Error('the output was closed'));
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        this.stream.off('drain', onDrain);
        this.stream.off('error', onError);
        this.stream.off('close', onClose);
        this.signal.removeEventListener('abort', onAbort);
      };
      const onDrain = () => {
        cleanup();
        resolve();
      };
      const onError = (err: Error) => {
        cleanup();
        reject(new OutputError(err));
      };
      const onClose = () => {
        cleanup();
        reject(new OutputError(new Error('the output was closed')));
      };
      const onAbort = () => {
        cleanup();
        resolve();
      };
      this.stream.on('drain', onDrain);
      this.stream.on('error', onError);
      this.stream.on('close', onClose);
      if (this.signal.aborted) onAbort();
      else this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** How a format writes one result: whole, or begun with its first rows and continued. */
interface ResultText {
  /** The whole result (the stream ended within the first rows): its text as always. */
  whole(result: QueryResult): string;
  /** The beginning of a long result, with its first rows. */
  begin(names: string[], rows: Value[][]): string;
  rows(rows: Value[][]): string;
  end(result: Omit<QueryResult, 'rows'>): string;
}

function resultText(format: OutputFormat, job: OutputJob): ResultText {
  switch (format) {
    case 'csv':
      return {
        whole: formatCsv,
        begin: (names, rows) => csvHeader(names) + csvRows(rows),
        rows: csvRows,
        end: () => '',
      };
    case 'table': {
      let table: StreamedTable | undefined;
      return {
        whole: (r) => {
          const table = formatTable(r);
          return table.endsWith('\n') ? table : `${table}\n`;
        },
        begin: (names, rows) => (table = new StreamedTable(names, rows)).begin(),
        rows: (rows) => table!.rows(rows),
        end: (r) => table!.end(r),
      };
    }
    case 'json': {
      const element = new StreamedJsonResult({ name: job.name, oql: job.prepared.oql });
      return {
        whole: jsonElement,
        begin: (_names, rows) => element.begin() + element.rows(rows),
        rows: (rows) => element.rows(rows),
        end: (r) => element.end(r),
      };
    }
  }
}

/** An error while a query ran, and whether its output had begun. */
class QueryFailure extends Error {
  constructor(
    readonly error: unknown,
    /** Rows of the result written before the error; null when nothing of it was. */
    readonly rowsWritten: number | null,
  ) {
    super((error as Error)?.message ?? String(error));
  }
}

function isCancel(err: unknown): boolean {
  return err instanceof HeapqlError && err.code === 'ERR_CANCELLED';
}

/**
 * Runs one query and writes its result: `before` is written just before the result's first
 * text (the table's title line, JSON's array punctuation). Throws a QueryFailure.
 */
async function writeResult(
  heap: HeapSession,
  job: OutputJob,
  text: ResultText,
  sink: Sink,
  before: string,
  signal: AbortSignal,
  progress: ScanProgress,
): Promise<void> {
  const started = performance.now();
  const onProgress = (e: ProgressEvent) => progress.onProgress({ ...e, phase: `${e.phase} ${job.name}` });
  const batches = heap.queryBatches(job.prepared, { name: job.name, signal, batchRows: BATCH_ROWS, onProgress });
  /** The generator ended (by its end or by throwing): nothing to return. */
  let finished = false;
  let columns: Column[] | null = null;
  let rowCount = 0;
  /** The first rows, gathered past WHOLE_ROWS; null once the result is being written. */
  let gathered: Value[][] | null = [];
  /** Something of this result was handed to the output. */
  let begun = false;
  try {
    let summary: StreamSummary;
    for (;;) {
      let next: IteratorResult<RowBatch, StreamSummary>;
      try {
        // An abort (Ctrl-C) ends it at once with ERR_CANCELLED: the stream wakes on it.
        next = await batches.next();
      } catch (err) {
        finished = true;
        throw err;
      }
      if (next.done) {
        finished = true;
        summary = next.value;
        break;
      }
      const { columns: names, rows } = next.value;
      if (rows.length === 0) continue;
      columns ??= names;
      rowCount += rows.length;
      if (gathered) {
        for (const row of rows) gathered.push(row);
        if (gathered.length <= WHOLE_ROWS) continue;
        const first = gathered;
        gathered = null;
        const head = before + text.begin(columns.map((c) => c.name), first);
        begun = true;
        progress.beforeOutput();
        await sink.write(head);
      } else {
        progress.beforeOutput();
        await sink.write(text.rows(rows));
      }
    }
    progress.stop();
    const result: QueryResult = {
      name: job.name,
      oql: job.prepared.oql,
      columns: summary.columns,
      rows: gathered ?? [],
      rowCount,
      truncated: summary.truncated,
      elapsedMs: Math.round((performance.now() - started) * 10) / 10,
    };
    if (summary.note !== undefined) result.note = summary.note;
    if (job.prepared.viz) {
      result.viz = job.prepared.viz;
      // A chart the result cannot draw (a column it names is not there) is said, as the REPL does.
      const warning = vizWarning(job.prepared.viz, summary.columns);
      if (warning) warn(`${job.vizSource ?? job.name}: ${warning}`);
    }
    const last = gathered ? before + text.whole(result) : text.end(result);
    begun = true;
    await sink.write(last);
  } catch (err) {
    if (err instanceof OutputError) throw err;
    throw new QueryFailure(err, begun ? rowCount : null);
  } finally {
    progress.stop();
    // An error of our own (a write that failed, Ctrl-C during one): stop the scan.
    if (!finished) await batches.return(undefined as never).catch(() => {});
  }
}

/**
 * The `error:` text of a query that failed: `<name>: <message>`; a field or class the dump
 * lacks (an error of the query's text) as a syntax error shows, `<name>:<line>:<col>: <message>`
 * with the query's line and a caret under the name (a query written in a file: the file's
 * `<file>:<line>:<col>` and its line). `more` ends the first line.
 */
function failureText(job: OutputJob, error: unknown, more = ''): string {
  if (isOqlError(error)) {
    const [first, ...rest] = formatOqlError(error, job.oql, job.place ?? job.name).split('\n');
    return errorText([`${first}${more}`, ...rest].join('\n'));
  }
  return errorText(`${job.name}: ${(error as Error)?.message ?? String(error)}${more}`);
}

/**
 * Runs the jobs in turn, writing each result while its rows are produced (JSON: one array of
 * QueryResults). A query that fails before its output began prints its error and the next one
 * runs; one that fails after it says that its output is cut short (JSON: the document is left
 * unclosed and no further query runs). Returns the exit code: 0, or 1 when a query failed, or
 * 130 when Ctrl-C stopped a query whose output had begun (before any output, Ctrl-C throws
 * ERR_CANCELLED, as it always did).
 */
export async function writeQueryResults(
  heap: HeapSession,
  jobs: OutputJob[],
  format: OutputFormat,
  streams: OutputStreams,
  signal: AbortSignal,
): Promise<number> {
  const sink = new Sink(streams.stdout, signal);
  const several = jobs.length > 1;
  // The empty line after each of several results: in CSV a CRLF, as its every line ends.
  const gap = format === 'csv' ? '\r\n' : '\n';
  let failed = 0;
  let elements = 0;
  try {
    for (const [i, job] of jobs.entries()) {
      let before = '';
      if (format === 'json') before = elements === 0 ? JSON_ARRAY.open : JSON_ARRAY.separator;
      else if (format === 'table' && several) before = `${job.name}: ${job.oql.trim()}\n`;
      try {
        await writeResult(heap, job, resultText(format, job), sink, before, signal, streams.progress?.(job) ?? NO_PROGRESS);
      } catch (failure) {
        // The output itself failed: nothing more can be written.
        if (!(failure instanceof QueryFailure)) throw failure;
        const { error, rowsWritten } = failure;
        if (isCancel(error)) {
          if (!sink.written) throw error;
          const where = rowsWritten === null ? `before ${job.name}` : `after ${rowsWritten} rows of ${job.name}`;
          streams.stderr.write(`error: interrupted; the output stops ${where} (not every result was written)\n`);
          return 130;
        }
        failed++;
        if (rowsWritten === null) {
          streams.stderr.write(failureText(job, error));
          continue;
        }
        if (format === 'json') {
          const rest = jobs.length - i - 1;
          const skipped = rest > 0 ? ` (${rest} more ${rest === 1 ? 'query was' : 'queries were'} not run)` : '';
          streams.stderr.write(failureText(job, error, `; the JSON output stops after ${rowsWritten} rows of this result and is not a complete document${skipped}`));
          return 1;
        }
        streams.stderr.write(failureText(job, error, `; its output above stops after ${rowsWritten} rows (not the whole result)`));
        if (several) await sink.write(gap);
        continue;
      }
      if (format === 'json') elements++;
      else if (several) await sink.write(gap);
    }
    if (format === 'json') await sink.write(`${elements > 0 ? JSON_ARRAY.close : JSON_ARRAY.empty}\n`);
  } catch (err) {
    if (!isCancel(err) || !sink.written) throw err;
    streams.stderr.write('error: interrupted; the output is cut short (not every result was written)\n');
    return 130;
  }
  // A Ctrl-C that came after the last query's output was handed over stopped nothing.
  return failed > 0 ? 1 : 0;
}
