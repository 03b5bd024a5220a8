/**
 * The queries a command line asks for (`--query`, `--query-file`, `--run`), checked before the
 * dump is opened, so a typo costs nothing; and running them in turn with their output.
 */
import { formatOqlError, isOqlError, OqlSecondStatementError, type TextPlace } from '../oql/errors.js';
import { loadQueryFile, queryFilePlace } from '../query/queryfile.js';
import { extractViz, noteWithVizWarning } from '../query/viz.js';
import { findNamedQuery, suggestNamedQueries, NAMED_QUERIES } from '../query/named.js';
import type { QueryResult, VizSpec } from '../query/schema.js';
import type { HeapSession, ProgressEvent } from '../session/index.js';
import { prepareQuery, type PreparedQuery } from '../session/query.js';
import { HeapqlError, usageError } from '../errors.js';
import { interruptSignal, scanProgress } from './progress.js';
import { writeQueryResults, type OutputFormat, type OutputStreams } from './query-output.js';

export interface QueryJob {
  oql: string;
  /** Display name (`q<N>`, a named query's name, a config entry's name). */
  name: string;
  viz: VizSpec | null;
  /** Why its `-- @viz` line was ignored: the report shows it under the query and in its warnings. */
  vizWarning?: string;
  /** Planned once, while the command line is checked; run as is. */
  prepared: PreparedQuery;
  /** Where it was written, when in a file (a query file, a config file): an error naming a class or field the dump lacks names the file's line and column. */
  place?: TextPlace;
  /** `file:line` of its `-- @viz` line, when written in a file: a chart the result cannot draw is warned of there. */
  vizSource?: string;
}

/**
 * Every value of the repeatable option `flag` (`--query`, `--run`) in order, up to a `--`:
 * citty keeps only the last of a repeated option, so they are read from the raw arguments. A
 * value attached with `=` is taken as it is; a separated one (undefined when the arguments end
 * there) is passed to `check`, which returns it or throws the option's usage error.
 */
export function repeatedOption(rawArgs: string[], flag: string, check: (value: string | undefined) => string): string[] {
  const out: string[] = [];
  const attached = `${flag}=`;
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!;
    if (a === '--') break;
    if (a.startsWith(attached)) out.push(a.slice(attached.length));
    else if (a === flag) {
      out.push(check(rawArgs[i + 1]));
      i++;
    }
  }
  return out;
}

/**
 * Every `--query` value in order. A separated value that begins with `--` (a `-- @viz` line) is
 * refused: it must be attached as `--query=<text>` (specification, rule 1).
 */
export function queryArguments(rawArgs: string[]): string[] {
  return repeatedOption(rawArgs, '--query', (value) => {
    if (value === undefined) throw usageError('--query needs a query text');
    if (value.startsWith('--')) {
      throw usageError(
        `unexpected argument '${firstLine(value)}': a query that begins with '--' (such as a -- @viz line) must be attached: --query='${firstLine(value)}…'`,
      );
    }
    return value;
  });
}

/** Every `--run` value in order: a named query's name, never an option. */
export function runArguments(rawArgs: string[]): string[] {
  const names = repeatedOption(rawArgs, '--run', (value) => {
    if (value === undefined || value.startsWith('-')) throw usageError('--run needs the name of a named query (heapql query --list-named lists them)');
    return value;
  });
  // `--run=` or `--run ''`: no name, not a name to suggest others for.
  if (names.some((n) => n.trim() === '')) throw usageError('--run needs the name of a named query (heapql query --list-named lists them)');
  return names;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 60);
}

export interface JobSources {
  rawArgs: string[];
  queryFile?: string;
  /** Plan with the full path allowed (after `analyze`). */
  /** `[[query]]` entries of a collection config file (report only). */
  configQueries?: ({ oql: string; name?: string; vizSource?: string } & TextPlace)[];
  fullPath: boolean;
  reachableOnly: boolean;
}

/** Collects and checks every query; prints all problems and throws a usage error if any. */
/**
 * Two statements in one --query (`--query 'SELECT …; SELECT …'`): the error at the `;` says
 * that each --query takes one, and how to give several.
 */
