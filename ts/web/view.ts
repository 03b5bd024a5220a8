/**
 * The browser REPL's output pane: text blocks, errors, and results as HTML tables with the
 * `-- @viz` chart drawn by the HTML report's own chart code (ts/report/charts.ts, svg.ts).
 * A cell shows its value as the terminal REPL's table does (`formatValue`: a double to ten
 * significant digits or so, no thousands separators, so that a number can be pasted back and
 * `!filter` finds what is shown; `terminalText`: a backslash as `\\`, a control or bidi
 * character as its escape, so the two cannot look alike). Everything from the dump is escaped and
 * isolated (`<bdi>`, so right-to-left text cannot reorder the page's own text); bidirectional
 * controls in plain text become visible escapes. A long cell is cut (CELL_TEXT_MAX) with its full
 * length stated, its tooltip holds more (DISPLAY_TEXT_MAX), and `!row N` or `!save` gives the
 * whole value. A table draws at most RENDER_ROWS_MAX rows (`!set limit 0` on a big result) and
 * says how many it leaves out. A paged result's table (pages.ts) says how many rows it shows of
 * how many, and shows more on request. SVG comes from our own renderer, which escapes and cuts
 * its labels.
 */
import { planQuery, queryChartSvg } from '../report/charts.js';
import { cutDisplayText, headOf, int, printable } from '../report/format.js';
import { escapeHtml, isolateHtml as esc } from '../report/html-escape.js';
import { cellText, formatValue } from '../query/format.js';
import type { QueryResult, Value } from '../query/schema.js';
import { resolveVizColumns } from '../query/viz.js';
import { BIDI_CONTROLS, terminalText } from '../terminal-text.js';
import type { Pages } from './pages.js';

/** Longest cell text, in UTF-16 units, the result table shows whole. */
export const CELL_TEXT_MAX = 200;

/**
 * Most rows one result table draws (`!set limit 0` on 100 000 rows froze the tab for minutes);
 * the rest are named by a note, and `!tail`, `!row N`, `!filter` and `!save` reach them.
 */
export const RENDER_ROWS_MAX = 5000;

/**
 * One cell's content: the value's text as the terminal REPL's table shows it (ts/query/format.ts
 * `cellText`: `formatValue` escaped by `terminalText`, a label's quoted text by `labelText`), then escaped for HTML and isolated; when long, its
 * start, the cut and a tooltip with more (the lengths stated are the value's own).
 */
export function cellHtml(v: Value, numeric: boolean): string {
  const value = formatValue(v);
  if (value.length <= CELL_TEXT_MAX) return `<td${numeric ? ' class="n"' : ''}>${esc(cellText(v))}</td>`;
  // A long text is cut before it is escaped; an object's label (or a list of them) is escaped
  // as a label (its quoted text keeps its own backslashes) and then cut.
  const [head, more] = typeof v === 'string' ? [terminalText(headOf(value, CELL_TEXT_MAX)), terminalText(cutDisplayText(value))] : [headOf(cellText(v), CELL_TEXT_MAX), cutDisplayText(cellText(v))];
  return (
    `<td class="${numeric ? 'n cut' : 'cut'}" title="${escapeHtml(more)}">${esc(head)}` +
    `<span class="note">… (cut from ${int(value.length)} characters; !row N shows it whole)</span></td>`
  );
}

export class OutputView {
  private entry: HTMLElement | null = null;
  /** The paged results (pages.ts): a table of one has a control to show more rows. */
  pages: Pages | null = null;

  constructor(private readonly pane: HTMLElement) {}

  /** A new entry for a statement, headed by its text. */
  begin(statement: string): void {
    this.entry = document.createElement('section');
    this.entry.className = 'entry';
    const echo = document.createElement('pre');
    echo.className = 'echo';
    echo.textContent = statement.split('\n').map((l, i) => `${i === 0 ? 'oql> ' : '...> '}${l}`).join('\n');
    this.entry.append(echo);
    this.pane.append(this.entry);
    this.scroll();
  }

  private target(): HTMLElement {
    if (!this.entry) {
      this.entry = document.createElement('section');
      this.entry.className = 'entry';
      this.pane.append(this.entry);
    }
    return this.entry;
  }

  text(text: string, className = 'out'): HTMLElement {
    const pre = document.createElement('pre');
    pre.className = className;
    pre.textContent = text.replace(BIDI_CONTROLS, (c) => printable(c));
    this.target().append(pre);
    this.scroll();
    return pre;
  }

  error(text: string): void {
    this.text(text, 'out err');
  }

  note(text: string): HTMLElement {
    const p = document.createElement('p');
    p.className = 'note';
    p.textContent = text.replace(BIDI_CONTROLS, (c) => printable(c));
    this.target().append(p);
    this.scroll();
    return p;
  }

  /** A notice that changes what the page shows means (the server serves another dump). */
  warning(text: string): HTMLElement {
    const p = this.note(text);
    p.className = 'warn';
    p.setAttribute('role', 'alert');
    return p;
  }

