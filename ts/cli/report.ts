/**
 * `heapql <dump> [<report>]`: the full analysis and the report (System Overview, Leak Suspects,
 * Top Consumers, Thread Overview, duplicate strings, and the queries of --query, --query-file and
 * the collection config). The format follows the report path's extension; --format overrides;
 * no path prints Markdown.
 */
import { defineCommand } from 'citty';

import type { Heap } from '../heap.js';
import { checkOutputWritable, chooseOutput, configOption, loadCollectionConfig, renderReport, vizWarnings, withVizWarnings, writeOutput, type OutputChoice } from '../report/index.js';
import { checkOptions, dumpArgs, dumpIndex, fullAnalysisArgs, queryArgs, scratchDir } from './args.js';
import { cacheOptions, printCacheWarnings, type CliCacheOptions } from './cache.js';
import { analyzeForCli, openForCli } from './open.js';
import { asOneCommand, throwIfInterrupted, withProgress } from './progress.js';
import { collectJobs, runJobsForReport, type QueryJob } from './queries.js';
import { notice, warn } from './stderr.js';

const args = {
  ...dumpArgs,
  report: { type: 'positional', required: false, description: 'where to write the report (.md, .html or .json); none = Markdown on stdout' },
  ...queryArgs,
  ...fullAnalysisArgs,
  format: { type: 'string', description: 'report format (default: from the report path)', valueHint: 'md|html|json' },
  'collection-config': { type: 'string', description: 'a config file with [[query]] entries (default .heapql.toml, then ~/.config/heapql/collections.toml)', valueHint: 'path' },
  config: { type: 'string', description: 'same as --collection-config', valueHint: 'path' },
} as const;

export const reportCommand = defineCommand({
  meta: { name: 'heapql', description: 'Analyze a Java or Android heap dump (HPROF) and write the report' },
  args,
  async run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'heapql', args, 2);
    const reachableOnly = a['reachable-only'] ?? false;
    const scratch = scratchDir(a['scratch-dir']);
    const choice = chooseOutput(a.report ?? null, a.format ?? null);
    checkOutputWritable(choice); // now, not after the analysis
    const config = loadCollectionConfig({ explicit: configOption(a['collection-config'], a.config) });
    const { jobs, warnings } = collectJobs({
      rawArgs,
      queryFile: a['query-file'],
      configQueries: config?.queries,
      fullPath: true,
      reachableOnly,
    });
    for (const w of warnings) warn(w);
    await writeFullReport(a.file, { dump: dumpIndex(a.dump), ...cacheOptions(a), scratchDir: scratch, reachableOnly, jobs, choice });
  },
});

export interface FullReportOptions extends CliCacheOptions {
  dump?: number;
  /** Scratch directory for the analysis ('' or absent = a temporary directory on disk). */
  scratchDir?: string;
  reachableOnly: boolean;
  jobs: QueryJob[];
  choice: OutputChoice;
}

export async function writeFullReport(file: string, options: FullReportOptions): Promise<void> {
  // One Ctrl-C handler from the opening to the writing: one that lands between two steps stops the next.
  return asOneCommand(() => writeFullReportSteps(file, options));
}

async function writeFullReportSteps(file: string, options: FullReportOptions): Promise<void> {
  const heap: Heap = await openForCli(file, { dump: options.dump, noCache: options.noCache, cacheDir: options.cacheDir, cacheMax: options.cacheMax, scratchDir: options.scratchDir ?? '' });
  try {
    await analyzeForCli(heap, options.reachableOnly, true);
    // A chart a result cannot draw: warned of at its `-- @viz` line when the query was written in a file.
    const vizAt = new Map<string, string>();
    const model = await withProgress(async ({ onProgress, signal }) => {
      // A failing query becomes one of the report's warnings, printed once with the others below.
      const { results, failures, vizSources } = await runJobsForReport(heap, options.jobs, signal, onProgress);
      for (const [result, source] of vizSources) for (const w of vizWarnings([result])) if (!vizAt.has(w.message)) vizAt.set(w.message, source);
      return withVizWarnings(
        await heap.report({
          queries: results,
          reachableOnly: options.reachableOnly,
          signal,
          onProgress,
          warnings: failures.map((message) => ({ source: 'query' as const, message })),
        }),
      );
    });
    printCacheWarnings(heap);
    // The dump's and the analysis's warnings were printed as the dump was opened and analyzed.
    // An ignored -- @viz line was said (with its file and line) when the queries were read.
    const said = (w: { source: string; message: string }) => w.source === 'viz' && w.message.includes('@viz directive ignored');
    const shown = (w: { source: string; message: string }) =>
      w.source === 'query' ? `query ${w.message}` : w.source === 'viz' && vizAt.has(w.message) ? `${vizAt.get(w.message)}: ${w.message}` : w.message;
    for (const w of model.warnings) if (w.source !== 'dump' && w.source !== 'analysis' && !said(w)) warn(shown(w));
    // Acknowledged (`interrupted: stopping…`) as the last step ended: nothing is written.
    throwIfInterrupted();
    const text = await withProgress(async ({ blockingStep }) => {
      // One synchronous call: its label stays up while it runs, and a Ctrl-C then is taken
      // as it ends (the next turn of the event loop), before anything is written.
      blockingStep(`rendering ${options.choice.format}`);
      const rendered = renderReport(model, options.choice.format);
      await new Promise((resolve) => setImmediate(resolve));
      return rendered;
    });
    throwIfInterrupted();
    writeOutput(text, options.choice);
    if (options.choice.path) notice(`report written to ${options.choice.path}`);
  } finally {
    heap.close();
  }
}
