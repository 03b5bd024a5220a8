/** `heapql mcp <dump>`: a Model Context Protocol server over stdio for AI assistants. */
import { defineCommand } from 'citty';
import { accessSync, constants } from 'node:fs';

import { usageError } from '../errors.js';
import { checkOptions, dumpArgs, dumpIndex } from './args.js';
import { cacheOptions } from './cache.js';
import { errorText, notice, warn } from './stderr.js';

const args = {
  ...dumpArgs,
  'reachable-only': { type: 'boolean', description: 'queries and the analysis see only objects reachable from GC roots' },
  baseline: { type: 'string', description: 'a baseline dump of the same program for compare_with_baseline', valueHint: 'dump' },
} as const;

/** A missing file is said at once on stderr, not after the client's handshake. */
function readable(path: string, what: string): void {
  try {
    accessSync(path, constants.R_OK);
  } catch {
    throw usageError(`${what} ${path}: no such readable file`);
  }
}

export const mcpCommand = defineCommand({
  meta: {
    name: 'mcp',
    description: 'Serve a dump to AI assistants over the Model Context Protocol (stdio):\nstdout carries the protocol, logs go to stderr',
  },
  args,
  async run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'mcp', args, 1);
    readable(a.file, 'dump');
    if (a.baseline !== undefined) readable(a.baseline, '--baseline');
    const { serveStdio } = await import('../mcp/index.js');
    await serveStdio({
      path: a.file,
      dump: dumpIndex(a.dump),
      reachableOnly: a['reachable-only'] ?? false,
      ...(a.baseline !== undefined ? { baselinePath: a.baseline } : {}),
      cache: cacheOptions(a),
      // --quiet keeps only errors on stderr.
      log: {
        notice: (line) => notice(`heapql mcp: ${line}`),
        warn: (line) => warn(`heapql mcp: ${line}`),
        error: (line) => process.stderr.write(`heapql mcp: ${errorText(line)}`),
      },
    });
  },
});
