// A column's type in a QueryResult is the kind of its values, read from the rows: with no rows
// (or NULLs only) there is none to tell by and it is `null`, even where the query's expression
// has one kind (toString); the schema and README say what `null` means there. The JSON of such a
// result is valid against the published schema.
import { Ajv } from 'ajv';
import { expect, test } from 'vitest';

import { stringifyJson } from '../ts/query/json.js';
import { queryResultJsonSchema } from '../ts/query/schema.js';
import { useKnownHeap } from './tools/known-heap.js';

const heap = useKnownHeap();

test('no rows: value columns are null, a column of one object per row is object; both valid JSON', async () => {
  const validate = new Ajv({ allErrors: true }).compile(queryResultJsonSchema());
  // Every String of the fixture dump has its array: WHERE s.value = null keeps none.
  const none = await heap().query('SELECT toString(s) AS t, s, s.hash AS h FROM java.lang.String s WHERE s.value = null');
  expect(none.rowCount).toBe(0);
  expect(none.columns).toEqual([
    { name: 't', type: 'null' },
    { name: 's', type: 'null' },
    { name: 'h', type: 'null' },
  ]);
  const objects = await heap().query('SELECT s FROM java.lang.String s WHERE s.value = null');
  expect(objects.columns).toEqual([{ name: 's', type: 'object' }]);
  // An aggregate over no rows: COUNT is 0 (a number), MAX is NULL (nothing to tell by).
  const agg = await heap().query('SELECT COUNT(*) AS n, MAX(s.hash) AS m FROM java.lang.String s WHERE s.value = null');
  expect(agg.rows).toEqual([[0, null]]);
  expect(agg.columns).toEqual([{ name: 'n', type: 'number' }, { name: 'm', type: 'null' }]);
  for (const r of [none, objects, agg]) expect(validate(JSON.parse(stringifyJson(r))), JSON.stringify(validate.errors)).toBe(true);
});

test("the schema says what a column's type null means", () => {
  const schema = queryResultJsonSchema() as any;
  const type = schema.properties.columns.items.properties.type;
  expect(type.description).toMatch(/read from its rows, not from the query/);
  expect(type.description).toMatch(/'null' when there is no value to tell by: the column holds only NULLs, or the result has no rows/);
});
