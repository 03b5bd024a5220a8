// Java longs beyond 2^53 reach every output exactly: batch conversion (the door's `bigints`
// side channel and `{"i": "<digits>"}` in list cells), the table / CSV / TSV / JSON formatters,
// the exact JSON writer, the schema's validator and the REPL's result shaping.
import { describe, expect, test } from 'vitest';

import {
  batchToQueryResult, formatCsv, formatJson, formatTable, formatTsv, parseJsonExact, queryResultJsonSchema, stringifyJson, validateQueryResult,
  type Batch, type QueryResult,
} from '../ts/query/index.js';
import { columnStats, sortRows, statsResult } from '../ts/repl/table.js';

const UID = -6849794470754667710n; // java.lang.String's serialVersionUID
const PRODUCT = 17001712275677445n; // a createdAt * 10001 of the demo dump

const noObjects = () => {
  throw new Error('not expected');
};

function result(rows: QueryResult['rows'], type: 'number' | 'list' = 'number'): QueryResult {
  return { name: 'q1', oql: 'SELECT ...', columns: [{ name: 'v', type }], rows, rowCount: rows.length, truncated: false, elapsedMs: 1 };
}

describe('batchToQueryResult', () => {
  test('a number column\'s bigints replace their rounded numbers; the others stay numbers', () => {
    const batch: Batch = {
      rowCount: 4,
      columns: [
        {
          name: 'v',
          type: 'number',
          values: Float64Array.from([Number(UID), 7, 0, Number(PRODUCT)]),
          nulls: Uint8Array.from([0, 0, 1, 0]),
          bigints: { rows: Uint32Array.from([0, 3]), values: BigInt64Array.from([UID, PRODUCT]) },
        },
        { name: 'f', type: 'number', values: Float64Array.from([0.5, 1e20, 2, 3]) },
      ],
    };
    const r = batchToQueryResult(batch, noObjects, { name: 'q1', oql: 'SELECT', elapsedMs: 0 });
    expect(r.rows).toEqual([[UID, 0.5], [7, 1e20], [null, 2], [PRODUCT, 3]]);
    expect(typeof r.rows[1]![0]).toBe('number');
    expect(validateQueryResult(r)).toEqual({ ok: true, errors: [] });
  });

  test('list cells: {"i": "<digits>"} is an exact bigint, objects and numbers as before', () => {
    const batch: Batch = {
      rowCount: 2,
      columns: [{ name: 'l', type: 'list', values: [`[{"i":"${UID}"},5,{"o":1}]`, `{"i":"${PRODUCT}"}`] }],
    };
    const ref = { objectId: 1, address: '0x10', className: 'X', label: 'X @ 0x10' };
    const r = batchToQueryResult(batch, (idx) => [...idx].map(() => ref), { name: 'q1', oql: 'SELECT', elapsedMs: 0 });
    expect(r.rows).toEqual([[[UID, 5, ref]], [PRODUCT]]);
  });
});

describe('formatters', () => {
  const r = result([[UID], [PRODUCT], [null], [42]]);

  test('table and CSV / TSV print every digit', () => {
    expect(formatTable(r)).toBe(
      ['v', '--------------------', '-6849794470754667710', '   17001712275677445', '                null', '                  42', '(4 rows)'].join('\n'),
    );
    expect(formatCsv(r)).toBe(`v\r\n${UID}\r\n${PRODUCT}\r\n\r\n42\r\n`);
    expect(formatTsv(r)).toBe(`v\n${UID}\n${PRODUCT}\n\n42\n`);
    expect(formatTable(result([[[UID, 1]]], 'list'))).toContain(`[${UID}, 1]`);
  });

  test('JSON writes bare integer literals with every digit', () => {
    const text = formatJson([r]);
    expect(text).toContain(`[\n        ${UID}\n      ]`);
    expect(text).toContain(`${PRODUCT}`);
    expect(text).not.toContain('6849794470754668000');
    // The text reads back (rounded by JSON.parse, as any JSON number would be).
    expect(JSON.parse(text)[0].rows[1][0]).toBe(Number(PRODUCT));
  });
});

