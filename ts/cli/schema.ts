/** `heapql schema report|query`: the JSON Schemas, generated from the definitions the code validates with. */
import { defineCommand } from 'citty';

import { usageError } from '../errors.js';
import { queryResultJsonSchema } from '../query/schema.js';
import { reportJsonSchema } from '../report/json.js';
import { diffJsonSchema } from '../diff/json.js';

const SCHEMAS: Record<string, () => Record<string, unknown>> = {
  report: reportJsonSchema,
  query: queryResultJsonSchema,
  diff: diffJsonSchema,
};

export const schemaCommand = defineCommand({
  meta: { name: 'schema', description: 'Print the JSON Schema of the report (report), a query result (query) or the comparison of two dumps (diff)' },
  args: {
    which: { type: 'positional', required: true, description: 'report, query or diff', valueHint: 'report|query|diff' },
  },
  run({ args }) {
    const make = SCHEMAS[args.which];
    if (!make) throw usageError(`unknown schema "${args.which}"; use heapql schema report, query or diff`);
    process.stdout.write(JSON.stringify(make(), null, 2) + '\n');
  },
});
