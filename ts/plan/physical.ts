// The physical plan, version 1: the JSON the Rust executor runs (docs/physical-plan.md).
// Same schema as crates/exec/src/plan.rs; the golden plans in fixtures/plans/ are checked by both.

export const PLAN_VERSION = 1;

export interface PhysicalPlan {
  version: 1;
  reachableOnly: boolean;
  fullPath: boolean;
  query: PQuery;
}

export type PQuery = PSelect | PSetOp;

export interface PSelect {
  op: 'select';
  source: PSource;
  alias: string | null;
  filter: PExpr | null;
  output: POutput;
  groupBy: PExpr[];
  aggregates: PAggregate[];
  having: PExpr | null;
  orderBy: POrderKey[];
  distinct: boolean;
  limit: number | null;
  retainedSet: boolean;
  guards: PQuery[];
}

export interface PSetOp {
  op: 'union' | 'intersect' | 'except';
  left: PQuery;
  right: PQuery;
  distinct: boolean;
  orderBy: POrderKey[];
  limit: number | null;
}

export type POutput = { kind: 'objects' } | { kind: 'columns'; columns: POutputColumn[] };

export interface POutputColumn {
  name: string;
  expr: PExpr;
}

export interface POrderKey {
  expr: PExpr;
  desc: boolean;
}

export type PSource =
  | { kind: 'class'; name: string; subclasses: boolean }
  /** `subclasses`: FROM INSTANCEOF "<regex>"; no class matching is an error then. */
  | { kind: 'regex'; pattern: string; subclasses: boolean }
  | { kind: 'address'; address: string }
  | { kind: 'all' }
  | { kind: 'subquery'; query: PQuery };

export type AttrName =
  | 'objectId' | 'objectAddress' | 'usedHeapSize' | 'retainedHeapSize' | 'displayName' | 'length'
  | 'systemProperties' | 'GCRoots' | 'inbounds' | 'outbounds' | 'clazz' | 'heap' | 'classLoader';

export type FuncName = 'classof' | 'toString' | 'coalesce' | 'nullif' | 'dominators' | 'dominatorof' | 'path';

export type PBinOp = '+' | '-' | '*' | '/' | '%' | '=' | '!=' | '<' | '<=' | '>' | '>=' | 'and' | 'or';

export type PExpr =
  | PLit
  | { k: 'row' }
  | { k: 'col'; name: string }
  | { k: 'field'; base: PExpr; name: string }
  | { k: 'attr'; base: PExpr; name: AttrName }
  | { k: 'call'; fn: FuncName; args: PExpr[] }
  | { k: 'bin'; op: PBinOp; l: PExpr; r: PExpr }
  | { k: 'not'; e: PExpr }
  | { k: 'neg'; e: PExpr }
  | { k: 'like'; e: PExpr; pattern: string; negate: boolean }
  | { k: 'instanceof'; e: PExpr; class: string }
  /** `x INSTANCEOF "<regex>"`: of a class whose whole name matches or of a subclass of one. */
  | { k: 'instanceof'; e: PExpr; pattern: string }
  | { k: 'in'; e: PExpr; query: PQuery }
  | { k: 'case'; whens: { when: PExpr; then: PExpr }[]; else: PExpr | null }
  | { k: 'index'; e: PExpr; i: PExpr }
  | { k: 'slice'; e: PExpr; from: PExpr; to: PExpr }
  | { k: 'agg'; i: number }
  | { k: 'key'; i: number }
  | { k: 'out'; i: number };

/**
 * A literal. `float: true` (not serialized as a field) makes the JSON text keep a decimal point,
 * so `x / 2.0` stays a float division in the executor even though JS has one number type.
 */
export interface PLit {
  k: 'lit';
  /** A bigint for an integer beyond ±2^53, written with all its digits. */
  v: null | boolean | number | bigint | string;
  float?: true;
}

export type AggFn = 'count' | 'sum' | 'min' | 'max' | 'avg' | 'median' | 'percentile';

export interface PAggregate {
  fn: AggFn;
  arg: PExpr | null;
  p: number | null;
}

/**
 * The plan as JSON text. Like JSON.stringify (indent 2 when `pretty`), except that a float
 * literal keeps its decimal point (`2.0`, not `2`) and a bigint literal is an integer with all
 * its digits.
 */
export function planToJson(plan: PhysicalPlan, pretty = false): string {
  return write(plan, pretty ? '\n' : '', pretty);
}

function write(value: unknown, indent: string, pretty: boolean): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  const inner = pretty ? `${indent}  ` : '';
  const sep = pretty ? ',' : ',';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${value.map((v) => `${inner}${write(v, inner, pretty)}`).join(sep)}${indent}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined && !(k === 'float' && obj.k === 'lit'));
  if (keys.length === 0) return '{}';
  const colon = pretty ? ': ' : ':';
  const parts = keys.map((k) => {
    let text: string;
    if (k === 'v' && obj.k === 'lit' && obj.float === true && typeof obj.v === 'number' && Number.isInteger(obj.v)) {
      // `-0.0` keeps its sign (String(-0) is "0").
      const digits = Object.is(obj.v, -0) ? '-0' : `${obj.v}`;
      text = Number.isFinite(obj.v) && Math.abs(obj.v) < 1e21 ? `${digits}.0` : JSON.stringify(obj.v);
    } else {
      text = write(obj[k], inner, pretty);
    }
    return `${inner}${JSON.stringify(k)}${colon}${text}`;
  });
  return `{${parts.join(sep)}${indent}}`;
}
