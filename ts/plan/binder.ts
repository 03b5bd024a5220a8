// The binder: OQL syntax tree → physical plan (docs/physical-plan.md). It resolves names
// (alias, fields, attributes, functions, method aliases), applies every rule of the spec that
// can be decided without a dump, and refuses full-path features on the query-only path.
import type { Expr, ExprOf, FromClause, OrderItem, Pos, Query, SelectQuery, SetOpQuery } from '../oql/ast.js';
import { OqlPlanError } from '../oql/errors.js';
import { printExpr, quoteText } from '../oql/print.js';
import { didYouMean } from '../text-distance.js';
import { asText, findMethod, likePattern, METHOD_ALIASES } from './methods.js';
import type {
  AggFn, AttrName, FuncName, PAggregate, PExpr, POrderKey, POutputColumn, PQuery, PSelect, PSource,
} from './physical.js';

export interface BindOptions {
  /** The full analysis (retained sizes, dominators, reference graph) is available. */
  fullPath: boolean;
}

/**
 * A regular expression of the query (FROM "<regex>", INSTANCEOF "<regex>", LIKE) and where its literal is. The planner
 * does not judge regex syntax: the executor's engine does, through the session, before the query
 * runs (a JavaScript check would refuse `(?i)` and let through what the Rust engine refuses).
 */
export interface PatternUse {
  pattern: string;
  pos: Pos;
  /** The LIKE of a `contains` / `startsWith` / `endsWith` method: the pattern is made, not written. */
  kind: 'from' | 'like' | 'method' | 'instanceof';
}

export interface BoundQuery {
  query: PQuery;
  /** Output column names, in order (`*` or the alias for an object list). */
  columns: string[];
}

/** Attribute names as written (case-insensitive) → the plan's attribute. */
const ATTRIBUTES: Record<string, AttrName> = {
  objectid: 'objectId',
  objectaddress: 'objectAddress',
  usedheapsize: 'usedHeapSize',
  retainedheapsize: 'retainedHeapSize',
  retainedheap: 'retainedHeapSize',
  displayname: 'displayName',
  name: 'displayName',
  length: 'length',
  systemproperties: 'systemProperties',
  gcroots: 'GCRoots',
  inbounds: 'inbounds',
  outbounds: 'outbounds',
  clazz: 'clazz',
  heap: 'heap',
  classloader: 'classLoader',
};

/** The attributes users see (README, completion); aliases such as `@name` are not listed. */
export const ATTRIBUTE_NAMES: readonly string[] = [
  '@objectId', '@objectAddress', '@usedHeapSize', '@retainedHeapSize', '@displayName', '@length',
  '@inbounds', '@outbounds', '@GCRoots', '@systemProperties', '@clazz', '@heap', '@classLoader',
];

const FUNCTIONS: Record<string, { fn: FuncName; min: number; max: number }> = {
  classof: { fn: 'classof', min: 1, max: 1 },
  tostring: { fn: 'toString', min: 1, max: 1 },
  coalesce: { fn: 'coalesce', min: 1, max: Infinity },
  nullif: { fn: 'nullif', min: 2, max: 2 },
  dominators: { fn: 'dominators', min: 1, max: 1 },
  dominatorof: { fn: 'dominatorof', min: 1, max: 1 },
  path: { fn: 'path', min: 2, max: 2 },
};

export const FUNCTION_NAMES: readonly string[] = [
  'classof', 'toString', 'COALESCE', 'NULLIF', 'dominators', 'dominatorof', 'path', 'inbounds', 'outbounds',
];

const AGGREGATES: Record<string, AggFn> = {
  count: 'count', sum: 'sum', min: 'min', max: 'max', avg: 'avg', median: 'median', percentile: 'percentile',
};

export const AGGREGATE_NAMES: readonly string[] = ['COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'MEDIAN', 'PERCENTILE'];

const ANALYZE_HINT = 'run `heapql analyze` or the report command; in the REPL, !analyze; on the server, POST /analyze; in the library, await heap.analyze()';

/** The message of a construct refused on the query-only path (spec: Query-only path restrictions). */
export function fullPathMessage(feature: 'retained' | 'dominators' | 'graph', construct: string): string {
  switch (feature) {
    case 'retained': return `${construct} requires the full analysis pipeline — run \`heapql analyze\``;
    case 'dominators': return `dominator queries (${construct}) require the full analysis pipeline — run \`heapql analyze\``;
    case 'graph': return `reference-graph queries (${construct}) need the full path — run \`heapql analyze\``;
  }
}

const fail = (reason: string, pos: Pos | null, hint: string | null = null): never => {
  throw new OqlPlanError(reason, pos, hint);
};

/**
 * Whether two plan values (expressions, aggregates) are the same, compared structurally: a
 * bigint literal (an integer beyond ±2^53) is compared by value, where JSON.stringify would
 * throw. Fields that are `undefined` are absent, as in the plan's JSON; `float: true` counts
 * (`x / 2` and `x / 2.0` differ).
 */
export function samePlanValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => samePlanValue(x, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => rb[k] !== undefined && samePlanValue(ra[k], rb[k]));
}

const same = (a: PExpr, b: PExpr) => samePlanValue(a, b);

/** Names visible while binding one SELECT. */
interface Scope {
  alias: string | null;
  /** Columns of a FROM subquery that yields value rows; null when rows are objects. */
  columns: string[] | null;
  /** Aliases of enclosing queries: a reference to one is a correlated subquery (refused). */
  outer: string[];
}

/** Where aggregates may appear while binding an expression. */
interface AggSink {
  aggregates: PAggregate[];
  positions: Pos[];
  /** AST of each slot's call, for rule 6 messages. */
  calls: ExprOf<'call'>[];
}

/** `aliases`: output aliases a bare name may stand for (HAVING), bound as that item's expression. */
type Mode = { aggs: AggSink | null; where: string; aliases?: Map<string, Expr> };

export class Binder {
  /** Set when the plan uses a full-path feature (the plan envelope's `fullPath`). */
  usesFullPath = false;
  /** Every regex of the query, for the session's check before it runs. */
  readonly patterns: PatternUse[] = [];
  constructor(private readonly opts: BindOptions) {}

  bind(q: Query): BoundQuery {
    return this.query(q, [], 'top');
  }

  private needFull(feature: 'retained' | 'dominators' | 'graph', construct: string, pos: Pos): void {
    this.usesFullPath = true;
    if (!this.opts.fullPath) fail(fullPathMessage(feature, construct), pos, ANALYZE_HINT);
  }

  // ---- queries -----------------------------------------------------------------------------

  private query(q: Query, outer: string[], role: 'top' | 'branch' | 'sub'): BoundQuery {
    return q.type === 'select' ? this.select(q, outer, role) : this.setOp(q, outer);
  }

