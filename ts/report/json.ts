/**
 * The JSON report, and the report's JSON Schema. The model is validated against the schema
 * before it is written: a mismatch is a bug in heapql (the analysis produced something the
 * schema does not allow), reported as such with every offending path.
 */
import type { TSchema } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';

import { HeapqlError } from '../errors.js';
import { stringifyJson } from '../query/json.js';
import { ReportModelSchema, WasteModelSchema, type ReportModel, type WasteModel } from './model.js';
import { validatorFor, type Validator } from '../validators.js';

/**
 * One published model (report, waste, diff): its JSON Schema document (plain JSON, draft-07,
 * as `heapql schema <name>` prints it), its validator (compiled ahead by the build, else on
 * first use: `ts/validators.ts`), and the pretty JSON of a model that passed it. A mismatch
 * throws ERR_INTERNAL saying `the <what> does not match its JSON Schema`, asking to report it
 * (`reportWith`: what to send along), and naming every offending path.
 */
export function publishedModel<M>(schema: TSchema, what: string, reportWith = '') {
  const document = (): Record<string, unknown> => ({ $schema: 'http://json-schema.org/draft-07/schema#', ...JSON.parse(JSON.stringify(schema)) });
  let compiled: Validator | null = null;
  const validate = (value: unknown): { ok: boolean; errors: ErrorObject[] } => {
    compiled ??= validatorFor(document());
    const ok = compiled(value) as boolean;
    return { ok, errors: ok ? [] : [...(compiled.errors ?? [])] };
  };
  const render = (model: M): string => {
    const { ok, errors } = validate(model);
    if (!ok) {
      throw new HeapqlError(
        'ERR_INTERNAL',
        `internal error: the ${what} does not match its JSON Schema (a bug in heapql; please report it${reportWith}):\n${describeSchemaErrors(errors)}`,
      );
    }
    // A query block's Java long beyond 2^53 is a bigint: written with every digit.
    return stringifyJson(model, 2) + '\n';
  };
  return { document, validate, render };
}

const DUMP_PRODUCER = " with the dump's producer and version";
const report = publishedModel<ReportModel>(ReportModelSchema, 'report', DUMP_PRODUCER);
// The waste model's mismatch message names "the report", as it always has.
const waste = publishedModel<WasteModel>(WasteModelSchema, 'report', DUMP_PRODUCER);

/** The report's JSON Schema document, as `heapql schema report` prints it. */
export const reportJsonSchema = report.document;
/** The JSON Schema of `heapql waste --format json` (`heapql schema waste`). */
export const wasteJsonSchema = waste.document;
export const validateReportModel = report.validate;
export const validateWasteModel = waste.validate;
/** Pretty JSON of a model that passed validation; throws ERR_INTERNAL naming every mismatch. */
export const renderJson = report.render;
/** `renderJson` for the waste model. */
export const renderWasteJson = waste.render;

/** `/leakSuspects/suspects/0/retained must be integer`, one per line, at most 20. */
export function describeSchemaErrors(errors: ErrorObject[]): string {
  const lines = errors.slice(0, 20).map((e) => {
    const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : '';
    return `  ${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
  });
  if (errors.length > 20) lines.push(`  … and ${errors.length - 20} more`);
  return lines.join('\n');
}
