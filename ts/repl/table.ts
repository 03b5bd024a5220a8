/**
 * Shaping a query result without running anything again: column look-up by name, alias or
 * 1-based position; filter, sort, select, top/tail; statistics and value counts. Pure
 * functions (result in, new result out) — the terminal and the browser REPL share them.
 */
import { formatValue } from '../query/format.js';
import { compareText } from '../text-order.js';
import type { Column, QueryResult, Value } from '../query/schema.js';
import { displayWidth, padEndWidth, terminalText } from '../terminal-text.js';
import { ReplError } from './errors.js';

/** The column index a user means: a 1-based position, or a name / alias (case-insensitive, `@` optional). */
export function columnIndex(result: QueryResult, name: string): number {
  const text = name.trim();
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n >= 1 && n <= result.columns.length) return n - 1;
    throw new ReplError(`there is no column ${n}: the result has ${result.columns.length} (${columnList(result)})`);
  }
  const bare = (s: string) => s.toLowerCase().replace(/^@/, '');
  const exact = result.columns.findIndex((c) => c.name === text);
  if (exact >= 0) return exact;
  const loose = result.columns.findIndex((c) => bare(c.name) === bare(text));
  if (loose >= 0) return loose;
  // A field path's last part (`createdAt` for `s.createdAt`), when only one column ends so.
  const tail = result.columns.flatMap((c, i) => (bare(c.name).endsWith(`.${bare(text)}`) ? [i] : []));
  if (tail.length === 1) return tail[0]!;
  throw new ReplError(`no column '${text}' in the last result; its columns are ${columnList(result)} (or give ${result.columns.length === 1 ? 'its position, 1' : `a position 1-${result.columns.length}`})`);
}

function columnList(result: QueryResult): string {
  return result.columns.map((c, i) => `${i + 1}:${c.name}`).join(', ');
}

function withRows(result: QueryResult, rows: Value[][], columns: Column[] = result.columns): QueryResult {
  const { note: _note, ...rest } = result;
  return { ...rest, columns, rows, rowCount: rows.length };
}

/** A `/regex/flags` pattern or a case-insensitive substring. */
export function matcher(pattern: string): (text: string) => boolean {
  const re = /^\/(.*)\/([a-z]*)$/.exec(pattern.trim());
  if (re) {
    let compiled: RegExp;
    try {
      compiled = new RegExp(re[1]!, re[2]!.includes('i') ? re[2] : `${re[2]}i`);
    } catch (err) {
      throw new ReplError(`bad regular expression ${pattern}: ${(err as Error).message}`);
    }
    return (t) => compiled.test(t);
  }
  const needle = pattern.trim().toLowerCase();
  return (t) => t.toLowerCase().includes(needle);
}

/** Rows with any cell matching. */
export function filterRows(result: QueryResult, pattern: string): QueryResult {
  const test = matcher(pattern);
  return withRows(result, result.rows.filter((row) => row.some((v) => test(formatValue(v)))));
}

function isNumeric(v: Value): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

function compareValues(a: Value, b: Value): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1; // nulls last
  // A number and an exact bigint (a long beyond 2^53) compare as the mathematical values.
  if (isNumeric(a) && isNumeric(b)) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  // Objects in index order (= address order).
  if (typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) return a.objectId - b.objectId;
  // Texts (and any other values by their text) as Java and the executor order strings.
  return compareText(formatValue(a), formatValue(b));
}

/** Sorted by one column (stable; nulls last in both directions). */
export function sortRows(result: QueryResult, column: string, descending: boolean): QueryResult {
  const i = columnIndex(result, column);
  const rows = [...result.rows].sort((x, y) => {
    const a = x[i]!;
    const b = y[i]!;
    if (a === null || b === null) return compareValues(a, b);
    return descending ? compareValues(b, a) : compareValues(a, b);
  });
  return withRows(result, rows);
}

/** Only the named columns, in the order given. */
export function selectColumns(result: QueryResult, names: string[]): QueryResult {
  if (names.length === 0) throw new ReplError('!select needs at least one column');
  const idx = names.map((n) => columnIndex(result, n));
  return withRows(result, result.rows.map((r) => idx.map((i) => r[i]!)), idx.map((i) => result.columns[i]!));
}

export function headRows(result: QueryResult, n: number): QueryResult {
  return withRows(result, result.rows.slice(0, n));
}

export function tailRows(result: QueryResult, n: number): QueryResult {
  return withRows(result, n === 0 ? [] : result.rows.slice(-n));
}