  private setOp(q: SetOpQuery, outer: string[]): BoundQuery {
    // DISTINCT on the first branch applies to the combined result (spec rule 2).
    let distinct = false;
    let first: Query = q.left;
    while (first.type === 'setop' && !first.parenthesized) first = first.left;
    if (first.type === 'select' && !first.parenthesized && first.distinct) {
      distinct = true;
      first = { ...first, distinct: false };
    }
    const left = this.query(replaceLeftmost(q.left, first), outer, 'branch');
    const right = this.query(q.right, outer, 'branch');
    if (q.op === 'union') {
      for (const ast of [q.left, q.right]) {
        const agg = findAggregate(ast);
        if (agg) {
          fail(
            'aggregates are not allowed in a UNION branch',
            agg.pos,
            'run the aggregate as its own query, or aggregate over one FROM INSTANCEOF / regex source instead of a UNION',
          );
        }
      }
    }
    if (left.columns.length !== right.columns.length) {
      fail(
        `the branches of ${q.op.toUpperCase()} have different column counts (${left.columns.length} and ${right.columns.length})`,
        q.right.pos,
        'every branch must select the same number of columns',
      );
    }
    const orderBy = q.orderBy.map((o) => this.setOpOrderKey(o, left.columns));
    return {
      query: { op: q.op, left: left.query, right: right.query, distinct, orderBy, limit: q.limit ? q.limit.value : null },
      columns: left.columns,
    };
  }

  private setOpOrderKey(o: OrderItem, columns: string[]): POrderKey {
    const i = outputIndex(o.expr, columns);
    if (i === null) {
      fail(
        `ORDER BY ${printExpr(o.expr)} after ${'a set operation'} must name an output column`,
        o.expr.pos,
        `order by a column name, an AS alias or a position (1..${columns.length}): ${columns.join(', ')}`,
      );
    }
    return { expr: { k: 'out', i: i! }, desc: o.desc };
  }

  private select(q: SelectQuery, outer: string[], role: 'top' | 'branch' | 'sub'): BoundQuery {
    void role;
    const { source, scope } = this.source(q.from, outer);
    const sink: AggSink = { aggregates: [], positions: [], calls: [] };
    const rowMode: Mode = { aggs: null, where: 'WHERE' };

    // WHERE: EXISTS terms become guards (non-correlated, run once first; spec rule 8).
    const guards: PQuery[] = [];
    let filter: PExpr | null = null;
    if (q.where) {
      const terms = conjuncts(q.where);
      const rest: Expr[] = [];
      for (const t of terms) {
        if (t.type === 'exists') guards.push(this.query(t.query, scopeAliases(scope), 'sub').query);
        else rest.push(t);
      }
      // Joined as a balanced tree, as the parse left them (ts/oql/balance.ts): a long AND stays shallow.
      filter = allOf(rest.map((t) => this.expr(t, scope, rowMode)));
    }

    // GROUP BY: a bare name that is an output alias stands for that column's expression.
    const aliasItems = new Map(q.items.filter((i) => i.alias !== null).map((i) => [i.alias!, i.expr]));
    const groupAst = q.groupBy.map((g) =>
      g.type === 'name' && g.name !== scope.alias && aliasItems.has(g.name) ? aliasItems.get(g.name)! : groupKeyAst(g, q),
    );
    const groupBy = groupAst.map((g) => this.expr(g, scope, { aggs: null, where: 'GROUP BY' }));

    // Select list.
    const onlyItem = q.items.length === 1 ? q.items[0] : null;
    const isRowItem = (e: Expr) => e.type === 'star' || (e.type === 'name' && e.name === scope.alias && scope.alias !== null);
    let output: PSelect['output'];
    let columns: string[];
    const itemMode: Mode = { aggs: sink, where: 'SELECT' };
    const boundItems: { name: string; expr: PExpr; ast: Expr }[] = [];
    if (onlyItem && onlyItem.alias === null && isRowItem(onlyItem.expr) && scope.columns === null) {
      output = { kind: 'objects' };
      columns = [onlyItem.expr.type === 'star' ? '*' : scope.alias!];
    } else {
      for (const item of q.items) {
        if (item.expr.type === 'star' && scope.columns !== null) {
          for (const c of scope.columns) boundItems.push({ name: c, expr: { k: 'col', name: c }, ast: item.expr });
          continue;
        }
        const expr = item.expr.type === 'star' ? ({ k: 'row' } as PExpr) : this.expr(item.expr, scope, itemMode);
        boundItems.push({ name: item.alias ?? printExpr(item.expr, { header: true }), expr, ast: item.expr });
      }
      columns = boundItems.map((b) => b.name);
      output = { kind: 'columns', columns: boundItems.map((b): POutputColumn => ({ name: b.name, expr: b.expr })) };
    }

    // HAVING and ORDER BY may add aggregate slots.
    const havingAst = q.having;
    // HAVING may name an output alias (`COUNT(*) AS n ... HAVING n > 5`).
    let having: PExpr | null = havingAst
      ? this.expr(havingAst, scope, { aggs: sink, where: 'HAVING', aliases: aliasItems })
      : null;
    const orderRaw = q.orderBy.map((o) => ({ o, i: outputIndex(o.expr, columns, aliasOrNull(q)) }));
    for (const { o, i } of orderRaw) if (i === null) refuseConstantOrderKey(o.expr, columns);
    const orderBound = orderRaw.map(({ o, i }) =>
      i !== null ? null : this.expr(o.expr, scope, { aggs: sink, where: 'ORDER BY' }),
    );

    const grouped = groupBy.length > 0 || sink.aggregates.length > 0;
    if (grouped) {
      if (q.from.source.type === 'subquery') {
        fail(
          'aggregating over a FROM subquery is not supported',
          (sink.positions[0] ?? q.groupBy[0]?.pos) ?? q.pos,
          'aggregate in the inner query instead, e.g. SELECT COUNT(*) FROM java.lang.String s WHERE ...',
        );
      }
      this.checkToStringGrouping(groupAst, sink);
      if (output.kind === 'columns') {
        output.columns = output.columns.map((c, idx) => ({
          name: c.name,
          expr: groupedExpr(c.expr, groupBy, boundItems[idx].ast, 'SELECT'),
        }));
      } else {
        fail(
          'SELECT * cannot be combined with GROUP BY or aggregates',
          q.items[0].pos,
          'select the group keys and aggregates, e.g. SELECT classof(x), COUNT(*) FROM ... GROUP BY classof(x)',
        );
      }
      if (having && havingAst) having = groupedExpr(having, groupBy, havingAst, 'HAVING');
    } else if (havingAst) {
      fail('HAVING needs GROUP BY or an aggregate', havingAst.pos, 'filter rows with WHERE, or add GROUP BY');
    }

    const orderBy: POrderKey[] = orderRaw.map(({ o, i }, idx) => {
      if (i !== null) return { expr: { k: 'out', i }, desc: o.desc };
      let e = orderBound[idx]!;
      // A name that reads a group key (`GROUP BY name … ORDER BY name` beside `AS Name`) is fine.
      if (grouped && !groupBy.some((g) => same(g, e))) refuseCaseOfColumn(o.expr, columns);
      if (grouped) e = groupedExpr(e, groupBy, o.expr, 'ORDER BY');
      if (output.kind === 'columns') {
        const j = output.columns.findIndex((c) => same(c.expr, e));
        if (j >= 0) e = { k: 'out', i: j };
      }
      return { expr: e, desc: o.desc };
    });
    if (q.distinct && output.kind === 'columns') refuseDistinctOrderKey(q.orderBy, orderBy, output.columns, columns);

    if (q.retainedSet) this.needFull('retained', 'AS RETAINED SET', q.pos);

    const select: PSelect = {
      op: 'select',
      source,
      alias: scope.alias,
      filter,
      output,
      groupBy: grouped ? groupBy : [],
      aggregates: sink.aggregates,
      having,
      orderBy,
      distinct: q.distinct,
      limit: q.limit ? q.limit.value : null,
      retainedSet: q.retainedSet,
      guards,
    };
    if (q.retainedSet && output.kind === 'columns') return this.retainedSetOf(q, select, columns, boundItems);
    return { query: select, columns };
  }

