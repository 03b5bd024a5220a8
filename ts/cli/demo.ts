/** `heapql demo`: the bundled demo dump, so a new user sees output without a dump of their own. */
import { defineCommand } from 'citty';

import { HeapqlError } from '../errors.js';
import { packageFile } from '../package-files.js';
import { chooseOutput } from '../report/index.js';
import { checkOptions } from './args.js';
import { writeFullReport } from './report.js';

const DEMO_DUMP = 'fixtures/demo/demo.hprof';

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
    const dump = packageFile(DEMO_DUMP);
    if (!dump) throw new HeapqlError('ERR_IO', `the demo dump ${DEMO_DUMP} is not part of this installation; reinstall heapql`);
    await writeFullReport(dump, { reachableOnly: false, jobs: [], choice });
  },
});
