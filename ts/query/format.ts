// Result formatting: terminal table, JSON, CSV (RFC 4180) and TSV.
import { cutToWidth, displayWidth, terminalText } from '../terminal-text.js';
import { stringifyJson } from './json.js';
import type { ObjectRef, QueryResult, Value } from './schema.js';

export interface TableOptions {
  /** Longest cell shown; longer text ends in `…`. Default 80. */
  maxCellWidth?: number;
  /** Print the `(<n> rows)` footer (and the note). Default true. */
  footer?: boolean;
}

function formatNumber(n: number, exact: boolean): string {
  // NaN, Infinity and -Infinity as Java writes them; a double's -0 keeps its sign.
  if (!Number.isFinite(n)) return String(n);
  if (Object.is(n, -0)) return '-0';
  // A whole number past 2^53 in a number (not a bigint) is a double, maybe rounded (a SUM beyond
  // a long): written with an exponent, as Java writes such a double, it cannot pass for an exact
  // integer (`4.5e+19`, not `45000000000000000000`). It still reads back as the same double.
  if (Math.abs(n) > Number.MAX_SAFE_INTEGER) return n.toExponential();
  // Exported data (CSV, TSV) keeps every digit: the shortest text that reads back as the double.
  if (Number.isInteger(n) || exact) return String(n);
  // Ten significant digits hide binary noise (0.1 + 0.2) without hiding real precision; a big
  // number keeps its whole integer part and three decimals (a mean of 1700001579840.5).
  const digits = Math.min(17, Math.max(10, Math.floor(Math.log10(Math.abs(n))) + 4));
  return String(Number(n.toPrecision(digits)));
}

/**
 * The text of one cell as tables show it (a double to ten significant digits or so, which hides
 * binary noise), or with `exact` as CSV and TSV export it (every digit). Objects show by label.
 */
export function formatValue(v: Value, exact = false): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return formatNumber(v, exact);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return `[${v.map((x) => formatValue(x, exact)).join(', ')}]`;
  return v.label;
}

/**
 * An object's label as a terminal shows it (`terminalText`). A String's label ends in its text in
 * double quotes, a `"` or `\` in it already escaped by a backslash (`java.lang.String @ 0x…
 * "say \"hi\""`): that part keeps its backslashes, so the quotes read `\"`, not `\\"`, while its
 * control characters show as the table's escapes (`\n`) and the class name as any name does.
 */
export function labelText(o: ObjectRef): string {
  const head = `${o.className} @ ${o.address}`;
  if (o.label.length > head.length + 2 && o.label.startsWith(head) && o.label.startsWith('  "', head.length)) {
    return terminalText(head) + terminalText(o.label.slice(head.length), { keepBackslashes: true });
  }
  return terminalText(o.label);
}

/** The text of a value as a table cell shows it, escaped (`terminalText`; labels by `labelText`). */
export function cellText(v: Value): string {
  if (typeof v === 'string') return terminalText(v);
  if (Array.isArray(v)) return `[${v.map(cellText).join(', ')}]`;
  if (v !== null && typeof v === 'object') return labelText(v);
  return formatValue(v);
}

/** A table cell: its text, and the terminal cells it takes (measured once: it costs, for text beyond ASCII). */
interface Cell {
  text: string;
  width: number;
}

/**
 * One line per cell, safe for a terminal: control characters, bidi controls and backslashes
 * escaped (`terminalText`), long text cut at `max` terminal cells.
 */
function cellOf(v: Value, max: number): Cell {
  const text = formatValue(v);
  // Printable ASCII but a backslash (most cells): nothing to escape, one cell per character.
  if (/^[\x20-\x5b\x5d-\x7e]*$/.test(text)) {
    const shown = text.length > max ? `${text.slice(0, Math.max(1, max - 1))}…` : text;
    return { text: shown, width: shown.length };
  }
  const safe = cellText(v);
  // Short enough in UTF-16 units (each takes at most two cells): measured once, whole when it fits.
  if (safe.length <= max) {
    const w = width(safe);
    if (w <= max) return { text: safe, width: w };
  }
  const cut = cutToWidth(safe, max);
  return { text: cut, width: width(cut) };
}

/** Display width in terminal cells (wide characters two, combining and zero-width ones none). */
const width = displayWidth;

export function rowsFooter(result: Pick<QueryResult, 'rowCount' | 'truncated'>): string {
  const n = result.rowCount;
  return `(${n} ${n === 1 ? 'row' : 'rows'}${result.truncated ? ', truncated' : ''})`;
}

/** The cells of rows as a table shows them (one line each, cut at `max` characters). */
function tableCells(rows: readonly Value[][], max: number): Cell[][] {
  return rows.map((row) => row.map((v) => cellOf(v, max)));
}