  /**
   * `SELECT e AS RETAINED SET FROM ...`: the retained set of the objects `e` yields over the
   * (filtered) rows, NULLs skipped, each object once. The query runs without AS RETAINED SET as
   * a subquery of one column, and the retained set is taken of that column's objects; ORDER BY
   * and LIMIT apply to the retained objects. (MAT evaluates `e` on each object of the rows'
   * retained set instead: with `e` other than the row, rows of other classes read NULL.)
   */
  private retainedSetOf(q: SelectQuery, inner: PSelect, columns: string[], items: { expr: PExpr; ast: Expr }[]): BoundQuery {
    if (items.length !== 1) {
      fail(
        `AS RETAINED SET takes one select item, the objects whose retained set to compute; this query selects ${items.length}`,
        q.items[1].pos,
        'select one object expression, e.g. SELECT s.cache AS RETAINED SET FROM ... s',
      );
    }
    const { expr, ast } = items[0];
    if (inner.groupBy.length > 0 || inner.aggregates.length > 0) {
      fail('AS RETAINED SET cannot be combined with GROUP BY or aggregates', (q.groupBy[0] ?? ast).pos,
        'to count the retained objects: SELECT COUNT(*) FROM INSTANCEOF java.lang.Object o WHERE o IN (SELECT ... AS RETAINED SET FROM ...)');
    }
    const yields = valueKind(expr);
    if (yields !== null) {
      fail(
        `AS RETAINED SET needs objects, and ${printExpr(ast)} yields ${yields}`,
        ast.pos,
        'select objects: the row (SELECT s AS RETAINED SET ...), a reference field (s.cache), classof(s), or dominatorof(s)',
      );
    }
    const outer: PSelect = {
      op: 'select',
      source: { kind: 'subquery', query: { ...inner, orderBy: [], distinct: false, limit: null, retainedSet: false } },
      alias: null,
      filter: null,
      output: { kind: 'objects' },
      groupBy: [],
      aggregates: [],
      having: null,
      orderBy: inner.orderBy,
      distinct: inner.distinct,
      limit: inner.limit,
      retainedSet: true,
      guards: [],
    };
    return { query: outer, columns };
  }

  /** Spec rule 6: grouped by toString(...) → only COUNT(*) and COUNT(toString(...)). */
  private checkToStringGrouping(groupAst: Expr[], sink: AggSink): void {
    const byText = groupAst.find((g) => containsCall(g, 'tostring'));
    if (!byText) return;
    sink.aggregates.forEach((a, i) => {
      const ok = a.fn === 'count' && (a.arg === null || (a.arg.k === 'call' && a.arg.fn === 'toString'));
      if (!ok) {
        const key = printExpr(byText);
        fail(
          `a query grouped by ${key} accepts only COUNT(*) and COUNT(${key}) as aggregates, not ${printExpr(sink.calls[i])}`,
          sink.positions[i],
          `string text is decoded after the scan, where ${printExpr(sink.calls[i])} is no longer available: ` +
            `use COUNT(*) here and run ${printExpr(sink.calls[i])} in a separate query grouped by the object or by classof(...)`,
        );
      }
    });
  }

  private source(from: FromClause, outer: string[]): { source: PSource; scope: Scope } {
    const s = from.source;
    const scope: Scope = { alias: from.alias, columns: null, outer };
    switch (s.type) {
      case 'class':
        if (from.instanceOf && s.name === 'java.lang.Object') return { source: { kind: 'all' }, scope };
        return { source: { kind: 'class', name: s.name, subclasses: from.instanceOf }, scope };
      case 'regex':
        this.patterns.push({ pattern: s.pattern, pos: s.pos, kind: 'from' });
        return { source: { kind: 'regex', pattern: s.pattern, subclasses: from.instanceOf }, scope };
      case 'address':
        return { source: { kind: 'address', address: `0x${BigInt(s.hex).toString(16)}` }, scope };
      case 'objectId':
        return fail(
          `FROM OBJECTS takes a hex address, not the decimal number ${s.text}`,
          s.pos,
          `write FROM OBJECTS 0x<address> (e.g. FROM OBJECTS 0x${safeHex(s.text)}), or select by id with WHERE @objectId = ${s.text}`,
        );
      case 'subquery': {
        const inner = this.query(s.query, outer, 'sub');
        const objects = inner.query.op === 'select' && inner.query.output.kind === 'objects';
        scope.columns = objects ? null : inner.columns;
        return { source: { kind: 'subquery', query: inner.query }, scope };
      }
    }
  }

  // ---- expressions -------------------------------------------------------------------------

