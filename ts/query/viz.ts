// `-- @viz <kind> [label=<col>] [value=<col>] [cap=<n>] [title=<text>] [name=<text>]`:
// parsing, validation and column resolution. A malformed directive is a warning, never a
// failure: the result falls back to a table (keeping `name=`, which applies regardless).
import { stripBom } from '../oql/lexer.js';
import type { Column, VizKind, VizSpec } from './schema.js';

const KINDS: readonly VizKind[] = ['table', 'histogram', 'piechart', 'treemap'];
const KEYS = ['label', 'value', 'cap', 'title', 'name'] as const;

export interface VizParse {
  /** The directive; `{kind: 'table'}` (plus any valid name) when it was malformed. */
  viz: VizSpec;
  /** Why the directive was not used as written; null when it was fine. */
  warning: string | null;
}

/** A line that is a viz directive: `--`, optional spaces, `@viz` (any case). */
export function isVizLine(line: string): boolean {
  return /^\s*--\s*@viz(\s|$)/i.test(line);
}

/** Splits the body at spaces; a double-quoted part (`title="Top classes"`) may contain spaces. */
function words(body: string): { words: { text: string; quoted: boolean }[]; error: string | null } {
  const out: { text: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < body.length) {
    if (/\s/.test(body[i])) {
      i++;
      continue;
    }
    let text = '';
    let quoted = false;
    while (i < body.length && !/\s/.test(body[i])) {
      if (body[i] === '"') {
        const close = body.indexOf('"', i + 1);
        if (close < 0) return { words: out, error: 'a double-quoted value is not closed' };
        text += body.slice(i + 1, close);
        quoted = true;
        i = close + 1;
      } else {
        text += body[i++];
      }
    }
    out.push({ text, quoted });
  }
  return { words: out, error: null };
}

function column(text: string): string | number {
  return /^\d+$/.test(text) ? Number(text) : text;
}

/** Parses one directive line (with or without its `-- @viz` prefix). */
export function parseVizDirective(line: string): VizParse {
  const body = line.replace(/^\s*--\s*@viz/i, '').trim();
  const problems: string[] = [];
  const { words: parts, error } = words(body);
  if (error) problems.push(error);
  const viz: VizSpec = { kind: 'table' };
  let kindSeen = false;
  for (const { text: part, quoted } of parts) {
    const eq = part.indexOf('=');
    if (eq < 0) {
      if (kindSeen || !/^[a-z]+$/i.test(part)) {
        problems.push(`"${part}" is not key=value`);
        continue;
      }
      kindSeen = true;
      const kind = part.toLowerCase() as VizKind;
      if (!KINDS.includes(kind)) problems.push(`unknown chart kind "${part}" (kinds: ${KINDS.join(', ')})`);
      else viz.kind = kind;
      continue;
    }
    const key = part.slice(0, eq).toLowerCase();
    const raw = part.slice(eq + 1);
    if (!(KEYS as readonly string[]).includes(key)) {
      problems.push(`unknown key "${part.slice(0, eq)}" (keys: ${KEYS.join(', ')})`);
      continue;
    }
    if (!quoted && raw === '') {
      problems.push(`${key}= has no value`);
      continue;
    }
    switch (key) {
      case 'label':
      case 'value':
        if (quoted) problems.push(`${key}= names a column (an attribute, an alias or a position), not a quoted text`);
        else if (/^\d+$/.test(raw) && Number(raw) < 1) problems.push(`${key}=${raw}: column positions start at 1`);
        else viz[key] = column(raw);
        break;
      case 'cap':
        if (!/^\d+$/.test(raw) || Number(raw) < 1) problems.push(`cap=${raw} is not a positive integer`);
        else viz.cap = Number(raw);
        break;
      case 'title':
      case 'name':
        viz[key] = raw;
        break;
    }
  }
  if (!kindSeen && problems.length === 0) problems.push(`the chart kind is missing (one of ${KINDS.join(', ')})`);
  if (problems.length === 0) return { viz, warning: null };
  const fallback: VizSpec = { kind: 'table' };
  if (viz.name !== undefined) fallback.name = viz.name;
  return { viz: fallback, warning: `@viz directive ignored: ${problems.join('; ')}; showing a table` };
}

/**
 * Takes the first `-- @viz` line out of a query text (the `--query="-- @viz ...\n SELECT ..."`
 * and config forms). Other lines are left to the parser. Every query text passes here first
 * (prepareQuery, the CLI's --query and config entries): a leading byte-order mark goes.
 */
