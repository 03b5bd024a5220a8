// explain(plan): a readable operator tree of a physical plan, with expressions printed back as
// OQL. Nodes read bottom-up in evaluation order: Scan → Filter → Aggregate → Having → Project →
// Distinct → Sort/TopK → Limit (docs/physical-plan.md, "Evaluation order").
import type { PAggregate, PExpr, PhysicalPlan, POrderKey, PQuery, PSelect, PSource } from './physical.js';
import { quoteText } from '../oql/print.js';

interface Ctx {
  alias: string | null;
  aggs: PAggregate[];
  keys: PExpr[];
  outs: string[];
  /** Subqueries met inside expressions (IN): printed after the main tree as `$1`, `$2`, ... */
  subqueries: PQuery[];
}

const LEVEL: Record<string, number> = {
  or: 1, and: 2, '=': 4, '!=': 4, '<': 4, '<=': 4, '>': 4, '>=': 4, '+': 5, '-': 5, '*': 6, '/': 6, '%': 6,
};

function level(e: PExpr): number {
  switch (e.k) {
    case 'bin': return LEVEL[e.op];
    case 'not': return 3;
    case 'like': case 'instanceof': case 'in': return 4;
    case 'neg': return 7;
    default: return 8;
  }
}

/** A physical expression as OQL text. */
export function printPExpr(e: PExpr, ctx: Ctx): string {
  const p = (x: PExpr, min: number) => (level(x) < min ? `(${printPExpr(x, ctx)})` : printPExpr(x, ctx));
  const base = (x: PExpr) => (x.k === 'row' ? (ctx.alias ?? '') : p(x, 8));
  switch (e.k) {
    case 'lit':
      if (e.v === null) return 'NULL';
      if (typeof e.v === 'string') return quoteText(e.v);
      if (typeof e.v === 'number' && e.float && Number.isInteger(e.v)) return `${e.v}.0`;
      return String(e.v);
    case 'row': return ctx.alias ?? '*';
    case 'col': return ctx.alias ? `${ctx.alias}.${e.name}` : e.name;
    case 'field': {
      const b = base(e.base);
      return b ? `${b}.${e.name}` : e.name;
    }
    case 'attr': {
      const b = base(e.base);
      return b ? `${b}.@${e.name}` : `@${e.name}`;
    }
    case 'call': return `${e.fn}(${e.args.map((a) => printPExpr(a, ctx)).join(', ')})`;
    case 'bin': {
      const l = LEVEL[e.op];
      const op = e.op === 'and' || e.op === 'or' ? e.op.toUpperCase() : e.op;
      const left = l === 4 ? p(e.l, 5) : p(e.l, l);
      const right = l === 4 ? p(e.r, 5) : p(e.r, l + 1);
      return `${left} ${op} ${right}`;
    }
    case 'not': return `NOT ${p(e.e, 3)}`;
    case 'neg': return `-${p(e.e, 7)}`;
    case 'like': return `${p(e.e, 5)} ${e.negate ? 'NOT ' : ''}LIKE ${quoteText(e.pattern)}`;
    case 'instanceof': return `${p(e.e, 5)} INSTANCEOF ${'pattern' in e ? quoteText(e.pattern) : e.class}`;
    case 'in': {
      ctx.subqueries.push(e.query);
      return `${p(e.e, 5)} IN ($${ctx.subqueries.length})`;
    }
    case 'case': {
      const whens = e.whens.map((w) => `WHEN ${printPExpr(w.when, ctx)} THEN ${printPExpr(w.then, ctx)}`).join(' ');
      return `CASE ${whens}${e.else ? ` ELSE ${printPExpr(e.else, ctx)}` : ''} END`;
    }
    case 'index': return `${p(e.e, 8)}[${printPExpr(e.i, ctx)}]`;
    case 'slice': return `${p(e.e, 8)}[${printPExpr(e.from, ctx)}:${printPExpr(e.to, ctx)}]`;
    case 'agg': return printAgg(ctx.aggs[e.i], ctx);
    case 'key': return printPExpr(ctx.keys[e.i], { ...ctx, subqueries: ctx.subqueries });
    case 'out': return ctx.outs[e.i] ?? `$out${e.i}`;
  }
}

function printAgg(a: PAggregate | undefined, ctx: Ctx): string {
  if (!a) return '?';
  const name = a.fn.toUpperCase();
  if (a.arg === null) return `${name}(*)`;
  return a.fn === 'percentile' ? `${name}(${printPExpr(a.arg, ctx)}, ${a.p})` : `${name}(${printPExpr(a.arg, ctx)})`;
}

function sourceText(s: PSource): string {
  switch (s.kind) {
    case 'class': return `${s.subclasses ? 'INSTANCEOF ' : ''}${s.name}`;
    case 'regex': return `classes matching ${quoteText(s.pattern)}${s.subclasses ? ' and their subclasses' : ''}`;
    case 'address': return `object ${s.address}`;
    case 'all': return 'all objects';
    case 'subquery': return 'subquery';
  }
}