  private expr(e: Expr, scope: Scope, mode: Mode): PExpr {
    const rec = (x: Expr) => this.expr(x, scope, mode);
    switch (e.type) {
      case 'literal':
        return literal(e);
      case 'star':
        return fail('"*" is only allowed as a select item or in COUNT(*)', e.pos);
      case 'name': {
        const aliased = e.name !== scope.alias ? mode.aliases?.get(e.name) : undefined;
        return aliased ? this.expr(aliased, scope, { ...mode, aliases: undefined }) : this.name(e, scope);
      }
      case 'attr':
        return this.attr(e.name, e.base ? rec(e.base) : { k: 'row' }, e.pos, e.base === null ? `@${e.name}` : printExpr(e), e.base ? printExpr(e.base) : '');
      case 'field': {
        if (e.base.type === 'name' && e.base.name === scope.alias && scope.alias !== null) {
          if (scope.columns !== null) return this.column(e.name, scope, e.pos);
          return { k: 'field', base: { k: 'row' }, name: e.name };
        }
        return this.fieldOf(rec(e.base), printExpr(e.base), e.name, e.pos);
      }
      case 'call':
        return this.call(e, scope, mode);
      case 'method':
        return this.method(e.name, e.args, rec(e.base), e.pos, scope, mode, printExpr(e.base));
      case 'index':
        return { k: 'index', e: rec(e.base), i: rec(e.index) };
      case 'slice': {
        const base = rec(e.base);
        return {
          k: 'slice',
          e: base,
          from: e.from ? rec(e.from) : { k: 'lit', v: 0 },
          to: e.to ? rec(e.to) : { k: 'attr', base, name: 'length' },
        };
      }
      case 'unary': {
        // Long.MIN_VALUE: its magnitude is one past a long, so only the negated literal is one.
        if (e.op === '-' && isLongMinMagnitude(e.operand)) return { k: 'lit', v: -LONG_MIN_MAGNITUDE };
        const operand = rec(e.operand);
        if (e.op === '+') return operand;
        // Folded, but for Long.MIN_VALUE, whose negation is no long: the executor wraps it, as Java.
        if (operand.k === 'lit' && typeof operand.v === 'number') return { ...operand, v: -operand.v };
        if (operand.k === 'lit' && typeof operand.v === 'bigint' && operand.v !== -LONG_MIN_MAGNITUDE) return { ...operand, v: -operand.v };
        return { k: 'neg', e: operand };
      }
      case 'binary':
        return { k: 'bin', op: e.op, l: rec(e.left), r: rec(e.right) };
      case 'not':
        if (e.operand.type === 'exists') return existsMisplaced(e.operand);
        return { k: 'not', e: rec(e.operand) };
      case 'like': {
        checkLikePattern(e.pattern, e.patternPos);
        this.patterns.push({ pattern: e.pattern, pos: e.patternPos, kind: 'like' });
        const operand = rec(e.operand);
        // LIKE matches texts (a String, a text value, a list of them); a number or a boolean
        // has none, as it equals no text (`p.x = "1"` is false for an int 1): the executor
        // matches neither LIKE nor NOT LIKE on one, so an operand known here to be one is
        // refused at its line and column instead of matching nothing silently.
        const kind = valueKind(operand);
        if (kind === 'a number' || kind === 'a boolean') {
          fail(
            `${e.negate ? 'NOT LIKE' : 'LIKE'} matches text, and ${printExpr(e.operand)} yields ${kind}, which has no text to match (as it equals no text)`,
            e.operand.pos,
            `match its text with toString(${printExpr(e.operand)}) ${e.negate ? 'NOT LIKE' : 'LIKE'} "…", or compare the ${kind === 'a boolean' ? 'boolean itself (= true)' : 'number itself (=, <, BETWEEN)'}`,
          );
        }
        return { k: 'like', e: operand, pattern: e.pattern, negate: e.negate };
      }
      case 'instanceof': {
        let inst: PExpr;
        if ('pattern' in e) {
          this.patterns.push({ pattern: e.pattern, pos: e.patternPos, kind: 'instanceof' });
          inst = { k: 'instanceof', e: rec(e.operand), pattern: e.pattern };
        } else {
          inst = { k: 'instanceof', e: rec(e.operand), class: e.className };
        }
        return e.negate ? { k: 'not', e: inst } : inst;
      }
      case 'in': {
        const inner = this.query(e.query, scopeAliases(scope), 'sub');
        if (inner.columns.length !== 1) {
          fail(
            `the subquery of IN must select exactly one column; it selects ${inner.columns.length}`,
            e.query.pos,
            'select the objects themselves, e.g. x IN (SELECT * FROM java.util.HashMap)',
          );
        }
        const operand = rec(e.operand);
        const inExpr: PExpr = { k: 'in', e: operand, query: inner.query };
        // NULL is in no subquery, and not "not in" one either (MAT: NULL on either side is false
        // for IN and NOT IN alike; SQL: unknown), as NULL matches neither LIKE nor NOT LIKE.
        if (!e.negate) return inExpr;
        return { k: 'bin', op: 'and', l: { k: 'bin', op: '!=', l: operand, r: { k: 'lit', v: null } }, r: { k: 'not', e: inExpr } };
      }
      case 'inList':
        return fail(
          'a literal IN list is not supported',
          e.pos,
          `use IN (SELECT ...), or compare with OR: ${e.items.map((i) => `${printExpr(e.operand)} = ${printExpr(i)}`).slice(0, 3).join(' OR ')}`,
        );
      case 'between': {
        const v = rec(e.operand);
        const range: PExpr = {
          k: 'bin', op: 'and',
          l: { k: 'bin', op: '>=', l: v, r: rec(e.low) },
          r: { k: 'bin', op: '<=', l: v, r: rec(e.high) },
        };
        return e.negate ? { k: 'not', e: range } : range;
      }
      case 'isNull':
        return { k: 'bin', op: e.negate ? '!=' : '=', l: rec(e.operand), r: { k: 'lit', v: null } };
      case 'exists':
        return existsMisplaced(e);
      case 'case':
        return {
          k: 'case',
          whens: e.whens.map((w) => ({ when: rec(w.when), then: rec(w.then) })),
          else: e.else ? rec(e.else) : null,
        };
    }
  }

  private name(e: ExprOf<'name'>, scope: Scope): PExpr {
    if (scope.alias !== null && e.name === scope.alias) return { k: 'row' };
    if (scope.columns !== null) return this.column(e.name, scope, e.pos);
    if (scope.outer.includes(e.name)) {
      fail(
        `the subquery refers to \`${e.name}\` of the outer query`,
        e.pos,
        'subqueries in IN and EXISTS are not correlated: they run once, before the outer scan, and cannot use outer aliases',
      );
    }
    // A bare name reads a field of the current row (MAT: `SELECT count FROM ...`). Whether the
    // class has it depends on the dump (java.lang.String has `count` up to JDK 8, not after):
    // the executor checks it against the source's classes.
    return { k: 'field', base: { k: 'row' }, name: e.name };
  }

  private column(name: string, scope: Scope, pos: Pos): PExpr {
    if (!scope.columns!.includes(name)) fail(`the subquery has no column \`${name}\``, pos, noColumnHint(name, scope.columns!, scope.alias ?? 'alias'));
    return { k: 'col', name };
  }

  /** A field of what `base` yields; a list has none (its elements have: `list[0].name`). */
  private fieldOf(base: PExpr, baseText: string, name: string, pos: Pos): PExpr {
    const list = listKind(base);
    if (list !== null) {
      fail(`${baseText} yields ${list}, which has no field ${name}`, pos, listHint(baseText, list, `read the field of one element: ${baseText}[0].${name}`));
    }
    return { k: 'field', base, name };
  }

