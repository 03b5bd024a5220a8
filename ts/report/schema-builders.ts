/**
 * The TypeBox shorthands both published models (report and diff) are written with, so the two
 * schemas say "bytes", "count", "nullable" and "closed object" the same way.
 */
import { Type, type TSchema } from '@sinclair/typebox';

/** A size in bytes: a whole number ≥ 0. */
export const Bytes = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
/** A count: a whole number ≥ 0. */
export const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** An object with exactly these properties (no others allowed). */
export const Obj = <P extends Parameters<typeof Type.Object>[0]>(props: P, description?: string) =>
  Type.Object(props, { additionalProperties: false, ...(description ? { description } : {}) });
