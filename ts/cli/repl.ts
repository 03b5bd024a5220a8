/** `--repl` of `heapql query` and `heapql analyze`: the interactive session on an open dump. */
import { usageError } from '../errors.js';
import type { StoredQuery } from '../repl/index.js';
import { runTerminalRepl } from '../repl/terminal.js';
import { loadCollectionConfig } from '../report/config.js';
import type { HeapSession } from '../session/index.js';
import { terminalProgress } from './progress.js';
import { isQuiet, warn } from './stderr.js';
import { queryArguments } from './queries.js';

/** Options that make no sense in an interactive session are refused, not ignored. */
export function refuseWithRepl(rawArgs: string[], a: { 'query-file'?: string; run?: string; format?: string }): void {
  const clash = queryArguments(rawArgs).length > 0 ? '--query' : a['query-file'] ? '--query-file' : a.run ? '--run' : a.format ? '--format' : null;
  if (clash) {
    throw usageError(`${clash} does not go with --repl: type queries at the oql> prompt (or pipe them in: heapql query <dump> --repl < queries.oql)`);
  }
}

export function startRepl(session: HeapSession, reachableOnly: boolean): Promise<number> {
  session.reachableOnly = reachableOnly;
  return runTerminalRepl(session, {
    progressBar: (stream) => terminalProgress(undefined, stream),
    storedQueries: storedQueries(),
    quiet: isQuiet(),
    // Piped input that failed exits 1, also when a reader gone ends the process (entry.ts).
    onFailure: () => (process.exitCode = 1),
  });
}

/**
 * The named `[[query]]` entries of the config file the report would use (`.heapql.toml` here,
 * else ~/.config/heapql/collections.toml), for `!run`. A config that cannot be read is a warning:
 * the session starts without its entries.
 */
export function storedQueries(): StoredQuery[] {
  try {
    const config = loadCollectionConfig();
    return (config?.queries ?? []).flatMap(({ name, ...q }) => (name ? [{ name, ...q }] : []));
  } catch (err) {
    warn(`${(err as Error).message}; !run does not offer its queries`);
    return [];
  }
}
