// Post-processors of the nearley grammar: turn token arrays into AST nodes with source spans.
// Kept out of oql.ne so the grammar file reads as a grammar.
import type { Token } from './lexer.js';
import type {
  BinaryOp, Expr, FromClause, FromSource, Limit, LiteralKind, OrderItem, Pos, Query, SelectItem,
  SelectQuery, SetOpQuery,
} from './ast.js';

type D = any[];
type Node = { pos: Pos };

export function tokPos(t: Token): Pos {
  return { line: t.line, column: t.col, offset: t.offset, end: t.offset + t.text.length };
}

function isToken(x: unknown): x is Token {
  return typeof x === 'object' && x !== null && 'offset' in x && 'text' in x && !('pos' in x);
}

function posOf(x: Token | Node): Pos {
  return isToken(x) ? tokPos(x) : x.pos;
}

/** The span from the start of `a` to the end of `b`. */
export function span(a: Token | Node, b: Token | Node): Pos {
  const p = posOf(a);
  return { line: p.line, column: p.column, offset: p.offset, end: posOf(b).end };
}

/**
 * A list being parsed: its last item and the list before it. nearley completes a list rule at
 * every item (the list could end there), and again for every shorter reading of an item (`s`
 * before `s.a`), running the rule's postprocessor each time; so adding an item must be O(1) and
 * must not change the list it extends. (`(sep b):*` copies its array at every item: a list of n
 * items cost n² time and memory, 10 to 20 s and 1.7 GB for 20,000 items.) The parse keeps lists
 * as links; `finishLists` turns the links of the parse that survived into arrays, once.
 */
export class Links<T = any> {
  constructor(readonly item: T, readonly before: Links<T> | null, readonly length: number) {}
}

/** `item` → a list of one. */
export function first(d: D): Links {
  return new Links(d[0], null, 1);
}

/** `list sep item` (or `list item`) → the list with the rule's last symbol added. */
export function next(d: D): Links {
  const before = d[0] as Links;
  return new Links(d[d.length - 1], before, before.length + 1);
}

/** The items of a list, first to last (iterative). */
export function toArray<T>(links: Links<T>): T[] {
  const out: T[] = new Array(links.length);
  for (let l: Links<T> | null = links, i = links.length - 1; l !== null; l = l.before, i--) out[i] = l.item;
  return out;
}

/** The last item of a list, links or array. */
function lastOf<T>(list: Links<T> | T[]): T {
  return list instanceof Links ? list.item : list[list.length - 1];
}

/** The first item of a list, links or array (O(length): for error messages). */
function firstOf<T>(list: Links<T> | T[]): T {
  if (!(list instanceof Links)) return list[0];
  let l = list;
  while (l.before !== null) l = l.before;
  return l.item;
}

/** `tree` with every list of links in it an array (in place; iterative: a tree may be deep). */
export function finishLists<T extends object>(tree: T): T {
  const stack: object[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      let value = node[key];
      if (value instanceof Links) node[key] = value = toArray(value);
      if (Array.isArray(value)) {
        for (const item of value) if (item !== null && typeof item === 'object') stack.push(item);
      } else if (value !== null && typeof value === 'object') stack.push(value);
    }
  }
  return tree;
}

/** A dotted name being parsed: the text so far (a rope: `+` is O(1)) and its first and last token. */
type Dotted = { name: string; first: Token; last: Token };

/** `ident` → a dotted name of one part. */
export function dottedFirst(d: D): Dotted {
  const t = d[0] as Token;
  return { name: t.text, first: t, last: t };
}

/** `dotted . name` → one part more. */
export function dottedNext(d: D): Dotted {
  const before = d[0] as Dotted;
  const t = d[2] as Token;
  return { name: `${before.name}.${t.text}`, first: before.first, last: t };
}

/** `([])*`: the `[]`s so far and the last `]`; null for none. */
type Dims = { suffix: string; last: Token } | null;

export function dimsNext(d: D): Dims {
  const before = d[0] as Dims;
  return { suffix: `${before?.suffix ?? ''}[]`, last: d[2] as Token };
}

function stripQuotes(text: string): string {
  return text.slice(1, -1);
}