  /**
   * A result: its chart when a `-- @viz` asks for one, then a table of the first `limit` rows
   * (0 = all), at most RENDER_ROWS_MAX of them.
   */
  result(result: QueryResult, limit: number): void {
    const view = planQuery(result, 0);
    const parts: string[] = [];
    if (result.viz && result.viz.kind !== 'table') {
      if (view.title) parts.push(`<h4>${esc(view.title)}</h4>`);
      parts.push(queryChartSvg(view));
      if (view.kind !== 'table' && view.data.length < view.chartable) parts.push(`<p class="note">Chart shows the first ${view.data.length} of ${view.chartable} rows.</p>`);
      // A directive whose columns the result lacks was warned about already (the command
      // table's `warning:`); the chart's own reasons (no numbers, negative values) are said
      // here, without the report's heading (`q4:`), which the page shows nowhere.
      const own = view.warning?.startsWith(`${view.heading}: `) ? view.warning.slice(view.heading.length + 2) : view.warning;
      if (own && !vizColumnsMissing(result)) parts.push(`<p class="note">${esc(own)}</p>`);
    }
    const wanted = limit === 0 ? result.rows.length : Math.min(limit, result.rows.length);
    const rows = result.rows.slice(0, Math.min(wanted, RENDER_ROWS_MAX));
    const numeric = result.columns.map((c) => c.type === 'number');
    const widths = textColumnWidths(result, rows, numeric);
    const head = result.columns
      .map((c, i) => `<th${numeric[i] ? ' class="n"' : ` style="min-width:calc(${widths[i]}ch + 20px)"`}>${esc(c.name)}</th>`)
      .join('');
    const rowHtml = (r: Value[]) => `<tr>${r.map((v, i) => cellHtml(v, numeric[i] ?? false)).join('')}</tr>`;
    let body = '';
    for (const r of rows) body += rowHtml(r);
    // (A table wider than the pane scrolls sideways with the pane, its header kept in view.)
    parts.push(`<table class="result"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`);
    const paged = this.pages?.stateOf(result) ?? null;
    let shown = '';
    if (paged) parts.push('<p class="note pages"><span class="pages-text"></span> <button type="button" class="more"></button> <button type="button" class="close-pages">Stop</button></p>');
    else if (rows.length < wanted) {
      shown = `; the page draws the first ${rows.length}, ${result.rows.length - rows.length} more are not shown: !tail, !row N, !filter show others, !save gets them all`;
    } else if (rows.length < result.rows.length) shown = `; showing the first ${rows.length}: !tail, !row N, !set limit 0 for all`;
    if (!paged) parts.push(`<p class="note">${result.rowCount} row${result.rowCount === 1 ? '' : 's'}${result.truncated ? ' (truncated)' : ''}${shown}</p>`);
    if (result.note) parts.push(`<p class="note">note: ${esc(result.note)}</p>`);
    const div = document.createElement('div');
    div.className = 'result-block';
    div.innerHTML = parts.join('');
    if (paged) this.pagedControls(div, result, rows.length, limit, rowHtml);
    this.target().append(div);
    this.scroll();
  }

  /**
   * The line under a paged result's table: how many rows it shows of how many (the count once
   * the server has it), a control that shows `limit` more (a page more with `!set limit 0`),
   * fetching them when the page does not hold them yet, and Stop, which closes the result's
   * cursor (the server stops its scan and count).
   */
  private pagedControls(div: HTMLElement, result: QueryResult, drawn: number, limit: number, rowHtml: (r: Value[]) => string): void {
    const pages = this.pages!;
    const state = pages.stateOf(result)!;
    const text = div.querySelector<HTMLElement>('.pages-text')!;
    const more = div.querySelector<HTMLButtonElement>('button.more')!;
    const stop = div.querySelector<HTMLButtonElement>('button.close-pages')!;
    const tbody = div.querySelector('tbody')!;
    const step = limit === 0 ? state.pageRows : limit;
    let shown = drawn;
    const update = () => {
      const fetched = result.rows.length;
      const total = state.total
        ? `${state.total.rowCount} row${state.total.rowCount === 1 ? '' : 's'}${state.total.truncated ? ' (truncated)' : ''}`
        : state.countFailed !== null
          ? '… (the server could not count them)'
          : '… (counting)';
      const whole = state.done && shown === fetched;
      text.textContent = whole
        ? total
        : `showing ${shown} of ${total}; ${fetched} fetched${state.done ? ' (all)' : ''}` + (state.closedWhy ? `; ${state.closedWhy}` : '');
      more.hidden = !(shown < fetched || state.open);
      more.disabled = state.fetching;
      more.textContent = state.fetching ? 'Fetching…' : `Show ${step} more`;
      stop.hidden = !state.open;
    };
    more.addEventListener('click', async () => {
      const target = shown + step;
      if (result.rows.length < target) await pages.fetchUpTo(result, target);
      const end = Math.min(target, result.rows.length);
      let html = '';
      for (let r = shown; r < end; r++) html += rowHtml(result.rows[r]!);
      tbody.insertAdjacentHTML('beforeend', html);
      shown = end;
      update();
    });
    stop.addEventListener('click', () => pages.close(result, 'stopped: run the query again to fetch more'));
    pages.watch(result, update);
    update();
  }

  end(): void {
    this.entry = null;
  }

  private scroll(): void {
    this.pane.scrollTop = this.pane.scrollHeight;
  }
}

/** Widest a text column is kept from narrowing to, in characters (its cells wrap within it). */
const TEXT_COLUMN_MIN = 24;

/**
 * How narrow each text column may get, in characters: its longest cell drawn or its name, at
 * most TEXT_COLUMN_MIN. A wide result scrolls sideways rather than squeeze an object's label
 * into a column one letter wide (numbers never wrap).
 */
function textColumnWidths(result: QueryResult, rows: readonly Value[][], numeric: boolean[]): number[] {
  return result.columns.map((c, i) => {
    if (numeric[i]) return 0;
    let w = Math.min(TEXT_COLUMN_MIN, c.name.length);
    for (let r = 0; r < rows.length && w < TEXT_COLUMN_MIN; r++) w = Math.max(w, Math.min(TEXT_COLUMN_MIN, formatValue(rows[r]![i] ?? null).length));
    return Math.max(1, w);
  });
}

/** Whether a result's `-- @viz` names columns it does not have (the command table warns of it). */
function vizColumnsMissing(result: QueryResult): boolean {
  return result.viz ? resolveVizColumns(result.viz, result.columns).columns === null : false;
}
