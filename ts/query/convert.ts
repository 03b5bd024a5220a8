// Executor batch (docs/physical-plan.md, "Result") → QueryResult. Pure: object references are
// resolved through the resolver the caller passes (the native door in production), with every
// distinct index of the batch (once, or a block at a time when paced), so names and addresses
// are looked up only for rows shown.
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
  /**
   * The type the query fixes for the column (the executor's, from the plan and the dump's
   * classes), absent where nothing tells: its `type` when no value tells it (no rows, NULLs only).
   */
  fixed?: ColumnType | null;
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

/** Object indices, each once, in the order first seen (a Set's order), kept in a Uint32Array. */
class DistinctIndices {
  private readonly seen = new Set<number>();
  private list: Uint32Array;
  length = 0;

  constructor(capacity: number) {
    this.list = new Uint32Array(Math.max(16, capacity));
  }

  add(index: number): void {
    if (this.seen.has(index)) return;
    this.seen.add(index);
    if (this.length === this.list.length) {
      const grown = new Uint32Array(this.list.length * 2);
      grown.set(this.list);
      this.list = grown;
    }
    this.list[this.length++] = index;
  }

  /** The indices gathered (a view, not a copy). */
  indices(): Uint32Array {
    return this.list.subarray(0, this.length);
  }
}

/** Collects `{"o": n}` indices of a parsed list cell (a wide integer is `{"i": "<digits>"}`). */
function collectObjects(v: Json, into: DistinctIndices): void {
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
      // Typed as the executor types the rows kept: a value column of NULLs only has the type
      // the query fixes for it, else `null`.
      const onlyNulls = n === 0 || (out.nulls !== undefined && out.nulls.every((b) => b === 1));
      if (onlyNulls && c.type !== 'object') out.type = c.fixed ?? 'null';
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

/**
 * Objects resolved per call of the resolver (and rows converted) between two pauses of a paced
 * conversion (`batchToQueryResultPaced`). One native `describe` of this many objects takes a
 * few tens of milliseconds to a hundred or so (bench-1g.hprof, java.lang.String labels); a
 * larger block is slower per object (one call making a million strings took twice as long per
 * object as blocks of this size) and leaves the event loop longer.
 */
export const CONVERT_BLOCK = 16384;

/** The synchronous conversion: the whole batch at once, one call of the resolver. */
export function batchToQueryResult(batch: Batch, resolve: ObjectResolver, meta: ResultMeta): QueryResult {
  const steps = conversion(batch, resolve, meta, Infinity);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The same conversion (the same result, value for value) in blocks: the resolver is called with
 * at most `block` indices at a time, and `pause` is awaited between two blocks of work
 * (resolving, parsing list cells, making rows), never before the first or after the last. A
 * `pause` that throws (a cancelled query) ends the conversion with its error.
 */
export async function batchToQueryResultPaced(
  batch: Batch,
  resolve: ObjectResolver,
  meta: ResultMeta,
  pause: () => Promise<void>,
  block: number = CONVERT_BLOCK,
): Promise<QueryResult> {
  if (!(Number.isSafeInteger(block) && block >= 1)) throw new RangeError(`a conversion block is a whole number ≥ 1, not ${block}`);
  const steps = conversion(batch, resolve, meta, block);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}

/**
 * The conversion of a batch, yielding between two blocks of work: `block` rows of a column
 * parsed or gathered, `block` objects resolved in one call of the resolver (the last call the
 * rest), `block` rows made. It never yields before the first block or after the last; with
 * `block` Infinity, never (one call of the resolver with every index).
 */
function* conversion(batch: Batch, resolve: ObjectResolver, meta: ResultMeta, block: number): Generator<void, QueryResult, undefined> {
  const n = batch.rowCount;
  const isNull = (c: BatchColumn, r: number) => c.nulls !== undefined && c.nulls[r] === 1;
  /** Units of work done since the last pause; a pause is due once they reach `block`. */
  let work = 0;

  // Parse list cells once; gather every object index of the batch.
  const wanted = new DistinctIndices(batch.columns.reduce((k, c) => k + (c.type === 'object' ? n : 0), 0));
  const parsedLists: (Json[] | null)[] = [];
  for (const c of batch.columns) {
    if (c.type !== 'list') {
      parsedLists.push(null);
      continue;
    }
    const cells: Json[] = new Array(n);
    for (let r = 0; r < n; r++) {
      if (work >= block) {
        yield;
        work = 0;
      }
      work++;
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
    parsedLists.push(cells);
  }
  for (const c of batch.columns) {
    if (c.type !== 'object') continue;
    const idx = c.values as ArrayLike<number>;
    for (let r = 0; r < n; r++) {
      if (work >= block) {
        yield;
        work = 0;
      }
      work++;
      if (!isNull(c, r)) wanted.add(idx[r]);
    }
  }
  // Resolved a block of indices per call, in the order gathered: the same references as one call.
  const order = wanted.indices();
  const refs = new Map<number, ObjectRef>();
  for (let from = 0; from < order.length; ) {
    // Each call a whole block (the last the rest), after a pause (the first call too when the
    // work before it made a whole block).
    if (from > 0 || work >= block) {
      yield;
      work = 0;
    }
    const part = order.subarray(from, Math.min(order.length, from + block));
    const resolved = resolve(part);
    if (resolved.length !== part.length) {
      throw new Error(`object resolver returned ${resolved.length} references for ${part.length} indices`);
    }
    for (let i = 0; i < part.length; i++) refs.set(part[i]!, resolved[i]!);
    work += part.length;
    from += part.length;
  }

  // The rows, a row at a time.
  const width = batch.columns.length;
  const rows: Value[][] = new Array(n);
  for (let r = 0; r < n; r++) {
    if (work >= block) {
      yield;
      work = 0;
    }
    work++;
    const row = new Array<Value>(width);
    for (let ci = 0; ci < width; ci++) {
      const c = batch.columns[ci]!;
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
      row[ci] = v;
    }
    rows[r] = row;
  }
  // Integers a double cannot hold: exact, over their rounded numbers (none, most often).
  batch.columns.forEach((c, ci) => {
    if (c.type !== 'number' || !c.bigints) return;
    const { rows: at, values } = c.bigints;
    for (let k = 0; k < at.length; k++) if (!isNull(c, at[k]!)) rows[at[k]!]![ci] = values[k]!;
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
