/** `heapql schema report|query`: the JSON Schemas, generated from the definitions the code validates with. */
import { defineCommand } from 'citty';

import { usageError } from '../errors.js';
import { queryResultJsonSchema } from '../query/schema.js';
import { reportJsonSchema } from '../report/json.js';

const SCHEMAS: Record<string, () => Record<string, unknown>> = {
  report: reportJsonSchema,
  query: queryResultJsonSchema,
};

export const schemaCommand = defineCommand({
  meta: { name: 'schema', description: 'Print the JSON Schema of the report (report) or of a query result (query)' },
  args: {
    which: { type: 'positional', required: true, description: 'report or query', valueHint: 'report|query' },
  },
  run({ args }) {
    const make = SCHEMAS[args.which];
    if (!make) throw usageError(`unknown schema "${args.which}"; use heapql schema report or heapql schema query`);
    process.stdout.write(JSON.stringify(make(), null, 2) + '\n');
  },
});
