/** Argument definitions shared by the subcommands that open a dump. */
import type { ArgsDef } from 'citty';

import { usageError } from '../errors.js';

export const dumpArgs = {
  file: { type: 'positional', required: true, description: 'the heap dump (.hprof, .hprof.gz, or the JVM\'s chunked -gz file)' },
  dump: { type: 'string', description: 'which heap dump of the file to read, 1-based (default 1)', valueHint: 'N' },
  // citty reads `--no-cache` as `cache: false`.
  cache: { type: 'boolean', default: true, description: 'use the index cache', negativeDescription: 'do not read or write the index cache' },
} as const satisfies ArgsDef;

/** `--dump N` is 1-based for people; the library takes 0-based. */
export function dumpIndex(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw usageError(`--dump takes a positive whole number (1 = the first heap dump), not '${value}'`);
  }
  return n - 1;
}
