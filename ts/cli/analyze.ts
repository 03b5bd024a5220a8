/**
 * `heapql analyze <dump>`: the full path — index, object graph, dominator tree, retained sizes —
 * then the queries, printed like `heapql query` (retained sizes, dominators and paths work).
 */
import { defineCommand } from 'citty';

import { checkOptions, dumpArgs, dumpIndex, fullAnalysisArgs, queryArgs, scratchDir } from './args.js';
import { cacheOptions } from './cache.js';
import { analyzeForCli, openForCli } from './open.js';
import { asOneCommand } from './progress.js';
import { collectJobs, noQueryGiven, outputFormat, runJobs } from './queries.js';
import { refuseWithRepl, startRepl } from './repl.js';
import { warn } from './stderr.js';

const args = {
  ...dumpArgs,
  ...queryArgs,
  ...fullAnalysisArgs,
  run: { type: 'string', description: 'run a named query (see heapql query --list-named); repeat it to run several', valueHint: 'name' },
  repl: { type: 'boolean', description: 'interactive session after the analysis (oql> prompt; !help lists its commands)' },
} as const;

export const analyzeCommand = defineCommand({
  meta: { name: 'analyze', description: 'Run the full analysis (retained sizes, dominators), then OQL queries' },
  args,
  async run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'analyze', args, 1);
    const reachableOnly = a['reachable-only'] ?? false;
    const scratch = scratchDir(a['scratch-dir']);
    if (a.repl) {
      refuseWithRepl(rawArgs, a);
      const heap = await openForCli(a.file, { dump: dumpIndex(a.dump), ...cacheOptions(a), scratchDir: scratch });
      try {
        await analyzeForCli(heap, reachableOnly);
        process.exitCode = await startRepl(heap, reachableOnly);
      } finally {
        heap.close();
      }
      return;
    }
    const format = outputFormat(a.format);
    const { jobs, warnings } = collectJobs({ rawArgs, queryFile: a['query-file'], fullPath: true, reachableOnly });
    for (const w of warnings) warn(w);
    if (jobs.length === 0) noQueryGiven(a['query-file'], 'or --repl for an interactive session (or heapql <dump> for the report)');
    await asOneCommand(async () => {
      const heap = await openForCli(a.file, { dump: dumpIndex(a.dump), ...cacheOptions(a), scratchDir: scratch });
      try {
        await analyzeForCli(heap, reachableOnly);
        await runJobs(heap, jobs, format);
      } finally {
        heap.close();
      }
    });
  },
});
