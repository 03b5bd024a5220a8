// QueryResult, defined once: the TypeBox schema below is the JSON Schema that ajv validates
// with (validate.ts) and that `heapql schema query` / `GET /schema` print; the TypeScript types
// are derived from it (Static<>), so the three cannot drift apart.
import { Type, type Static } from '@sinclair/typebox';

export const ObjectRefSchema = Type.Object(
  {
    objectId: Type.Integer({ minimum: 0, description: 'dense 0-based object index (@objectId)' }),
    address: Type.String({ pattern: '^0x[0-9a-f]+$', description: 'object address, lower-case hex' }),
    className: Type.String({ description: 'class name in Java form (java.lang.String, byte[]); a class object\'s is the class it describes (its label starts with "class ")' }),
    label: Type.String({ description: 'the text a table shows, e.g. "java.lang.String @ 0x7f00abc"' }),
  },
  { additionalProperties: false, description: 'a reference to a heap object' },
);

/**
 * An integer outside ±(2^53 − 1) (a Java long that a double would round). In memory a `bigint`;
 * in JSON a bare integer literal with every digit, so the text is exact, and it is not marked:
 * it is a JSON number like any other. `JSON.parse` rounds it to the nearest double; a client
 * that needs the exact value reads the text with a parser that keeps big integers (Node 22+:
 * `JSON.parse` with a reviver reading `context.source`; or a bigint-aware JSON library).
 */
export const WideIntegerSchema = Type.Unsafe<bigint>({
  type: 'integer',
  description: 'an integer outside ±(2^53 − 1), written with all its digits (JavaScript JSON.parse rounds it)',
});

/**
 * A cell: null, boolean, number, string, object reference, or a list of cells (dominators(),
 * slices). Numbers are exact: an integer beyond ±(2^53 − 1) is a bigint (WideIntegerSchema).
 */
export const ValueSchema = Type.Recursive(
  (Self) => Type.Union([Type.Null(), Type.Boolean(), Type.Number(), WideIntegerSchema, Type.String(), ObjectRefSchema, Type.Array(Self)]),
  { $id: 'heapql-value' },
);

/**
 * The kind of a column's values, read from its rows: `list` when they are lists or of more than
 * one kind. Where no value tells it (no rows, or NULLs only), the type the query fixes for the
 * column (a literal's, an aggregate's, an attribute's, a function's or operator's with one result
 * type, a field's whose declared type the source's classes give); `null` only where nothing tells.
 */
export const ColumnTypeSchema = Type.Union(
  [
    Type.Literal('object'), Type.Literal('number'), Type.Literal('string'), Type.Literal('bool'),
    Type.Literal('list'), Type.Literal('null'),
  ],
  {
    description:
      "the kind of the column's values, read from its rows: 'list' when they are lists or of more than one kind; " +
      'where no value tells it (no rows, or NULLs only), the type the query fixes for the column: a literal\'s, an aggregate\'s (COUNT is a number), ' +
      "an attribute's (@objectAddress a number), a function's or operator's with one result type (toString a string, a comparison a bool), " +
      "a field's whose declared type the source's classes give (s.hash of FROM java.lang.String s a number), a list of objects 'object'; " +
      "'null' only where nothing tells (a field read through another field, CASE branches of two kinds)",
  },
);

export const ColumnSchema = Type.Object(
  { name: Type.String({ description: 'the column name exactly as the query names it' }), type: ColumnTypeSchema },
  { additionalProperties: false },
);

export const VizKindSchema = Type.Union([
  Type.Literal('table'), Type.Literal('histogram'), Type.Literal('piechart'), Type.Literal('treemap'),
]);

/** A `-- @viz` directive. A column is named (attribute or alias) or given by 1-based position. */
export const VizSchema = Type.Object(
  {
    kind: VizKindSchema,
    label: Type.Optional(Type.Union([Type.String(), Type.Integer({ minimum: 1 })])),
    value: Type.Optional(Type.Union([Type.String(), Type.Integer({ minimum: 1 })])),
    cap: Type.Optional(Type.Integer({ minimum: 1 })),
    title: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const QueryResultSchema = Type.Object(
  {
    name: Type.String({ description: 'display name: config or @viz name, else q<N>' }),
    oql: Type.String(),
    columns: Type.Array(ColumnSchema),
    rows: Type.Array(Type.Array(ValueSchema)),
    rowCount: Type.Integer({ minimum: 0 }),
    truncated: Type.Boolean({ description: 'more rows existed than were returned' }),
    elapsedMs: Type.Number({ minimum: 0 }),
    note: Type.Optional(Type.String()),
    viz: Type.Optional(VizSchema),
  },
  { additionalProperties: false, title: 'QueryResult', $id: 'https://heapql.local/schema/query-result.json' },
);

export type ObjectRef = Static<typeof ObjectRefSchema>;
export type Value = Static<typeof ValueSchema>;
export type ColumnType = Static<typeof ColumnTypeSchema>;
export type Column = Static<typeof ColumnSchema>;
export type VizKind = Static<typeof VizKindSchema>;
export type VizSpec = Static<typeof VizSchema>;
export type QueryResult = Static<typeof QueryResultSchema>;

/** The JSON Schema document of QueryResult (plain JSON, draft-07). */
export function queryResultJsonSchema(): Record<string, unknown> {
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...JSON.parse(JSON.stringify(QueryResultSchema)) };
}
