/**
 * The REPL's command table and dispatcher, shared by the terminal and the browser: a statement
 * goes in, text comes out through `ReplIO`. OQL runs on the backend; `!` commands act on the
 * last result without running the query again (except `!last`), through the pure functions of
 * table.ts. No Node-only imports here: files and progress bars are the front's (`ReplIO`).
 */
import { HeapqlError } from '../errors.js';
import { KEYWORDS } from '../oql/lexer.js';
import { formatOqlError, isOqlError, type OqlError, type TextPlace } from '../oql/errors.js';
import { AGGREGATE_NAMES, ATTRIBUTE_NAMES, FUNCTION_NAMES, explain, METHOD_ALIASES, plan, planToJson } from '../plan/index.js';
import { fileText, formatTable, labelText, rowsFooter, type FileFormat } from '../query/format.js';
import { findNamedQuery, NAMED_QUERIES, suggestNamedQueries } from '../query/named.js';
import type { QueryResult, VizSpec } from '../query/schema.js';
import { extractViz, vizWarning } from '../query/viz.js';
import { closest, noClassMessage } from '../session/no-class.js';
import { terminalText } from '../terminal-text.js';
import type { ProgressEvent } from '../session/types.js';
import type { StoredQuery } from '../report/config.js';
import type { ReplBackend, ReplIO } from './backend.js';
import { errorMessage, ReplError, SaveInterrupted } from './errors.js';
import { BLOCK_ROWS, type BlockWrite, writeLongTable } from './long-table.js';
import { canPage, pagedOf, PagedResult, READ_AHEAD_ROWS, type PagingBackend } from './rest.js';
import { grid, renderClass, renderDominator, renderObject, renderPath, renderRefs } from './render.js';
import { stripTerminator, withoutTerminator } from './statement.js';
import {
  columnIndex,
  columnStats,
  filterRows,
  headRows,
  rowText,
  selectColumns,
  sortRows,
  statsResult,
  tailRows,
  uniqueValues,
} from './table.js';

/** What the REPL remembers between statements. */
export interface ReplState {
  /** The current result (after any shaping). */
  result: QueryResult | null;
  /** Results before each shaping command, for `!undo` (newest last). */
  undo: QueryResult[];
  /** The last OQL text given, refused or not (for `!plan` alone). */
  lastQuery: string | null;
  /** Where it was written when it came from the config file (`!run <name>`): `!plan` names that place too. */
  lastOrigin: QueryOrigin | null;
  /**
   * The last query that ran (for `!last`): one refused with an OQL error (a syntax error, a name
   * the dump lacks, a full-path attribute before `!analyze`) never ran and is not kept; one that
   * gave rows, was cancelled or failed while it ran is.
   */
  lastRun: LastRun | null;
  /** `!row` cursor (0-based). */
  cursor: number;
  /** Rows shown of a result; 0 = all. */
  limit: number;
  /** Queries run, for result names q1, q2, … */
  queries: number;
  /** The paged result whose scan is open (paused), if any: one at a time (rest.ts). */
  open: PagedResult | null;
  /** The named `[[query]]` entries of the config file, for `!run` (the terminal REPL reads them). */
  stored: StoredQuery[];
}

/**
 * Where a query run was written when not typed: a config entry. An OQL error in it names the
 * file's line and column (`TextPlace`), a warning about its `-- @viz` line that line.
 */
export interface QueryOrigin extends TextPlace {
  /** `file:line` of its `-- @viz` line. */
  vizSource?: string;
}

/** A query that ran, and where it was written: `!last` runs it again, its errors named there. */
export interface LastRun {
  text: string;
  /** A config entry's place (`!run <name>`). */
  origin: QueryOrigin | null;
  /** Its statement's place in a script (piped input: `stdin`, line 2); null at a prompt. */
  source: StatementSource | null;
}

export function initialState(stored: StoredQuery[] = []): ReplState {
  return { result: null, undo: [], lastQuery: null, lastOrigin: null, lastRun: null, cursor: 0, limit: 50, queries: 0, open: null, stored };
}

/** Everything a command can use. */
export interface ReplContext {
  backend: ReplBackend;
  io: ReplIO;
  state: ReplState;
  /** Fires on Ctrl-C while the statement runs. */
  signal?: AbortSignal;
  /** Where the statement starts in a script (piped input: `stdin`, line 12); errors name it. */
  source?: StatementSource;
}

export interface StatementSource {
  name: string;
  line: number;
}

export interface Command {
  name: string;
  aliases?: string[];
  usage: string;
  /** Whether the command reads an argument; one that does not refuses any (`!quit extra`). */
  takesArguments: boolean;
  summary: string;
  /** The argument completion offers: columns, classes, named queries, files, settings. */
  completes?: 'column' | 'class' | 'named' | 'file' | 'set' | 'help';
  run(ctx: ReplContext, args: string): Promise<void> | void;
}

// ---- helpers ----

function needResult(state: ReplState): QueryResult {
  if (!state.result) throw new ReplError('no result yet: run a query first');
  return state.result;
}

/**
 * The rows of a result as a count: a paged one's total once counted, else `N+` (the rows held).
 * A result the backend pages itself (the browser's: its rows come from the server's cursor) is
 * counted by the backend.
 */
