/** `heapql summary <dump>`: the query-only index and its summary (fast; no object graph). */
import { defineCommand } from 'citty';

import { usageError } from '../errors.js';
import { buildSummary, renderSummary } from '../report/summary.js';
import { checkOptions, dumpArgs, dumpIndex } from './args.js';

const summaryArgs = {
  ...dumpArgs,
  format: { type: 'string', description: 'text (default) or json', valueHint: 'text|json' },
} as const;
import { cacheOptions, type CliCacheOptions } from './cache.js';
import { openForCli } from './open.js';

export const summaryCommand = defineCommand({
  meta: { name: 'summary', description: 'Index a dump and print its summary (counts, GC roots, top classes) without the full analysis' },
  args: summaryArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'summary', summaryArgs, 1);
    if (args.format !== undefined && args.format !== 'text' && args.format !== 'json') {
      throw usageError(`--format must be text or json, not '${args.format}'`);
    }
    await printSummary(args.file, { dump: dumpIndex(args.dump), ...cacheOptions(args), format: args.format });
  },
});

export async function printSummary(file: string, options: { dump?: number; format?: string } & CliCacheOptions) {
  const heap = await openForCli(file, options);
  try {
    const summary = buildSummary(heap);
    process.stdout.write(options.format === 'json' ? JSON.stringify(summary, null, 2) + '\n' : renderSummary(summary));
  } finally {
    heap.close();
  }
}
