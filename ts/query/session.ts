/**
 * Running OQL on an open heap: plan in TypeScript, execute in Rust, convert the columnar batch
 * into a QueryResult (object cells resolved only for the rows returned).
 */
import { performance } from 'node:perf_hooks';

import { explain as explainPlan, plan, planToJson, withLimit } from '../plan/index.js';
import type { PlannedQuery } from '../plan/index.js';
import { call, callSync } from '../native/index.js';
import { cancelTokenFor } from '../native/cancel.js';
import type { NativeHeap } from '../native/index.js';
import { batchToQueryResult, type Batch, type ObjectResolver } from './convert.js';
import { extractViz } from './viz.js';
import type { ObjectRef, QueryResult, Value, VizSpec } from './schema.js';

export interface QueryOptions {
  /** Display name of the result (default `q1`). */
  name?: string;
  /** Overrides the query's LIMIT. */
  limit?: number;
  /** Restrict every source to objects reachable from GC roots. */
  reachableOnly?: boolean;
  signal?: AbortSignal;
  /** A parsed `-- @viz` directive to carry in the result (a leading directive line is also read). */
  viz?: VizSpec | null;
}

/** Plans a query for this heap: the full path is allowed once the heap has been analyzed. */
export function planFor(handle: NativeHeap, oql: string, options: QueryOptions): PlannedQuery {
  const planned = plan(oql, { fullPath: handle.analyzed, reachableOnly: options.reachableOnly ?? false });
  if (options.limit === undefined) return planned;
  const limited = withLimit(planned.plan, options.limit);
  return { ...planned, plan: limited, json: planToJson(limited) };
}

export function resolverFor(handle: NativeHeap): ObjectResolver {
  return (indices: Uint32Array): ObjectRef[] => {
    const d = callSync(() => handle.describe(indices));
    return Array.from(indices, (objectId, i) => ({
      objectId,
      address: d.addresses[i]!,
      className: d.classNames[i]!,
      label: d.labels[i]!,
    }));
  };
}

export async function runQuery(handle: NativeHeap, text: string, options: QueryOptions = {}): Promise<QueryResult> {
  const { oql, viz } = splitViz(text, options.viz);
  const started = performance.now();
  const planned = planFor(handle, oql, options);
  const { token, dispose } = cancelTokenFor(options.signal);
  try {
    const batch = (await call(() => handle.execute(planned.json, token))) as Batch;
    return batchToQueryResult(batch, resolverFor(handle), {
      name: options.name ?? 'q1',
      oql,
      elapsedMs: Math.round((performance.now() - started) * 10) / 10,
      truncated: options.limit !== undefined && batch.rowCount >= options.limit,
      ...(viz ? { viz } : {}),
    });
  } finally {
    dispose();
  }
}

/** One streamed row: column name → value, exactly as the columns are named. */
export type StreamedRow = Record<string, Value>;

/**
 * Rows as the executor produces them (plain selects stream while the scan runs). Breaking out
 * of the loop cancels the scan.
 */
export async function* streamQuery(
  handle: NativeHeap,
  text: string,
  options: QueryOptions & { batchRows?: number } = {},
): AsyncGenerator<StreamedRow> {
  const { oql } = splitViz(text, options.viz);
  const planned = planFor(handle, oql, options);
  const { token, dispose } = cancelTokenFor(options.signal);
  const queue: Batch[] = [];
  let wake: (() => void) | undefined;
  // Batches arrive through a thread-safe callback that may be delivered after the task's own
  // completion: the stream ends once the rows the executor reported have all been received.
  let expectedRows: number | undefined;
  let receivedRows = 0;
  let failure: unknown;
  let failed = false;
  const done = call(() =>
    handle.executeStream(planned.json, options.batchRows ?? 1000, (batch) => {
      queue.push(batch as Batch);
      receivedRows += (batch as Batch).rowCount;
      wake?.();
    }, token),
  ).then(
    (end) => {
      expectedRows = end.rows;
      wake?.();
    },
    (err) => {
      failure = err;
      failed = true;
      wake?.();
    },
  );
  const resolve = resolverFor(handle);
  let complete = false;
  try {
    for (;;) {
      const batch = queue.shift();
      if (batch) {
        const result = batchToQueryResult(batch, resolve, { name: 'stream', oql, elapsedMs: 0 });
        for (const row of result.rows) {
          const named: StreamedRow = {};
          result.columns.forEach((c, i) => (named[c.name] = row[i] as Value));
          yield named;
        }
        continue;
      }
      if (failed) throw failure;
      if (expectedRows !== undefined && receivedRows >= expectedRows) break;
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
    complete = true;
  } finally {
    if (!complete) token.cancel();
    await done;
    dispose();
  }
}

export function explainQuery(handle: NativeHeap, text: string, options: QueryOptions = {}): string {
  const { oql } = splitViz(text, options.viz);
  return explainPlan(planFor(handle, oql, options).plan);
}

function splitViz(text: string, given: VizSpec | null | undefined): { oql: string; viz: VizSpec | null } {
  const extracted = extractViz(text);
  return { oql: extracted.oql, viz: given ?? extracted.viz };
}
