/**
 * The rows a `!` command needs of a paged result (pages.ts), fetched before it runs, so that it
 * answers for the whole result, as in the terminal REPL (ts/repl/commands.ts `needRows`, which
 * loads a terminal result's rest from its paused scan): `!sort`, `!filter`, `!select`,
 * `!stats`, `!unique` and `!save` need every row, `!row N` and `!top N` the first N; a command
 * that needs only the rows the page holds (`!row 3`, `!top 10`, `!count`, which the server
 * counts) runs at once. The rows come from the result's cursor on the server, a page at a time,
 * the progress saying `loading rows N of M`; Escape (Ctrl-C, the prompt's Stop) stops the fetch
 * and the command, keeping the rows fetched and the cursor (the command run again fetches on
 * from there); the cursor closed (the table's Stop, the next query, the server's idle time) ends
 * it, and the command is refused with the reason: the rest is to be had by running the query
 * again. A column or a `/regex/` the command cannot use is refused before anything is fetched,
 * as in the terminal.
 *
 * `!tail [N]` and `!row last` need only the last rows, and only they are fetched, as the
 * terminal's `!tail` reads them: the result is counted (the server's count), then the last rows
 * are read by a run of the query that starts where they do (`Pages.lastRows`), and the command
 * runs on them (`runOnFetched`). When they start within the rows held, the rows up to the end
 * are fetched from the cursor as above (no more than the last rows).
 *
 * `!row N` (and `!row`, `!row next`, `!row prev` when the row cursor is on a row the page does
 * not hold: after `!row last`, or such a `!row N`) reads its row alone when it lies more than
 * one page (`pageRows`) past the rows held: a run of the query that starts there reads that row
 * (`Pages.rowAt`), the cursor staying where it is and the row not kept (the next `!row` reads
 * again). Up to one page past them, the rows up to it are fetched from the cursor, as before:
 * they are no more than the next page, and the server does not run the query again from the
 * start for them. A row past the count known (the server's count) is refused at once.
 */
import type { ReplBackend, ReplIO } from '../repl/backend.js';
import { findCommand, runCommand, type ReplState } from '../repl/commands.js';
import { isCommand } from '../repl/statement.js';
import type { Column, QueryResult, Value } from '../query/schema.js';
import { rowText } from '../repl/table.js';
import type { LastRows, Pages } from './pages.js';

/**
 * The commands that act on every row of the result (the terminal loads them all first). `!tail`
 * (and `!row last`) read only the last rows (`lastRowsWanted`), unless those start within the
 * rows held: then the rows to the end are fetched as for these.
 */
const EVERY_ROW = new Set(['tail', 'filter', 'sort', 'select', 'stats', 'unique', 'save']);

/** The rows of the current result a command needs: the first `rows` (Infinity: every row). */
export interface RowsWanted {
  /** The command as its messages name it (`!tail`, `!row last`, `!row 1500`). */
  command: string;
  rows: number;
  /** For `!row N`, `first`, `next`, `prev` and bare `!row` (not `last`): the row said, 0-based. */
  row?: number;
}

/** A whole number as the commands take one (`!top 20`), or null. */
function wholeNumber(text: string): number | null {
  const n = Number(text);
  return text !== '' && Number.isInteger(n) && n >= 0 ? n : null;
}

/**
 * The rows of the current result `statement` needs, or null: it is no command that reads rows,
 * or its argument is one it refuses (it runs at once and says so).
 */
export function rowsWanted(statement: string, state: Pick<ReplState, 'cursor'>): RowsWanted | null {
  if (!isCommand(statement)) return null;
  const m = /^\s*[!/](\S*)\s*([^]*)$/.exec(statement);
  const name = m ? findCommand(m[1]!)?.name : undefined;
  if (!m || !name) return null;
  const args = m[2]!.replace(/;\s*$/, '').trim();
  if (EVERY_ROW.has(name)) return { command: `!${name}`, rows: Infinity };
  if (name === 'top') {
    const n = args === '' ? 10 : wholeNumber(args);
    return n === null ? null : { command: '!top', rows: n };
  }
  if (name !== 'row') return null;
  const arg = args.toLowerCase();
  if (arg === 'last') return { command: '!row last', rows: Infinity };
  const moves: Record<string, number> = { '': state.cursor, first: 0, next: state.cursor + 1, prev: state.cursor - 1 };
  const index = arg in moves ? moves[arg]! : (wholeNumber(arg) ?? 0) - 1;
  return index < 0 ? null : { command: `!row ${index + 1}`, rows: index + 1, row: index };
}

/** What `!tail [N]` and `!row last` need: the result's last `n` rows. */
export interface LastRowsWanted {
  command: '!tail' | '!row last';
  n: number;
}

/**
 * The last rows `statement` needs (`!tail [N]`, `!row last`), or null: another command, or an
 * argument the command refuses (it runs at once and says so).
 */
