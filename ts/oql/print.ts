// Prints AST nodes back as OQL with normalized spacing. Column headers use it (spec: the header
// is the expression text), and so do error messages that quote an expression.
import type { Expr, FromClause, OrderItem, Query, SelectItem } from './ast.js';

export interface PrintOptions {
  /** Header form: `PERCENTILE(e, 95)` prints as `PERCENTILE(95)(e)` (spec). */
  header?: boolean;
}

/** Binding strength; a child weaker than its context gets parentheses. */
function level(e: Expr): number {
  switch (e.type) {
    case 'binary':
      switch (e.op) {
        case 'or': return 1;
        case 'and': return 2;
        case '=': case '!=': case '<': case '<=': case '>': case '>=': return 4;
        case '+': case '-': return 5;
        default: return 6;
      }
    case 'not': return 3;
    case 'like': case 'instanceof': case 'in': case 'inList': case 'between': case 'isNull': return 4;
    case 'unary': return 7;
    default: return 8;
  }
}

/** A text as an OQL string literal (which has no escapes: one holding `"` is single-quoted). */
export function quoteText(s: string): string {
  return s.includes('"') ? `'${s}'` : `"${s}"`;
}

export function printExpr(e: Expr, opts: PrintOptions = {}): string {
  const p = (x: Expr, min: number): string => {
    const text = printExpr(x, opts);
    return level(x) < min ? `(${text})` : text;
  };
  const not = (negate: boolean) => (negate ? 'NOT ' : '');
  switch (e.type) {
    case 'literal': return e.text;
    case 'star': return '*';
    case 'name': return e.name;
    case 'attr': return e.base ? `${p(e.base, 8)}.@${e.name}` : `@${e.name}`;
    case 'field': return `${p(e.base, 8)}.${e.name}`;
    case 'call': {
      if (opts.header && e.name.toLowerCase() === 'percentile' && e.args.length === 2) {
        return `${e.name}(${printExpr(e.args[1], opts)})(${printExpr(e.args[0], opts)})`;
      }
      return `${e.name}(${e.args.map((a) => printExpr(a, opts)).join(', ')})`;
    }
    case 'method': return `${p(e.base, 8)}.${e.name}(${e.args.map((a) => printExpr(a, opts)).join(', ')})`;
    case 'index': return `${p(e.base, 8)}[${printExpr(e.index, opts)}]`;
    case 'slice':
      return `${p(e.base, 8)}[${e.from ? printExpr(e.from, opts) : ''}:${e.to ? printExpr(e.to, opts) : ''}]`;
    case 'unary': {
      // A signed operand is parenthesized: `-(-x)`, never `--x`, which would start a comment.
      const operand = p(e.operand, 7);
      return /^[-+]/.test(operand) ? `${e.op}(${operand})` : `${e.op}${operand}`;
    }
    case 'binary': {
      const l = level(e);
      const op = e.op === 'and' || e.op === 'or' ? e.op.toUpperCase() : e.op;
      // Left-associative: the right operand of an equal-level operator needs parentheses, but
      // for AND and OR (associative; a long chain is a balanced tree, ts/oql/balance.ts).
      const associative = (e.op === 'and' || e.op === 'or') && e.right.type === 'binary' && e.right.op === e.op;
      const right = l === 4 ? p(e.right, 5) : associative ? p(e.right, l) : p(e.right, l + 1);
      const left = l === 4 ? p(e.left, 5) : p(e.left, l);
      return `${left} ${op} ${right}`;
    }
    case 'not': return `NOT ${p(e.operand, 3)}`;
    case 'like': return `${p(e.operand, 5)} ${not(e.negate)}LIKE ${quoteText(e.pattern)}`;
    case 'instanceof': return `${p(e.operand, 5)} ${not(e.negate)}INSTANCEOF ${'pattern' in e ? quoteText(e.pattern) : e.className}`;
    case 'in': return `${p(e.operand, 5)} ${not(e.negate)}IN (${printQuery(e.query, opts)})`;
    case 'inList': return `${p(e.operand, 5)} ${not(e.negate)}IN (${e.items.map((x) => printExpr(x, opts)).join(', ')})`;
    case 'between':
      return `${p(e.operand, 5)} ${not(e.negate)}BETWEEN ${p(e.low, 5)} AND ${p(e.high, 5)}`;
    case 'isNull': return `${p(e.operand, 5)} IS ${not(e.negate)}NULL`;
    case 'exists': return `EXISTS (${printQuery(e.query, opts)})`;
    case 'case': {
      const whens = e.whens.map((w) => `WHEN ${printExpr(w.when, opts)} THEN ${printExpr(w.then, opts)}`).join(' ');
      return `CASE ${whens}${e.else ? ` ELSE ${printExpr(e.else, opts)}` : ''} END`;
    }
  }
}

function printItem(item: SelectItem, opts: PrintOptions): string {
  const text = printExpr(item.expr, opts);
  return item.alias === null ? text : `${text} AS ${/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(item.alias) ? item.alias : quoteText(item.alias)}`;
}

function printFrom(f: FromClause, opts: PrintOptions): string {
  const s = f.source;
  const src =
    s.type === 'class' ? `${f.instanceOf ? 'INSTANCEOF ' : ''}${s.name}`
      : s.type === 'regex' ? `${f.instanceOf ? 'INSTANCEOF ' : ''}${quoteText(s.pattern)}`
        : s.type === 'address' ? s.hex
          : s.type === 'objectId' ? s.text
            : `(${printQuery(s.query, opts)})`;
  return `FROM ${f.objects ? 'OBJECTS ' : ''}${src}${f.alias ? ` ${f.alias}` : ''}`;
}

function printOrder(orderBy: OrderItem[], opts: PrintOptions): string {
  if (orderBy.length === 0) return '';
  return ` ORDER BY ${orderBy.map((o) => `${printExpr(o.expr, opts)}${o.desc ? ' DESC' : ''}`).join(', ')}`;
}

/** The whole query on one line, keywords upper-case. */
export function printQuery(q: Query, opts: PrintOptions = {}): string {
  let text: string;
  if (q.type === 'select') {
    const parts = ['SELECT'];
    if (q.distinct) parts.push('DISTINCT');
    if (q.objects) parts.push('OBJECTS');
    parts.push(q.items.map((i) => printItem(i, opts)).join(', '));
    if (q.retainedSet) parts.push('AS RETAINED SET');
    parts.push(printFrom(q.from, opts));
    if (q.where) parts.push(`WHERE ${printExpr(q.where, opts)}`);
    if (q.groupBy.length) parts.push(`GROUP BY ${q.groupBy.map((g) => printExpr(g, opts)).join(', ')}`);
    if (q.having) parts.push(`HAVING ${printExpr(q.having, opts)}`);
    text = parts.join(' ');
  } else {
    const right = printQuery(q.right, opts);
    text = `${printQuery(q.left, opts)} ${q.op.toUpperCase()} ${right}`;
  }
  text += printOrder(q.orderBy, opts);
  if (q.limit) text += ` LIMIT ${q.limit.value}`;
  return q.parenthesized ? `(${text})` : text;
}
