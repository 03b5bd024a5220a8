/**
 * The browser REPL's output pane: text blocks, errors, and results as HTML tables with the
 * `-- @viz` chart drawn by the HTML report's own chart code (ts/report/charts.ts, svg.ts).
 * Everything from the dump is escaped; SVG comes from our own renderer, which escapes its labels.
 */
import { planQuery, queryChartSvg } from '../report/charts.js';
import { valueText } from '../report/format.js';
import { escapeHtml as esc } from '../report/html-escape.js';
import type { QueryResult } from '../query/schema.js';

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
    pre.textContent = text;
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
    p.textContent = text;
    this.target().append(p);
    this.scroll();
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
      .map((r) => `<tr>${r.map((v, i) => `<td${result.columns[i]?.type === 'number' ? ' class="n"' : ''}>${esc(valueText(v))}</td>`).join('')}</tr>`)
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
