/**
 * A long result table written a block of rows at a time (`!set limit 0`, or a limit above a
 * block): formatting every row before the first line appears took seconds and held every line
 * of a result of hundreds of thousands of rows. The first block sets the columns' widths, as
 * `heapql query` does (its header, rule and rows are `formatTable`'s of those rows alone); a
 * later cell too wide for its column widens it from its row on, and the footer says from which
 * row (psql with FETCH_COUNT realigns each batch without a word). Nothing is cut beyond what
 * every table cuts (a cell past 80 terminal cells). Each block waits until the front can take
 * it, and Ctrl-C (the statement's signal) stops the listing between blocks; the footer then
 * says how many rows were shown. Browser-safe: the front's `write` does the waiting.
 */
import { StreamedTable } from '../query/format.js';
import type { QueryResult } from '../query/schema.js';

/** Rows whose text goes out at a time; the first block's also set the columns' widths. */
export const BLOCK_ROWS = 1000;

/** How a listing ended: every row shown, stopped by Ctrl-C, or the output gone. */
export type ListingEnd = 'done' | 'interrupted' | 'closed';

/** Where the blocks go: a front's `ReplIO.write`. */
export type BlockWrite = (text: string, signal?: AbortSignal) => Promise<boolean>;

/**
 * Writes the first `shown` rows of `result` as a table, a block at a time, then `footer(rows
 * written)` (with the widening note when a column widened). Nothing more is written once the
 * output is closed. Returns how it ended and how many rows were written.
 */
export async function writeLongTable(
  write: BlockWrite,
  result: QueryResult,
  shown: number,
  footer: (end: Exclude<ListingEnd, 'closed'>, rowsWritten: number) => string,
  signal?: AbortSignal,
): Promise<{ end: ListingEnd; rowsWritten: number }> {
  const first = Math.min(BLOCK_ROWS, shown);
  const table = new StreamedTable(result.columns.map((c) => c.name), result.rows.slice(0, first));
  let end: ListingEnd = 'done';
  let written = first;
  if (!(await write(table.begin(), signal))) end = signal?.aborted ? 'interrupted' : 'closed';
  // Each block is made only when the one before it has gone out.
  while (end === 'done' && written < shown) {
    if (signal?.aborted) {
      end = 'interrupted';
      break;
    }
    const next = Math.min(written + BLOCK_ROWS, shown);
    const ok = await write(table.rows(result.rows.slice(written, next)), signal);
    written = next;
    if (!ok) end = signal?.aborted ? 'interrupted' : 'closed';
  }
  if (end === 'closed') return { end, rowsWritten: written };
  // A Ctrl-C that came as the last block went out stopped nothing.
  if (written >= shown) end = 'done';
  let text = `${footer(end, written)}\n`;
  if (table.widenedAt !== null) {
    text += `note: a wider cell from row ${table.widenedAt} on widened its column there (the widths came from the first ${first} rows)\n`;
  }
  if (!(await write(text))) return { end: 'closed', rowsWritten: written };
  return { end, rowsWritten: written };
}