// ---- queries -------------------------------------------------------------------------------

export function query(d: D): Query {
  const [q, orderBy, limit] = d as [Query, OrderItem[] | null, Limit | null];
  if (!orderBy && !limit) return q;
  if (q.type === 'select' && !q.parenthesized) {
    return { ...q, orderBy: orderBy ?? [], limit, pos: span(q, limit ?? lastOf(orderBy!)) };
  }
  if (q.type === 'setop' && !q.parenthesized) {
    return { ...q, orderBy: orderBy ?? [], limit, pos: span(q, limit ?? lastOf(orderBy!)) };
  }
  // `(SELECT ...) ORDER BY ...`: the outer clauses apply to the parenthesized query as a whole.
  return mergeOuter(q, orderBy ?? [], limit);
}

/** Outer ORDER BY / LIMIT on a parenthesized query: merged when the query has none of its own. */
function mergeOuter(q: Query, orderBy: OrderItem[] | Links<OrderItem>, limit: Limit | null): Query {
  if (q.orderBy.length > 0 && orderBy.length > 0) {
    throw Object.assign(new Error('ORDER BY appears both inside and after the parenthesized query'), {
      oqlPos: firstOf(orderBy).pos, hint: 'keep one ORDER BY: remove the parentheses or the inner ORDER BY',
    });
  }
  if (q.limit && limit) {
    throw Object.assign(new Error('LIMIT appears both inside and after the parenthesized query'), {
      oqlPos: limit.pos, hint: 'keep one LIMIT: remove the parentheses or the inner LIMIT',
    });
  }
  if (q.limit && orderBy.length > 0) {
    throw Object.assign(new Error('ORDER BY after a parenthesized query that has its own LIMIT'), {
      oqlPos: firstOf(orderBy).pos, hint: 'ORDER BY sorts before LIMIT: move the ORDER BY inside the parentheses',
    });
  }
  return { ...q, orderBy: orderBy.length > 0 ? (orderBy as OrderItem[]) : q.orderBy, limit: limit ?? q.limit, parenthesized: false };
}

export function setop(op: 'union' | 'intersect' | 'except') {
  return (d: D): SetOpQuery => {
    const left = d[0] as Query;
    const right = d[d.length - 1] as Query;
    return { type: 'setop', op, left, right, orderBy: [], limit: null, parenthesized: false, pos: span(left, right) };
  };
}

export function parenthesized(d: D): Query {
  const q = d[1] as Query;
  return { ...q, parenthesized: true, pos: span(d[0], d[2]) };
}

export function select(d: D): SelectQuery {
  const [kw, distinct, rs1, objects, items, rs2, from, where, groupBy, having] = d as [
    Token, Token | null, unknown, Token | null, SelectItem[], unknown, FromClause, Expr | null, Expr[] | null, Expr | null,
  ];
  const last: Node = having ?? (groupBy ? lastOf(groupBy) : null) ?? where ?? from;
  return {
    type: 'select',
    distinct: distinct !== null,
    objects: objects !== null,
    retainedSet: rs1 !== null || rs2 !== null,
    items,
    from,
    where: where ?? null,
    groupBy: groupBy ?? [],
    having: having ?? null,
    orderBy: [],
    limit: null,
    parenthesized: false,
    pos: span(kw, last),
  };
}

export function star(d: D): SelectItem {
  const pos = tokPos(d[0]);
  return { type: 'item', expr: { type: 'star', pos }, alias: null, pos };
}

export function item(d: D): SelectItem {
  const expr = d[0] as Expr;
  if (d.length === 1) return { type: 'item', expr, alias: null, pos: expr.pos };
  const aliasTok = d[2] as Token;
  const alias = aliasTok.type === 'string' ? stripQuotes(aliasTok.text) : aliasTok.text;
  return { type: 'item', expr, alias, pos: span(expr, aliasTok) };
}

export function from(d: D): FromClause {
  const [kw, objects, src, alias] = d as [Token, Token | null, { source: FromSource; instanceOf: boolean }, Token | null];
  return {
    type: 'from',
    objects: objects !== null,
    instanceOf: src.instanceOf,
    source: src.source,
    alias: alias ? alias.text : null,
    pos: span(kw, alias ?? src.source),
  };
}

