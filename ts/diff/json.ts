/**
 * The JSON diff and its JSON Schema (`heapql schema diff`), generated from the TypeBox
 * definition the model is validated with before it is written.
 */
import { Ajv, type ValidateFunction } from 'ajv';

import { HeapqlError } from '../errors.js';
import { describeSchemaErrors } from '../report/json.js';
import { DiffModelSchema, type DiffModel } from './model.js';

export function diffJsonSchema(): Record<string, unknown> {
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...JSON.parse(JSON.stringify(DiffModelSchema)) };
}

let compiled: ValidateFunction | null = null;

export function validateDiffModel(value: unknown): { ok: boolean; errors: NonNullable<ValidateFunction['errors']> } {
  compiled ??= new Ajv({ allErrors: true }).compile(diffJsonSchema());
  const ok = compiled(value) as boolean;
  return { ok, errors: ok ? [] : [...(compiled.errors ?? [])] };
}

/** Pretty JSON of a model that passed validation; a mismatch is a bug in heapql (ERR_INTERNAL). */
export function renderDiffJson(model: DiffModel): string {
  const { ok, errors } = validateDiffModel(model);
  if (!ok) throw new HeapqlError('ERR_INTERNAL', `internal error: the diff does not match its JSON Schema (a bug in heapql; please report it):\n${describeSchemaErrors(errors)}`);
  return JSON.stringify(model, null, 2) + '\n';
}
