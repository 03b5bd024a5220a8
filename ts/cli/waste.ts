/**
 * `heapql waste <dump> [<out>]`: the full analysis, then the waste checks (empty, small and sparse
 * collections, sparse arrays, boxes, duplicate strings and arrays, zero tails, Latin-1 strings,
 * pending finalization) grouped by holder. Formats as the report: from the output path's
 * extension, --format overrides, no path prints Markdown.
 */
import { defineCommand } from 'citty';

import { usageError } from '../errors.js';
import { checkOutputWritable, chooseOutput, WASTE_OUTPUT, writeWaste } from '../report/output.js';
import { checkOptions, dumpArgs, dumpIndex, fullAnalysisArgs, scratchDir } from './args.js';
import { cacheOptions } from './cache.js';
import { analyzeForCli, openForCli } from './open.js';
import { asOneCommand, throwIfInterrupted, withProgress } from './progress.js';
import { notice } from './stderr.js';


const args = {
  ...dumpArgs,
  out: { type: 'positional', required: false, description: 'where to write it (.md, .html or .json); none = Markdown on stdout' },
  ...fullAnalysisArgs,
  format: { type: 'string', description: 'output format (default: from the output path)', valueHint: 'md|html|json' },
  limit: { type: 'string', description: 'holder rows shown per check (default 25)', valueHint: 'N' },
  'reachable-only': { type: 'boolean', description: 'only objects reachable from GC roots' },
} as const;

export const wasteCommand = defineCommand({
  meta: { name: 'waste', description: 'How much memory the heap wastes and where (empty and sparse collections, boxes, duplicates, …), by holding field' },
  args,
  async run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'waste', args, 2);
    const choice = chooseOutput(a.out ?? null, a.format ?? null, WASTE_OUTPUT);
    const limit = rowLimit(a.limit);
    checkOutputWritable(choice, WASTE_OUTPUT); // now, not after the analysis
    const scratch = scratchDir(a['scratch-dir']);
    await asOneCommand(async () => {
      const heap = await openForCli(a.file, { dump: dumpIndex(a.dump), ...cacheOptions(a), scratchDir: scratch });
      try {
        await analyzeForCli(heap, a['reachable-only'] ?? false);
        const model = await withProgress(({ onProgress, signal }) => heap.waste({ limit, reachableOnly: a['reachable-only'] ?? false, onProgress, signal }));
        throwIfInterrupted();
        writeWaste(model, choice);
        if (choice.path) notice(`waste report written to ${choice.path}`);
      } finally {
        heap.close();
      }
    });
  },
});

function rowLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  // The library takes up to 2^32 - 1, and would refuse more only after the full analysis.
  if (!Number.isSafeInteger(n) || n < 1 || n > 2 ** 32 - 1) throw usageError(`--limit takes a whole number of rows from 1 to ${2 ** 32 - 1}, not '${value}'`);
  return n;
}
