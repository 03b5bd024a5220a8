/**
 * Opening a dump from the command line: a progress bar on a terminal, Ctrl-C to stop, and the
 * index's warnings (truncated file, skipped records) on stderr.
 */
import { openHeap, type Heap } from '../heap.js';
import { printCacheWarnings, type CliCacheOptions } from './cache.js';
import { withProgress } from './progress.js';
import { warn } from './stderr.js';

export interface CliOpenOptions extends CliCacheOptions {
  dump?: number;
  /** For the full analysis: big arrays in scratch files (in this directory, or '' = the core's choice). */
  scratchDir?: string;
}

export async function openForCli(path: string, options: CliOpenOptions = {}): Promise<Heap> {
  const heap = await withProgress(({ onProgress, signal }) =>
    openHeap(path, {
      dump: options.dump,
      ...(options.noCache ? { noCache: true } : { cache: true }),
      ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
      ...(options.cacheMax !== undefined ? { cacheMax: options.cacheMax } : {}),
      ...(options.scratchDir !== undefined ? { scratchDir: options.scratchDir } : {}),
      onProgress,
      signal,
    }),
  );
  for (const w of heap.warnings()) {
    // The offset is added unless the message names it already or it is not a data position.
    const where = w.offset > 0 && !/offset/i.test(w.message) ? ` (byte offset ${w.offset})` : '';
    warn(`${path}: ${w.message}${where}`);
  }
  printCacheWarnings(heap);
  return heap;
}

/**
 * The full analysis with a progress bar and Ctrl-C, for commands that need the full path
 * (`forReport`: the full report follows; see `AnalyzeOptions.forReport`).
 */
export async function analyzeForCli(heap: Heap, reachableOnly: boolean, forReport = false): Promise<void> {
  await withProgress(({ onProgress, signal }) => heap.analyze({ reachableOnly, forReport, onProgress, signal }));
  printCacheWarnings(heap);
  printAnalysisWarnings(heap);
}

const analysisPrinted = new WeakSet<Heap>();

/**
 * What the analysis found wrong with the dump (references to ids that are no object), on
 * stderr once per dump: the same from a cached analysis. (The report's `warnings` hold them
 * too, as source `analysis`; the report command leaves those to this.)
 */
export function printAnalysisWarnings(heap: Heap): void {
  if (analysisPrinted.has(heap)) return;
  const warnings = heap.analysisWarnings();
  if (warnings.length === 0) return;
  analysisPrinted.add(heap);
  for (const w of warnings) warn(`${heap.info().path}: ${w.message}`);
}