  private attr(written: string, base: PExpr, pos: Pos, text: string, baseText = ''): PExpr {
    const name = ATTRIBUTES[written.toLowerCase()];
    if (!name) {
      const guess = didYouMean(`@${written}`, ATTRIBUTE_NAMES);
      return fail(`unknown attribute @${written}`, pos, `${guess ? `did you mean ${guess}? ` : ''}attributes: ${ATTRIBUTE_NAMES.join(', ')}`);
    }
    const list = listKind(base);
    if (list !== null && name !== 'length') {
      fail(`@${written} reads ${list === 'a list of texts' ? 'no text' : 'an object'}, and ${baseText} yields ${list}`, pos,
        listHint(baseText, list, `read it of one element (${baseText}[0].@${written}), or count the elements with @length`));
    }
    if (name === 'retainedHeapSize') this.needFull('retained', text.endsWith('()') ? text : '@retainedHeapSize', pos);
    if (name === 'inbounds' || name === 'outbounds') this.needFull('graph', `@${name}`, pos);
    return { k: 'attr', base, name };
  }

  private call(e: ExprOf<'call'>, scope: Scope, mode: Mode): PExpr {
    const lower = e.name.toLowerCase();
    const agg = AGGREGATES[lower];
    if (agg) return this.aggregate(e, agg, scope, mode);
    if (lower === 'eval') {
      return fail('eval(...) is not supported', e.pos, 'write the expression itself; to use a query result, put the query in FROM ( ... ) alias or IN ( ... )');
    }
    if (lower === 'get') return getUnsupported(e.pos);
    if (lower === 'inbounds' || lower === 'outbounds') {
      if (e.args.length !== 1) fail(`${e.name}() takes one argument`, e.pos);
      this.needFull('graph', `${e.name}()`, e.pos);
      return { k: 'attr', base: this.expr(e.args[0], scope, mode), name: lower as AttrName };
    }
    const fn = FUNCTIONS[lower];
    if (fn) {
      if (e.args.length < fn.min || e.args.length > fn.max) {
        const want = fn.min === fn.max ? `${fn.min}` : `at least ${fn.min}`;
        fail(`${e.name}() takes ${want} argument${fn.min === 1 && fn.max === 1 ? '' : 's'}, not ${e.args.length}`, e.pos);
      }
      if (fn.fn === 'dominators' || fn.fn === 'dominatorof') this.needFull('dominators', `${fn.fn}()`, e.pos);
      if (fn.fn === 'path') this.needFull('graph', 'path()', e.pos);
      return { k: 'call', fn: fn.fn, args: e.args.map((a) => this.expr(a, scope, mode)) };
    }
    // A method alias at the head of a path applies to the row: `SELECT getUsedHeapSize() FROM ...`.
    if (findMethod(e.name)) return this.method(e.name, e.args, { k: 'row' }, e.pos, scope, mode);
    const guess = didYouMean(e.name, [...FUNCTION_NAMES, ...AGGREGATE_NAMES]);
    return fail(
      `unknown function ${e.name}()`,
      e.pos,
      `${guess ? `did you mean ${guess}? ` : ''}functions: ${FUNCTION_NAMES.join(', ')}; aggregates: ${AGGREGATE_NAMES.join(', ')}`,
    );
  }

  private aggregate(e: ExprOf<'call'>, fn: AggFn, scope: Scope, mode: Mode): PExpr {
    if (!mode.aggs) {
      return fail(
        `aggregate ${e.name.toUpperCase()}() is not allowed in ${mode.where}`,
        e.pos,
        mode.where === 'WHERE' ? 'filter groups with HAVING, after GROUP BY' : 'aggregates belong in SELECT, HAVING or ORDER BY',
      );
    }
    const inner: Mode = { aggs: null, where: `${e.name.toUpperCase()}()` };
    let arg: PExpr | null = null;
    let p: number | null = null;
    const star = e.args.length === 1 && e.args[0].type === 'star';
    if (fn === 'count') {
      if (e.args.length !== 1) fail(`${e.name}() takes one argument: COUNT(*) or COUNT(expr)`, e.pos);
      arg = star ? null : this.expr(e.args[0], scope, inner);
    } else if (fn === 'percentile') {
      const pArg = e.args[1];
      if (e.args.length !== 2 || star || !pArg || pArg.type !== 'literal' || pArg.kind !== 'int') {
        fail(`${e.name}() takes an expression and an integer percentile`, e.pos, 'e.g. PERCENTILE(s.@usedHeapSize, 95) — 95 means the 95th percentile, not 0.95');
      }
      p = (pArg as ExprOf<'literal'>).value as number;
      if (p < 0 || p > 100) fail(`the percentile must be between 0 and 100, not ${p}`, pArg!.pos);
      arg = this.expr(e.args[0], scope, inner);
    } else {
      if (e.args.length !== 1 || star) fail(`${e.name.toUpperCase()}() takes one expression${star ? ', not *' : ''}`, e.pos);
      arg = this.expr(e.args[0], scope, inner);
      // SUM and AVG add numbers: an argument known to be something else is refused here, at its
      // line and column, rather than by the executor on the first row it meets (or never, when
      // the argument is NULL on every row: toString() of no String summed to 0).
      const kind = (fn === 'sum' || fn === 'avg') ? notNumberKind(arg, scope) : null;
      if (kind !== null) {
        fail(
          `${e.name.toUpperCase()}() needs numbers, and ${printExpr(e.args[0])} yields ${kind}`,
          e.args[0].pos,
          'aggregate a numeric attribute or field, e.g. SUM(x.@usedHeapSize); COUNT(...) counts values of any kind, MIN/MAX order them',
        );
      }
    }
    const agg: PAggregate = { fn, arg, p };
    const sink = mode.aggs;
    let i = sink.aggregates.findIndex((a) => samePlanValue(a, agg));
    if (i < 0) {
      i = sink.aggregates.push(agg) - 1;
      sink.positions.push(e.pos);
      sink.calls.push(e);
    }
    return { k: 'agg', i };
  }

  private method(name: string, args: Expr[], base: PExpr, pos: Pos, scope: Scope, mode: Mode, baseText = ''): PExpr {
    if (name === 'get') return getUnsupported(pos);
    const m = findMethod(name);
    if (!m) {
      const guess = didYouMean(name, METHOD_ALIASES.map((x) => x.name));
      return fail(
        `unknown method ${name}()`,
        pos,
        `${guess ? `did you mean ${guess}()? ` : ''}methods are aliases of attribute or field reads: ${METHOD_ALIASES.map((x) => `${x.name}()`).join(', ')}`,
      );
    }
    if (args.length !== m.args) fail(`${name}() takes ${m.args === 0 ? 'no arguments' : `${m.args} argument`}`, pos);
    const r = m.rewrite;
    switch (r.kind) {
      case 'attr': return this.attr(r.name, base, pos, `${name}()`, baseText);
      case 'field': return this.fieldOf(base, baseText, r.name, pos);
      case 'toString': return asText(base);
      case 'classof': return { k: 'call', fn: 'classof', args: [base] };
      case 'equals': return { k: 'bin', op: '=', l: base, r: this.expr(args[0], scope, mode) };
      case 'like': {
        const a = args[0];
        if (a.type !== 'literal' || a.kind !== 'string') {
          return fail(`${name}() takes a string literal`, a.pos, `e.g. toString(s).${name}("http")`);
        }
        const pattern = likePattern(r.shape, a.value as string);
        this.patterns.push({ pattern, pos: a.pos, kind: 'method' });
        return { k: 'like', e: asText(base), pattern, negate: false };
      }
    }
  }
}

