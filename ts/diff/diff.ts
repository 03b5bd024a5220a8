/**
 * `diffDumps(baseline, current)`: opens each dump through the session core, runs the full
 * analysis, collects its snapshot and closes it (one dump in memory at a time), then compares.
 */
import { openHeap, type HeapSession, type ProgressEvent } from '../session/index.js';
import { computeDiff, dominatorThreshold } from './compute.js';
import { parseGateRule, type GateRule } from './gate.js';
import type { DiffModel } from './model.js';
import { fullSections, snapshot, type DumpSnapshot } from './snapshot.js';

export interface DiffOptions {
  /** `--fail-if-grown` rules, as text or parsed. */
  gate?: (string | GateRule)[];
  /** How a dump is opened (the CLI adds its progress bar); default openHeap. */
  open?: (path: string) => Promise<HeapSession>;
  /** How an opened dump is analyzed; default `session.analyze()`. */
  analyze?: (session: HeapSession) => Promise<void>;
  /** Progress of opening, analyzing (unless `open` / `analyze` are given) and reading each dump. */
  onProgress?: (which: 'baseline' | 'current', event: ProgressEvent) => void;
  /** Cancels the work (ERR_CANCELLED). */
  signal?: AbortSignal;
}

async function collect(path: string, which: 'baseline' | 'current', options: DiffOptions): Promise<DumpSnapshot> {
  const session = options.open
    ? await options.open(path)
    : await openHeap(path, { ...(options.onProgress ? { onProgress: (e: ProgressEvent) => options.onProgress!(which, e) } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  try {
    if (options.analyze) await options.analyze(session);
    else await session.analyze({ ...(options.onProgress ? { onProgress: (e: ProgressEvent) => options.onProgress!(which, e) } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    const sections = await fullSections(session, options.signal, options.onProgress ? (e) => options.onProgress!(which, e) : undefined);
    // Walked down to 1 % of this dump's heap; the comparison keeps 1 % of the larger one.
    const own = dominatorThreshold(sections.overview.heap.usedHeap, sections.overview.heap.usedHeap);
    return await snapshot(session, sections, own, which);
  } finally {
    session.close();
  }
}

/** Compares two dumps of one application; rules are parsed before any dump is opened. */
export async function diffDumps(baselinePath: string, currentPath: string, options: DiffOptions = {}): Promise<DiffModel> {
  const gate = (options.gate ?? []).map((r) => (typeof r === 'string' ? parseGateRule(r) : r));
  const baseline = await collect(baselinePath, 'baseline', options);
  const current = await collect(currentPath, 'current', options);
  return computeDiff(baseline, current, { gate });
}