export function lastRowsWanted(statement: string): LastRowsWanted | null {
  if (!isCommand(statement)) return null;
  const m = /^\s*[!/](\S*)\s*([^]*)$/.exec(statement);
  const name = m ? findCommand(m[1]!)?.name : undefined;
  if (!m || !name) return null;
  const args = m[2]!.replace(/;\s*$/, '').trim();
  if (name === 'row') return args.toLowerCase() === 'last' ? { command: '!row last', n: 1 } : null;
  if (name !== 'tail') return null;
  const n = args === '' ? 10 : wholeNumber(args);
  return n === null ? null : { command: '!tail', n };
}

/** `!tail` to run on the result's last rows, fetched for it (`runOnFetched`). */
export interface OnLastRows {
  command: '!tail';
  last: LastRows;
}

/** A row read alone for `!row` (`!row last`, `!row N` far past the rows held), to say (`runOnFetched`). */
export interface OnRow {
  command: '!row';
  /** Its place in the result, 0-based. */
  index: number;
  row: Value[];
  columns: Column[];
  /** The result's count as `!row` says it: the server's, else at least this row (`N+`). */
  of: string;
}

/**
 * Whether the command refuses before it reads a row (a column the result lacks, a bad
 * `/regex/`, a file name `!save` cannot take): it is run on a stand-in of the result whose rows
 * cannot be read, its output dropped, so the checks are the command's own, made as it always
 * makes them before it needs the rows. Then it runs on the rows held, refusing the same way, and
 * nothing is fetched for it.
 */
async function refusesBeforeRows(statement: string, backend: ReplBackend, state: ReplState): Promise<boolean> {
  let read = false;
  const standIn = { ...state.result! } as QueryResult;
  // Not enumerable: a command's `{ ...r, rows: [] }` (a check on no rows) does not read it.
  Object.defineProperty(standIn, 'rows', {
    enumerable: false,
    get() {
      read = true;
      throw new Error('the rows are read');
    },
  });
  const io: ReplIO = {
    print() {},
    error() {},
    quit() {},
    // `!save` reads the rows as the file's first block is taken.
    saveFile(_path, content) {
      for (const _block of content) break;
    },
  };
  try {
    await runCommand({ backend, io, state: { ...state, result: standIn, undo: [], open: null } }, statement);
  } catch {
    return !read;
  }
  return false;
}

/**
 * Fetches the rows of the current result that `statement` needs and the page does not hold yet
 * (nothing for a whole result, or a command that needs none of them). `progress` is told the
 * progress while rows come. Returns null when the command can run (it has what it needs, or it
 * will refuse by itself); the last rows fetched for `!tail`, or the row read for `!row last` or
 * a `!row N` far past the rows held, to run it on (`runOnFetched`); else the message it is
 * refused with: Escape stopped the fetch, the rows cannot be fetched (the cursor was closed),
 * or there is no such row.
 */
