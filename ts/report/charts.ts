/**
 * What each folded-in query shows: the heading (`name=` or the automatic `q<N>`), and the chart
 * its `-- @viz` directive asks for when it can be drawn, else a table and the reason. Both
 * renderers use these plans, so Markdown and HTML agree on what fell back and why.
 */
import { resolveVizColumns } from '../query/viz.js';
import { valueText } from './format.js';
import { barChartSvg, pieChartSvg, treemapSvg } from './svg.js';
import type { ReportModel, ReportWarning } from './model.js';
import type { QueryResult, VizKind } from './query-result.js';

export interface ChartDatum {
  label: string;
  value: number;
}

export interface QueryView {
  /** `name=` of the directive, else the result's name, else `q<N>`. */
  heading: string;
  /** `title=` of the directive. */
  title: string | null;
  /** What is drawn; `table` when no directive, `table` asked, or the chart fell back. */
  kind: VizKind;
  /** Chart rows after `cap=`; the table always shows every row. */
  data: ChartDatum[];
  /** Rows the chart could have used before `cap=` cut them. */
  chartable: number;
  /** Why the requested chart is not drawn. */
  warning: string | null;
}

/** Plans one query block; `index` is 0-based (the heading falls back to `q<index+1>`). */
export function planQuery(result: QueryResult, index: number): QueryView {
  const viz = result.viz;
  const heading = viz?.name ?? (result.name !== '' ? result.name : `q${index + 1}`);
  const base: QueryView = { heading, title: viz?.title ?? null, kind: 'table', data: [], chartable: 0, warning: null };
  if (!viz || viz.kind === 'table') return base;
  const fallback = (why: string): QueryView => ({ ...base, warning: `${heading}: cannot draw a ${viz.kind}: ${why}; showing the table` });

  const resolved = resolveVizColumns(viz, result.columns);
  if (!resolved.columns) return fallback((resolved.warning ?? 'no columns to chart').replace(/^@viz:?\s*/, ''));
  const { label, value } = resolved.columns;

  const all: ChartDatum[] = [];
  for (const row of result.rows) {
    const v = row[value];
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    all.push({ label: valueText(row[label] ?? null), value: v });
  }
  if (all.length === 0) return fallback(result.rows.length === 0 ? 'the result has no rows' : `column "${result.columns[value].name}" has no numbers`);
  if (all.some((d) => d.value < 0)) return fallback(`column "${result.columns[value].name}" has negative values`);
  const data = viz.cap !== undefined ? all.slice(0, viz.cap) : all;
  if (viz.kind !== 'histogram' && data.every((d) => d.value === 0)) return fallback('every value is 0');
  return { ...base, kind: viz.kind, data, chartable: all.length };
}

/** Warnings for every directive that falls back, including ones the query layer already noted. */
export function vizWarnings(queries: QueryResult[]): ReportWarning[] {
  const out: ReportWarning[] = [];
  queries.forEach((q, i) => {
    const view = planQuery(q, i);
    if (q.note && /@viz/i.test(q.note)) out.push({ source: 'viz', message: `${view.heading}: ${q.note}` });
    if (view.warning) out.push({ source: 'viz', message: view.warning });
  });
  return out;
}

/** The model with the viz warnings added to `warnings` (once each); call before rendering. */
export function withVizWarnings(model: ReportModel): ReportModel {
  const seen = new Set(model.warnings.map((w) => `${w.source}\u0000${w.message}`));
  const added = vizWarnings(model.queries).filter((w) => !seen.has(`${w.source}\u0000${w.message}`));
  return added.length === 0 ? model : { ...model, warnings: [...model.warnings, ...added] };
}

/** The SVG chart of a planned query block ('' for a table); the HTML report and the browser REPL draw with it. */
export function queryChartSvg(view: QueryView): string {
  const title = view.title ?? view.heading;
  switch (view.kind) {
    case 'histogram':
      return barChartSvg(view.data, { title });
    case 'piechart':
      return pieChartSvg(view.data, { title });
    case 'treemap':
      return treemapSvg({ label: title, value: 0, children: view.data.map((d) => ({ label: d.label, value: d.value })) }, { title });
    default:
      return '';
  }
}
