/**
 * The index cache from the command line: the options every dump command takes
 * (`--cache-dir`, `--cache-max`, `--no-cache`), its warning lines, and `heapql cache list` /
 * `heapql cache clear [<dump>]`.
 */
import { defineCommand } from 'citty';

import { usageError } from '../errors.js';
import type { Heap } from '../heap.js';
import { callSync, native } from '../native/index.js';
import { formatBytes } from '../report/summary.js';
import { checkOptions } from './args.js';
import { warn } from './stderr.js';

export interface CliCacheOptions {
  noCache?: boolean;
  /** Default: HEAPQL_CACHE_DIR, else $XDG_CACHE_HOME/heapql, else ~/.cache/heapql. */
  cacheDir?: string;
  /** Size cap in bytes (default: 20% of the cache disk's free space). */
  cacheMax?: number;
}

/** The cache options of a dump command's parsed arguments. */
export function cacheOptions(a: { cache?: boolean; 'cache-dir'?: string; 'cache-max'?: string }): CliCacheOptions {
  // --no-cache with a cache option would leave that option ignored.
  const ignored = a.cache === false ? (['cache-dir', 'cache-max'] as const).find((k) => a[k] !== undefined) : undefined;
  if (ignored) throw usageError(`--no-cache and --${ignored} both given: --no-cache uses no cache, so --${ignored} would do nothing; give one`);
  return {
    noCache: a.cache === false,
    ...(a['cache-dir'] !== undefined ? { cacheDir: a['cache-dir'] } : {}),
    ...(a['cache-max'] !== undefined ? { cacheMax: parseSize(a['cache-max']) } : {}),
  };
}

const UNITS: Record<string, number> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };

/** `500M`, `20G`, `1.5T`, `1048576` (bytes; K/M/G/T are powers of 1024). */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(text);
  if (!m) throw usageError(`--cache-max ${text}: give a size such as 500M, 20G or a number of bytes`);
  const bytes = Math.floor(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!);
  if (bytes < 1) throw usageError(`--cache-max ${text}: give a size above 0, such as 500M or 20G (--no-cache to use no cache)`);
  if (!Number.isSafeInteger(bytes)) throw usageError(`--cache-max ${text}: too large; give at most ${2 ** 53 - 1} bytes`);
  return bytes;
}

const printed = new WeakMap<Heap, number>();

/** Prints the cache's warning lines not printed yet (each once). */
export function printCacheWarnings(heap: Heap): void {
  const warnings = heap.cacheStatus().warnings;
  for (const w of warnings.slice(printed.get(heap) ?? 0)) warn(w);
  printed.set(heap, warnings.length);
}

function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

/** A writer's temporary file: path, size, and whether its writer is alive (then it is kept). */
function describeLeftover(l: { path: string; bytes: number; pid?: number | null; writerAlive: boolean }): string {
  const who = l.pid == null ? 'its writer' : `process ${l.pid}`;
  const state = l.writerAlive ? `being written: ${who} is running` : `left unfinished: ${who} is gone`;
  return `${l.path}  ${formatBytes(l.bytes)}  (${state})`;
}

const dirArg = {
  'cache-dir': { type: 'string', valueHint: 'dir', description: 'the cache directory (default: $HEAPQL_CACHE_DIR, else $XDG_CACHE_HOME/heapql or ~/.cache/heapql)' },
} as const;

const listArgs = { ...dirArg, json: { type: 'boolean', description: 'print JSON' } } as const;

const listCommand = defineCommand({
  meta: { name: 'list', description: 'List the cached dumps: dump, size, age' },
  args: listArgs,
  run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'cache list', listArgs, 0);
    const dir = native().cacheDirectory(a['cache-dir']);
    // An unfinished entry (its writer died before anything named its dump) has no dump: null.
    // A directory that cannot be listed is an ERR_IO that says why, not an empty cache.
    const entries = callSync(() => native().cacheList(a['cache-dir']))
      .map((e) => ({ ...e, dump: e.dump ?? null, dumpNumber: e.dumpNumber ?? null, dumpSize: e.dumpSize ?? null }));
    if (a.json) {
      process.stdout.write(JSON.stringify({ dir, entries }, null, 2) + '\n');
      return;
    }
    const now = Date.now();
    process.stdout.write(`cache: ${dir}\n`);
    if (entries.length === 0) {
      process.stdout.write('(empty)\n');
      return;
    }
    for (const e of entries) {
      const which = e.dumpNumber !== null && e.dumpNumber > 0 ? ` (dump ${e.dumpNumber + 1})` : '';
      const parts = e.files.map((f) => f.split('.')[0]).filter((f, i, all) => all.indexOf(f) === i);
      const dump =
        e.dump ??
        (e.files.length > 0
          ? `${e.dir} (damaged: no dump named; its meta.json is lost and its files' headers are damaged)`
          : `${e.dir} (unfinished: no dump named; its writer died before writing meta.json)`);
      process.stdout.write(`${dump}${which}  ${formatBytes(e.bytes)}  used ${formatAge(now - e.lastUsedMs)} ago  [${parts.join(', ')}]\n`);
      for (const l of e.leftovers) process.stdout.write(`  ${describeLeftover(l)}\n`);
    }
    const total = entries.reduce((s, e) => s + e.bytes, 0);
    const leftovers = entries.flatMap((e) => e.leftovers);
    const stale = leftovers.filter((l) => !l.writerAlive);
    const inTotal = leftovers.length === 0 ? '' : `, of which ${leftovers.length} unfinished file(s), ${formatBytes(leftovers.reduce((s, l) => s + l.bytes, 0))}`;
    process.stdout.write(`${entries.length} dump(s), ${formatBytes(total)}${inTotal}\n`);
    if (stale.length > 0) process.stdout.write(`(heapql cache clear removes the ${stale.length} whose writer is gone)\n`);
  },
});

const clearArgs = { ...dirArg, dump: { type: 'positional', required: false, description: 'only the entries of this dump' } } as const;

const clearCommand = defineCommand({
  meta: { name: 'clear', description: 'Remove the cache, or the entries of one dump' },
  args: clearArgs,
  run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'cache clear', clearArgs, 1);
    const { entries, bytes, leftoversRemoved, beingWritten } = callSync(() => native().cacheClear(a['cache-dir'], a.dump));
    const what = a.dump ? ` of ${a.dump}` : '';
    process.stdout.write(`removed ${entries} cache entr${entries === 1 ? 'y' : 'ies'}${what} (${formatBytes(bytes)})\n`);
    for (const l of leftoversRemoved) process.stdout.write(`  removed ${describeLeftover(l)}\n`);
    for (const l of beingWritten) process.stdout.write(`  kept ${describeLeftover(l)}\n`);
  },
});

export const cacheCommand = defineCommand({
  meta: { name: 'cache', description: 'The index cache: list the cached dumps, or clear them' },
  subCommands: { list: listCommand, clear: clearCommand },
});
