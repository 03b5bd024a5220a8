/**
 * The published JSON models, by the name `heapql schema <name>` takes: the one list the CLI
 * prints from and the build compiles validators for (test/tools/build-validators.mjs).
 */
import { diffJsonSchema } from './diff/json.js';
import { queryResultJsonSchema } from './query/schema.js';
import { reportJsonSchema, wasteJsonSchema } from './report/json.js';

export const PUBLISHED_SCHEMAS: Record<string, () => Record<string, unknown>> = {
  report: reportJsonSchema,
  waste: wasteJsonSchema,
  query: queryResultJsonSchema,
  diff: diffJsonSchema,
};