function rowTotal(r: QueryResult, backend: ReplBackend): string {
  const p = pagedOf(r);
  const total = p ? p.total : backend.knownTotalOf?.(r);
  if (total === undefined) return String(r.rows.length);
  return total ? String(total.rowCount) : `${r.rows.length}+`;
}

/**
 * Loads the rows of a paged result (rest.ts) that a command needs, `wanted` of them (Infinity:
 * every row), the progress display saying how many; nothing to do for a whole result. Ctrl-C
 * stops the loading and the command (the rows loaded are kept: the next command goes on from
 * there).
 */
async function needRows(ctx: ReplContext, r: QueryResult, wanted: number, command: string): Promise<void> {
  const p = pagedOf(r);
  if (!p || r.rows.length >= wanted) return;
  // One scan is open at a time: another result's stops (this one's query runs again from where
  // its scan was, when it was closed: rest.ts).
  if (ctx.state.open !== p) {
    ctx.state.open?.close();
    ctx.state.open = p;
  }
  const progress = (held: number) => ctx.io.progress?.({ phase: 'loading rows', done: held, total: p.total?.rowCount ?? 0 });
  progress(r.rows.length);
  let done: boolean;
  try {
    done = await p.readUpTo(wanted, ctx.signal, progress);
  } finally {
    ctx.io.progressDone?.();
  }
  if (p.whole && ctx.state.open === p) ctx.state.open = null;
  if (!done) {
    const total = p.total ? ` of ${p.total.rowCount}` : '';
    throw new ReplError(`interrupted; ${command} needs ${wanted === Infinity ? 'every row' : `${wanted} rows`}, and ${r.rows.length}${total} are loaded: run it again to load on from there`);
  }
}

/** Replaces the result (the old one goes on the undo stack) and shows it. */
function shape(ctx: ReplContext, next: QueryResult): void | Promise<void> {
  ctx.state.undo.push(needResult(ctx.state));
  if (ctx.state.undo.length > 100) ctx.state.undo.shift();
  ctx.state.result = next;
  ctx.state.cursor = 0;
  return show(ctx, next);
}

/**
 * A result as a table, capped at the display limit. More rows than a block go out a block at a
 * time to a front that takes text as it comes (`ReplIO.write`, the terminal), and Ctrl-C stops
 * them (`long-table.ts`); to any other front (the browser, which draws the text it is given as
 * the result's table) the table is printed whole, and nothing is waited for.
 */
export function show(ctx: ReplContext, result: QueryResult): void | Promise<void> {
  const limit = ctx.state.limit;
  // A paged result shows rows it has not loaded yet (!undo back to it, at another limit): loaded first.
  if (pagedOf(result) && (limit === 0 || limit >= result.rows.length)) return needRows(ctx, result, limit === 0 ? Infinity : limit + 1, 'showing the result').then(() => show(ctx, result));
  const shown = limit === 0 ? result.rows.length : Math.min(limit, result.rows.length);
  const note = result.note ? `\nnote: ${terminalText(result.note, { keepBackslashes: true })}` : '';
  const more = moreRows(result, limit);
  if (ctx.io.write && shown > BLOCK_ROWS) return showLong(ctx, ctx.io.write.bind(ctx.io), result, shown, shown < result.rows.length ? more : rowsFooter(result), note);
  if (shown === result.rows.length) {
    ctx.io.print(formatTable(result));
    return;
  }
  const head = formatTable({ ...result, rows: result.rows.slice(0, limit) }, { footer: false });
  ctx.io.print(`${head}\n${more}${note}`);
}

/** The footer of a table that shows the first `limit` rows of a result of more. */
function moreRows(result: QueryResult, limit: number): string {
  const p = pagedOf(result);
  const count = p && !p.total ? `${result.rows.length}+ rows, not counted: !count counts them` : `${result.rowCount} rows${result.truncated ? ', truncated' : ''}`;
  return `(${count}; showing the first ${limit}: !tail, !row N, !set limit 0 for all)`;
}

/** `show` of a long table: its footer as always, or how many rows Ctrl-C let through. */
async function showLong(ctx: ReplContext, write: BlockWrite, result: QueryResult, shown: number, footer: string, note: string): Promise<void> {
  const stopped = (n: number) => `(${result.rowCount} rows${result.truncated ? ', truncated' : ''}; interrupted after showing ${n}: !tail, !row N, !save for the rest)`;
  await writeLongTable(write, result, shown, (end, n) => `${end === 'done' ? footer : stopped(n)}${note}`, ctx.signal);
}

function count(text: string, fallback: number, what: string): number {
  if (text.trim() === '') return fallback;
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < 0) throw new ReplError(`${what} takes a whole number, not '${text.trim()}'`);
  return n;
}

