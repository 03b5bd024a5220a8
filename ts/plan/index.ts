// The planner's public door: OQL text (or AST) → physical plan, its JSON, its column names.
import { HeapqlError } from '../errors.js';
import type { Pos, Query } from '../oql/ast.js';
import { balanceChains, MAX_EXPRESSION_DEPTH, tooDeep } from '../oql/balance.js';
import { OqlPlanError } from '../oql/errors.js';
import { parse } from '../oql/parser.js';
import { Binder, type PatternUse } from './binder.js';
import { PLAN_VERSION, planToJson, type PhysicalPlan } from './physical.js';

export interface PlanOptions {
  /** The full analysis is loaded: retained sizes, dominators and the reference graph plan. */
  fullPath?: boolean;
  /** Restrict every source to objects reachable from GC roots. */
  reachableOnly?: boolean;
}

export interface PlannedQuery {
  plan: PhysicalPlan;
  /** The plan as JSON text for the executor (float literals keep their decimal point). */
  json: string;
  /** Output column names in order. */
  columns: string[];
  /** The query's regular expressions with their positions: the session has them checked by the executor's engine before running. */
  patterns: PatternUse[];
}

/** Parses and plans one OQL statement. Throws OqlSyntaxError or OqlPlanError. */
export function plan(text: string, opts: PlanOptions = {}): PlannedQuery {
  return planAst(coded(() => parse(text)), opts);
}

/**
 * Runs a step of the planner, turning an unexpected error (a bug of heapql, such as a plain
 * TypeError) into a HeapqlError with a code, as every error of the library is: `ERR_INTERNAL`,
 * the code of a Rust panic, with the original as its cause.
 */
function coded<T>(step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (err instanceof HeapqlError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new HeapqlError('ERR_INTERNAL', `internal error while planning the query: ${message} (please report it)`, { cause: err });
  }
}

/**
 * Nesting the executor's plan reader takes (serde_json's recursion limit: 128 levels of arrays
 * and objects, the outermost included; a plan one deeper is refused as "not valid JSON").
 */
export const MAX_PLAN_DEPTH = 127;

const DEPTH_HINT =
  'a chain of AND / OR may be as long as needed, but each + - * / of a chain, nested call, CASE or subquery adds a level: ' +
  'split the expression into several columns or queries';

/** Levels of arrays and objects in `value`, the outermost counting one (iterative). */
function nesting(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
    }
  }
  return max;
}

/** The position of the outermost expression on the way to the most deeply nested one. */
function deepestOutermost(ast: Query): Pos | null {
  let lo = 0;
  let hi = MAX_EXPRESSION_DEPTH;
  let found: Pos | null = null;
  // The deepest expression is the one still found at the largest limit: a binary search.
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const hit = tooDeep(ast, mid);
    if (hit) {
      found = hit.outermost.pos;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export function planAst(ast: Query, opts: PlanOptions = {}): PlannedQuery {
  return coded(() => planAstUnchecked(ast, opts));
}

function planAstUnchecked(ast: Query, opts: PlanOptions): PlannedQuery {
  const deep = tooDeep(ast);
  if (deep) {
    throw new OqlPlanError(
      `the expression nests more than ${MAX_EXPRESSION_DEPTH} levels deep (the executor takes plans of at most ${MAX_PLAN_DEPTH} levels)`,
      deep.outermost.pos,
      DEPTH_HINT,
    );
  }
  balanceChains(ast);
  const binder = new Binder({ fullPath: opts.fullPath ?? false });
  const bound = binder.bind(ast);
  const physical: PhysicalPlan = {
    version: PLAN_VERSION,
    reachableOnly: opts.reachableOnly ?? false,
    fullPath: binder.usesFullPath,
    query: bound.query,
  };
  const depth = nesting(physical);
  if (depth > MAX_PLAN_DEPTH) {
    // Where: the outermost expression holding the deepest one (a long chain of + starts there).
    throw new OqlPlanError(
      `the query nests too deeply for the executor: its plan is ${depth} levels deep, and at most ${MAX_PLAN_DEPTH} are taken`,
      deepestOutermost(ast),
      DEPTH_HINT,
    );
  }
  return {
    plan: physical,
    json: planToJson(physical),
    columns: bound.columns,
    patterns: binder.patterns,
  };
}

/**
 * A copy of the plan whose outermost LIMIT is `limit` (the server's JSON `limit` overrides the
 * query's LIMIT, spec rule 3 of the HTTP server).
 */
export function withLimit(p: PhysicalPlan, limit: number): PhysicalPlan {
  return { ...p, query: { ...p.query, limit } };
}

export { explain, printPExpr } from './explain.js';
export { planToJson, PLAN_VERSION } from './physical.js';
export type * from './physical.js';
export type { PatternUse } from './binder.js';
export { fullPathMessage, ATTRIBUTE_NAMES, FUNCTION_NAMES, AGGREGATE_NAMES } from './binder.js';
export { didYouMean, editDistance } from '../text-distance.js';
export { METHOD_ALIASES, type MethodAlias } from './methods.js';
