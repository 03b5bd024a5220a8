// The planner's public door: OQL text (or AST) → physical plan, its JSON, its column names.
import { HeapqlError } from '../errors.js';
import type { Query } from '../oql/ast.js';
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
  /** The classes the query names after INSTANCEOF (sources and predicates), each once. */
  instanceOfClasses: string[];
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

export function planAst(ast: Query, opts: PlanOptions = {}): PlannedQuery {
  return coded(() => planAstUnchecked(ast, opts));
}

function planAstUnchecked(ast: Query, opts: PlanOptions): PlannedQuery {
  const binder = new Binder({ fullPath: opts.fullPath ?? false });
  const bound = binder.bind(ast);
  const physical: PhysicalPlan = {
    version: PLAN_VERSION,
    reachableOnly: opts.reachableOnly ?? false,
    fullPath: binder.usesFullPath,
    query: bound.query,
  };
  return {
    plan: physical,
    json: planToJson(physical),
    columns: bound.columns,
    patterns: binder.patterns,
    instanceOfClasses: binder.instanceOfClasses,
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
export { fullPathMessage, ATTRIBUTE_NAMES, FUNCTION_NAMES, AGGREGATE_NAMES, didYouMean, editDistance } from './binder.js';
export { METHOD_ALIASES, type MethodAlias } from './methods.js';