export function sourceClass(d: D) {
  return { source: { type: 'class', name: d[0].name, pos: d[0].pos } as FromSource, instanceOf: false };
}

export function sourceInstanceOf(d: D) {
  return { source: { type: 'class', name: d[1].name, pos: span(d[0], d[1]) } as FromSource, instanceOf: true };
}

/** `INSTANCEOF "<regex>"`: every class whose whole name matches, with their subclasses. */
export function sourceInstanceOfPattern(d: D) {
  const t = d[1] as Token;
  return { source: { type: 'regex', pattern: stripQuotes(t.text), pos: tokPos(t) } as FromSource, instanceOf: true };
}

export function sourceToken(d: D) {
  const t = d[0] as Token;
  const pos = tokPos(t);
  const source: FromSource =
    t.type === 'string' ? { type: 'regex', pattern: stripQuotes(t.text), pos }
      : t.type === 'hex' ? { type: 'address', hex: t.text, pos }
        : { type: 'objectId', text: t.text, pos };
  return { source, instanceOf: false };
}

export function sourceSubquery(d: D) {
  return { source: { type: 'subquery', query: d[1], pos: span(d[0], d[2]) } as FromSource, instanceOf: false };
}

/** `ident (. name)* ([])*` → `{name: "java.lang.String[]", pos}` */
export function className(d: D): { name: string; pos: Pos } {
  const name = d[0] as Dotted;
  const dims = d[1] as Dims;
  return { name: dims ? name.name + dims.suffix : name.name, pos: span(name.first, dims ? dims.last : name.last) };
}

export function orderItem(d: D): OrderItem {
  const expr = d[0] as Expr;
  const dir = d[1] as Token | null;
  return { type: 'orderItem', expr, desc: dir !== null && dir.type === 'DESC', pos: dir ? span(expr, dir) : expr.pos };
}

/**
 * The largest LIMIT: a row count is a JavaScript number on the way to the executor, exact up to
 * 2^53 − 1 (far more rows than any dump has objects).
 */
export const MAX_LIMIT = Number.MAX_SAFE_INTEGER;

export function limit(d: D): Limit {
  const t = d[1] as Token;
  const digits = t.text.replace(/[lL]$/, '');
  if (BigInt(digits) > BigInt(MAX_LIMIT)) {
    throw Object.assign(new Error(`LIMIT ${digits} is too large: the largest LIMIT is ${MAX_LIMIT} (2^53 − 1)`), {
      oqlPos: tokPos(t), hint: 'to take every row, leave LIMIT out',
    });
  }
  return { type: 'limit', value: Number(digits), pos: span(d[0], t) };
}

// ---- expressions ---------------------------------------------------------------------------

export function binary(op: BinaryOp) {
  return (d: D): Expr => ({ type: 'binary', op, left: d[0], right: d[2], pos: span(d[0], d[2]) });
}

