/**
 * The rows a `!` command needs of a paged result (pages.ts), fetched before it runs, so that it
 * answers for the whole result, as in the terminal REPL (ts/repl/commands.ts `needRows`, which
 * loads a terminal result's rest from its paused scan): `!tail`, `!sort`, `!filter`, `!select`,
 * `!stats`, `!unique`, `!save` and `!row last` need every row, `!row N` and `!top N` the first
 * N; a command that needs only the rows the page holds (`!row 3`, `!top 10`, `!count`, which
 * the server counts) runs at once. The rows come from the result's cursor on the server, a
 * page at a time, the progress saying `loading rows N of M`; Escape (Ctrl-C, the prompt's Stop)
 * stops the fetch and the command, keeping the rows fetched and the cursor (the command run
 * again fetches on from there); the cursor closed (the table's Stop, the next query, the
 * server's idle time) ends it, and the command is refused with the reason: the rest is to be had
 * by running the query again. A column or a `/regex/` the command cannot use is refused before
 * anything is fetched, as in the terminal.
 */
import type { ReplBackend, ReplIO } from '../repl/backend.js';
import { findCommand, runCommand, type ReplState } from '../repl/commands.js';
import { isCommand } from '../repl/statement.js';
import type { QueryResult } from '../query/schema.js';
import type { Pages } from './pages.js';

/** The commands that act on every row of the result (the terminal loads them all first). */
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
 * will refuse by itself), else the message it is refused with: Escape stopped the fetch, or the
 * rest cannot be fetched (the cursor was closed).
 */
export async function fetchWhatCommandNeeds(
  pages: Pages,
  backend: ReplBackend,
  state: ReplState,
  statement: string,
  signal: AbortSignal,
  progress: (text: string) => void,
): Promise<string | null> {
  const result = state.result;
  const paged = pages.stateOf(result);
  if (!result || !paged || paged.done) return null;
  const wanted = rowsWanted(statement, state);
  if (!wanted || result.rows.length >= wanted.rows) return null;
  if (await refusesBeforeRows(statement, backend, state)) return null;
  const needs = `${wanted.command} needs ${wanted.rows === Infinity ? 'every row' : `${wanted.rows} rows`}`;
  const held = () => `${result.rows.length}${paged.total ? ` of ${paged.total.rowCount}` : ''}`;
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
