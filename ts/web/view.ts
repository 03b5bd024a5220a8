/**
 * The browser REPL's output pane: text blocks, errors, and results as HTML tables with the
 * `-- @viz` chart drawn by the HTML report's own chart code (ts/report/charts.ts, svg.ts).
 * Everything from the dump is escaped and isolated (`<bdi>`, so right-to-left text cannot reorder
 * the page's own text); bidirectional controls in plain text become visible escapes. A long cell
 * is cut (CELL_TEXT_MAX) with its full length stated, its tooltip holds more (DISPLAY_TEXT_MAX),
 * and `!row N` or `!save` gives the whole value. SVG comes from our own renderer, which escapes
 * and cuts its labels.
 */
import { planQuery, queryChartSvg } from '../report/charts.js';
import { cutDisplayText, headOf, int, printable, valueText } from '../report/format.js';
import { escapeHtml, isolateHtml as esc } from '../report/html-escape.js';
import type { QueryResult } from '../query/schema.js';
import { BIDI_CONTROLS } from '../terminal-text.js';

/** Longest cell text, in UTF-16 units, the result table shows whole. */
export const CELL_TEXT_MAX = 200;

/** One cell's content: the text isolated, or, when long, its start, the cut and a tooltip with more. */
function cellHtml(text: string, numeric: boolean): string {
  if (text.length <= CELL_TEXT_MAX) return `<td${numeric ? ' class="n"' : ''}>${esc(text)}</td>`;
  return (
    `<td class="${numeric ? 'n cut' : 'cut'}" title="${escapeHtml(cutDisplayText(text))}">${esc(headOf(text, CELL_TEXT_MAX))}` +
    `<span class="note">… (cut from ${int(text.length)} characters; !row N shows it whole)</span></td>`
  );
}

export class OutputView {
  private entry: HTMLElement | null = null;

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

  /** A result: its chart when a `-- @viz` asks for one, then a table of the first `limit` rows (0 = all). */
  result(result: QueryResult, limit: number): void {
    const view = planQuery(result, 0);
    const parts: string[] = [];
    if (result.viz && result.viz.kind !== 'table') {
      if (view.title) parts.push(`<h4>${esc(view.title)}</h4>`);
      parts.push(queryChartSvg(view));
      if (view.kind !== 'table' && view.data.length < view.chartable) parts.push(`<p class="note">Chart shows the first ${view.data.length} of ${view.chartable} rows.</p>`);
      if (view.warning) parts.push(`<p class="note">${esc(view.warning)}</p>`);
    }
    const rows = limit === 0 ? result.rows : result.rows.slice(0, limit);
    const head = result.columns.map((c) => `<th${c.type === 'number' ? ' class="n"' : ''}>${esc(c.name)}</th>`).join('');
    const body = rows
      .map((r) => `<tr>${r.map((v, i) => cellHtml(valueText(v), result.columns[i]?.type === 'number')).join('')}</tr>`)
      .join('');
    parts.push(`<table class="result"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`);
    const shown = rows.length < result.rows.length ? `; showing the first ${rows.length}: !tail, !row N, !set limit 0 for all` : '';
    parts.push(`<p class="note">${result.rowCount} row${result.rowCount === 1 ? '' : 's'}${result.truncated ? ' (truncated)' : ''}${shown}</p>`);
    if (result.note) parts.push(`<p class="note">note: ${esc(result.note)}</p>`);
    const div = document.createElement('div');
    div.className = 'result-block';
    div.innerHTML = parts.join('');
    this.target().append(div);
    this.scroll();
  }

  end(): void {
    this.entry = null;
  }

  private scroll(): void {
    this.pane.scrollTop = this.pane.scrollHeight;
  }
}
