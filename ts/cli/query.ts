/** `heapql query <dump>`: the query-only path — index the dump, run OQL, print the results. */
import { defineCommand } from 'citty';

import { usageError } from '../errors.js';
import { checkOptions, dumpArgs, dumpIndex, queryArgs } from './args.js';
import { cacheOptions } from './cache.js';
import { openForCli } from './open.js';
import { asOneCommand } from './progress.js';
import { collectJobs, listNamed, noQueryGiven, outputFormat, runJobs } from './queries.js';
import { warn } from './stderr.js';

const args = {
  ...dumpArgs,
  ...queryArgs,
  run: { type: 'string', description: 'run a named query (see --list-named); repeat it to run several', valueHint: 'name' },
  'list-named': { type: 'boolean', description: 'list the named queries and exit' },
  repl: { type: 'boolean', description: 'interactive session (oql> prompt; !help lists its commands)' },
} as const;

export const queryCommand = defineCommand({
  meta: { name: 'query', description: 'Run OQL on a dump without the full analysis (fast, low memory)' },
  args: { ...args, file: { ...args.file, required: false } },
  async run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'query', args, 1);
    if (a['list-named']) {
      // It reads no dump and runs nothing: an option beside it would be ignored.
      const end = rawArgs.includes('--') ? rawArgs.indexOf('--') : rawArgs.length;
      const other = rawArgs.slice(0, end).find((x) => x.startsWith('-') && x !== '-' && x !== '--list-named');
      if (other) throw usageError(`--list-named only lists the named queries and takes no other option: leave out ${other.split('=')[0]}, or leave out --list-named`);
      process.stdout.write(listNamed());
      return;
    }
    if (!a.file) throw usageError('heapql query needs a dump: heapql query <dump> --query "<oql>"');
    const reachableOnly = a['reachable-only'] ?? false;
    if (a.repl) {
      // Loaded only here: the terminal front is not part of a one-shot query's start-up.
      const { refuseWithRepl, startRepl } = await import('./repl.js');
      refuseWithRepl(rawArgs, a);
      const heap = await openForCli(a.file, { dump: dumpIndex(a.dump), ...cacheOptions(a) });
      try {
        process.exitCode = await startRepl(heap, reachableOnly);
      } finally {
        heap.close();
      }
      return;
    }
    const format = outputFormat(a.format);
    const { jobs, warnings } = collectJobs({ rawArgs, queryFile: a['query-file'], fullPath: false, reachableOnly });
    for (const w of warnings) warn(w);
    if (jobs.length === 0) noQueryGiven(a['query-file'], 'or --repl for an interactive session');
    const file = a.file;
    await asOneCommand(async () => {
      const heap = await openForCli(file, { dump: dumpIndex(a.dump), ...cacheOptions(a) });
      try {
        await runJobs(heap, jobs, format);
      } finally {
        heap.close();
      }
    });
  },
});
