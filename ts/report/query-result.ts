/**
 * The QueryResult shape the report folds in (design.md §5), as the report sees it. The query layer
 * (`ts/query`) owns the definition; this module is the one place the report reads it from, so
 * switching to the query layer's exported schema is a change of this file only.
 */
import { Type, type Static } from '@sinclair/typebox';

/** A heap object as a person sees it: the dense index, the address, the class and a display label. */
export const ObjectRefSchema = Type.Object(
  {
    objectId: Type.Integer({ minimum: 0, description: 'dense object index (0-based), stable for one dump' }),
    address: Type.String({ pattern: '^0x[0-9a-f]+$', description: 'the object id as written in the dump, lower-case hex' }),
    className: Type.String({ description: 'Java-form class name (arrays as `byte[]`); for a class object `java.lang.Class`' }),
    label: Type.String({ description: 'what a table shows: e.g. `java.util.HashMap @ 0x7f01a3b0` or a thread name' }),
  },
  { additionalProperties: false },
);
export type ObjectRef = Static<typeof ObjectRefSchema>;

export const ValueSchema = Type.Union([Type.Null(), Type.Boolean(), Type.Number(), Type.String(), ObjectRefSchema]);
export type Value = Static<typeof ValueSchema>;

export const VizKindSchema = Type.Union([
  Type.Literal('table'),
  Type.Literal('histogram'),
  Type.Literal('piechart'),
  Type.Literal('treemap'),
]);
export type VizKind = Static<typeof VizKindSchema>;

/** A parsed `-- @viz` directive. Columns are given by attribute, alias or 1-based position. */
export const VizDirectiveSchema = Type.Object(
  {
    kind: VizKindSchema,
    label: Type.Optional(Type.String()),
    value: Type.Optional(Type.String()),
    cap: Type.Optional(Type.Integer({ minimum: 1 })),
    title: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type VizDirective = Static<typeof VizDirectiveSchema>;

export const QueryResultSchema = Type.Object(
  {
    name: Type.String(),
    oql: Type.String(),
    columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String() }, { additionalProperties: false })),
    rows: Type.Array(Type.Array(ValueSchema)),
    rowCount: Type.Integer({ minimum: 0 }),
    truncated: Type.Boolean(),
    elapsedMs: Type.Number({ minimum: 0 }),
    note: Type.Optional(Type.String()),
    viz: Type.Optional(VizDirectiveSchema),
  },
  { additionalProperties: false },
);
export type QueryResult = Static<typeof QueryResultSchema>;