function oneStatementEach(err: OqlSecondStatementError): OqlSecondStatementError {
  const at = err.pos.line > 1 ? `line ${err.pos.line}, column ${err.pos.column}` : `column ${err.pos.column}`;
  return new OqlSecondStatementError(
    err.reason,
    err.pos,
    err.token,
    err.expected,
    `each --query takes one statement, and the ";" at ${at} ends this one: give the next statement its own --query ` +
      `(--query "SELECT ..." --query "SELECT ..."), put one query a line in a file for --query-file, or type them in the REPL (--repl), ` +
      'which runs statements separated by ";" in turn',
  );
}

/**
 * The usage error of a command given no query: a `--query-file` that holds none is said so, not
 * "no query given" as if none was named; `orElse` is what else the command could be asked for.
 */
export function noQueryGiven(file: string | undefined, orElse: string): never {
  if (file !== undefined) {
    throw usageError(`--query-file ${file} holds no query (only blank lines and comments): write one query a line in it, or give --query "<oql>" or --run <name>`);
  }
  throw usageError(`no query given: use --query "<oql>", --query-file <path> or --run <name>, ${orElse}`);
}

export function collectJobs(sources: JobSources): { jobs: QueryJob[]; warnings: string[] } {
  const jobs: QueryJob[] = [];
  const errors: string[] = [];
  const warnings: string[] = [];
  const planOptions = { fullPath: sources.fullPath, reachableOnly: sources.reachableOnly };
  const next = () => `q${jobs.length + 1}`;
  /** Plans `oql` once; a query that does not plan becomes a formatted error. */
  const add = (oql: string, viz: VizSpec | null, where: string | TextPlace, name: () => string, vizWarning: string | null, vizSource?: string) => {
    try {
      const prepared = prepareQuery(oql, { ...planOptions, viz });
      jobs.push({
        oql,
        name: name(),
        viz,
        ...(vizWarning ? { vizWarning } : {}),
        prepared,
        ...(typeof where === 'string' ? {} : { place: where }),
        ...(viz && vizSource ? { vizSource } : {}),
      });
    } catch (err) {
      if (!isOqlError(err)) throw err;
      errors.push(formatOqlError(where === '--query' && err instanceof OqlSecondStatementError ? oneStatementEach(err) : err, oql, where));
    }
  };

  for (const text of queryArguments(sources.rawArgs)) {
    const { oql, viz, warning } = extractViz(text);
    if (warning) warnings.push(`--query: ${warning}`);
    add(oql, viz, '--query', () => viz?.name ?? next(), warning);
  }
  for (const entry of sources.configQueries ?? []) {
    const { oql, viz, warning } = extractViz(entry.oql);
    if (warning) warnings.push(`${entry.vizSource ?? entry.source}: ${warning}`);
    // An error names the config file's line and column (the entry's `file:line` when it points nowhere).
    add(oql, viz, entry, () => viz?.name ?? entry.name ?? next(), warning, entry.vizSource ?? entry.source);
  }
  if (sources.queryFile) {
    let file;
    try {
      file = loadQueryFile(sources.queryFile, { plan: planOptions });
    } catch (err) {
      throw usageError((err as Error).message);
    }
    errors.push(...file.errors);
    warnings.push(...file.warnings);
    const path = sources.queryFile;
    for (const q of file.queries) {
      const prepared = prepareQuery(q.oql, { ...planOptions, viz: q.viz, ...(q.planned ? { planned: q.planned } : {}) });
      jobs.push({
        oql: q.oql,
        name: q.viz?.name ?? next(),
        viz: q.viz,
        ...(q.vizWarning ? { vizWarning: q.vizWarning } : {}),
        prepared,
        // Errors and warnings found once the dump is open name the file's line, as those found now do.
        place: queryFilePlace(path, q),
        ...(q.viz && q.vizLine !== undefined ? { vizSource: `${path}:${q.vizLine}` } : {}),
      });
    }
  }
  for (const name of runArguments(sources.rawArgs)) {
    const named = findNamedQuery(name);
    if (!named) {
      const near = suggestNamedQueries(name);
      throw usageError(`no named query '${name}'${near.length ? `; did you mean ${near.join(', ')}?` : ''} (heapql query --list-named lists them)`);
    }
    if (named.fullPath && !sources.fullPath) {
      throw usageError(`the named query '${named.name}' needs the full analysis: run it with heapql analyze <dump> --run ${named.name}`);
    }
    const { oql, viz } = extractViz(named.oql);
    jobs.push({ oql, name: named.name, viz, prepared: prepareQuery(oql, { ...planOptions, viz }) });
  }
  if (errors.length > 0) {
    // One message: the first error as it is, each next one indented under it, as an error's own
    // lines are (the error line keeps only indented lines as lines: see `errorText`).
    const message = errors.map((e, i) => (i === 0 ? e : e.replace(/^/gm, '  '))).join('\n');
    throw new HeapqlError('ERR_QUERY_SYNTAX', message, { exitCode: 2 });
  }
  return { jobs, warnings };
}

