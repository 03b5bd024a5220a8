/**
 * `heapql server <dump>`: binds the port, indexes the dump, then serves OQL, the report and the browser REPL on
 * 127.0.0.1. Ctrl-C or SIGTERM stops it cleanly (requests in flight get a moment, streams are
 * cancelled, the analysis is cancelled, the heap and its scratch files are released).
 */
import { defineCommand } from 'citty';

import { usageError } from '../errors.js';
import { banner } from '../server/app.js';
import { bindPort } from '../server/listen.js';
import { checkOptions, dumpArgs, dumpIndex, fullAnalysisArgs, scratchDir } from './args.js';
import { cacheOptions } from './cache.js';
import { openForCli } from './open.js';
import { notice } from './stderr.js';

const args = {
  ...dumpArgs,
  ...fullAnalysisArgs,
  port: { type: 'string', description: 'port on 127.0.0.1 (0: any free port)', default: '7070', valueHint: 'n' },
  // citty reads `--no-auto-analyze` as `auto-analyze: false`; its help shows that form alone,
  // with `description` as what the default does (main.ts).
  'auto-analyze': {
    type: 'boolean',
    default: true,
    description: 'the first report request starts the analysis (202 until ready)',
    negativeDescription: 'report requests answer 503 not_ready until POST /analyze',
  },
  'reachable-only': { type: 'boolean', description: 'queries and the analysis see only objects reachable from GC roots' },
} as const;

function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw usageError(`--port takes a port number from 0 to 65535 (0: any free port), not '${value}'`);
  return n;
}

export const serverCommand = defineCommand({
  meta: { name: 'server', description: 'Serve OQL, the report and a browser REPL over HTTP on 127.0.0.1' },
  args,
  async run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'server', args, 1);
    const port = portNumber(a.port);
    const scratch = scratchDir(a['scratch-dir']);
    // The port first: one in use is said at once, not after the dump was indexed (minutes for a
    // big one). Meanwhile a request is a 503 saying the dump is being opened.
    const bound = await bindPort(port);
    let session;
    let server;
    try {
      session = await openForCli(a.file, { dump: dumpIndex(a.dump), ...cacheOptions(a), scratchDir: scratch });
      const reachableOnly = a['reachable-only'] ?? false;
      session.reachableOnly = reachableOnly;
      const { storedQueries } = await import('./repl.js');
      server = bound.serve(session, { autoAnalyze: a['auto-analyze'], reachableOnly, storedQueries: storedQueries() });
    } catch (err) {
      session?.close();
      await bound.close();
      throw err;
    }
    const stopped = new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) process.exit(130);
        stopping = true;
        notice(`${signal}: stopping the server… (Ctrl-C again to quit at once)`);
        session.cancelAnalysis();
        void server.close().then(() => {
          session.close();
          resolve();
        });
      };
      process.on('SIGINT', () => stop('interrupted'));
      process.on('SIGTERM', () => stop('terminated'));
    });
    // Only once the handlers are in: a signal sent as soon as the banner is read (a supervisor,
    // a test) otherwise met the default action and ended the process without the clean stop.
    process.stdout.write(`heapql server listening on ${server.url} (loopback only; Ctrl-C stops it)\n${banner(session, server.port)}`);
    await stopped;
  },
});
