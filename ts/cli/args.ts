/** Argument definitions shared by the subcommands that open a dump. */
import type { ArgsDef } from 'citty';

import { accessSync, constants, statSync } from 'node:fs';

import { usageError } from '../errors.js';
import { didYouMean } from '../text-distance.js';

export const dumpArgs = {
  file: { type: 'positional', required: true, description: 'the heap dump (.hprof, .hprof.gz, or the JVM\'s chunked -gz file)' },
  dump: { type: 'string', description: 'which heap dump of the file to read, 1-based (default 1)', valueHint: 'N' },
  // citty reads `--no-cache` as `cache: false`.
  // Its help shows `--no-cache` alone, with `description` as what the default does (main.ts).
  cache: { type: 'boolean', default: true, description: 'it is used', negativeDescription: 'do not read or write the index cache' },
  'cache-dir': { type: 'string', description: 'the index cache\'s directory (default: $HEAPQL_CACHE_DIR, else $XDG_CACHE_HOME/heapql or ~/.cache/heapql)', valueHint: 'dir' },
  'cache-max': { type: 'string', description: 'the cache\'s size cap, e.g. 20G (default: 20% of its disk\'s free space)', valueHint: 'size' },
} as const satisfies ArgsDef;

/** Options of the commands that run the full analysis. */
export const fullAnalysisArgs = {
  'scratch-dir': {
    type: 'string',
    description: 'directory for the analysis\'s scratch files (default: a temporary directory on disk)',
    valueHint: 'dir',
  },
} as const satisfies ArgsDef;

/**
 * The full analysis keeps its big arrays in memory-mapped scratch files ('' = the core picks a
 * disk-backed temporary directory); a directory given must exist and be writable, or the
 * arrays would silently stay in memory.
 */
export function scratchDir(value: string | undefined): string {
  if (value === undefined) return '';
  let ok = false;
  try {
    ok = statSync(value).isDirectory();
    accessSync(value, constants.W_OK);
  } catch {
    ok = false;
  }
  if (!ok) throw usageError(`--scratch-dir ${value}: not a writable directory; give an existing directory on a disk with free space`);
  return value;
}

/** `--dump N` is 1-based for people; the library takes 0-based. */
export function dumpIndex(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  // The library counts dumps from 0 in 32 bits: a larger number is no dump of any file.
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) {
    throw usageError(`--dump takes a whole number from 1 (the first heap dump) to ${2 ** 32}, not '${value}'; \`heapql summary <file>\` says how many the file holds`);
  }
  return n - 1;
}

/** The options read as lists (`repeatedOption`, diff's gates); any other given twice is refused. */
const REPEATABLE = new Set(['query', 'run', 'fail-if-grown']);

/**
 * citty ignores options it does not know; a mistyped option must not be dropped silently
 * (`--tsak 5` would act on nothing, `--reachable-onyl` would widen a result). Also refuses
 * more positional arguments than the command takes, and an option given twice that is not a
 * list (citty keeps the last: `--model A --model B` would use B, silently), or a switch given
 * both ways. `command` names it in the message.
 */
export function checkOptions(
  rawArgs: string[],
  command: string,
  known: Record<string, { type: string }>,
  positionals: number,
): void {
  const names = new Set(Object.entries(known).filter(([, d]) => d.type !== 'positional').map(([n]) => n));
  // The help that lists these options: the verb's own for a verb (`heapql cache list --help`
  // lists --json, `heapql cache --help` does not); the report is the command `heapql` itself.
  const help = command === 'heapql' ? 'heapql --help' : `heapql ${command} --help`;
  const loose: string[] = [];
  const values = new Map<string, string[]>();
  const switches = new Map<string, Set<boolean>>();
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!;
    if (a === '--') {
      loose.push(...rawArgs.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      loose.push(a);
      continue;
    }
    const name = a.replace(/^--?/, '').split('=')[0]!;
    const base = names.has(name) ? name : name.replace(/^no-/, '');
    // `--no-` belongs to switches: `--no-format json` is no option.
    if (!names.has(base) || (base !== name && known[base]!.type === 'string')) {
      if (name === 'quiet' && a.includes('=')) throw usageError(`--quiet takes no value (${a}): write --quiet`);
      const guess = closestOption(name, [...names, 'quiet']); // --quiet: every command's (main.ts takes it out)
      throw usageError(`unknown option ${a.split('=')[0]} for ${command}; ${guess ? `did you mean --${guess}? ` : ''}see ${help}`);
    }
    if (known[base]!.type !== 'string' && a.includes('=')) {
      // citty reads any value but `false` as on: `--reachable-only=no` would turn it on.
      const off = base === name ? ` (--no-${base} for off)` : '';
      throw usageError(`${a.split('=')[0]} is a switch and takes no value (${a}): write ${a.split('=')[0]}${off}`);
    }
    if (known[base]!.type === 'string') {
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : (rawArgs[++i] ?? '');
      if (!REPEATABLE.has(base)) values.set(base, [...(values.get(base) ?? []), value]);
    } else {
      switches.set(base, (switches.get(base) ?? new Set()).add(base === name));
    }
  }
  for (const [name, given] of values) {
    if (given.length > 1) throw usageError(`--${name} given more than once (${given.join(', ')}): give one`);
  }
  for (const [name, given] of switches) {
    if (given.size > 1) throw usageError(`--${name} and --no-${name} both given: give one`);
  }
  if (loose.length > positionals) {
    throw usageError(`unexpected argument ${loose[positionals]} for ${command}; see ${help}`);
  }
}

/** The known option closest to a mistyped one: one it begins, else at most 2 edits away (the dashes left out). */
function closestOption(name: string, names: string[]): string | null {
  const word = name.replace(/^no-/, '').toLowerCase();
  if (word.length < 2) return null;
  return names.find((n) => n.startsWith(word)) ?? didYouMean(word, names);
}

/** Options of the commands that run queries. */
export const queryArgs = {
  query: { type: 'string', description: 'an OQL query (repeatable; a text starting with -- needs --query=<text>)', valueHint: 'oql' },
  'query-file': { type: 'string', description: 'a file of queries, one per line (# comments, -- @viz directives)', valueHint: 'path' },
  format: { type: 'string', description: 'output format', valueHint: 'table|json|csv' },
  'reachable-only': { type: 'boolean', description: 'only objects reachable from GC roots' },
} as const satisfies ArgsDef;