function orderText(keys: POrderKey[], ctx: Ctx): string {
  return keys.map((k) => `${printPExpr(k.expr, ctx)}${k.desc ? ' DESC' : ' ASC'}`).join(', ');
}

type Line = { depth: number; text: string };

/** The operators every query ends with, outermost first: TopK (or Limit, Sort), Distinct. */
function finishingLines(q: PQuery, ctx: Ctx): string[] {
  const chain: string[] = [];
  if (q.limit !== null && q.orderBy.length > 0) chain.push(`TopK ${q.limit}: ${orderText(q.orderBy, ctx)}`);
  else {
    if (q.limit !== null) chain.push(`Limit ${q.limit}`);
    if (q.orderBy.length > 0) chain.push(`Sort: ${orderText(q.orderBy, ctx)}`);
  }
  if (q.distinct) chain.push('Distinct');
  return chain;
}

function selectLines(q: PSelect, depth: number, subqueries: PQuery[]): Line[] {
  const outs = q.output.kind === 'objects' ? [q.alias ?? '*'] : q.output.columns.map((c) => c.name);
  const ctx: Ctx = { alias: q.alias, aggs: q.aggregates, keys: q.groupBy, outs, subqueries };
  const chain = finishingLines(q, ctx);
  if (q.retainedSet) chain.push('RetainedSet');
  chain.push(
    q.output.kind === 'objects'
      ? `Project: ${outs[0]} (objects)`
      : `Project: ${q.output.columns.map((c) => {
        const text = printPExpr(c.expr, ctx);
        return text === c.name ? text : `${c.name} = ${text}`;
      }).join(', ')}`,
  );
  if (q.having) chain.push(`Having: ${printPExpr(q.having, ctx)}`);
  if (q.groupBy.length > 0 || q.aggregates.length > 0) {
    const rowCtx: Ctx = { ...ctx, keys: [], aggs: [] };
    const keys = q.groupBy.map((k) => printPExpr(k, rowCtx));
    const aggs = q.aggregates.map((a) => printAgg(a, rowCtx));
    chain.push(`Aggregate: ${keys.length ? `keys [${keys.join(', ')}]; ` : 'one group; '}${aggs.join(', ') || 'no aggregates'}`);
  }
  if (q.filter) chain.push(`Filter: ${printPExpr(q.filter, { ...ctx, keys: [], aggs: [] })}`);
  const lines: Line[] = chain.map((text, i) => ({ depth: depth + i, text }));
  const scanDepth = depth + chain.length;
  if (q.source.kind === 'subquery') {
    lines.push({ depth: scanDepth, text: `Scan: subquery${q.alias ? ` AS ${q.alias}` : ''}` });
    lines.push(...queryLines(q.source.query, scanDepth + 1, subqueries));
  } else {
    lines.push({ depth: scanDepth, text: `Scan: ${sourceText(q.source)}${q.alias ? ` AS ${q.alias}` : ''}` });
  }
  for (const g of q.guards) {
    lines.push({ depth: scanDepth, text: 'Guard: EXISTS (runs once first; no rows → empty result)' });
    lines.push(...queryLines(g, scanDepth + 1, subqueries));
  }
  return lines;
}

function queryLines(q: PQuery, depth: number, subqueries: PQuery[]): Line[] {
  if (q.op === 'select') return selectLines(q, depth, subqueries);
  const ctx: Ctx = { alias: null, aggs: [], keys: [], outs: outputNames(q.left), subqueries };
  const chain = finishingLines(q, ctx);
  chain.push(`${q.op === 'union' ? 'Union (concatenate)' : q.op === 'intersect' ? 'Intersect' : 'Except'}`);
  const lines: Line[] = chain.map((text, i) => ({ depth: depth + i, text }));
  const d = depth + chain.length;
  return [...lines, ...queryLines(q.left, d, subqueries), ...queryLines(q.right, d, subqueries)];
}

function outputNames(q: PQuery): string[] {
  if (q.op !== 'select') return outputNames(q.left);
  return q.output.kind === 'objects' ? [q.alias ?? '*'] : q.output.columns.map((c) => c.name);
}

/** The plan as an indented tree (two spaces per level), one operator per line. */
export function explain(plan: PhysicalPlan): string {
  const subqueries: PQuery[] = [];
  const mode = `${plan.fullPath ? 'full path' : 'query-only path'}, ${plan.reachableOnly ? 'reachable objects only' : 'all objects'}`;
  const out = [`Plan (${mode})`];
  const render = (lines: Line[]) => lines.map((l) => `${'  '.repeat(l.depth + 1)}${l.text}`);
  out.push(...render(queryLines(plan.query, 0, subqueries)));
  for (let i = 0; i < subqueries.length; i++) {
    out.push(`Subquery $${i + 1} (runs once, before the scan):`);
    out.push(...render(queryLines(subqueries[i], 0, subqueries)));
  }
  return out.join('\n');
}
