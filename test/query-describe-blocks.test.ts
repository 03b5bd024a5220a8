/**
 * A large result's objects are described a block at a time (ts/query/convert.ts,
 * `CONVERT_BLOCK` objects per native `describe` call), with a turn of the event loop and a look
 * at the query's cancellation between two blocks: a cancel during the describing of a whole
 * result (`query`) or of a large streamed batch ends it within one block with the usual
 * ERR_CANCELLED, and the result is the one a single call gives. Counted in native calls, never
 * timed. The dump is the real JDK 17 fixture (168,473 objects: eleven blocks).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { batchToQueryResult, batchToQueryResultPaced, CONVERT_BLOCK, type Batch } from '../ts/query/convert.js';
import type { ObjectRef } from '../ts/query/schema.js';
import { preparedFor, resolverFor } from '../ts/session/query.js';
import type { NativeHeap } from '../ts/native/index.js';

const dump = path.resolve(__dirname, '../fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const ALL = 'SELECT o, o.@displayName FROM INSTANCEOF java.lang.Object o';
const OBJECTS = 168_473;

describe('batchToQueryResultPaced (pure)', () => {
  // Object cells, list cells holding objects and a wide integer, NULLs, a dictionary column
  // and an exact bigint: every kind of cell the conversion makes.
  const batch: Batch = {
    rowCount: 5,
    columns: [
      { name: 'o', type: 'object', values: Uint32Array.from([7, 3, 7, 9, 4]), nulls: Uint8Array.from([0, 0, 0, 1, 0]) },
      {
        name: 'l',
        type: 'list',
        values: ['[{"o":3},{"o":11}]', 'null', '[{"i":"9223372036854775807"},{"o":12}]', '[]', '[1,"x",{"o":7}]'],
        nulls: Uint8Array.from([0, 1, 0, 0, 0]),
      },
      { name: 's', type: 'string', values: [1, 0, 1, 0, 1], dict: ['a', 'b'] },
      {
        name: 'n',
        type: 'number',
        values: Float64Array.from([1, 2, 2 ** 63, 4, 5]),
        bigints: { rows: Uint32Array.from([2]), values: BigInt64Array.from([2n ** 62n * 2n - 1n]) },
      },
      { name: 'b', type: 'bool', values: Uint8Array.from([1, 0, 1, 0, 1]) },
    ],
  };
  const meta = { name: 'q1', oql: 'SELECT …', elapsedMs: 1, note: 'n' };
  const resolver = (calls: number[][]) => (indices: Uint32Array): ObjectRef[] => {
    calls.push([...indices]);
    return Array.from(indices, (objectId) => ({ objectId, address: `0x${objectId.toString(16)}`, className: 'C', label: `C#${objectId}` }));
  };

  test.each([1, 2, 3, 4, 100])('in blocks of %i: the result of one call, the resolver never given more than a block', async (block) => {
    const once: number[][] = [];
    const whole = batchToQueryResult(batch, resolver(once), meta);
    expect(once).toEqual([[3, 11, 12, 7, 4]]);
    const calls: number[][] = [];
    let pauses = 0;
    const paced = await batchToQueryResultPaced(batch, resolver(calls), meta, async () => void pauses++, block);
    expect(paced).toEqual(whole);
    expect(calls.flat()).toEqual(once[0]);
    for (const c of calls) expect(c.length).toBeLessThanOrEqual(block);
    // A pause between blocks of work, none before the first or after the last.
    if (block === 100) expect(pauses).toBe(0);
    else expect(pauses).toBeGreaterThanOrEqual(calls.length - 1);
  });

  test('a pause that throws ends the conversion with its error, no more of the resolver called', async () => {
    const calls: number[][] = [];
    let pauses = 0;
    const run = batchToQueryResultPaced(batch, resolver(calls), meta, async () => {
      if (++pauses === 3) throw new Error('stop');
    }, 1);
    await expect(run).rejects.toThrow('stop');
    expect(pauses).toBe(3);
    // In blocks of one cell, the third pause comes while the list cells are parsed: nothing resolved.
    expect(calls).toEqual([]);
  });
});

describe('describing a large result on a real dump', () => {
  let heap: HeapSession;
  let handle: NativeHeap;
  const real: { describe?: NativeHeap['describe'] } = {};
  /** Sizes of the native describe calls since the last `count()`. */
  let calls: number[] = [];
  let onCall: ((n: number) => void) | undefined;

  beforeAll(async () => {
    heap = await openHeap(dump);
    handle = heap.handle as NativeHeap;
    real.describe = handle.describe.bind(handle);
    handle.describe = (objects: Uint32Array) => {
      calls.push(objects.length);
      onCall?.(calls.length);
      return real.describe!(objects);
    };
  });
  afterAll(() => heap?.close());

  const reset = (hook?: (n: number) => void) => {
    calls = [];
    onCall = hook;
  };

  test(`query() describes ${OBJECTS} objects in blocks of ${CONVERT_BLOCK}, letting the event loop turn between them; the result is one call's`, async () => {
    /** How many describe calls had been made when a turn of the event loop first came. */
    let callsAtTurn: number | undefined;
    reset((n) => {
      if (n === 1) setImmediate(() => (callsAtTurn = calls.length));
    });
    const result = await heap.query(ALL);
    expect(result.rowCount).toBe(OBJECTS);
    expect(calls.length).toBe(Math.ceil(OBJECTS / CONVERT_BLOCK));
    expect(calls.reduce((a, b) => a + b, 0)).toBe(OBJECTS);
    // Whole blocks, the last the rest.
    expect(calls.slice(0, -1).every((n) => n === CONVERT_BLOCK)).toBe(true);
    // Timers, signals and other requests ran while the objects were described, not after.
    expect(callsAtTurn).toBeDefined();
    expect(callsAtTurn!).toBeLessThan(calls.length);

    // The same rows, value for value, as the whole batch described in one call.
    reset();
    const q = preparedFor(handle, ALL, {}, heap.reachableOnly);
    const batch = (await handle.execute(q.planned.json, null)) as unknown as Batch;
    const once = batchToQueryResult(batch, resolverFor(handle), { name: 'q1', oql: q.oql, elapsedMs: result.elapsedMs });
    expect(calls).toEqual([OBJECTS]);
    expect(result).toEqual(once);
  });

  test("a result's elapsedMs counts the describing of its objects, not only the scan", async () => {
    // Each describe call held up a little longer, so that describing takes longer than the scan;
    // the time spent inside the calls is measured, and the answer's time must cover it.
    let inside = 0;
    reset(() => {
      const until = performance.now() + 20;
      while (performance.now() < until);
    });
    const timed = handle.describe;
    handle.describe = (objects: Uint32Array) => {
      const t = performance.now();
      try {
        return timed(objects);
      } finally {
        inside += performance.now() - t;
      }
    };
    try {
      const result = await heap.query(ALL);
      expect(calls.length).toBe(Math.ceil(OBJECTS / CONVERT_BLOCK));
      expect(result.elapsedMs).toBeGreaterThanOrEqual(Math.floor(inside));
    } finally {
      handle.describe = timed;
    }
  });

  test('a cancel while query() describes its objects ends it within one block, with ERR_CANCELLED', async () => {
    const abort = new AbortController();
    reset((n) => {
      if (n === 2) abort.abort();
    });
    const run = heap.query(ALL, { signal: abort.signal });
    await expect(run).rejects.toMatchObject({ code: 'ERR_CANCELLED', message: 'the query was cancelled' });
    // Aborted during the second call: no third.
    expect(calls.length).toBe(2);
    // The heap answers the next query as ever.
    reset();
    expect((await heap.query('SELECT COUNT(*) AS n FROM INSTANCEOF java.lang.Object o')).rows).toEqual([[OBJECTS]]);
  });

  test('a cancel while a streamed batch larger than a block is described ends the stream within one block', async () => {
    const abort = new AbortController();
    reset((n) => {
      if (n === 2) abort.abort();
    });
    const batches = heap.queryBatches(ALL, { signal: abort.signal, batchRows: OBJECTS });
    let rows = 0;
    const read = (async () => {
      for await (const b of batches) rows += b.rows.length;
    })();
    await expect(read).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    // Ended before the batch was handed out.
    expect(rows).toBe(0);
    expect(calls.length).toBe(2);
  });
});