export async function fetchWhatCommandNeeds(
  pages: Pages,
  backend: ReplBackend,
  state: ReplState,
  statement: string,
  signal: AbortSignal,
  progress: (text: string) => void,
): Promise<string | OnLastRows | OnRow | null> {
  const result = state.result;
  const paged = pages.stateOf(result);
  if (!result || !paged || paged.done) return null;
  const wanted = rowsWanted(statement, state);
  if (!wanted || result.rows.length >= wanted.rows) return null;
  if (await refusesBeforeRows(statement, backend, state)) return null;
  const held = () => `${result.rows.length}${paged.total ? ` of ${paged.total.rowCount}` : ''}`;
  const last = lastRowsWanted(statement);
  if (last && last.n > 0) {
    const needsLast = `${last.command} needs the last ${last.n === 1 ? 'row' : `${last.n} rows`}`;
    if (paged.open && !paged.total) progress(`counting the rows to find the last ${last.n === 1 ? 'row' : last.n} (Escape stops)`);
    let got: Awaited<ReturnType<Pages['lastRows']>>;
    try {
      got = await pages.lastRows(result, last.n, signal, (read, of) =>
        progress(`loading the last ${of === 1 ? 'row' : `${of} rows`} of ${paged.total!.rowCount}${read > 0 ? `: ${read} fetched` : ''} (Escape stops)`),
      );
    } catch (err) {
      if (signal.aborted) return `interrupted; ${needsLast}: run it again`;
      return `${needsLast}: ${(err as Error).message}`;
    }
    if (got === null) return `${needsLast}, and ${held()} are fetched; ${paged.closedWhy ?? 'the rest cannot be fetched: run the query again'}`;
    if (got !== 'held') {
      if (got.rows.length === 0) return `${needsLast}, and the server read none from row ${Math.max(0, got.total.rowCount - last.n) + 1} of ${got.total.rowCount}: run the query again`;
      if (last.command === '!tail') return { command: '!tail', last: got };
      const { rowCount } = got.total;
      return { command: '!row', index: rowCount - 1, row: got.rows[got.rows.length - 1]!, columns: got.columns, of: String(rowCount) };
    }
    // They start within the rows held: the rows up to the end are fetched on from the cursor.
  }
  if (wanted.row !== undefined) {
    const index = wanted.row;
    if (paged.total && index >= paged.total.rowCount) return noRow(index, paged.total.rowCount);
    // Far past the rows held (more than a page): that row alone, by a run that starts there.
    if (paged.open && index + 1 - result.rows.length > paged.pageRows) return readRow(pages, result, index, signal, progress);
  }
  const needs = `${wanted.command} needs ${wanted.rows === Infinity ? 'every row' : `${wanted.rows} rows`}`;
  if (paged.open) {
    const tell = () =>
      progress(`loading rows ${result.rows.length}${paged.total ? ` of ${paged.total.rowCount} (` : ' (of a total still being counted; '}Escape stops)`);
    pages.watch(result, tell);
    tell();
    try {
      await pages.fetchUpTo(result, wanted.rows, signal);
    } catch {
      // Only Escape (the statement's signal) ends a fetch with an error: the rows and the cursor stay.
      return `interrupted; ${needs}, and ${held()} are fetched: run it again to fetch on from there`;
    } finally {
      pages.unwatch(result, tell);
    }
  }
  if (paged.done || result.rows.length >= wanted.rows) return null;
  return `${needs}, and ${held()} are fetched; ${paged.closedWhy ?? 'the rest cannot be fetched: run the query again'}`;
}

/** What `!row` says of a row past the result's `rowCount` rows (the command's own words). */
function noRow(index: number, rowCount: number): string {
  return `there is no row ${index + 1}: the result has rows 1-${rowCount}`;
}

/**
 * Reads row `index` of a paged result alone (`Pages.rowAt`), for `!row`: the row to say, or the
 * message `!row` is refused with (Escape, the cursor closed, a failed read, no such row: the
 * result's count said, waited for when it had not come).
 */
async function readRow(pages: Pages, result: QueryResult, index: number, signal: AbortSignal, progress: (text: string) => void): Promise<string | OnRow> {
  const paged = pages.stateOf(result)!;
  const needsRow = `!row needs row ${index + 1}`;
  const tell = () => progress(`loading row ${index + 1}${paged.total ? ` of ${paged.total.rowCount} (` : ' (of a total still being counted; '}Escape stops)`);
  pages.watch(result, tell);
  tell();
  let got: Awaited<ReturnType<Pages['rowAt']>>;
  try {
    got = await pages.rowAt(result, index, signal);
  } catch (err) {
    if (signal.aborted) return `interrupted; ${needsRow}: run it again`;
    return `${needsRow}: ${(err as Error).message}`;
  } finally {
    pages.unwatch(result, tell);
  }
  const held = `${result.rows.length}${paged.total ? ` of ${paged.total.rowCount}` : ''}`;
  if (got === null) return `${needsRow}, and ${held} are fetched; ${paged.closedWhy ?? 'the rest cannot be fetched: run the query again'}`;
  if (got.row !== null) {
    const of = paged.total ? String(paged.total.rowCount) : got.last ? String(index + 1) : `${index + 1}+`;
    return { command: '!row', index, row: got.row, columns: got.columns, of };
  }
  // The result ends before it: its count says where.
  if (!paged.total && paged.open && paged.countFailed === null) progress(`counting the rows: the result ends before row ${index + 1} (Escape stops)`);
  const total = await pages.totalOf(result, signal);
  if (signal.aborted) return `interrupted; ${needsRow}: run it again`;
  if (total && index < total.rowCount) return `${needsRow}, and the server read none from row ${index + 1} of ${total.rowCount}: run the query again`;
  if (total) return noRow(index, total.rowCount);
  return `there is no row ${index + 1}: the result has fewer rows, and the server could not count them: ${paged.countFailed ?? paged.closedWhy ?? 'no count came'}`;
}

/**
 * Runs a command on the rows fetched for it. `!tail [N]` is the command table's own, run on a
 * stand-in of the result that holds the last rows (the result it makes goes on as `!tail`'s;
 * the result, not the stand-in, is what `!undo` brings back). `!row` (`!row last`, `!row N`
 * far past the rows held) says its row as `!row` says a row, the row cursor put on it (`!row
 * prev`, `next` or bare `!row` then read their row as `!row N` does).
 */
export async function runOnFetched(
  repl: { readonly state: ReplState; execute(statement: string, signal?: AbortSignal): Promise<boolean> },
  io: Pick<ReplIO, 'print'>,
  statement: string,
  signal: AbortSignal,
  on: OnLastRows | OnRow,
): Promise<void> {
  const state = repl.state;
  const result = state.result!;
  if (on.command === '!row') {
    state.cursor = on.index;
    io.print(rowText({ ...result, columns: on.columns, rows: [on.row], rowCount: 1 }, on.index, on.of, 0));
    return;
  }
  const { rows, columns, total } = on.last;
  const standIn: QueryResult = { ...result, columns, rows, rowCount: rows.length, truncated: total.truncated };
  state.result = standIn;
  try {
    await repl.execute(statement, signal);
  } finally {
    if (state.result === standIn) state.result = result;
    const at = state.undo.lastIndexOf(standIn);
    if (at >= 0) state.undo[at] = result;
  }
}