/** The named-query library as a table for `--list-named`. */
export function listNamed(): string {
  const width = Math.max(...NAMED_QUERIES.map((q) => q.name.length));
  return (
    NAMED_QUERIES.map((q) => `${q.name.padEnd(width)}  ${q.fullPath ? '[full] ' : ''}${q.description}`).join('\n') +
    '\n\n[full]: needs the full analysis (heapql analyze <dump> --run <name>)\n'
  );
}

/**
 * Runs the jobs for a report: results are collected, a failing query becomes a warning (the
 * report is still written). `vizSources`: the `file:line` of the `-- @viz` line of each result
 * whose query was written in a file, where a chart the result cannot draw is warned of.
 */
export async function runJobsForReport(
  heap: HeapSession,
  jobs: QueryJob[],
  signal: AbortSignal,
  onProgress?: (event: ProgressEvent) => void,
): Promise<{ results: QueryResult[]; failures: string[]; vizSources: Map<QueryResult, string> }> {
  const results: QueryResult[] = [];
  const failures: string[] = [];
  const vizSources = new Map<QueryResult, string>();
  for (const job of jobs) {
    try {
      // Each query's scan on the bar, under its name (`query q1`).
      const progress = onProgress ? (e: ProgressEvent) => onProgress({ ...e, phase: `${e.phase} ${job.name}` }) : undefined;
      const result = await heap.query(job.prepared, { name: job.name, signal, ...(progress ? { onProgress: progress } : {}) });
      // A directive that was ignored is said where the chart would have been, as the server's note says it.
      const note = noteWithVizWarning(result.note, job.vizWarning ?? null);
      const shown = note !== undefined ? { ...result, note } : result;
      results.push(shown);
      if (job.vizSource) vizSources.set(shown, job.vizSource);
    } catch (err) {
      if (err instanceof HeapqlError && err.code === 'ERR_CANCELLED') throw err;
      // A class or field a config entry names that the dump lacks: at its place in the file (one line: a warning).
      const message = job.place && isOqlError(err) ? formatOqlError(err, job.oql, job.place).split('\n')[0] : (err as Error).message;
      failures.push(`${job.name}: ${message}`);
    }
  }
  return { results, failures, vizSources };
}

export type { OutputFormat };

export function outputFormat(value: string | undefined): OutputFormat {
  if (value === undefined) return 'table';
  if (value === 'table' || value === 'json' || value === 'csv') return value;
  throw usageError(`--format must be table, json or csv, not '${value}'`);
}

/**
 * Runs the jobs in turn, writing each result while the executor produces its rows (JSON: one
 * array; see query-output.ts). A failing query prints its error and the next one runs; the
 * exit code is then 1. On a terminal, each query's scan shows the progress bar on stderr
 * (`query q1`), taken down before rows go to the same terminal (`scanProgress`).
 */
export async function runJobs(
  heap: HeapSession,
  jobs: QueryJob[],
  format: OutputFormat,
  streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<void> {
  const interrupt = interruptSignal();
  const withBar: OutputStreams = streams.progress ? streams : { ...streams, progress: () => scanProgress(interrupt.signal, streams.stdout) };
  try {
    const code = await writeQueryResults(heap, jobs, format, withBar, interrupt.signal);
    if (code !== 0) process.exitCode = code;
  } finally {
    interrupt.dispose();
  }
}