/**
 * A table's layout: its columns' widths and which are numeric (right-aligned), from the header
 * and the rows it is made from. `formatTable` lays out all the rows of a result; a streamed
 * table (`StreamedTable`) its first rows, widened by the rows after them.
 */
class TableLayout {
  readonly max: number;
  private readonly widths: number[];
  private readonly numeric: boolean[];
  private readonly cols: number;

  readonly header: string[];

  constructor(
    header: string[],
    rows: readonly Value[][],
    body: Cell[][],
    opts: TableOptions,
  ) {
    this.max = opts.maxCellWidth ?? 80;
    // Column names are shown like cells (a name can hold anything an alias or a path holds).
    this.header = header.map((h) => terminalText(h));
    this.cols = header.length;
    this.widths = this.header.map(width);
    this.widen(body);
    this.numeric = header.map((_, i) => {
      const vals = rows.map((r) => r[i]).filter((v) => v !== null);
      return vals.length > 0 && vals.every((v) => typeof v === 'number' || typeof v === 'bigint');
    });
  }

  /** Widens the columns to the cells of `body`; the index of its first row that widened one, else -1. */
  widen(body: Cell[][]): number {
    let first = -1;
    // A loop, not `Math.max(...column)`: spreading 100 000+ cells overflows the call stack.
    for (const [k, r] of body.entries()) {
      for (let i = 0; i < this.cols; i++) {
        const w = r[i]?.width ?? 0;
        if (w <= this.widths[i]) continue;
        this.widths[i] = w;
        if (first < 0) first = k;
      }
    }
    return first;
  }

  /** One line of cells. */
  line(cells: Cell[], alignNumeric: boolean): string {
    return cells
      .map((c, i) => {
        const pad = ' '.repeat(this.widths[i] - c.width);
        if (alignNumeric && this.numeric[i]) return pad + c.text;
        return i === this.cols - 1 ? c.text : c.text + pad;
      })
      .join(' | ');
  }

  /** The header line and the `-+-` rule under it. */
  head(): string[] {
    return [this.line(this.header.map((h) => ({ text: h, width: width(h) })), false), this.widths.map((w) => '-'.repeat(w)).join('-+-')];
  }
}

/** The `(<n> rows)` footer and the note of a result, as lines. */
function footerLines(result: Pick<QueryResult, 'rowCount' | 'truncated' | 'note'>): string[] {
  const out = [rowsFooter(result)];
  if (result.note) out.push(`note: ${terminalText(result.note, { keepBackslashes: true })}`);
  return out;
}

/**
 * Header of column names, a `-+-` rule, rows with cells joined by ` | `, then `(<n> rows)`.
 * Numeric columns are right-aligned; the last column is not padded (no trailing spaces).
 */
export function formatTable(result: QueryResult, opts: TableOptions = {}): string {
  const body = tableCells(result.rows, opts.maxCellWidth ?? 80);
  const layout = new TableLayout(result.columns.map((c) => c.name), result.rows, body, opts);
  const out = [...layout.head(), ...body.map((r) => layout.line(r, true))];
  if (opts.footer ?? true) out.push(...footerLines(result));
  return out.join('\n');
}

/**
 * A table written while its rows are produced: the header, the rule and the first rows are
 * `formatTable`'s lines of those rows alone (their widths, numeric columns right-aligned); each
 * later piece of rows widens a column its cells do not fit in, from that piece on (columns
 * never narrow; the lines above keep their widths).
 */
export class StreamedTable {
  private readonly layout: TableLayout;
  private first: Cell[][];
  /** Rows laid out so far. */
  private rowCount: number;
  /**
   * The 1-based number of the first row that widened a column (the lines above it are
   * narrower), or null while every row fitted the first rows' widths.
   */
  widenedAt: number | null = null;

  constructor(names: string[], firstRows: readonly Value[][], opts: TableOptions = {}) {
    this.first = tableCells(firstRows, opts.maxCellWidth ?? 80);
    this.layout = new TableLayout(names, firstRows, this.first, opts);
    this.rowCount = firstRows.length;
  }

  /** The header, the rule and the first rows, each line ending in a newline. */
  begin(): string {
    const text = lines([...this.layout.head(), ...this.first.map((r) => this.layout.line(r, true))]);
    this.first = [];
    return text;
  }

  /** More rows, each line ending in a newline. */
  rows(rows: readonly Value[][]): string {
    const body = tableCells(rows, this.layout.max);
    const widened = this.layout.widen(body);
    if (widened >= 0) this.widenedAt ??= this.rowCount + widened + 1;
    this.rowCount += rows.length;
    return lines(body.map((r) => this.layout.line(r, true)));
  }