// ---- helpers ---------------------------------------------------------------------------------

/**
 * Integer literals beyond 2^53 (which a double would round) travel as bigints, written into the
 * plan with all their digits, up to a Java long's 2^63 − 1: the executor's integers are longs.
 * Checked on the literal's text, since the parsed number has already been rounded.
 */
const EXACT_LIMIT = 2n ** 53n;
const LONG_MIN_MAGNITUDE = 2n ** 63n;
const LONG_MAX = LONG_MIN_MAGNITUDE - 1n;

/** An integer or hex literal's exact value, from its text (the parsed number is rounded). */
function exactValue(e: ExprOf<'literal'>): bigint {
  return BigInt(e.kind === 'int' ? e.text.replace(/[lL]$/, '') : e.text);
}

/** `9223372036854775808` (or `0x8000000000000000`) as the operand of a unary minus. */
function isLongMinMagnitude(e: Expr): boolean {
  return e.type === 'literal' && (e.kind === 'int' || e.kind === 'hex') && exactValue(e) === LONG_MIN_MAGNITUDE;
}

/** 2^64: a hex literal is at most 64 bits. */
const BITS_64 = 2n ** 64n;

function literal(e: ExprOf<'literal'>): PExpr {
  if (e.kind === 'hex') {
    let n = exactValue(e);
    if (n >= BITS_64) {
      fail(
        `the hex number ${e.text} is beyond 64 bits`,
        e.pos,
        'a hex number has at most 16 digits (0xffffffffffffffff): addresses and longs are 64 bits',
      );
    }
    // 0x8000000000000000 and above: the 64 bits as a Java long (negative), as Java reads the
    // hex literal 0xffff800000001000L, and as the executor holds an address at or above 2^63
    // (`@objectAddress`), so that `x.@objectAddress = 0xffff800000001000` matches exactly.
    if (n > LONG_MAX) n -= BITS_64;
    return n > EXACT_LIMIT || n < -EXACT_LIMIT ? { k: 'lit', v: n } : { k: 'lit', v: Number(n) };
  }
  if (e.kind === 'int') {
    const n = exactValue(e);
    if (n > LONG_MAX) {
      fail(
        `the integer ${e.text} is beyond a Java long`,
        e.pos,
        `integers from −2^63 to 2^63 − 1 (${LONG_MAX}) are exact; write a float (e.g. 1e20) for larger magnitudes, or an address in hex (0x…)`,
      );
    }
    if (n > EXACT_LIMIT) return { k: 'lit', v: n };
  }
  return e.kind === 'float' ? { k: 'lit', v: e.value as number, float: true } : { k: 'lit', v: e.value };
}

/**
 * What a select item of AS RETAINED SET yields when that is known not to be objects ("a
 * number", "text", ...); null when it may be objects (a field, an element, a column: only the
 * dump tells, and the executor refuses values that are not objects).
 */
function valueKind(e: PExpr): string | null {
  switch (e.k) {
    case 'row': case 'col': case 'field': case 'index': case 'slice':
      return null;
    case 'lit':
      return e.v === null ? 'NULL' : typeof e.v === 'string' ? 'text' : typeof e.v === 'boolean' ? 'a boolean' : 'a number';
    case 'attr':
      if (e.name === 'clazz' || e.name === 'classLoader' || e.name === 'inbounds' || e.name === 'outbounds') return null;
      return e.name === 'displayName' || e.name === 'heap' ? 'text' : e.name === 'GCRoots' || e.name === 'systemProperties' ? 'a list of texts' : 'a number';
    case 'call':
      if (e.fn === 'toString') return 'text';
      if (e.fn === 'coalesce' || e.fn === 'nullif') return valueKind(e.args[0]) !== null && e.args.every((a) => valueKind(a) !== null) ? valueKind(e.args[0]) : null;
      return null;
    case 'case': {
      const kinds = [...e.whens.map((w) => valueKind(w.then)), e.else ? valueKind(e.else) : 'NULL'];
      return kinds.every((k) => k !== null) ? kinds.find((k) => k !== 'NULL') ?? 'NULL' : null;
    }
    case 'bin':
      return ['+', '-', '*', '/', '%'].includes(e.op) ? 'a number or text' : 'a boolean';
    case 'not': case 'like': case 'instanceof': case 'in':
      return 'a boolean';
    case 'neg':
      return 'a number';
    case 'agg':
      return 'an aggregate';
    default:
      return null;
  }
}

/** What to do with a list (`listKind`) instead of reading a field or attribute of it: `ofElement` for a list of objects. */
function listHint(baseText: string, list: string, ofElement: string): string {
  return list === 'a list of texts' ? `count the elements with ${baseText}.@length, or match them with ${baseText} LIKE "…"` : ofElement;
}

/**
 * What a list-valued expression yields ("a list of objects"): `@inbounds`, `@outbounds`,
 * `@GCRoots`, `@systemProperties`, `dominators(x)`, `path(a, b)`; null for anything else (a
 * slice may be a text: `s[0:5]` of a String).
 */
function listKind(e: PExpr): string | null {
  if (e.k === 'attr') {
    if (e.name === 'inbounds' || e.name === 'outbounds') return 'a list of objects';
    if (e.name === 'GCRoots' || e.name === 'systemProperties') return 'a list of texts';
  }
  if (e.k === 'call' && (e.fn === 'dominators' || e.fn === 'path')) return 'a list of objects';
  return null;
}

/**
 * What an argument of SUM / AVG yields when it is known not to be a number ("an object",
 * "text", ...); null when it is or may be a number (a field, an element, a column, arithmetic:
 * only the dump tells, and the executor refuses what is not).
 */
function notNumberKind(e: PExpr, scope: Scope): string | null {
  switch (e.k) {
    case 'row':
      return scope.columns === null ? 'an object' : null;
    case 'attr':
      return e.name === 'clazz' || e.name === 'classLoader' ? 'an object' : e.name === 'inbounds' || e.name === 'outbounds' ? 'a list of objects' : nonNumber(valueKind(e));
    case 'call':
      if (e.fn === 'classof' || e.fn === 'dominatorof') return 'an object';
      if (e.fn === 'dominators' || e.fn === 'path') return 'a list of objects';
      return nonNumber(valueKind(e));
    case 'lit': case 'case': case 'not': case 'like': case 'instanceof': case 'in':
      return nonNumber(valueKind(e));
    case 'bin':
      return ['+', '-', '*', '/', '%'].includes(e.op) ? null : 'a boolean';
    default:
      return null;
  }
}

