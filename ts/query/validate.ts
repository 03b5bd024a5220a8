// Validation of a value against the QueryResult schema (schema.ts), with the validator that
// ts/validators.ts compiles (ahead at build time where it can).
import type { ErrorObject } from 'ajv';

import { validatorFor, type Validator } from '../validators.js';
import { queryResultJsonSchema } from './schema.js';

let compiled: Validator | null = null;

/** Checks a value against the QueryResult schema; `errors` are ajv's, with paths. */
export function validateQueryResult(value: unknown): { ok: boolean; errors: ErrorObject[] } {
  compiled ??= validatorFor(queryResultJsonSchema());
  const ok = compiled(value) as boolean;
  return { ok, errors: ok ? [] : [...(compiled.errors ?? [])] };
}
