/** `heapql schema report|waste|query`: the JSON Schemas, generated from the definitions the code validates with. */
import { defineCommand } from 'citty';

import { usageError } from '../errors.js';
import { PUBLISHED_SCHEMAS } from '../published-schemas.js';

export const schemaCommand = defineCommand({
  meta: { name: 'schema', description: 'Print the JSON Schema of the report (report), of heapql waste --format json (waste), of a query result (query) or of the comparison of two dumps (diff)' },
  args: {
    which: { type: 'positional', required: true, description: 'report, waste, query or diff', valueHint: 'report|waste|query|diff' },
  },
  run({ args }) {
    const make = PUBLISHED_SCHEMAS[args.which];
    if (!make) throw usageError(`unknown schema "${args.which}"; use heapql schema report, waste, query or diff`);
    process.stdout.write(JSON.stringify(make(), null, 2) + '\n');
  },
});
