/**
 * Opening a dump from the command line: a progress bar on a terminal, Ctrl-C to stop, and the
 * index's warnings (truncated file, skipped records) on stderr.
 */
import { openHeap, type Heap } from '../heap.js';
import { interruptSignal, terminalProgress } from './progress.js';
import { warn } from './stderr.js';

export interface CliOpenOptions {
  dump?: number;
  noCache?: boolean;
  /** For the full analysis: big arrays in scratch files (in this directory, or '' = the core's choice). */
  scratchDir?: string;
}

export async function openForCli(path: string, options: CliOpenOptions = {}): Promise<Heap> {
  const interrupt = interruptSignal();
  const progress = terminalProgress(interrupt.signal);
  try {
    const heap = await openHeap(path, {
      dump: options.dump,
      noCache: options.noCache,
      ...(options.scratchDir !== undefined ? { scratchDir: options.scratchDir } : {}),
      onProgress: progress.onProgress,
      signal: interrupt.signal,
    });
    for (const w of heap.warnings()) {
      // The offset is added unless the message names it already or it is not a data position.
      const where = w.offset > 0 && !/offset/i.test(w.message) ? ` (byte offset ${w.offset})` : '';
      warn(`${path}: ${w.message}${where}`);
    }
    return heap;
  } finally {
    progress.stop();
    interrupt.dispose();
  }
}

/** The full analysis with a progress bar and Ctrl-C, for commands that need the full path. */
export async function analyzeForCli(heap: Heap, reachableOnly: boolean): Promise<void> {
  const interrupt = interruptSignal();
  const progress = terminalProgress(interrupt.signal);
  try {
    await heap.analyze({ reachableOnly, onProgress: progress.onProgress, signal: interrupt.signal });
  } finally {
    progress.stop();
    interrupt.dispose();
  }
}