describe('stringifyJson', () => {
  test('without a bigint it is JSON.stringify', () => {
    const v = { a: [1, 'x', null, { b: true }], c: 'd', u: undefined, date: new Date(0) };
    expect(stringifyJson(v)).toBe(JSON.stringify(v));
    expect(stringifyJson(v, 2)).toBe(JSON.stringify(v, null, 2));
  });

  test('bigints anywhere, signed, with and without indentation', () => {
    expect(stringifyJson({ x: [UID, 1n, -(2n ** 63n)], y: { z: 2n ** 64n } })).toBe(
      `{"x":[${UID},1,-9223372036854775808],"y":{"z":18446744073709551616}}`,
    );
    expect(stringifyJson([PRODUCT], 2)).toBe(`[\n  ${PRODUCT}\n]`);
    expect(stringifyJson(PRODUCT)).toBe(`${PRODUCT}`);
  });

  test('strings that look like its markers stay strings', () => {
    const tricky = ['\u0001bigint-', '"\\u0001bigint-x:1"', '\u0001bigint-abc-def:12'];
    const text = stringifyJson({ tricky, n: 5n, [`\u0001bigint-k:3`]: 1 });
    expect(JSON.parse(text)).toEqual({ tricky, n: 5, [`\u0001bigint-k:3`]: 1 });
  });
});

describe('schema', () => {
  test('the JSON Schema names the wide integer; the validator takes bigints in memory', () => {
    expect(JSON.stringify(queryResultJsonSchema())).toContain('an integer outside ±(2^53 − 1)');
    expect(validateQueryResult(result([[UID], [[PRODUCT, 'x']]])).ok).toBe(true);
    // Still strict: a bad value next to a bigint is an error.
    const bad = validateQueryResult({ ...result([[UID]]), rowCount: -1 });
    expect(bad.ok).toBe(false);
    expect(bad.errors.some((e) => e.instancePath === '/rowCount')).toBe(true);
  });
});

describe('REPL shaping', () => {
  test('sorts numbers and bigints together, stats keep min/max/percentiles exact', () => {
    const r = result([[PRODUCT], [3], [UID], [PRODUCT + 1n], [2.5]]);
    expect(sortRows(r, 'v', false).rows.map((x) => x[0])).toEqual([UID, 2.5, 3, PRODUCT, PRODUCT + 1n]);
    expect(sortRows(r, 'v', true).rows.map((x) => x[0])).toEqual([PRODUCT + 1n, PRODUCT, 3, 2.5, UID]);
    const [s] = columnStats(r);
    expect(s).toMatchObject({ n: 5, min: UID, max: PRODUCT + 1n, p50: 3 });
    const table = formatTable(statsResult([s!], r), { footer: false });
    expect(table).toContain(`${UID}`);
    expect(table).toContain(`${PRODUCT + 1n}`);
  });
});

describe('parseJsonExact', () => {
  test('reads back what stringifyJson writes, bigints exact, the rest as JSON.parse', () => {
    const value = { rows: [[UID, 1, 2.5, 'x'], [PRODUCT, -(2n ** 63n), 9007199254740991, 1e21]], s: '12345678901234567890', n: null };
    const text = stringifyJson(value, 2);
    expect(parseJsonExact(text)).toEqual(value);
    expect(parseJsonExact('{"a":[1,"b",true]}')).toEqual({ a: [1, 'b', true] });
    // Digits inside strings and floats stay as they are.
    expect(parseJsonExact('["9007199254740993", 9007199254740993.5, 12345678901234567e3]')).toEqual(['9007199254740993', 9007199254740993.5, 12345678901234567e3]);
    expect(parseJsonExact('{"\\u0001bigint-a:1": "\\u0001bigint-b:2", "v": 9007199254740993}')).toEqual({ '\u0001bigint-a:1': '\u0001bigint-b:2', v: 9007199254740993n });
  });
});
