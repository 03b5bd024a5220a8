/** `heapql schema report|waste|query|diff`: the JSON Schemas, generated from the definitions the code validates with. */
import { defineCommand } from 'citty';

import { usageError } from '../errors.js';
import { PUBLISHED_SCHEMAS } from '../published-schemas.js';
import { checkOptions } from './args.js';

const args = {
  which: { type: 'positional', required: true, description: 'report, waste, query or diff', valueHint: 'report|waste|query|diff' },
} as const;

export const schemaCommand = defineCommand({
  meta: { name: 'schema', description: 'Print the JSON Schema of the report (report), of heapql waste --format json (waste), of a query result (query) or of the comparison of two dumps (diff)' },
  args,
  run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'schema', args, 1);
    // Its own names only: `constructor` or `toString` are the object's, not schemas.
    const make = Object.hasOwn(PUBLISHED_SCHEMAS, a.which) ? PUBLISHED_SCHEMAS[a.which] : undefined;
    if (!make) throw usageError(`unknown schema "${a.which}"; use heapql schema report, waste, query or diff`);
    process.stdout.write(JSON.stringify(make(), null, 2) + '\n');
  },
});
