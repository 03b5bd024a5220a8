// The OQL syntax tree. Every node carries the source span it was parsed from, so the binder
// can point at the exact token when it rejects something.

/**
 * 1-based line and column of the node's first character, the column in characters (code
 * points: an emoji counts one); `offset`/`end` are 0-based offsets into the text (UTF-16 units).
 */
export interface Pos {
  line: number;
  column: number;
  offset: number;
  end: number;
}

export type Query = SelectQuery | SetOpQuery;

export interface OrderItem {
  type: 'orderItem';
  expr: Expr;
  desc: boolean;
  pos: Pos;
}

export interface Limit {
  type: 'limit';
  value: number;
  pos: Pos;
}

export interface SelectQuery {
  type: 'select';
  distinct: boolean;
  /** `SELECT OBJECTS ...`: accepted; a no-op marker (spec rule 14). */
  objects: boolean;
  retainedSet: boolean;
  items: SelectItem[];
  from: FromClause;
  where: Expr | null;
  groupBy: Expr[];
  having: Expr | null;
  orderBy: OrderItem[];
  limit: Limit | null;
  /** Written inside parentheses (a set-operation branch): its ORDER BY / LIMIT stay its own. */
  parenthesized: boolean;
  pos: Pos;
}

export interface SetOpQuery {
  type: 'setop';
  op: 'union' | 'intersect' | 'except';
  left: Query;
  right: Query;
  orderBy: OrderItem[];
  limit: Limit | null;
  parenthesized: boolean;
  pos: Pos;
}

export interface SelectItem {
  type: 'item';
  expr: Expr;
  alias: string | null;
  pos: Pos;
}

export interface FromClause {
  type: 'from';
  objects: boolean;
  instanceOf: boolean;
  source: FromSource;
  alias: string | null;
  pos: Pos;
}

export type FromSource =
  | { type: 'class'; name: string; pos: Pos }
  | { type: 'regex'; pattern: string; pos: Pos }
  | { type: 'address'; hex: string; pos: Pos }
  | { type: 'objectId'; text: string; pos: Pos }
  | { type: 'subquery'; query: Query; pos: Pos };

export type LiteralKind = 'int' | 'float' | 'hex' | 'string' | 'bool' | 'null';

export type BinaryOp =
  | '+' | '-' | '*' | '/' | '%'
  | '=' | '!=' | '<' | '<=' | '>' | '>='
  | 'and' | 'or';

export type Expr =
  | { type: 'literal'; kind: LiteralKind; value: null | boolean | number | string; text: string; pos: Pos }
  /** `*` — the row itself in a select list, the argument of `COUNT(*)`. */
  | { type: 'star'; pos: Pos }
  /** A bare identifier: the FROM alias, a field of the row, or a column of a value subquery. */
  | { type: 'name'; name: string; pos: Pos }
  /** `@name` (base null = the row) or `base.@name`. */
  | { type: 'attr'; base: Expr | null; name: string; pos: Pos }
  | { type: 'field'; base: Expr; name: string; pos: Pos }
  /** `fn(args)` at the head of a path: a function, an aggregate, or a method on the row. */
  | { type: 'call'; name: string; args: Expr[]; pos: Pos }
  /** `base.name(args)`: a method-style alias. */
  | { type: 'method'; base: Expr; name: string; args: Expr[]; pos: Pos }
  | { type: 'index'; base: Expr; index: Expr; pos: Pos }
  | { type: 'slice'; base: Expr; from: Expr | null; to: Expr | null; pos: Pos }
  | { type: 'unary'; op: '-' | '+'; operand: Expr; pos: Pos }
  | { type: 'binary'; op: BinaryOp; left: Expr; right: Expr; pos: Pos }
  | { type: 'not'; operand: Expr; pos: Pos }
  | { type: 'like'; operand: Expr; pattern: string; patternPos: Pos; negate: boolean; pos: Pos }
  /**
   * `x INSTANCEOF C` (`className`), or `x INSTANCEOF "<regex>"` (`pattern`, at `patternPos`): of a
   * class whose whole name matches, or of a subclass of one, as FROM INSTANCEOF "<regex>" takes.
   */
  | ({ type: 'instanceof'; operand: Expr; negate: boolean; pos: Pos } & ({ className: string } | { pattern: string; patternPos: Pos }))
  | { type: 'in'; operand: Expr; query: Query; negate: boolean; pos: Pos }
  /** `x IN (1, 2)`: parsed only to be refused with a hint (the spec accepts subqueries only). */
  | { type: 'inList'; operand: Expr; items: Expr[]; negate: boolean; pos: Pos }
  | { type: 'between'; operand: Expr; low: Expr; high: Expr; negate: boolean; pos: Pos }
  | { type: 'isNull'; operand: Expr; negate: boolean; pos: Pos }
  | { type: 'exists'; query: Query; pos: Pos }
  | { type: 'case'; whens: { when: Expr; then: Expr }[]; else: Expr | null; pos: Pos };

export type ExprOf<T extends Expr['type']> = Extract<Expr, { type: T }>;