  /** The footer (`(<n> rows)`, the note), each line ending in a newline. */
  end(result: Pick<QueryResult, 'rowCount' | 'truncated' | 'note'>): string {
    return lines(footerLines(result));
  }
}

function lines(items: string[]): string {
  let text = '';
  for (const l of items) text += `${l}\n`;
  return text;
}

/** A pretty-printed JSON array of QueryResult (exact integers: `stringifyJson`). */
export function formatJson(results: QueryResult[]): string {
  return stringifyJson(results, 2);
}

/**
 * `formatJson`'s array written a piece at a time: `open`, the elements with `separator`
 * between them, `close`; `empty` when there is no element.
 */
export const JSON_ARRAY = { open: '[\n', separator: ',\n', close: '\n]', empty: '[]' } as const;

/**
 * `rows` as the lines of a JSON array's elements indented by `depth` (what `stringifyJson(rows,
 * 2)` gives between `[` and `]`: `[\n  [...],\n  [...]\n]`), after a comma when rows came before.
 */
function rowLines(rows: readonly Value[][], depth: string, after: boolean): string {
  const array = stringifyJson(rows, 2);
  return `${after ? ',' : ''}\n${depth}${indented(array.slice(2, -2), depth)}`;
}

/** A JSON text's lines after the first indented by `pad` (JSON has no raw newline in a string). */
function indented(text: string, pad: string): string {
  return text.replace(/\n/g, `\n${pad}`);
}

/** One result as an element of `formatJson`'s array: its very text there. */
export function jsonElement(result: QueryResult): string {
  return `  ${indented(stringifyJson(result, 2), '  ')}`;
}

/**
 * One element of `formatJson`'s array written while its rows are produced: `begin()`, `rows()`
 * for each piece of rows, `end()`. The text is `jsonElement` of the result with `rows` moved
 * after `name` and `oql` (the columns' types and the count are known only after the last row):
 * `name`, `oql`, `rows`, `columns`, `rowCount`, `truncated`, `elapsedMs`, then `note` and `viz`.
 */
export class StreamedJsonResult {
  /** Rows were written (the next piece begins with a comma). */
  private wroteRows = false;

  constructor(private readonly meta: Pick<QueryResult, 'name' | 'oql'>) {}

  /** The element up to the `[` that opens its rows. */
  begin(): string {
    const text = jsonElement({ name: this.meta.name, oql: this.meta.oql, rows: [] } as unknown as QueryResult);
    // The first `"rows": []` is the key: inside a string its quotes would be escaped.
    return text.slice(0, text.indexOf('"rows": []') + '"rows": ['.length);
  }

  /** More rows (none is an empty text). */
  rows(rows: readonly Value[][]): string {
    if (rows.length === 0) return '';
    // Two levels deeper: the rows key is inside the result's object inside the results' list.
    const text = rowLines(rows, '    ', this.wroteRows);
    this.wroteRows = true;
    return text;
  }