export function extractViz(text: string): { oql: string; viz: VizSpec | null; warning: string | null } {
  text = stripBom(text);
  const lines = text.split('\n');
  const i = lines.findIndex(isVizLine);
  if (i < 0) return { oql: text, viz: null, warning: null };
  const { viz, warning } = parseVizDirective(lines[i]);
  // Keep the line (blank) so positions in parse errors still match the text the user wrote.
  lines[i] = '';
  return { oql: lines.join('\n'), viz, warning };
}

/**
 * The query as an answer shows it back: the text without its `-- @viz` line (`extractViz` keeps
 * that line blank, so that positions in errors match the text as written).
 */
export function withoutVizLine(text: string): string {
  const lines = stripBom(text).split('\n');
  const at = lines.findIndex(isVizLine);
  if (at >= 0) lines.splice(at, 1);
  return lines.join('\n');
}

export interface VizColumns {
  /** 0-based column index of the labels. */
  label: number;
  /** 0-based column index of the magnitudes. */
  value: number;
}

function findColumn(ref: string | number, columns: Column[]): number {
  if (typeof ref === 'number') return ref >= 1 && ref <= columns.length ? ref - 1 : -1;
  const exact = columns.findIndex((c) => c.name === ref);
  if (exact >= 0) return exact;
  const lower = ref.toLowerCase();
  const ci = columns.findIndex((c) => c.name.toLowerCase() === lower);
  if (ci >= 0) return ci;
  // `@usedHeapSize` also names the column `s.@usedHeapSize`.
  if (lower.startsWith('@')) return columns.findIndex((c) => c.name.toLowerCase().endsWith(`.${lower}`));
  return -1;
}

/**
 * The label and value columns of a chart: the named ones, else the first numeric column other
 * than the label as value, and as label the first non-numeric column (with none, the first
 * column: a numeric key such as `p.x % 3` in `SELECT p.x % 3 AS m, COUNT(*) AS n … GROUP BY`
 * labels the bars of its count, never the other way round). A `warning` means: draw a table.
 */
export function resolveVizColumns(viz: VizSpec, columns: Column[]): { columns: VizColumns | null; warning: string | null } {
  if (viz.kind === 'table') return { columns: null, warning: null };
  const numeric = (i: number) => columns[i]?.type === 'number';
  if (!columns.some((_, i) => numeric(i))) return { columns: null, warning: '@viz: the result has no numeric column to chart' };
  let label = -1;
  if (viz.label !== undefined) {
    label = findColumn(viz.label, columns);
    if (label < 0) return { columns: null, warning: `@viz label=${viz.label}: no such column (columns: ${columns.map((c) => c.name).join(', ')})` };
  }
  let value: number;
  if (viz.value !== undefined) {
    value = findColumn(viz.value, columns);
    if (value < 0) return { columns: null, warning: `@viz value=${viz.value}: no such column (columns: ${columns.map((c) => c.name).join(', ')})` };
    if (!numeric(value)) return { columns: null, warning: `@viz value=${viz.value}: column "${columns[value].name}" is not numeric` };
  } else {
    if (label < 0) {
      const text = columns.findIndex((_, i) => !numeric(i));
      label = text >= 0 ? text : columns.length > 1 ? 0 : -1;
    }
    value = columns.findIndex((_, i) => i !== label && numeric(i));
    if (value < 0) {
      if (label >= 0) return { columns: null, warning: `@viz: the result has no numeric column to chart besides its label "${columns[label].name}"` };
      value = columns.findIndex((_, i) => numeric(i));
    }
  }
  if (label < 0) {
    label = columns.findIndex((_, i) => i !== value && !numeric(i));
    if (label < 0) label = columns.findIndex((_, i) => i !== value);
    if (label < 0) return { columns: null, warning: '@viz: the result has no column to label the chart with' };
  }
  return { columns: { label, value }, warning: null };
}

/**
 * What a result says of its `-- @viz` directive when the chart cannot be drawn as asked: the
 * directive's own problem (`directiveWarning`, extractViz's: it was ignored), else a column it
 * names that the result lacks or that is not numeric. Null when there is nothing to say. One
 * check for every front that shows results (the REPL, the CLI, the server's answers, MCP's
 * run_oql); pure, so the browser bundle may use it.
 */
export function vizWarning(viz: VizSpec | null | undefined, columns: Column[], directiveWarning: string | null = null): string | null {
  if (directiveWarning) return directiveWarning;
  return viz ? resolveVizColumns(viz, columns).warning : null;
}

/** A result's note with a viz warning after it (`; ` between, as the session joins its notes). */
export function noteWithVizWarning(note: string | undefined, warning: string | null): string | undefined {
  if (!warning) return note;
  return note ? `${note}; ${warning}` : warning;
}
