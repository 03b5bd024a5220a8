/** `heapql demo`: the bundled demo dump, so a new user sees output without a dump of their own. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineCommand } from 'citty';

import { chooseOutput } from '../report/index.js';
import { checkOptions } from './args.js';
import { writeFullReport } from './report.js';

export const DEMO_DUMP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/demo/demo.hprof');

const demoArgs = {
  report: { type: 'positional', required: false, description: 'where to write the report (.md, .html or .json); none = Markdown on stdout' },
  format: { type: 'string', description: 'report format (default: from the report path)', valueHint: 'md|html|json' },
} as const;

export const demoCommand = defineCommand({
  meta: { name: 'demo', description: 'The full report of the demo dump bundled with heapql (fixtures/demo/demo.hprof)' },
  args: demoArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'demo', demoArgs, 1);
    const choice = chooseOutput(args.report ?? null, args.format ?? null);
    await writeFullReport(DEMO_DUMP, { reachableOnly: false, jobs: [], choice });
  },
});
