// Result formatting: terminal table, JSON, CSV (RFC 4180) and TSV.
import { stringifyJson } from './json.js';
import type { QueryResult, Value } from './schema.js';

export interface TableOptions {
  /** Longest cell shown; longer text ends in `…`. Default 80. */
  maxCellWidth?: number;
  /** Print the `(<n> rows)` footer (and the note). Default true. */
  footer?: boolean;
}

function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  // Ten significant digits hide binary noise (0.1 + 0.2) without hiding real precision; a big
  // number keeps its whole integer part and three decimals (a mean of 1700001579840.5).
  const digits = Math.min(17, Math.max(10, Math.floor(Math.log10(Math.abs(n))) + 4));
  return String(Number(n.toPrecision(digits)));
}

/** The text of one cell as tables and CSV show it. Objects show by label. */
export function formatValue(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`;
  return v.label;
}

/** One line per cell: control characters made visible, long text cut. */
function cellText(v: Value, max: number): string {
  // eslint-disable-next-line no-control-regex
  const text = formatValue(v).replace(/\r?\n/g, '\\n').replace(/\t/g, '\\t').replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, Math.max(1, max - 1)).join('')}…` : text;
}

/** Display width in terminal cells (code points; wide characters are rare in heap text). */
function width(s: string): number {
  return [...s].length;
}

export function rowsFooter(result: QueryResult): string {
  const n = result.rowCount;
  return `(${n} ${n === 1 ? 'row' : 'rows'}${result.truncated ? ', truncated' : ''})`;
}

/**
 * Header of column names, a `-+-` rule, rows with cells joined by ` | `, then `(<n> rows)`.
 * Numeric columns are right-aligned; the last column is not padded (no trailing spaces).
 */
export function formatTable(result: QueryResult, opts: TableOptions = {}): string {
  const max = opts.maxCellWidth ?? 80;
  const cols = result.columns.length;
  const header = result.columns.map((c) => c.name);
  const body = result.rows.map((row) => row.map((v) => cellText(v, max)));
  // A loop, not `Math.max(...column)`: spreading 100 000+ cells overflows the call stack.
  const widths = header.map(width);
  for (const r of body) for (let i = 0; i < cols; i++) widths[i] = Math.max(widths[i], width(r[i] ?? ''));
  const numeric = result.columns.map((_, i) => {
    const vals = result.rows.map((r) => r[i]).filter((v) => v !== null);
    return vals.length > 0 && vals.every((v) => typeof v === 'number' || typeof v === 'bigint');
  });
  const line = (cells: string[], alignNumeric: boolean) =>
    cells
      .map((c, i) => {
        const pad = ' '.repeat(widths[i] - width(c));
        if (alignNumeric && numeric[i]) return pad + c;
        return i === cols - 1 ? c : c + pad;
      })
      .join(' | ');
  const out = [line(header, false), widths.map((w) => '-'.repeat(w)).join('-+-'), ...body.map((r) => line(r, true))];
  if (opts.footer ?? true) {
    out.push(rowsFooter(result));
    if (result.note) out.push(`note: ${result.note}`);
  }
  return out.join('\n');
}

/** A pretty-printed JSON array of QueryResult (exact integers: `stringifyJson`). */
export function formatJson(results: QueryResult[]): string {
  return stringifyJson(results, 2);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180: CRLF line ends, fields with `,` `"` CR or LF quoted, quotes doubled; NULL is empty. */
export function formatCsv(result: QueryResult): string {
  const lines = [result.columns.map((c) => csvField(c.name)).join(',')];
  for (const row of result.rows) lines.push(row.map((v) => (v === null ? '' : csvField(formatValue(v)))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** Tab-separated values; tabs and line breaks inside cells are escaped as \t and \n. */
export function formatTsv(result: QueryResult): string {
  const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r?\n/g, '\\n');
  const lines = [result.columns.map((c) => esc(c.name)).join('\t')];
  for (const row of result.rows) lines.push(row.map((v) => (v === null ? '' : esc(formatValue(v)))).join('\t'));
  return `${lines.join('\n')}\n`;
}
