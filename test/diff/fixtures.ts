/** The DiffHeap fixture (one run dumped twice around a known growth) and the JVM's histograms of it. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const root = path.resolve(__dirname, '../..');
const dir = path.join(root, 'fixtures/dumps/diff');
export const baselineDump = path.join(dir, 'DiffHeap-baseline.hprof.gz');
export const currentDump = path.join(dir, 'DiffHeap-current.hprof.gz');
export const demoDump = path.join(root, 'fixtures/demo/demo.hprof');
export const knownDump = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');

export interface DiffFacts {
  entries_before: number;
  entries_added: number;
  shallow: Record<string, number>;
  entry_bytes: number;
  cache_retained_before: number;
  cache_retained_after: number;
  constant_holder: string;
  late_holder: string;
  late_bytes: number;
  duplicate_text: string;
  duplicates_added: number;
}

export const facts: DiffFacts = JSON.parse(readFileSync(path.join(dir, 'DiffHeap.facts.json'), 'utf8'));

type Histogram = Map<string, { instances: number; bytes: number }>;

function readHistogram(file: string): Histogram {
  const out: Histogram = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)/.exec(line);
    if (m && !m[3]!.startsWith('[')) out.set(m[3]!, { instances: Number(m[1]), bytes: Number(m[2]) });
  }
  return out;
}

/**
 * The JVM's `jcmd GC.class_histogram` of plain (non-array) classes at one dump: name →
 * instances and bytes, keeping only the classes the histograms right before and right after
 * the dump agree on (the dump's own work changes a few JDK-internal ones), as the heap crate's
 * histogram test does. Absent classes are in `stable` with no row.
 */
export function histogram(which: 'baseline' | 'current'): { rows: Histogram; unstable: Set<string> } {
  const before = readHistogram(path.join(dir, `DiffHeap-${which}.histo-before.txt`));
  const after = readHistogram(path.join(dir, `DiffHeap-${which}.histo-after.txt`));
  const unstable = new Set<string>();
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(name);
    const b = after.get(name);
    if (a?.instances !== b?.instances || a?.bytes !== b?.bytes) unstable.add(name);
  }
  return { rows: before, unstable };
}

/** The third-party corpus beside the project (`../shared/corpus`), when it is there. */
export const corpus = (name: string): string => path.resolve(root, '../shared/corpus', name);
