// Long AND / OR chains as balanced trees. The grammar is left-recursive, so `a OR b OR c OR …`
// parses as (((a OR b) OR c) OR …): one level per term. The plan the executor gets nests as deep
// as the tree (its JSON reader takes at most 127 levels), so a list of 200 alternatives — what
// the hint for a literal IN list suggests writing — failed with "the plan is not valid JSON:
// recursion limit exceeded". AND and OR are associative (NULL included), so the same terms in
// the same order as a balanced tree give the same answer at a depth of log2(n).
import type { Expr, Pos, Query } from './ast.js';

type Chain = Extract<Expr, { type: 'binary' }> & { op: 'and' | 'or' };

function isChain(e: unknown, op?: 'and' | 'or'): e is Chain {
  const x = e as { type?: unknown; op?: unknown } | null;
  return x !== null && typeof x === 'object' && x.type === 'binary' && (op ? x.op === op : x.op === 'and' || x.op === 'or');
}

/** The terms of an AND or OR chain, left to right (iterative: a chain may be thousands long). */
function terms(chain: Chain): Expr[] {
  const out: Expr[] = [];
  const stack: Expr[] = [chain];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (isChain(e, chain.op)) stack.push(e.right, e.left);
    else out.push(e);
  }
  return out;
}

function spanOf(first: Expr, last: Expr): Pos {
  return { line: first.pos.line, column: first.pos.column, offset: first.pos.offset, end: last.pos.end };
}

function build(op: 'and' | 'or', items: Expr[], lo: number, hi: number): Expr {
  if (hi - lo === 1) return items[lo]!;
  const mid = (lo + hi) >>> 1;
  const left = build(op, items, lo, mid);
  const right = build(op, items, mid, hi);
  return { type: 'binary', op, left, right, pos: spanOf(items[lo]!, items[hi - 1]!) };
}

/** `e` with its AND / OR chains balanced, in `e` and below (the tree is changed in place). */
function balanceExpr(e: Expr): Expr {
  if (!isChain(e)) {
    visit(e);
    return e;
  }
  const items = terms(e);
  if (items.length <= 2) {
    visit(e);
    return e;
  }
  for (let i = 0; i < items.length; i++) items[i] = balanceExpr(items[i]!);
  return build(e.op, items, 0, items.length);
}

/** Balances the chains in every expression held by `node` (a query, a clause, an expression). */
function visit(node: object): void {
  const record = node as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key === 'pos' || key === 'patternPos') continue;
    const value = record[key];
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (item === null || typeof item !== 'object') continue;
        if (isChain(item)) value[i] = balanceExpr(item);
        else visit(item);
      }
    } else if (value !== null && typeof value === 'object') {
      if (isChain(value)) record[key] = balanceExpr(value);
      else visit(value);
    }
  }
}

/** The query with every AND / OR chain of three or more terms as a balanced tree. */
export function balanceChains(q: Query): Query {
  visit(q);
  return q;
}

/**
 * Expression nesting the planner takes before an AND / OR chain is balanced: beyond it the
 * planner's own recursion could run out of stack. A chain of AND or OR counts one level however
 * long it is (it is balanced next); anything nested deeper than MAX_PLAN_DEPTH allows fails on
 * the plan's depth anyway, with its own message.
 */
export const MAX_EXPRESSION_DEPTH = 1000;

/** Node types of the tree that are no expressions (queries, clauses, sources). */
const NOT_EXPRESSIONS: ReadonlySet<string> = new Set(['select', 'setop', 'orderItem', 'limit', 'item', 'from', 'class', 'regex', 'address', 'objectId', 'subquery']);

/**
 * The first expression nested deeper than `limit` (chains of AND / OR counting one level), and
 * the outermost expression that holds it; null when none is. Iterative.
 */
export function tooDeep(q: Query, limit = MAX_EXPRESSION_DEPTH): { node: Expr; outermost: Expr; depth: number } | null {
  type Entry = { node: object; depth: number; outermost: Expr | null; chainOp: string | null };
  const stack: Entry[] = [{ node: q, depth: 0, outermost: null, chainOp: null }];
  while (stack.length > 0) {
    const { node, depth, outermost, chainOp } = stack.pop()!;
    const record = node as Record<string, unknown>;
    const isExpr = typeof record.type === 'string' && 'pos' in record && !NOT_EXPRESSIONS.has(record.type);
    const chain = isChain(node) ? node.op : null;
    const sameChain = chain !== null && chain === chainOp;
    const d = isExpr && !sameChain ? depth + 1 : depth;
    const top = outermost ?? (isExpr ? (node as Expr) : null);
    if (d > limit && top) return { node: node as Expr, outermost: top, depth: d };
    for (const key of Object.keys(record)) {
      if (key === 'pos' || key === 'patternPos') continue;
      const value = record[key];
      const kids = Array.isArray(value) ? value : [value];
      for (const kid of kids) {
        if (kid !== null && typeof kid === 'object') stack.push({ node: kid, depth: d, outermost: top, chainOp: chain });
      }
    }
  }
  return null;
}