export interface ColumnStats {
  column: string;
  n: number;
  nulls: number;
  /** min, max and the percentiles are cells of the column, exact (a long beyond 2^53 a bigint). */
  min: number | bigint;
  max: number | bigint;
  mean: number;
  /** Population standard deviation. */
  stddev: number;
  p50: number | bigint;
  p90: number | bigint;
  p99: number | bigint;
}

/** Nearest-rank percentile of ascending values. */
function percentile(sorted: (number | bigint)[], p: number): number | bigint {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** Statistics of the numeric columns (or of the one named, which must hold numbers). */
export function columnStats(result: QueryResult, column?: string): ColumnStats[] {
  const indices = column !== undefined ? [columnIndex(result, column)] : result.columns.map((_, i) => i);
  // (Said so: with no rows no column holds numbers, and "does not hold numbers" would blame the column.)
  if (result.rows.length === 0) throw new ReplError('the last result has no rows: !stats has nothing to count');
  const out: ColumnStats[] = [];
  for (const i of indices) {
    const cells = result.rows.map((r) => r[i]!);
    const exact = cells.filter(isNumeric);
    const nulls = cells.filter((v) => v === null).length;
    if (exact.length === 0 || exact.length + nulls < cells.length) {
      if (column !== undefined && nulls === cells.length) throw new ReplError(`column '${result.columns[i]!.name}' holds only NULLs (${cells.length} of them): !stats has no number to count`);
      if (column !== undefined) throw new ReplError(`column '${result.columns[i]!.name}' does not hold numbers; !stats needs a numeric column`);
      continue;
    }
    const sorted = [...exact].sort(compareValues);
    const nums = exact.map(Number);
    const mean = nums.reduce((s, x) => s + x, 0) / nums.length;
    const variance = nums.reduce((s, x) => s + (x - mean) ** 2, 0) / nums.length;
    out.push({
      column: result.columns[i]!.name,
      n: exact.length,
      nulls,
      min: sorted[0]!,
      max: sorted.at(-1)!,
      mean,
      stddev: Math.sqrt(variance),
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
    });
  }
  if (out.length === 0) throw new ReplError('the last result has no numeric column; name one with !stats <column>');
  return out;
}

/** The statistics as a result table (one row per column). */
export function statsResult(stats: ColumnStats[], base: QueryResult): QueryResult {
  const keys = ['column', 'n', 'nulls', 'min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const;
  // Not rounded here: the table shows about ten significant digits, and a column of 0.000123s
  // must not read 0 (the exact values stay for !save).
  const rows = stats.map((s) => keys.map((k) => (k === 'column' ? s.column : s[k]) as Value));
  return {
    name: `${base.name}:stats`,
    oql: base.oql,
    columns: keys.map((k) => ({ name: k, type: k === 'column' ? 'string' : 'number' })),
    rows,
    rowCount: rows.length,
    truncated: false,
    elapsedMs: 0,
  };
}

/** Distinct values of a column with their counts, most frequent first (the top `n`). */
export function uniqueValues(result: QueryResult, column: string, n: number): QueryResult {
  const i = columnIndex(result, column);
  const counts = new Map<string, number>();
  for (const r of result.rows) {
    const key = formatValue(r[i]!);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const total = result.rows.length || 1;
  const rows = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
    .slice(0, n)
    .map(([value, count]) => [value, count, Math.round((count / total) * 1000) / 10] as Value[]);
  return {
    name: `${result.name}:unique`,
    oql: result.oql,
    columns: [
      { name: result.columns[i]!.name, type: 'string' },
      { name: 'count', type: 'number' },
      { name: '%', type: 'number' },
    ],
    rows,
    rowCount: rows.length,
    truncated: counts.size > n,
    elapsedMs: 0,
    ...(counts.size > n ? { note: `${counts.size} distinct values; showing the ${n} most frequent` } : {}),
  };
}

/** What `!row` prints of row `index` (from 0) of `of` rows: its number, then `rowLines`. */
export function rowText(result: QueryResult, index: number, of: string | number, at = index): string {
  return `row ${index + 1} of ${of}\n${rowLines(result, at)}`;
}

/** One row as `name = value` lines (whole values, escaped for a terminal as table cells are). */
export function rowLines(result: QueryResult, index: number): string {
  const row = result.rows[index]!;
  const names = result.columns.map((c) => terminalText(c.name));
  const width = Math.max(...names.map(displayWidth));
  return names.map((name, i) => `${padEndWidth(name, width)} = ${terminalText(formatValue(row[i]!))}`).join('\n');
}
