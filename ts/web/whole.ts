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
 * runs on them (`runOnLastRows`). When they start within the rows held, the rows up to the end
 * are fetched from the cursor as above (no more than the last rows).
 */
import type { ReplBackend, ReplIO } from '../repl/backend.js';
import { findCommand, runCommand, type ReplState } from '../repl/commands.js';
import { isCommand } from '../repl/statement.js';
import type { QueryResult } from '../query/schema.js';
import { rowLines } from '../repl/table.js';
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
  return index < 0 ? null : { command: `!row ${index + 1}`, rows: index + 1 };
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

/** A command to run on the result's last rows, fetched for it (`runOnLastRows`). */
export interface OnLastRows {
  command: LastRowsWanted['command'];
  last: LastRows;
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
 * will refuse by itself); the last rows fetched for `!tail` or `!row last`, to run it on
 * (`runOnLastRows`); else the message it is refused with: Escape stopped the fetch, or the
 * rows cannot be fetched (the cursor was closed).
 */
export async function fetchWhatCommandNeeds(
  pages: Pages,
  backend: ReplBackend,
  state: ReplState,
  statement: string,
  signal: AbortSignal,
  progress: (text: string) => void,
): Promise<string | OnLastRows | null> {
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
      return { command: last.command, last: got };
    }
    // They start within the rows held: the rows up to the end are fetched on from the cursor.
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

/**
 * Runs `!tail [N]` or `!row last` on the result's last rows, fetched for it: `!tail` is the
 * command table's own, run on a stand-in of the result that holds those rows (the result it
 * makes goes on as `!tail`'s; the result, not the stand-in, is what `!undo` brings back);
 * `!row last` says the result's last row as `!row` says a row, the row cursor put on it (`!row
 * prev` then fetches up to the row before it, as `!row N` does).
 */
export async function runOnLastRows(
  repl: { readonly state: ReplState; execute(statement: string, signal?: AbortSignal): Promise<boolean> },
  io: Pick<ReplIO, 'print'>,
  statement: string,
  signal: AbortSignal,
  on: OnLastRows,
): Promise<void> {
  const state = repl.state;
  const result = state.result!;
  const { rows, columns, total } = on.last;
  const standIn: QueryResult = { ...result, columns, rows, rowCount: rows.length, truncated: total.truncated };
  if (on.command === '!row last') {
    state.cursor = total.rowCount - 1;
    io.print(`row ${total.rowCount} of ${total.rowCount}\n${rowLines(standIn, rows.length - 1)}`);
    return;
  }
  state.result = standIn;
  try {
    await repl.execute(statement, signal);
  } finally {
    if (state.result === standIn) state.result = result;
    const at = state.undo.lastIndexOf(standIn);
    if (at >= 0) state.undo[at] = result;
  }
}