  /** The rest of the element after its rows. */
  end(rest: Omit<QueryResult, 'name' | 'oql' | 'rows'>): string {
    const { columns, rowCount, truncated, elapsedMs, note, viz } = rest;
    const after: Record<string, unknown> = { columns, rowCount, truncated, elapsedMs };
    if (note !== undefined) after.note = note;
    if (viz !== undefined) after.viz = viz;
    // `  {\n    "columns": …\n  }` without its `  {`.
    return `${this.wroteRows ? '\n    ' : ''}],${jsonElement(after as unknown as QueryResult).slice(3)}`;
  }
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A text cell of a CSV file. Text from a dump is untrusted, and a spreadsheet opening the file
 * runs a cell that starts with `=` `+` `-` `@`, a tab or a CR as a formula (OWASP's "CSV
 * injection"): such a cell gets a leading `'`, which spreadsheets show as text. Numbers are
 * numbers (`-5` stays); TSV and JSON carry every text exactly.
 */
function csvText(text: string): string {
  return csvField(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
}

/**
 * RFC 4180: CRLF line ends, fields with `,` `"` CR or LF quoted, quotes doubled. NULL is an empty
 * field and the empty string a quoted one (`""`), as PostgreSQL's CSV tells them apart; numbers
 * keep every digit; a text that a spreadsheet would run as a formula starts with `'` (`csvText`).
 */
export function formatCsv(result: QueryResult): string {
  return csvHeader(result.columns.map((c) => c.name)) + csvRows(result.rows);
}

/** The header line of a CSV text (`formatCsv`), with its CRLF. */
export function csvHeader(names: readonly string[]): string {
  return `${names.map(csvText).join(',')}\r\n`;
}

/** One value as a CSV field: NULL empty, the empty string `""`, text (strings, object labels, lists) guarded (`csvText`). */
function csvCell(v: Value): string {
  if (v === null) return '';
  if (v === '') return '""';
  const text = formatValue(v, true);
  return typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ? csvField(text) : csvText(text);
}

/** Rows of a CSV text (`formatCsv`), each line with its CRLF. */
export function csvRows(rows: readonly Value[][]): string {
  let text = '';
  for (const row of rows) text += `${row.map(csvCell).join(',')}\r\n`;
  return text;
}

const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
/** What TSV escapes: a backslash, tab, LF, CR, and an unpaired surrogate (UTF-8 has no bytes for it). */
const TSV_ESCAPED = /[\\\t\n\r]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** A quick test for any of them (a surrogate, paired or not, sends the text to the full pass). */
const TSV_ANY = /[\\\t\n\r\ud800-\udfff]/;

function tsvEscape(text: string): string {
  if (!TSV_ANY.test(text)) return text;
  // An unpaired surrogate as the table shows it, `\ud800` (lower-case hex).
  return text.replace(TSV_ESCAPED, (c) => TSV_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Tab-separated values; a backslash, tab, LF and CR inside a cell are escaped as `\\`, `\t`,
 * `\n` and `\r` (a CRLF as `\r\n`), so every row is one line and reads back exactly; a Java
 * string's unpaired surrogate, which UTF-8 cannot encode, as `\ud800` (lower-case hex).
 */
export function formatTsv(result: QueryResult): string {
  return tsvHeader(result.columns.map((c) => c.name)) + tsvRows(result.rows);
}

/** The header line of a TSV text (`formatTsv`), with its LF. */
export function tsvHeader(names: readonly string[]): string {
  return `${names.map(tsvEscape).join('\t')}\n`;
}

/** Rows of a TSV text (`formatTsv`), each line with its LF; NULL is an empty field. */
export function tsvRows(rows: readonly Value[][]): string {
  let text = '';
  for (const row of rows) text += `${row.map((v) => (v === null ? '' : tsvEscape(formatValue(v, true)))).join('\t')}\n`;
  return text;
}

/** The formats a result is saved in as a file (the REPL's `!save`). */
export type FileFormat = 'csv' | 'tsv' | 'json';

/**
 * A result as the text of a file, a piece at a time: `head()`, `rows()` of each piece of the
 * result's rows in turn, `tail()`. Together they are exactly the whole text, `formatCsv`,
 * `formatTsv` or the pretty JSON of the result (`stringifyJson(result, 2)`, its keys in the
 * result's order) and a newline, without ever holding it all (a result of a million rows is
 * hundreds of megabytes of text, near the longest string JavaScript can hold).
 */
export interface FileText {
  head(): string;
  rows(rows: readonly Value[][]): string;
  tail(): string;
}

export function fileText(result: QueryResult, format: FileFormat): FileText {
  const names = result.columns.map((c) => c.name);
  switch (format) {
    case 'csv':
      return { head: () => csvHeader(names), rows: csvRows, tail: () => '' };
    case 'tsv':
      return { head: () => tsvHeader(names), rows: tsvRows, tail: () => '' };
    case 'json':
      return new JsonFileText(result);
  }
}

/**
 * `stringifyJson(result, 2)` and a newline, its rows a piece at a time: the text of the result
 * with no rows is cut at its `"rows": []`, and the rows go between as `stringifyJson` writes
 * them there (each piece's own array text, its elements one level deeper).
 */
class JsonFileText implements FileText {
  private readonly before: string;
  private readonly after: string;
  private wroteRows = false;

  constructor(result: QueryResult) {
    // The key keeps its place among the result's keys (a spread keeps their order).
    const shell = stringifyJson({ ...result, rows: [] }, 2);
    // The top level's key: two spaces deep after a line break. A string in the text cannot hold
    // it (its quotes would be escaped), nor can a deeper object (more spaces).
    const key = '\n  "rows": [';
    const at = shell.indexOf(`${key}]`);
    if (at < 0) throw new Error('internal error: no "rows" key in the JSON of a result');
    this.before = shell.slice(0, at + key.length);
    this.after = `]${shell.slice(at + key.length + 1)}\n`;
  }

  head(): string {
    return this.before;
  }

  rows(rows: readonly Value[][]): string {
    if (rows.length === 0) return '';
    const text = rowLines(rows, '  ', this.wroteRows);
    this.wroteRows = true;
    return text;
  }

  tail(): string {
    // No rows: `[]`; else the closing bracket on a line of its own.
    return this.wroteRows ? `\n  ${this.after}` : this.after;
  }
}