const CMP: Record<string, BinaryOp> = { eq: '=', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=' };

export function compare(d: D): Expr {
  const op = CMP[(d[1] as Token).type ?? ''];
  return { type: 'binary', op, left: d[0], right: d[2], pos: span(d[0], d[2]) };
}

export function arith(d: D): Expr {
  const op = (d[1] as Token).text as BinaryOp;
  return { type: 'binary', op, left: d[0], right: d[2], pos: span(d[0], d[2]) };
}

export function not(d: D): Expr {
  return { type: 'not', operand: d[1], pos: span(d[0], d[1]) };
}

export function unary(d: D): Expr {
  return { type: 'unary', op: (d[0] as Token).text as '-' | '+', operand: d[1], pos: span(d[0], d[1]) };
}

export function like(d: D): Expr {
  const pat = d[3] as Token;
  return {
    type: 'like', operand: d[0], pattern: stripQuotes(pat.text), patternPos: tokPos(pat),
    negate: d[1] !== null, pos: span(d[0], pat),
  };
}

export function instanceOf(d: D): Expr {
  return { type: 'instanceof', operand: d[0], className: d[3].name, negate: d[1] !== null, pos: span(d[0], d[3]) };
}

/** `x INSTANCEOF "<regex>"`: of a class whose whole name matches, or of a subclass of one (as FROM INSTANCEOF "<regex>"). */
export function instanceOfPattern(d: D): Expr {
  const t = d[3] as Token;
  return {
    type: 'instanceof', operand: d[0], pattern: stripQuotes(t.text), patternPos: tokPos(t),
    negate: d[1] !== null, pos: span(d[0], t),
  };
}

export function inQuery(d: D): Expr {
  return { type: 'in', operand: d[0], query: d[4], negate: d[1] !== null, pos: span(d[0], d[5]) };
}

export function inList(d: D): Expr {
  return { type: 'inList', operand: d[0], items: d[4], negate: d[1] !== null, pos: span(d[0], d[5]) };
}

export function between(d: D): Expr {
  return { type: 'between', operand: d[0], low: d[3], high: d[5], negate: d[1] !== null, pos: span(d[0], d[5]) };
}

export function isNull(d: D): Expr {
  return { type: 'isNull', operand: d[0], negate: d[2] !== null, pos: span(d[0], d[3]) };
}

export function exists(d: D): Expr {
  return { type: 'exists', query: d[2], pos: span(d[0], d[3]) };
}

export function field(d: D): Expr {
  const name = d[2] as Token;
  return { type: 'field', base: d[0], name: name.text, pos: span(d[0], name) };
}

export function attrOf(d: D): Expr {
  const t = d[2] as Token;
  return { type: 'attr', base: d[0], name: t.text.slice(1), pos: span(d[0], t) };
}

export function method(d: D): Expr {
  return { type: 'method', base: d[0], name: (d[2] as Token).text, args: d[4], pos: span(d[0], d[5]) };
}

export function index(d: D): Expr {
  return { type: 'index', base: d[0], index: d[2], pos: span(d[0], d[3]) };
}

export function slice(d: D): Expr {
  return { type: 'slice', base: d[0], from: d[2], to: d[4], pos: span(d[0], d[5]) };
}

export function attr(d: D): Expr {
  const t = d[0] as Token;
  return { type: 'attr', base: null, name: t.text.slice(1), pos: tokPos(t) };
}

export function name(d: D): Expr {
  const t = d[0] as Token;
  return { type: 'name', name: t.text, pos: tokPos(t) };
}

export function call(d: D): Expr {
  return { type: 'call', name: (d[0] as Token).text, args: d[2], pos: span(d[0], d[3]) };
}

export function callStar(d: D): Expr {
  return { type: 'call', name: (d[0] as Token).text, args: [{ type: 'star', pos: tokPos(d[2]) }], pos: span(d[0], d[3]) };
}

export function paren(d: D): Expr {
  // Parentheses only group; the printer re-adds them where precedence needs them.
  return d[1];
}

export function args(d: D): Expr[] {
  return (d[0] as Expr[] | null) ?? [];
}

export function caseExpr(d: D): Expr {
  const whens = d[1] as Links<{ when: Expr; then: Expr }>;
  const elseExpr = d[2] ? (d[2][1] as Expr) : null;
  return { type: 'case', whens: whens as unknown as { when: Expr; then: Expr }[], else: elseExpr, pos: span(d[0], d[3]) };
}

export function literal(d: D): Expr {
  const t = d[0] as Token;
  const pos = tokPos(t);
  const text = t.text;
  let kind: LiteralKind;
  let value: null | boolean | number | string;
  switch (t.type) {
    case 'int':
      kind = 'int';
      value = Number(text.replace(/[lL]$/, ''));
      break;
    case 'float':
      kind = 'float';
      value = Number(text.replace(/[fFdD]$/, ''));
      break;
    case 'hex':
      kind = 'hex';
      value = Number(BigInt(text));
      break;
    case 'string':
      kind = 'string';
      value = stripQuotes(text);
      break;
    case 'TRUE':
    case 'FALSE':
      kind = 'bool';
      value = t.type === 'TRUE';
      break;
    default:
      kind = 'null';
      value = null;
  }
  return { type: 'literal', kind, value, text, pos };
}
