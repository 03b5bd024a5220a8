/** `heapql <dump>`: index the dump and print its summary. */
import { defineCommand } from 'citty';

import { buildSummary, renderSummary } from '../report/summary.js';
import { dumpArgs, dumpIndex } from './args.js';
import { openForCli } from './open.js';

export const mainCommand = defineCommand({
  meta: { name: 'heapql', description: 'Analyze a Java or Android heap dump (HPROF)' },
  args: {
    ...dumpArgs,
    format: { type: 'string', description: 'text (default) or json', valueHint: 'text|json' },
  },
  async run({ args }) {
    await printSummary(args.file, { dump: dumpIndex(args.dump), noCache: !args.cache, format: args.format });
  },
});

export async function printSummary(file: string, options: { dump?: number; noCache?: boolean; format?: string }) {
  const heap = await openForCli(file, options);
  try {
    const summary = buildSummary(heap);
    process.stdout.write(options.format === 'json' ? JSON.stringify(summary, null, 2) + '\n' : renderSummary(summary));
  } finally {
    heap.close();
  }
}
