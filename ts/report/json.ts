/**
 * The JSON report, and the report's JSON Schema. The model is validated against the schema
 * before it is written: a mismatch is a bug in heapql (the analysis produced something the
 * schema does not allow), reported as such with every offending path.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

import { HeapqlError } from '../errors.js';
import { ReportModelSchema, WasteModelSchema, type ReportModel, type WasteModel } from './model.js';

/** The report's JSON Schema document (plain JSON, draft-07), as `heapql schema report` prints it. */
export function reportJsonSchema(): Record<string, unknown> {
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...JSON.parse(JSON.stringify(ReportModelSchema)) };
}

/** The JSON Schema of `heapql waste --format json` (`heapql schema waste`). */
export function wasteJsonSchema(): Record<string, unknown> {
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...JSON.parse(JSON.stringify(WasteModelSchema)) };
}

let compiled: ValidateFunction | null = null;
let compiledWaste: ValidateFunction | null = null;

export function validateWasteModel(value: unknown): { ok: boolean; errors: ErrorObject[] } {
  compiledWaste ??= new Ajv({ allErrors: true }).compile(wasteJsonSchema());
  const ok = compiledWaste(value) as boolean;
  return { ok, errors: ok ? [] : [...(compiledWaste.errors ?? [])] };
}

export function validateReportModel(value: unknown): { ok: boolean; errors: ErrorObject[] } {
  compiled ??= new Ajv({ allErrors: true }).compile(reportJsonSchema());
  const ok = compiled(value) as boolean;
  return { ok, errors: ok ? [] : [...(compiled.errors ?? [])] };
}

/** `/leakSuspects/suspects/0/retained must be integer`, one per line, at most 20. */
export function describeSchemaErrors(errors: ErrorObject[]): string {
  const lines = errors.slice(0, 20).map((e) => {
    const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : '';
    return `  ${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
  });
  if (errors.length > 20) lines.push(`  … and ${errors.length - 20} more`);
  return lines.join('\n');
}

/** Pretty JSON of a model that passed validation; throws ERR_INTERNAL naming every mismatch. */
export function renderJson(model: ReportModel): string {
  return checkedJson(model, validateReportModel(model));
}

/** `renderJson` for the waste model. */
export function renderWasteJson(model: WasteModel): string {
  return checkedJson(model, validateWasteModel(model));
}

function checkedJson(model: unknown, { ok, errors }: { ok: boolean; errors: ErrorObject[] }): string {
  if (!ok) {
    throw new HeapqlError(
      'ERR_INTERNAL',
      `internal error: the report does not match its JSON Schema (a bug in heapql; please report it with the dump's producer and version):\n${describeSchemaErrors(errors)}`,
    );
  }
  return JSON.stringify(model, null, 2) + '\n';
}