/** Words, with "quoted words" kept together and commas as separators. */
function words(args: string): string[] {
  return [...args.matchAll(/"([^"]*)"|'([^']*)'|([^\s,]+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/**
 * An OQL error with the query line and a caret, at the statement's place in a script; a query
 * from the config file (`origin`): at its place in the file.
 */
function oqlError(ctx: ReplContext, err: OqlError, oql: string, origin?: QueryOrigin | null): ReplError {
  if (origin) return new ReplError(formatOqlError(err, oql, origin), true);
  const at = ctx.source;
  if (!at) return new ReplError(formatOqlError(err, oql, 'query'), true);
  const text = formatOqlError(err, oql, at.name, at.line - 1);
  // An error that points nowhere in the text: the statement's line.
  return new ReplError(text.startsWith(`${at.name}: `) ? `${at.name}:${at.line}: ${text.slice(at.name.length + 2)}` : text, true);
}

/** A query on one line, as `!run` and `!last` show what they run: its lines trimmed, without comment lines (`-- @viz`). */
function queryLine(text: string): string {
  return withoutTerminator(text)
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .map((l) => l.trim())
    .join(' ')
    .trim();
}

/** A class the dump does not have: the words of every front (`heap.noClassMessage`), and how to search here. */
function noClass(ctx: ReplContext, name: string): ReplError {
  return new ReplError(`${terminalText(noClassMessage(name, ctx.backend.classNames()))} (!classes <text> lists the classes whose names contain a text)`);
}

/** A look-up of the full path; its refusal before `!analyze` in the REPL's words. */
async function fullPathLookUp<T>(command: string, lookUp: () => Promise<T>): Promise<T> {
  try {
    return await lookUp();
  } catch (err) {
    if (err instanceof HeapqlError && err.code === 'ERR_NEEDS_ANALYSIS') throw new ReplError(`${command} needs the full analysis: run !analyze first`);
    throw err;
  }
}

/** The object a look-up command names; with no argument, the first object of the current row. */
async function objectArg(ctx: ReplContext, args: string, command: string): Promise<number> {
  const text = args.trim();
  const named = /^([^#\s]+)#\d+$/.exec(text);
  if (named && !ctx.backend.classNames().includes(named[1]!)) throw noClass(ctx, named[1]!);
  if (text !== '') return ctx.backend.resolveObject(text);
  const row = ctx.state.result?.rows[ctx.state.cursor];
  const cell = row?.find((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
  if (cell && typeof cell === 'object' && !Array.isArray(cell)) return cell.objectId;
  throw new ReplError(`${command} needs an object: <class>#<index>, #<index> or an address 0x… (or a result row with an object)`);
}

/**
 * Runs OQL (with an optional `-- @viz` line) and makes it the current result. `origin`: where it
 * was written (a config entry), which an OQL error or a warning about the directive names;
 * default the statement's place.
 */
export async function runQuery(ctx: ReplContext, text: string, origin?: QueryOrigin | null): Promise<void> {
  const { oql, viz, warning } = extractViz(withoutTerminator(text));
  ctx.state.lastQuery = text;
  ctx.state.lastOrigin = origin ?? null;
  // Kept for `!last` once the query is past the OQL checks: it runs.
  const ran = () => {
    ctx.state.lastRun = { text, origin: origin ?? null, source: ctx.source ?? null };
  };
  const vizAt = origin ? (origin.vizSource ?? origin.source) : undefined;
  const name = viz?.name ?? `q${ctx.state.queries + 1}`;
  const limit = ctx.state.limit;
  // A front that takes text as it comes (the terminal) on a backend that streams: paged.
  if (ctx.io.write && canPage(ctx.backend) && limit > 0 && limit <= BLOCK_ROWS) return runPaged(ctx, ctx.backend, oql, name, viz ?? null, warning, origin ?? null, ran);
  let result: QueryResult;
  try {
    result = await ctx.backend.query(oql, { name, viz, signal: ctx.signal, ...scanProgress(ctx) });
  } catch (err) {
    if (isOqlError(err)) throw oqlError(ctx, err, oql, origin);
    ran();
    throw err;
  } finally {
    ctx.io.progressDone?.();
  }
  ran();
  adopt(ctx, result, viz ?? null, warning, vizAt);
  await show(ctx, result);
  ctx.io.print(`(${result.elapsedMs} ms)`);
}

/**
 * The scan's progress for the front's bar (the objects scanned of those to scan, as `heapql
 * query` draws it), when the front draws one: a query over a big dump runs for seconds.
 */
function scanProgress(ctx: ReplContext): { onProgress?: (e: ProgressEvent) => void } {
  const progress = ctx.io.progress?.bind(ctx.io);
  return progress ? { onProgress: (e) => progress(e) } : {};
}

/** A query's result becomes the current one (the one before goes on the undo stack). */
function adopt(ctx: ReplContext, result: QueryResult, viz: VizSpec | null, warning: string | null | undefined, vizAt?: string): void {
  ctx.state.queries++;
  if (ctx.state.result) ctx.state.undo.push(ctx.state.result);
  ctx.state.result = result;
  ctx.state.cursor = 0;
  // A malformed directive, or one naming columns the result lacks, draws a table: say why, as
  // a query file does.
  const vizProblem = vizWarning(viz, result.columns, warning ?? null);
  const at = vizAt ? `${vizAt}: ` : ctx.source ? `${ctx.source.name}:${ctx.source.line}: ` : '';
  if (vizProblem) ctx.io.error(`warning: ${at}${vizProblem}`);
}

/**
 * A query run paged (rest.ts): its first rows (the display limit's) are shown as soon as the
 * scan has them; then a few more are loaded (a result that ends there is whole) or, for a larger
 * one, the rest is counted (by its stream when that said the count — a query that sorts, groups
 * or removes duplicates —, else by a second run), the progress display saying which; the footer then
 * gives the total. Ctrl-C before the first rows cancels the query; after them it stops the
 * loading or counting: the rows shown stay the result, counted and loaded when a command needs it.
 */
async function runPaged(
  ctx: ReplContext,
  backend: PagingBackend,
  oql: string,
  name: string,
  viz: VizSpec | null,
  warning: string | null | undefined,
  origin: QueryOrigin | null,
  ran: () => void,
): Promise<void> {
  const started = performance.now();
  const limit = ctx.state.limit;
  // The previous paged result's scan stops: one is open at a time.
  ctx.state.open?.close();
  ctx.state.open = null;
  let p: PagedResult;
  try {
    p = await PagedResult.start(backend, oql, { name, reachableOnly: backend.reachableOnly }, limit + 1, ctx.signal, scanProgress(ctx).onProgress);
  } catch (err) {
    if (isOqlError(err)) throw oqlError(ctx, err, oql, origin);
    ran();
    throw err;
  } finally {
    // Down before the first rows are printed.
    ctx.io.progressDone?.();
  }
  ran();
  const result = p.result;
  if (viz) result.viz = viz;
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  adopt(ctx, result, viz, warning, origin ? (origin.vizSource ?? origin.source) : undefined);
  if (p.whole) {
    result.elapsedMs = elapsed();
    await show(ctx, result);
    ctx.io.print(`(${result.elapsedMs} ms)`);
    return;
  }
  ctx.state.open = p;
  ctx.io.print(formatTable({ ...result, rows: result.rows.slice(0, limit) }, { footer: false }));
  let done = false;
  try {
    const loading = (held: number) => ctx.io.progress?.({ phase: 'loading rows', done: held, total: 0 });
    loading(result.rows.length);
    done = await p.readUpTo(READ_AHEAD_ROWS, ctx.signal, loading);
    // A result whose stream said its count (it sorts, groups…) needs no second run.
    if (done && !p.whole && !p.total) {
      ctx.io.progress?.({ phase: 'counting rows', done: 0, total: 0 });
      done = await p.count(ctx.signal);
    }
  } finally {
    ctx.io.progressDone?.();
  }
  if (p.whole && ctx.state.open === p) ctx.state.open = null;
  if (!done) {
    ctx.io.print(`(${result.rows.length}+ rows; interrupted before they were counted: !count counts them, and !tail, !row N, !save load the rest)`);
    return;
  }
  result.elapsedMs = elapsed();
  const note = result.note ? `\nnote: ${terminalText(result.note, { keepBackslashes: true })}` : '';
  ctx.io.print(`${moreRows(result, limit)}${note}`);
  ctx.io.print(`(${result.elapsedMs} ms)`);
}

function fileFormat(path: string): FileFormat {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (ext === 'csv') return 'csv';
  if (ext === 'tsv' || ext === 'tab') return 'tsv';
  if (ext === 'json') return 'json';
  throw new ReplError(`!save picks the format by extension: .csv, .tsv or .json (not '${path}')`);
}

/** Rows of a saved file made into text at a time. */
export const SAVE_BLOCK_ROWS = 1000;

/**
 * The text of `!save`'s file, a block of rows at a time, each made when the front takes it
 * (`ReplIO.saveFile`); together exactly the whole text (`fileText`). The first block has the
 * head, the last the tail, so every block a front may decline to take holds rows. `taken.rows`
 * counts the rows of the blocks taken.
 */
function* fileBlocks(result: QueryResult, format: FileFormat, taken: { rows: number }): Generator<string, void, undefined> {
  const text = fileText(result, format);
  const rows = result.rows;
  let head = text.head();
  for (let at = 0; at < rows.length; at += SAVE_BLOCK_ROWS) {
    const next = Math.min(at + SAVE_BLOCK_ROWS, rows.length);
    const block = head + text.rows(rows.slice(at, next));
    head = '';
    taken.rows = next;
    yield next === rows.length ? block + text.tail() : block;
  }
  if (rows.length === 0) yield head + text.tail();
}

/** `!reachable` / `!all`: the session's reachable mode for the queries that follow. */
function reachableMode(name: string, on: boolean, summary: string): Command {
  return {
    name,
    usage: `!${name}`,
    takesArguments: false,
    summary,
    run: (ctx) => {
      ctx.backend.reachableOnly = on;
      ctx.io.print(on ? 'queries now see reachable objects only (!all for every object)' : 'queries now see every object (!reachable for reachable only)');
    },
  };
}

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const lines = COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}${c.aliases?.length ? ` (also ${c.aliases.map((a) => `!${a}`).join(', ')})` : ''}`);
  return [
    'Statements: OQL (a complete statement or one ending in ; runs; an open one asks for more), or a ! command.',
    'Commands act on the last result without running it again; columns by name, alias or 1-based position.',
    ...lines,
    'Objects: <class>#<index>, #<index> or 0x<address>; with none, !obj/!refs/!path/!dom take the current !row.',
    '!help oql: the query language.',
  ].join('\n');
}

function oqlHelp(): string {
  return [
    'SELECT [DISTINCT] <expr> [AS name], … FROM [INSTANCEOF] <class> [alias] | "<regex>" | (subquery) alias | OBJECTS 0x<addr>',
    '  [WHERE <predicate>] [GROUP BY <expr>, …] [HAVING <predicate>] [ORDER BY <expr> [ASC|DESC]] [LIMIT n]',
    '  [UNION | INTERSECT | EXCEPT <select>]',
    `keywords:   ${KEYWORDS.join(' ')}`,
    `attributes: ${ATTRIBUTE_NAMES.join(' ')}`,
    `functions:  ${FUNCTION_NAMES.join(' ')}`,
    `aggregates: ${AGGREGATE_NAMES.join(' ')}`,
    `methods:    ${[...new Set(METHOD_ALIASES.map((m) => `${m.name}()`))].join(' ')}`,
    'predicates: = != < <= > >=, LIKE "regex", NOT LIKE, x INSTANCEOF C, x INSTANCEOF "regex", x IN (subquery), BETWEEN a AND b, EXISTS (subquery), AND OR NOT',
    'full path (after !analyze): @retainedHeapSize, dominators(x), dominatorof(x), @inbounds, @outbounds, path(a, b), AS RETAINED SET',
    'examples:',
    '  SELECT COUNT(*) FROM java.lang.String',
    '  SELECT classof(x) AS class, COUNT(*) AS n, SUM(@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY bytes DESC LIMIT 10',
    '  SELECT s, toString(s) FROM java.lang.String s WHERE toString(s) LIKE "http.*"   (LIKE matches the whole string)',
    '  -- @viz histogram label=class value=bytes   (a line before a query: how reports chart it)',
  ].join('\n');
}

// ---- the table ----

export const COMMANDS: Command[] = [
  {
    name: 'help',
    usage: '!help [oql]',
    takesArguments: true,
    summary: 'this list; !help oql: the query language',
    completes: 'help',
    run: (ctx, a) => {
      const topic = a.trim();
      if (topic !== '' && topic.toLowerCase() !== 'oql') throw new ReplError(`there is no help topic '${topic}': !help lists the commands, !help oql shows the query language`);
      ctx.io.print(topic === '' ? helpText() : oqlHelp());
    },
  },
  { name: 'quit', aliases: ['q', 'exit'], usage: '!quit', takesArguments: false, summary: 'leave (Ctrl-D too)', run: (ctx) => ctx.io.quit() },
  {
    name: 'last',
    usage: '!last',
    takesArguments: false,
    summary: 'run the last query that ran again (one refused with an error did not run)',
    run: async (ctx) => {
      const last = ctx.state.lastRun;
      if (!last) throw new ReplError('no query has run yet: !last runs the last query that ran again, and a statement refused with an error did not run');
      // Its errors and warnings name where it was written (a config entry's place in the file,
      // as `!run` did; a piped statement's line), and say it runs again.
      const { source: _here, ...rest } = ctx;
      const again: ReplContext = last.source ? { ...rest, source: last.source } : rest;
      // What runs, as `!run` shows it: the last query that ran need not be the last one typed.
      ctx.io.print(`→ ${queryLine(last.text)}`);
      try {
        await runQuery(again, last.text, last.origin);
      } catch (err) {
        throw runAgainError(err, last, ctx.source);
      }
    },
  },
  {
    name: 'count',
    usage: '!count',
    takesArguments: false,
    summary: 'rows of the last result',
    run: async (ctx) => {
      const r = needResult(ctx.state);
      const p = pagedOf(r);
      if (p && !p.total) {
        // Counted by a second run of the query (rest.ts); Ctrl-C stops it.
        ctx.io.progress?.({ phase: 'counting rows', done: 0, total: 0 });
        let done: boolean;
        try {
          done = await p.count(ctx.signal);
        } finally {
          ctx.io.progressDone?.();
        }
        if (!done) throw new HeapqlError('ERR_CANCELLED', 'the count was cancelled');
      }
      // A result the backend pages itself (the browser's: the server counts it).
      const total = !p && ctx.backend.totalOf ? await ctx.backend.totalOf(r, ctx.signal) : null;
      if (ctx.signal?.aborted) throw new HeapqlError('ERR_CANCELLED', 'the count was cancelled');
      const { rowCount, truncated } = total ?? r;
      ctx.io.print(`${rowCount} ${rowCount === 1 ? 'row' : 'rows'}${truncated ? ' (truncated: more matched)' : ''}`);
    },
  },
  {
    name: 'plan',
    aliases: ['explain'],
    usage: '!plan [--raw] <oql>',
    takesArguments: true,
    summary: 'the execution plan, without scanning the heap (--raw: the plan JSON the executor gets)',
    run: (ctx, a) => {
      const raw = /^\s*--raw\b/.test(a);
      const given = stripTerminator(raw ? a.replace(/^\s*--raw\b/, '') : a);
      const text = given || ctx.state.lastQuery || '';
      // The last query's, from the config file: its errors name its place there.
      const origin = given ? null : ctx.state.lastOrigin;
      if (!text) throw new ReplError('!plan needs a query: !plan SELECT …');
      const { oql } = extractViz(stripTerminator(text));
      try {
        const planned = plan(oql, { fullPath: ctx.backend.status.state === 'full', reachableOnly: ctx.backend.reachableOnly });
        // planToJson's own pretty form: a bigint literal keeps its digits, a float its point.
        ctx.io.print(raw ? planToJson(planned.plan, true) : explain(planned.plan));
      } catch (err) {
        if (isOqlError(err)) throw oqlError(ctx, err, oql, origin);
        throw err;
      }
    },
  },
  {
    name: 'row',
    usage: '!row [N|first|last|next|prev]',
    takesArguments: true,
    summary: 'one row as name = value lines (a cursor: next/prev move it)',
    run: async (ctx, a) => {
      const r = needResult(ctx.state);
      if (r.rows.length === 0) throw new ReplError('the last result has no rows');
      const arg = a.trim().toLowerCase();
      const st = ctx.state;
      let i: number;
      if (arg === '') i = st.cursor;
      else if (arg === 'first') i = 0;
      else if (arg === 'last') {
        // (A paged result's last row: every row loaded first.)
        await needRows(ctx, r, Infinity, '!row last');
        i = r.rows.length - 1;
      } else if (arg === 'next') i = st.cursor + 1;
      else if (arg === 'prev') i = st.cursor - 1;
      else i = count(arg, 1, '!row') - 1;
      if (i >= r.rows.length) await needRows(ctx, r, i + 1, `!row ${i + 1}`);
      if (i < 0 || i >= r.rows.length) throw new ReplError(`there is no row ${i + 1}: the result has rows 1-${r.rows.length}`);
      st.cursor = i;
      ctx.io.print(rowText(r, i, rowTotal(r, ctx.backend)));
    },
  },
  {
    name: 'obj',
    usage: '!obj <class>#<idx>',
    takesArguments: true,
    summary: 'one heap object: class, address, sizes, fields with types and values',
    run: async (ctx, a) => ctx.io.print(renderObject(await ctx.backend.object(await objectArg(ctx, a, '!obj')))),
  },
  {
    name: 'refs',
    usage: '!refs <obj>',
    takesArguments: true,
    summary: 'what the object refers to and what refers to it, with field names',
    run: async (ctx, a) => {
      const id = await objectArg(ctx, a, '!refs');
      const out = await ctx.backend.referents(id, 25);
      const inbound = ctx.backend.status.state === 'full' ? await ctx.backend.referrers(id, 25) : null;
      const object = (await ctx.backend.object(id)).object;
      ctx.io.print(renderRefs(`${labelText(object)}  #${id}`, out, inbound));
    },
  },
  {
    name: 'path',
    usage: '!path <obj>',
    takesArguments: true,
    summary: 'the shortest path from a GC root to the object (full analysis)',
    run: async (ctx, a) => {
      const id = await objectArg(ctx, a, '!path');
      ctx.io.print(renderPath(await fullPathLookUp('!path', () => ctx.backend.pathToRoot(id)), `#${id}`));
    },
  },
  {
    name: 'dom',
    usage: '!dom <obj>',
    takesArguments: true,
    summary: 'the immediate dominator and the biggest dominated objects (full analysis)',
    run: async (ctx, a) => {
      const id = await objectArg(ctx, a, '!dom');
      const d = await fullPathLookUp('!dom', () => ctx.backend.dominator(id, 10));
      ctx.io.print(renderDominator(d));
    },
  },
  {
    name: 'top',
    aliases: ['head'],
    usage: '!top [N]',
    takesArguments: true,
    summary: 'keep the first N rows (default 10)',
    run: async (ctx, a) => {
      const r = needResult(ctx.state);
      const n = count(a, 10, '!top');
      await needRows(ctx, r, n, '!top');
      return shape(ctx, headRows(r, n));
    },
  },
  {
    name: 'tail',
    usage: '!tail [N]',
    takesArguments: true,
    summary: 'keep the last N rows (default 10)',
    run: async (ctx, a) => {
      const r = needResult(ctx.state);
      const n = count(a, 10, '!tail');
      const p = pagedOf(r);
      if (p && n === 0) return shape(ctx, tailRows(r, 0));
      if (p) {
        // Only the last rows are read (rest.ts, `lastRows`): counted, then their stream starts
        // there (the result's cursor closed: one scan is open at a time).
        ctx.io.progress?.({ phase: 'loading rows', done: 0, total: n });
        let last: Awaited<ReturnType<typeof p.lastRows>>;
        try {
          last = await p.lastRows(n, ctx.signal, (read) => ctx.io.progress?.({ phase: 'loading rows', done: read, total: n }));
        } finally {
          ctx.io.progressDone?.();
        }
        if (last === null) throw new ReplError(`interrupted; !tail needs the last ${n} rows: run it again`);
        if (ctx.state.open === p && !p.open) ctx.state.open = null;
        if (last !== 'held') return shape(ctx, { ...tailRows(r, 0), columns: last.columns, rows: last.rows, rowCount: last.rows.length });
      }
      await needRows(ctx, r, Infinity, '!tail');
      return shape(ctx, tailRows(r, n));
    },
  },
  {
    name: 'filter',
    aliases: ['grep'],
    usage: '!filter <pat>',
    takesArguments: true,
    summary: 'keep rows with a cell containing pat (case-insensitive) or matching /regex/',
    run: async (ctx, a) => {
      if (a.trim() === '') throw new ReplError('!filter needs a pattern: a substring or /regex/');
      const r = needResult(ctx.state);
      // A bad /regex/ is said before any row is loaded.
      filterRows({ ...r, rows: [] }, a);
      await needRows(ctx, r, Infinity, '!filter');
      return shape(ctx, filterRows(r, a));
    },
  },
  {
    name: 'sort',
    usage: '!sort <col> [desc]',
    takesArguments: true,
    summary: 'sort by a column (nulls last)',
    completes: 'column',
    run: async (ctx, a) => {
      const w = words(a);
      if (w.length === 0) throw new ReplError('!sort needs a column: !sort <col> [desc]');
      const desc = w.length > 1 && /^desc$/i.test(w.at(-1)!);
      const asc = w.length > 1 && /^asc$/i.test(w.at(-1)!);
      const r = needResult(ctx.state);
      const column = desc || asc ? w.slice(0, -1).join(' ') : w.join(' ');
      // A column the result lacks is said before any row is loaded.
      columnIndex(r, column);
      await needRows(ctx, r, Infinity, '!sort');
      return shape(ctx, sortRows(r, column, desc));
    },
  },
  {
    name: 'select',
    usage: '!select <col>...',
    takesArguments: true,
    summary: 'keep only these columns',
    completes: 'column',
    run: async (ctx, a) => {
      const r = needResult(ctx.state);
      selectColumns({ ...r, rows: [] }, words(a));
      await needRows(ctx, r, Infinity, '!select');
      return shape(ctx, selectColumns(r, words(a)));
    },
  },
  {
    name: 'stats',
    usage: '!stats [col]',
    takesArguments: true,
    summary: 'n, nulls, min, max, mean, stddev, p50, p90, p99 of numeric columns',
    completes: 'column',
    run: async (ctx, a) => {
      const r = needResult(ctx.state);
      if (a.trim() !== '') columnIndex(r, a.trim());
      await needRows(ctx, r, Infinity, '!stats');
      ctx.io.print(formatTable(statsResult(columnStats(r, a.trim() === '' ? undefined : a.trim()), r), { footer: false }));
    },
  },
  {
    name: 'unique',
    usage: '!unique <col> [N]',
    takesArguments: true,
    summary: 'distinct values of a column with counts, most frequent first (default 20)',
    completes: 'column',
    run: async (ctx, a) => {
      const w = words(a);
      if (w.length === 0) throw new ReplError('!unique needs a column: !unique <col> [N]');
      // A last word that reads as a number is the count (a column is named by a name or a position first).
      const last = w.length > 1 && /^[-+]?\d/.test(w.at(-1)!) ? w.pop()! : undefined;
      const n = last === undefined ? 20 : count(last, 20, '!unique <col> [N]');
      if (n < 1) throw new ReplError(`!unique <col> [N] shows the N most frequent values, from 1, not '${last}'`);
      const r = needResult(ctx.state);
      columnIndex(r, w.join(' '));
      await needRows(ctx, r, Infinity, '!unique');
      ctx.io.print(formatTable(uniqueValues(r, w.join(' '), n)));
    },
  },
  {
    name: 'undo',
    usage: '!undo',
    takesArguments: false,
    summary: 'the result before the last shaping command (or query)',
    run: (ctx) => {
      const prev = ctx.state.undo.pop();
      if (!prev) throw new ReplError('nothing to undo');
      ctx.state.result = prev;
      ctx.state.cursor = 0;
      return show(ctx, prev);
    },
  },
  {
    name: 'save',
    usage: '!save <file>',
    takesArguments: true,
    summary: 'write the result as CSV, TSV or JSON (by the extension)',
    completes: 'file',
    run: async (ctx, a) => {
      const file = a.trim().replace(/^["']|["']$/g, '');
      if (file === '') throw new ReplError('!save needs a file name ending in .csv, .tsv or .json');
      const r = needResult(ctx.state);
      const format = fileFormat(file);
      // The whole result: a paged one's rest is loaded first (Ctrl-C stops that; nothing is written).
      await needRows(ctx, r, Infinity, '!save');
      const taken = { rows: 0 };
      let where: string | void;
      try {
        where = await ctx.io.saveFile(file, fileBlocks(r, format, taken), ctx.signal);
      } catch (err) {
        if (err instanceof SaveInterrupted) throw new ReplError(`interrupted; !save stopped after ${taken.rows} of ${r.rows.length} rows: ${err.message}`);
        throw new ReplError(`cannot write ${file}: ${(err as Error).message}`);
      }
      ctx.io.print(`saved ${r.rowCount} rows to ${where ?? file}`);
    },
  },
  {
    name: 'set',
    usage: '!set limit N',
    takesArguments: true,
    summary: 'rows shown of a result (0 = all); !set alone shows the settings',
    completes: 'set',
    run: (ctx, a) => {
      const w = words(a);
      if (w.length === 0) {
        ctx.io.print(`limit = ${ctx.state.limit}${ctx.state.limit === 0 ? ' (all rows)' : ''}\nreachable = ${ctx.backend.reachableOnly ? 'on' : 'off'}`);
        return;
      }
      if (w[0]!.toLowerCase() !== 'limit') throw new ReplError(`unknown setting '${w[0]}': the setting is limit (!set limit N, 0 = all rows)`);
      // Checked before it is stored: a refused command changes nothing.
      const limit = count(w[1] ?? '', -1, '!set limit');
      if (limit < 0) throw new ReplError('!set limit needs a number (0 = all rows)');
      ctx.state.limit = limit;
      ctx.io.print(`limit = ${ctx.state.limit}${ctx.state.limit === 0 ? ' (all rows)' : ''}`);
    },
  },
  {
    name: 'classes',
    usage: '!classes [pat]',
    takesArguments: true,
    summary: 'class names containing pat (case-insensitive)',
    completes: 'class',
    run: (ctx, a) => {
      const names = ctx.backend.classes(a.trim() || undefined);
      const shown = names.slice(0, 200);
      const footer = `(${names.length} class${names.length === 1 ? '' : 'es'}${names.length > shown.length ? `, first ${shown.length} shown; narrow with a pattern` : ''})`;
      // No grid above "(0 classes)": an empty one would print an empty line.
      ctx.io.print(shown.length === 0 ? footer : `${grid(shown)}\n${footer}`);
    },
  },
  {
    name: 'describe',
    usage: '!describe <class>',
    takesArguments: true,
    summary: 'fields with types, instance count, superclass chain',
    completes: 'class',
    run: async (ctx, a) => {
      const name = a.trim();
      if (name === '') throw new ReplError('!describe needs a class name');
      const views = await ctx.backend.describeClass(name);
      if (views.length === 0) throw noClass(ctx, name);
      ctx.io.print(views.map(renderClass).join('\n\n'));
    },
  },
  reachableMode('reachable', true, 'queries see only objects reachable from GC roots'),
  reachableMode('all', false, 'queries see every object, unreachable ones too'),
  {
    name: 'run',
    usage: '!run [<name>]',
    takesArguments: true,
    summary: 'run a named query; alone: list them',
    completes: 'named',
    run: async (ctx, a) => {
      const name = a.trim();
      const stored = ctx.state.stored;
      if (name === '') {
        const width = Math.max(...NAMED_QUERIES.map((q) => q.name.length), ...stored.map((q) => q.name.length));
        const lines = NAMED_QUERIES.map((q) => `${q.name.padEnd(width)}  ${q.fullPath ? '[needs !analyze] ' : ''}${q.description}`);
        for (const q of stored) lines.push(`${q.name.padEnd(width)}  [config] ${q.source}`);
        ctx.io.print(lines.join('\n'));
        return;
      }
      // A config entry of that name comes first: the user named it so.
      const mine = stored.find((q) => q.name === name);
      if (mine) {
        ctx.io.print(`→ ${queryLine(mine.oql)}`);
        // An OQL error, or a warning about its `-- @viz` line, names the config file's line, not the `!run`.
        await runQuery(ctx, mine.oql, mine);
        return;
      }
      const named = findNamedQuery(name);
      if (!named) {
        const near = suggestNamedQueries(name);
        throw new ReplError(`no named query '${name}'${near.length ? `; did you mean ${near.join(', ')}?` : ''} (!run lists them)`);
      }
      if (named.fullPath && ctx.backend.status.state !== 'full') throw new ReplError(`'${named.name}' needs the full analysis: run !analyze first`);
      ctx.io.print(`→ ${queryLine(named.oql)}`);
      await runQuery(ctx, named.oql);
    },
  },
  {
    name: 'analyze',
    usage: '!analyze',
    takesArguments: false,
    summary: 'the full analysis (retained sizes, dominators, referrers, paths); Ctrl-C cancels',
    run: async (ctx) => {
      if (ctx.backend.status.state === 'full') {
        ctx.io.print('the full analysis is already there');
        return;
      }
      try {
        await ctx.backend.analyze({ reachableOnly: false, onProgress: (e) => ctx.io.progress?.(e), signal: ctx.signal });
      } finally {
        ctx.io.progressDone?.();
      }
      ctx.io.print('full analysis ready: @retainedHeapSize, dominators(), !refs, !path and !dom work now');
    },
  },
];

const byName = new Map<string, Command>();
for (const c of COMMANDS) for (const n of [c.name, ...(c.aliases ?? [])]) byName.set(n, c);

/** Every command name and alias, for completion. */
export const COMMAND_NAMES: string[] = [...byName.keys()].sort();

export { closest };

export function findCommand(name: string): Command | undefined {
  return byName.get(name.toLowerCase());
}

/**
 * An error of `!last`'s run: one that names its place (an OQL error, at the place the query
 * was written) gets a line saying `!last` ran it again; any other names the query run again
 * (`stdin:2`'s), after the place of the `!last` (`stdin:5: `, which the dispatcher adds). A
 * cancellation stays `cancelled`.
 */
function runAgainError(err: unknown, last: LastRun, here: StatementSource | undefined): unknown {
  if (err instanceof HeapqlError && err.code === 'ERR_CANCELLED') return err;
  const at = here ? ` at ${here.name}:${here.line}` : '';
  if (err instanceof ReplError && err.located) return new ReplError(`${err.message}\n  (run again by !last${at})`, true);
  const written = last.origin ? last.origin.source : last.source ? `${last.source.name}:${last.source.line}` : null;
  return new ReplError(`!last, running the query${written ? ` of ${written}` : ''} again: ${errorMessage(err)}`);
}

/** Runs one `!command args` statement; a `;` after it ends it (`!count;`, `!quit;`), as after a query. */
export async function runCommand(ctx: ReplContext, text: string): Promise<void> {
  const m = /^\s*[!/]([^\s;]*)\s*([^]*)$/.exec(text)!;
  const name = m[1]!;
  const command = findCommand(name);
  if (!command) {
    const near = closest(name, COMMANDS.map((c) => c.name), 3);
    throw new ReplError(`unknown command !${name}${near.length ? `; did you mean ${near.map((n) => `!${n}`).join(', ')}?` : ''} (!help lists them)`);
  }
  const args = m[2]!.replace(/;\s*$/, '');
  if (!command.takesArguments && args.trim() !== '') throw new ReplError(`!${name} takes no argument (not '${args.trim()}')`);
  await command.run(ctx, args);
}
