// The terminal REPL (the built library's runTerminalRepl, with the CLI's progress bar) on a dump
// whose queries the test paces: a query's stream is held after its first batch, and every count
// (the second run of a paged result) before it starts, until the process gets SIGUSR2 with the
// kind (`rows` or `count`) written in the file named by HEAPQL_TEST_HOLDS: those holds go on.
// Each hold says `[held: rows]` / `[held: count]` on the terminal as it begins, and every stream
// opened says `[stream N]` (the Nth of the session). Used by paged-pty.test.ts.
// Usage: HEAPQL_TEST_HOLDS=<file> node held-repl.mjs <dump>
import { readFileSync } from 'node:fs';

import { openHeap } from '../../dist/index.js';
import { terminalProgress } from '../../dist/cli/progress.js';
import { runTerminalRepl } from '../../dist/repl/terminal.js';

const session = await openHeap(process.argv[2], { noCache: true });

const holds = { rows: new Set(), count: new Set() };
process.on('SIGUSR2', () => {
  const kind = readFileSync(process.env.HEAPQL_TEST_HOLDS, 'utf8').trim();
  for (const release of [...holds[kind]]) release();
});
/** Waits for SIGUSR2 naming `kind` (or for `signal`); says so on the terminal first. */
function hold(kind, signal) {
  process.stderr.write(`[held: ${kind}]\n`);
  return new Promise((resolve) => {
    const release = () => {
      holds[kind].delete(release);
      resolve();
    };
    holds[kind].add(release);
    signal?.addEventListener('abort', release, { once: true });
  });
}

const batches = session.queryBatches.bind(session);
let streams = 0;
session.queryBatches = (q, options = {}) =>
  (async function* () {
    process.stderr.write(`[stream ${++streams}]\n`);
    const real = batches(q, options);
    let n = 0;
    try {
      for (;;) {
        if (n === 1) await hold('rows', options.signal);
        const next = await real.next();
        if (next.done) return next.value;
        n++;
        yield next.value;
      }
    } finally {
      await real.return(undefined);
    }
  })();
const counts = session.queryCount.bind(session);
session.queryCount = async (q, options = {}) => {
  await hold('count', options.signal);
  return counts(q, options);
};
const code = await runTerminalRepl(session, { historyFile: null, progressBar: (stream) => terminalProgress(undefined, stream) });
session.close();
process.exit(code);