function nonNumber(kind: string | null): string | null {
  return kind === null || kind === 'a number' || kind === 'NULL' ? null : kind;
}

function getUnsupported(pos: Pos): never {
  return fail(
    'get(n) indexed access is not supported',
    pos,
    'read the backing field instead, e.g. list.elementData[0] for an ArrayList, or a[0] for an array',
  );
}

function existsMisplaced(e: Expr): never {
  return fail(
    'EXISTS may only be a top-level AND term of WHERE',
    e.pos,
    'EXISTS is not correlated: it runs once before the scan and admits every row or none, so it cannot sit under OR or NOT',
  );
}

/** The AND of `terms` as a balanced tree (null for none). */
function allOf(terms: PExpr[]): PExpr | null {
  if (terms.length === 0) return null;
  if (terms.length === 1) return terms[0]!;
  const mid = terms.length >>> 1;
  return { k: 'bin', op: 'and', l: allOf(terms.slice(0, mid))!, r: allOf(terms.slice(mid))! };
}

function conjuncts(e: Expr): Expr[] {
  return e.type === 'binary' && e.op === 'and' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

function scopeAliases(scope: Scope): string[] {
  return scope.alias !== null ? [...scope.outer, scope.alias] : scope.outer;
}

/**
 * A GROUP BY key written as a constant: a 1-based position or a quoted output name stands for
 * that select item, as in ORDER BY (SQL's `GROUP BY 1`); any other constant would put every
 * row in one group, a mistake refused as ORDER BY refuses it.
 */
function groupKeyAst(g: Expr, q: SelectQuery): Expr {
  if (!isConstant(g)) return g;
  const names = q.items.map((i) => i.alias ?? printExpr(i.expr, { header: true }));
  const choices = `group by an expression of the row, an AS alias or a 1-based position (1..${names.length}); the columns are: ${names.join(', ')}`;
  const i = literalColumn(g, names);
  if (i === 'outOfRange') return fail(`GROUP BY position ${printExpr(g)} is out of range`, g.pos, choices);
  if (i === null) {
    if (g.type === 'literal' && g.kind === 'string') fail(`GROUP BY ${printExpr(g)} is a constant string: no output column is named ${g.value as string}`, g.pos, choices);
    return fail(`GROUP BY ${printExpr(g)} groups by a constant: it has the same value on every row`, g.pos, choices);
  }
  const item = q.items[i]!;
  if (item.expr.type === 'star') fail(`GROUP BY ${printExpr(g)} names *, which is no group key`, g.pos, choices);
  return item.expr;
}

/**
 * The columns of a FROM subquery, and how to read one named by its expression (`p.x`,
 * `COUNT(*)`), which no `alias.name` can spell: by a name the subquery gives it with AS.
 */
function noColumnHint(name: string, columns: string[], alias: string): string {
  const list = `its columns are: ${columns.join(', ')}`;
  const unnamed = columns.filter((c) => !/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(c));
  if (unnamed.length === 0) return list;
  const col = unnamed.find((c) => c.endsWith(`.${name}`)) ?? unnamed[0];
  const as = col.endsWith(`.${name}`) ? name : 'v';
  return `${list}; a column named by its expression is read by a name the subquery gives it: SELECT ${col} AS ${as} … in the subquery, then ${alias}.${as}`;
}

/**
 * The column a 1-based position or a quoted output name names, in ORDER BY and GROUP BY alike
 * (a quoted name: `AS "the tag"` … `ORDER BY "the tag"`, as SQL's double-quoted identifiers):
 * its index; `outOfRange` for a position past the columns; null for anything else, a string
 * that names no column included (each clause refuses that constant in its own words).
 */
function literalColumn(e: Expr, columns: string[]): number | 'outOfRange' | null {
  if (e.type !== 'literal') return null;
  if (e.kind === 'int') {
    const n = e.value as number;
    return n >= 1 && n <= columns.length ? n - 1 : 'outOfRange';
  }
  if (e.kind === 'string') {
    const i = columns.indexOf(e.value as string);
    return i >= 0 ? i : null;
  }
  return null;
}

function aliasOrNull(q: SelectQuery): string | null {
  return q.from.alias;
}

/**
 * The output column an ORDER BY item names: a 1-based position, or a name equal to a column
 * header or alias. Null when it is an expression to evaluate.
 */
function outputIndex(e: Expr, columns: string[], fromAlias: string | null = null): number | null {
  const literal = literalColumn(e, columns);
  if (literal === 'outOfRange') {
    return fail(`ORDER BY position ${printExpr(e)} is out of range`, e.pos, `the query has ${columns.length} column${columns.length === 1 ? '' : 's'}`);
  }
  if (literal !== null) return literal;
  if (e.type === 'name' && e.name === fromAlias) return null;
  const text = printExpr(e, { header: true });
  const i = columns.indexOf(text);
  return i >= 0 ? i : null;
}

/**
 * Whether an expression is made of literals only (`"abc"`, `1 + 1`, `-1`, `COALESCE(NULL, 2)`):
 * it has the same value on every row. Aggregates and anything that reads the row are not.
 */
function isConstant(e: Expr): boolean {
  switch (e.type) {
    case 'literal': return true;
    case 'unary': case 'not': return isConstant(e.operand);
    case 'binary': return isConstant(e.left) && isConstant(e.right);
    case 'like': case 'isNull': return isConstant(e.operand);
    case 'between': return isConstant(e.operand) && isConstant(e.low) && isConstant(e.high);
    case 'case': return e.whens.every((w) => isConstant(w.when) && isConstant(w.then)) && (e.else === null || isConstant(e.else));
    case 'call': return !AGGREGATES[e.name.toLowerCase()] && e.args.length > 0 && e.args.every(isConstant);
    case 'method': return isConstant(e.base) && e.args.every(isConstant);
    case 'attr': return e.base !== null && isConstant(e.base);
    case 'index': return isConstant(e.base) && isConstant(e.index);
    case 'slice': return isConstant(e.base) && (e.from === null || isConstant(e.from)) && (e.to === null || isConstant(e.to));
    default: return false;
  }
}

/**
 * An ORDER BY key with the same value on every row sorts nothing: always a mistake (a quoted
 * name that is no column's, `ORDER BY 1 + 1`). An integer alone is a position, handled before.
 */
function refuseConstantOrderKey(e: Expr, columns: string[]): void {
  if (!isConstant(e)) return;
  const choices = `order by a column name, an AS alias, a 1-based position (1..${columns.length}) or an expression of the row; the columns are: ${columns.join(', ')}`;
  if (e.type === 'literal' && e.kind === 'string') {
    fail(`ORDER BY ${printExpr(e)} is a constant string: no output column is named ${e.value as string}`, e.pos, choices);
  }
  fail(`ORDER BY ${printExpr(e)} sorts by a constant: it has the same value on every row`, e.pos, choices);
}

/**
 * `SELECT DISTINCT` merges rows that differ in anything it does not select, so an ORDER BY key
 * that is no output column has no one value per output row: the order would follow whichever
 * merged row came first. Refused, as SQL refuses it, unless a column is the row itself (then
 * every expression of the row is one value per output row).
 */
function refuseDistinctOrderKey(items: OrderItem[], keys: POrderKey[], out: POutputColumn[], columns: string[]): void {
  if (out.some((c) => c.expr.k === 'row')) return;
  keys.forEach((key, idx) => {
    if (key.expr.k === 'out') return;
    const e = items[idx].expr;
    fail(
      `ORDER BY ${printExpr(e)} is not a column of this SELECT DISTINCT`,
      e.pos,
      `DISTINCT merges rows that differ in ${printExpr(e)}, so a row has no one value of it to sort by: add it to the select list, or order by a column (${columns.join(', ')})`,
    );
  });
}

/**
 * A bare name in the ORDER BY of a grouped query that is a column's name in another case
 * (`ORDER BY cnt` for `AS Cnt`): names are case-sensitive, so it reads a field, which a grouped
 * query cannot; said as such rather than as an ungrouped value.
 */
function refuseCaseOfColumn(e: Expr, columns: string[]): void {
  if (e.type !== 'name') return;
  const column = columns.find((c) => c !== e.name && c.toLowerCase() === e.name.toLowerCase());
  if (column === undefined) return;
  fail(`ORDER BY ${e.name} names no column: names are case-sensitive, and the column is ${column}`, e.pos, `write ORDER BY ${column}`);
}

/**
 * Rewrites a bound expression of a grouped query: group keys become `key`, and whatever still
 * reads the row is an error (it is neither grouped nor aggregated).
 */
function groupedExpr(e: PExpr, keys: PExpr[], ast: Expr, where: string): PExpr {
  const rewrite = (x: PExpr): PExpr => {
    const k = keys.findIndex((key) => same(key, x));
    if (k >= 0) return { k: 'key', i: k };
    switch (x.k) {
      case 'row': case 'col': case 'field': case 'attr':
        return fail(
          `${where} item ${printExpr(ast)} uses a value that is neither grouped nor aggregated`,
          ast.pos,
          'add it to GROUP BY, or wrap it in an aggregate such as MIN(...), MAX(...) or COUNT(...)',
        );
      case 'call': return { ...x, args: x.args.map(rewrite) };
      case 'bin': return { ...x, l: rewrite(x.l), r: rewrite(x.r) };
      case 'not': case 'neg': return { ...x, e: rewrite(x.e) };
      case 'like': case 'instanceof': case 'in': return { ...x, e: rewrite(x.e) };
      case 'case':
        return { ...x, whens: x.whens.map((w) => ({ when: rewrite(w.when), then: rewrite(w.then) })), else: x.else ? rewrite(x.else) : null };
      case 'index': return { ...x, e: rewrite(x.e), i: rewrite(x.i) };
      case 'slice': return { ...x, e: rewrite(x.e), from: rewrite(x.from), to: rewrite(x.to) };
      default: return x;
    }
  };
  return rewrite(e);
}

function containsCall(e: Expr, lowerName: string): boolean {
  let found = false;
  walk(e, (x) => {
    if ((x.type === 'call' && x.name.toLowerCase() === lowerName) || (x.type === 'method' && x.name.toLowerCase() === lowerName)) found = true;
  });
  return found;
}

/** The first aggregate call in the select list / HAVING / ORDER BY of a query's own SELECTs. */
function findAggregate(q: Query): Expr | null {
  if (q.type === 'setop') return findAggregate(q.left) ?? findAggregate(q.right);
  let found: Expr | null = null;
  const visit = (x: Expr) => {
    if (!found && x.type === 'call' && AGGREGATES[x.name.toLowerCase()]) found = x;
  };
  for (const i of q.items) walk(i.expr, visit);
  if (q.having) walk(q.having, visit);
  if (!found && q.groupBy.length > 0) found = q.groupBy[0];
  return found;
}

/** Visits every expression node (not descending into subqueries). */
function walk(e: Expr, visit: (x: Expr) => void): void {
  visit(e);
  const kids: (Expr | null)[] = [];
  switch (e.type) {
    case 'attr': kids.push(e.base); break;
    case 'field': kids.push(e.base); break;
    case 'call': kids.push(...e.args); break;
    case 'method': kids.push(e.base, ...e.args); break;
    case 'index': kids.push(e.base, e.index); break;
    case 'slice': kids.push(e.base, e.from, e.to); break;
    case 'unary': case 'not': kids.push(e.operand); break;
    case 'binary': kids.push(e.left, e.right); break;
    case 'like': case 'instanceof': case 'in': case 'isNull': kids.push(e.operand); break;
    case 'inList': kids.push(e.operand, ...e.items); break;
    case 'between': kids.push(e.operand, e.low, e.high); break;
    case 'case': for (const w of e.whens) kids.push(w.when, w.then); kids.push(e.else); break;
    default: break;
  }
  for (const k of kids) if (k) walk(k, visit);
}

function replaceLeftmost(q: Query, replacement: Query): Query {
  if (q.type === 'setop' && !q.parenthesized) return { ...q, left: replaceLeftmost(q.left, replacement) };
  return replacement;
}

function checkLikePattern(pattern: string, pos: Pos): void {
  if (/%/.test(pattern) && !/[.*+?]/.test(pattern)) {
    fail(
      `LIKE takes a regular expression, not SQL wildcards: ${quoteText(pattern)}`,
      pos,
      `write ".*" for % and "." for _, e.g. LIKE ${quoteText(sqlLikeAsRegex(pattern))}`,
    );
  }
}

/** Characters a regular expression reads as operators, escaped where a SQL pattern means them literally. */
const REGEX_OPERATORS = new Set([...'\\^$.|?*+()[]{}']);

/**
 * A SQL LIKE pattern as the regular expression LIKE takes, for the hint: `%` any text, `_` one
 * character, a backslash the next character itself (`\%` a percent sign, written `\x25` so
 * that the hint is not taken for SQL wildcards again), every other character itself.
 */
function sqlLikeAsRegex(pattern: string): string {
  const literal = (c: string) => (c === '%' ? '\\x25' : REGEX_OPERATORS.has(c) ? `\\${c}` : c);
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) out += literal(pattern[++i]!);
    else out += c === '%' ? '.*' : c === '_' ? '.' : literal(c);
  }
  return out;
}

function safeHex(decimal: string): string {
  try {
    return BigInt(decimal.replace(/[lL]$/, '')).toString(16);
  } catch {
    return '...';
  }
}

