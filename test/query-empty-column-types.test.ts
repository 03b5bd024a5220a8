// A column's type in a QueryResult is the kind of its values, read from the rows; where no
// value tells it (no rows, or NULLs only) it is the type the query fixes for the column — a
// literal's, an aggregate's, a built-in attribute's, a function's with one result type, a
// field's whose declared type the source's classes give — and `null` only where nothing tells
// (a field read through another field, CASE branches of two kinds). The schema and README say
// so. The JSON of such a result is valid against the published schema.
import { Ajv } from 'ajv';
import path from 'node:path';
import { expect, test } from 'vitest';

import { stringifyJson } from '../ts/query/json.js';
import { queryResultJsonSchema } from '../ts/query/schema.js';
import { useKnownHeap } from './tools/known-heap.js';
import { heapql } from './tools/run.js';

const heap = useKnownHeap();
const known = path.resolve(__dirname, '../fixtures/dumps/KnownHeap-jdk17-coops.hprof');

/** Every String of the fixture dump has its array: this keeps none. */
const NO_STRING = 'FROM java.lang.String s WHERE s.value = null';

test('no rows: each column has the type the query fixes for it; null where nothing tells; valid JSON', async () => {
  const validate = new Ajv({ allErrors: true }).compile(queryResultJsonSchema());
  const none = await heap().query(
    'SELECT toString(s) AS t, s, s.hash AS h, s.hashIsZero AS z, s.coder AS c, s.value AS v, s.@objectAddress AS a, ' +
      's.@displayName AS d, s.@GCRoots AS g, classof(s) AS k, 1 AS one, "x" AS text, TRUE AS yes, NULL AS nothing, ' +
      's.hash * 2 AS twice, s.hash > 0 AS positive, "#" + s.hash AS tag, toString(s).@length AS len, ' +
      's.value.@length AS vlen, s.value.hash AS nested, CASE WHEN s.hash > 0 THEN 1 ELSE "neg" END AS mixed, ' +
      `CASE WHEN s.hash > 0 THEN 1 END AS one_kind, COALESCE(s.hash, 0) AS co ${NO_STRING}`,
  );
  expect(none.rowCount).toBe(0);
  expect(Object.fromEntries(none.columns.map((c) => [c.name, c.type]))).toEqual({
    t: 'string',
    s: 'object',
    h: 'number',
    z: 'bool',
    c: 'number',
    v: 'object',
    a: 'number',
    d: 'string',
    g: 'list',
    k: 'object',
    one: 'number',
    text: 'string',
    yes: 'bool',
    nothing: 'null',
    twice: 'number',
    positive: 'bool',
    tag: 'string',
    len: 'number',
    vlen: 'number',
    // Which class s.value holds is not known before a row is read.
    nested: 'null',
    mixed: 'null',
    one_kind: 'number',
    co: 'number',
  });
  const objects = await heap().query(`SELECT s ${NO_STRING}`);
  expect(objects.columns).toEqual([{ name: 's', type: 'object' }]);
  // An aggregate over no rows: COUNT is 0, MAX is NULL — a number all the same (s.hash is an int).
  const agg = await heap().query(`SELECT COUNT(*) AS n, MAX(s.hash) AS m, MIN(s.coder) AS first ${NO_STRING}`);
  expect(agg.rows).toEqual([[0, null, null]]);
  expect(agg.columns).toEqual([{ name: 'n', type: 'number' }, { name: 'm', type: 'number' }, { name: 'first', type: 'number' }]);
  // Grouped: keys and aggregates keep their types without a group.
  const grouped = await heap().query(`SELECT s.coder AS coder, COUNT(*) AS n, SUM(s.hash) AS total ${NO_STRING} GROUP BY s.coder`);
  expect(grouped.columns).toEqual([{ name: 'coder', type: 'number' }, { name: 'n', type: 'number' }, { name: 'total', type: 'number' }]);
  // A FROM subquery's columns keep theirs; a set operation's are those both sides agree on.
  const sub = await heap().query(`SELECT x.h, x.t FROM (SELECT s.hash AS h, toString(s) AS t ${NO_STRING}) x`);
  expect(sub.columns.map((c) => c.type)).toEqual(['number', 'string']);
  const union = await heap().query(`SELECT s.hash AS a, s.hash AS b ${NO_STRING} UNION SELECT s.hash AS a, toString(s) AS b ${NO_STRING}`);
  expect(union.columns.map((c) => c.type)).toEqual(['number', 'null']);
  for (const r of [none, objects, agg, grouped, sub, union]) expect(validate(JSON.parse(stringifyJson(r))), JSON.stringify(validate.errors)).toBe(true);
});

test('NULLs only: the type the query fixes, as without a row', async () => {
  // toString of a HashMap is NULL (no String's text): every cell NULL, the column a string one.
  const r = await heap().query('SELECT toString(m) AS t FROM java.util.HashMap m LIMIT 3');
  expect(r.rowCount).toBeGreaterThan(0);
  expect(r.rows.every((row) => row[0] === null)).toBe(true);
  expect(r.columns).toEqual([{ name: 't', type: 'string' }]);
});

test('a stream without a row, and the rows a row cap keeps, are typed the same way', async () => {
  const batches = heap().queryBatches(`SELECT s.hash AS h, toString(s) AS t, s.value.hash AS nested ${NO_STRING}`);
  let next = await batches.next();
  while (!next.done) next = await batches.next();
  expect(next.value.columns).toEqual([{ name: 'h', type: 'number' }, { name: 't', type: 'string' }, { name: 'nested', type: 'null' }]);
  // The executor is asked for one row past the cap: the rows kept (hash 0) are NULL, the one cut
  // is not. The column the query types keeps its type; the one it does not is `null`.
  const zero = (await heap().query('SELECT COUNT(*) FROM java.lang.String s WHERE s.hash = 0')).rows[0]![0] as number;
  expect(zero).toBeGreaterThan(0);
  const capped = await heap().query(
    'SELECT CASE WHEN s.hash = 0 THEN NULL ELSE s.hash END AS h, CASE WHEN s.hash = 0 THEN NULL ELSE COALESCE(s.hash, "x") END AS u ' +
      'FROM java.lang.String s ORDER BY CASE WHEN s.hash = 0 THEN 0 ELSE 1 END',
    { limit: zero },
  );
  expect(capped.truncated).toBe(true);
  expect(capped.rows.every((row) => row[0] === null && row[1] === null)).toBe(true);
  expect(capped.columns).toEqual([{ name: 'h', type: 'number' }, { name: 'u', type: 'null' }]);
});

test('heapql query --format json says the same', async () => {
  const r = await heapql(['query', known, '--no-cache', '--format', 'json', '--query', `SELECT s.hash AS h, s.@objectAddress AS a, toString(s) AS t ${NO_STRING}`]);
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)[0].columns).toEqual([{ name: 'h', type: 'number' }, { name: 'a', type: 'number' }, { name: 't', type: 'string' }]);
});

test("the schema says what a column's type means", () => {
  const schema = queryResultJsonSchema() as any;
  const type = schema.properties.columns.items.properties.type;
  expect(type.description).toMatch(/read from its rows/);
  expect(type.description).toMatch(/where no value tells it \(no rows, or NULLs only\), the type the query fixes for the column/);
  expect(type.description).toMatch(/'null' only where nothing tells/);
});
