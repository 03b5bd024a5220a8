// Executor batch (docs/physical-plan.md, "Result") → QueryResult. Pure: object references are
// resolved through the resolver the caller passes (the native door in production), once per
// batch with every distinct index, so names and addresses are looked up only for rows shown.
import type { Column, ColumnType, ObjectRef, QueryResult, Value, VizSpec } from './schema.js';

export interface BatchColumn {
  name: string;
  type: ColumnType;
  /** object: Uint32Array of indices; number: Float64Array; string: string[] (or indices into
   *  `dict`); bool: 0/1; list: JSON text per cell, objects inside as `{"o": <index>}`. */
  values: Uint32Array | Float64Array | ArrayLike<number> | ArrayLike<string>;
  /** 1 = NULL. */
  nulls?: Uint8Array;
  /** number: the integers beyond ±(2^53 − 1), exact (`values` has them rounded); absent when
   *  there is none. Such a cell becomes a `bigint` value. */
  bigints?: { rows: Uint32Array; values: BigInt64Array } | null;
  /** Dictionary of a dictionary-encoded string column (values are indices into it). */
  dict?: string[];
}

export interface Batch {
  rowCount: number;
  columns: BatchColumn[];
}

/** Resolves object indices to references, in the order given. */
export type ObjectResolver = (indices: Uint32Array) => ObjectRef[];

export interface ResultMeta {
  name: string;
  oql: string;
  elapsedMs: number;
  truncated?: boolean;
  note?: string;
  viz?: VizSpec;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Collects `{"o": n}` indices of a parsed list cell (a wide integer is `{"i": "<digits>"}`). */
function collectObjects(v: Json, into: Set<number>): void {
  if (Array.isArray(v)) for (const x of v) collectObjects(x, into);
  else if (v !== null && typeof v === 'object') {
    if (typeof v.o === 'number') into.add(v.o);
  }
}

function toValue(v: Json, refs: Map<number, ObjectRef>): Value {
  if (Array.isArray(v)) return v.map((x) => toValue(x, refs));
  if (v !== null && typeof v === 'object') {
    if (typeof v.o === 'number') return refs.get(v.o) ?? null;
    if (typeof v.i === 'string' && /^-?\d+$/.test(v.i)) return BigInt(v.i);
    // Any other object is not a Value: keep it readable rather than lose it.
    return JSON.stringify(v);
  }
  return v;
}

/**
 * The batch's first `n` rows. A query run with a row cap asks the executor for one row more
 * than the cap, so that whether more rows existed is known, not guessed; that row is cut here.
 */
export function firstRows(batch: Batch, n: number): Batch {
  if (batch.rowCount <= n) return batch;
  const cut = <T>(a: T): T => (a as unknown as { slice(start: number, end: number): T }).slice(0, n);
  return {
    rowCount: n,
    columns: batch.columns.map((c) => {
      const out: BatchColumn = { ...c, values: cut(c.values) };
      if (c.nulls) out.nulls = cut(c.nulls);
      // Typed as the executor types the rows kept: a value column of NULLs only is `null`.
      const onlyNulls = n === 0 || (out.nulls !== undefined && out.nulls.every((b) => b === 1));
      if (onlyNulls && c.type !== 'object') out.type = 'null';
      if (c.bigints) {
        // Row numbers ascending: keep those of the first n rows.
        let k = 0;
        while (k < c.bigints.rows.length && c.bigints.rows[k]! < n) k++;
        out.bigints = k > 0 ? { rows: c.bigints.rows.slice(0, k), values: c.bigints.values.slice(0, k) } : null;
      }
      return out;
    }),
  };
}

export function batchToQueryResult(batch: Batch, resolve: ObjectResolver, meta: ResultMeta): QueryResult {
  const n = batch.rowCount;
  const isNull = (c: BatchColumn, r: number) => c.nulls !== undefined && c.nulls[r] === 1;

  // Parse list cells once; gather every object index of the batch.
  const wanted = new Set<number>();
  const parsedLists = batch.columns.map((c) => {
    if (c.type !== 'list') return null;
    const cells: Json[] = new Array(n);
    for (let r = 0; r < n; r++) {
      if (isNull(c, r)) {
        cells[r] = null;
        continue;
      }
      const text = (c.values as ArrayLike<string>)[r];
      let parsed: Json;
      try {
        parsed = JSON.parse(text) as Json;
      } catch {
        throw new Error(`column "${c.name}" row ${r}: list cell is not JSON: ${String(text).slice(0, 80)}`);
      }
      collectObjects(parsed, wanted);
      cells[r] = parsed;
    }
    return cells;
  });
  for (const c of batch.columns) {
    if (c.type !== 'object') continue;
    const idx = c.values as ArrayLike<number>;
    for (let r = 0; r < n; r++) if (!isNull(c, r)) wanted.add(idx[r]);
  }
  const order = Uint32Array.from(wanted);
  const resolved = order.length > 0 ? resolve(order) : [];
  if (resolved.length !== order.length) {
    throw new Error(`object resolver returned ${resolved.length} references for ${order.length} indices`);
  }
  const refs = new Map<number, ObjectRef>();
  for (let i = 0; i < order.length; i++) refs.set(order[i], resolved[i]);

  const rows: Value[][] = Array.from({ length: n }, () => new Array<Value>(batch.columns.length));
  batch.columns.forEach((c, ci) => {
    for (let r = 0; r < n; r++) {
      let v: Value;
      if (isNull(c, r)) v = null;
      else {
        switch (c.type) {
          case 'object': v = refs.get((c.values as ArrayLike<number>)[r]) ?? null; break;
          // NaN and ±Infinity are values (a Java double can be either), not NULL.
          case 'number': v = (c.values as ArrayLike<number>)[r]; break;
          case 'string': {
            const raw = (c.values as ArrayLike<string | number>)[r];
            v = c.dict ? (c.dict[raw as number] ?? null) : (raw as string);
            break;
          }
          case 'bool': v = (c.values as ArrayLike<number>)[r] !== 0; break;
          case 'list': v = toValue(parsedLists[ci]![r], refs); break;
          default: v = null;
        }
      }
      rows[r][ci] = v;
    }
    // Integers a double cannot hold: exact, over their rounded numbers (none, most often).
    if (c.type === 'number' && c.bigints) {
      const { rows: at, values } = c.bigints;
      for (let k = 0; k < at.length; k++) if (!isNull(c, at[k]!)) rows[at[k]!]![ci] = values[k]!;
    }
  });

  const columns: Column[] = batch.columns.map((c) => ({ name: c.name, type: c.type }));
  const result: QueryResult = {
    name: meta.name,
    oql: meta.oql,
    columns,
    rows,
    rowCount: n,
    truncated: meta.truncated ?? false,
    elapsedMs: meta.elapsedMs,
  };
  if (meta.note !== undefined) result.note = meta.note;
  if (meta.viz !== undefined) result.viz = meta.viz;
  return result;
}
