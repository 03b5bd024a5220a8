/** `heapql demo`: the bundled demo dump, so a new user sees output without a dump of their own. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineCommand } from 'citty';

import { printSummary } from './summary.js';

export const DEMO_DUMP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/demo/demo.hprof');

export const demoCommand = defineCommand({
  meta: { name: 'demo', description: 'Analyze the demo dump bundled with heapql (fixtures/demo/demo.hprof)' },
  args: {
    format: { type: 'string', description: 'text (default) or json', valueHint: 'text|json' },
  },
  async run({ args }) {
    await printSummary(DEMO_DUMP, { format: args.format });
  },
});
