// A Java double can be NaN or ±Infinity: a value, not NULL, in every output (they were all
// written as null, so `x IS NULL` was false on a row that printed null). The JDK's own
// FloatingDecimal keeps such doubles in static buffers, so a real dump has them.
import path from 'node:path';
import { describe, expect, test } from 'vitest';

import { openHeap } from '../ts/index.js';
import { batchToQueryResult, formatCsv, formatTable, parseJsonExact, stringifyJson, validateQueryResult, type Batch, type QueryResult } from '../ts/query/index.js';

const noObjects = () => {
  throw new Error('not expected');
};

describe('non-finite doubles', () => {
  const batch: Batch = {
    rowCount: 5,
    columns: [{ name: 'd', type: 'number', values: Float64Array.from([NaN, Infinity, -Infinity, -0, 1.5]) }],
  };
  const r: QueryResult = batchToQueryResult(batch, noObjects, { name: 'q1', oql: 'SELECT ...', elapsedMs: 1 });

  test('stay numbers in the result', () => {
    expect(r.rows.map((row) => row[0])).toEqual([NaN, Infinity, -Infinity, -0, 1.5]);
  });

  test('print as Java writes them in tables and CSV', () => {
    expect(formatTable(r).split('\n').slice(2, 7).map((l) => l.trim())).toEqual(['NaN', 'Infinity', '-Infinity', '-0', '1.5']);
    expect(formatCsv(r).split(/\r?\n/).slice(1, 6)).toEqual(['NaN', 'Infinity', '-Infinity', '-0', '1.5']);
  });

  test('are strings in JSON, never null, and the result stays valid', () => {
    const text = stringifyJson(r);
    expect((parseJsonExact(text) as QueryResult).rows).toEqual([['NaN'], ['Infinity'], ['-Infinity'], [-0], [1.5]]);
    expect(validateQueryResult(JSON.parse(text)).ok).toBe(true);
    // With a bigint beside them, both are kept.
    expect(stringifyJson([NaN, 2n ** 63n - 1n])).toBe('["NaN",9223372036854775807]');
    expect(stringifyJson({ a: [1, { b: -Infinity }] })).toBe('{"a":[1,{"b":"-Infinity"}]}');
  });
});

test('a real dump: FloatingDecimal\'s buffers hold NaN and ±Infinity, which are not NULL', async () => {
  const dump = path.join(import.meta.dirname, '../fixtures/dumps/KnownHeap-jdk17-coops.hprof');
  const heap = await openHeap(dump);
  try {
    const r = await heap.query('SELECT o.doubleVal AS d, o.doubleVal IS NULL AS isNull FROM jdk.internal.math.FloatingDecimal$PreparedASCIIToBinaryBuffer o');
    const values = r.rows.map((row) => row[0]);
    expect(values).toEqual(expect.arrayContaining([NaN, Infinity, -Infinity]));
    expect(r.rows.every((row) => row[1] === false)).toBe(true);
    const table = formatTable(r);
    for (const word of ['NaN', 'Infinity', '-Infinity']) expect(table).toContain(word);
    expect(table).not.toMatch(/\bnull\b/);
  } finally {
    heap.close();
  }
});
