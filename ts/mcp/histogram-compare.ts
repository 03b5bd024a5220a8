/**
 * Compares the class histograms of two dumps (instances and shallow bytes per class name), for
 * the MCP server's `compare_with_baseline`. Classes are matched by name: addresses and object
 * indices differ between dumps, names do not; a hidden class's per-process address suffix
 * (`Foo$$Lambda$2+0x00007fb9bd046168`) is written `0x…` and ignored, as `heapql diff` does
 * (docs/diff.md). Classes of one name under several class loaders count together. This is the
 * histogram part only; retained sizes and suspects are not compared.
 *
 * `compareSessions` reads the histograms from two open dumps: with `reachableOnly`, of the
 * objects reachable from GC roots only (one grouped query per dump); otherwise of every object,
 * and when the `int[]` row changed and the dumps' unreachable `int[]`s differ in number, the
 * result's `notes` say they may be the JVM's filler arrays (JDK 21+): `heapql diff`'s count and
 * note (ts/diff/filler.ts).
 */
import { fillerNote, unreachableIntArraysOf } from '../diff/filler.js';
import { hiddenClassKey } from '../diff/hidden.js';
import type { HeapSession, HistogramRow, ProgressEvent } from '../session/index.js';
import { compareText } from '../text-order.js';
import type { ComparedDump } from './progress.js';

export interface ClassChange {
  className: string;
  baselineCount: number;
  currentCount: number;
  countDelta: number;
  baselineBytes: number;
  currentBytes: number;
  bytesDelta: number;
}

export interface HistogramComparison {
  totals: {
    baseline: { objects: number; bytes: number };
    current: { objects: number; bytes: number };
    objectsDelta: number;
    bytesDelta: number;
  };
  /** Class names with instances in both dumps, only in the baseline, only in the current one. */
  classes: { shared: number; onlyBaseline: number; onlyCurrent: number };
  /** The rows that matched the filter in all (`rows` holds the first `limit`). */
  matchingRows: number;
  truncated: boolean;
  rows: ClassChange[];
  /** Said when the two dumps have few class names in common. */
  note?: string;
  /** Objects counted: reachable from GC roots only, or every object the dumps hold (compareSessions). */
  reachableOnly?: boolean;
  /** Notes on the figures, e.g. that `int[]` counts unreachable arrays that may be the JVM's filler arrays. */
  notes?: string[];
}

export interface CompareOptions {
  /** Only class names containing this text (case-insensitive). */
  pattern?: string;
  /** Order by growth in bytes (default) or in instances, biggest growth first. */
  sortBy?: 'bytes' | 'count';
  /** Leave out classes whose count and bytes did not change (default true). */
  changedOnly?: boolean;
  limit: number;
}

/** The histogram's rows by name (a hidden class's address written `0x…`). */
function byName(rows: Pick<HistogramRow, 'className' | 'count' | 'shallow'>[]): Map<string, { count: number; bytes: number }> {
  const out = new Map<string, { count: number; bytes: number }>();
  for (const r of rows) {
    const name = hiddenClassKey(r.className);
    const entry = out.get(name) ?? { count: 0, bytes: 0 };
    entry.count += r.count;
    entry.bytes += r.shallow;
    out.set(name, entry);
  }
  return out;
}

/**
 * Instances and shallow bytes per class name, of every object (the index's histogram, at once) or
 * of the reachable ones only (a query, its scan reported to `onProgress`).
 */
export async function histogramOf(
  session: HeapSession,
  reachableOnly: boolean,
  signal?: AbortSignal,
  onProgress?: (event: ProgressEvent) => void,
): Promise<Pick<HistogramRow, 'className' | 'count' | 'shallow'>[]> {
  if (!reachableOnly) return session.classHistogram();
  const r = await session.query(
    'SELECT classof(x).@name AS c, COUNT(*) AS n, SUM(x.@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY classof(x).@name',
    { reachableOnly: true, ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}) },
  );
  return r.rows.map(([c, n, b]) => ({ className: String(c), count: Number(n ?? 0), shallow: Number(b ?? 0) }));
}

/**
 * Where compareSessions reports the scans of the queries it runs: asked for a callback as each
 * query starts (and only then), with the dump it runs on and what it counts (`reachable objects by class`,
 * `reachable int[] arrays`).
 */
export type CompareProgress = (dump: ComparedDump, what: string) => (event: ProgressEvent) => void;

/**
 * compareHistograms over two open dumps (see the head of this file). `reachableOnly`: both
 * histograms count reachable objects only (the MCP server's --reachable-only). `progress`: the
 * queries' scans (CompareProgress).
 */
export async function compareSessions(
  baseline: HeapSession,
  current: HeapSession,
  options: CompareOptions & { reachableOnly?: boolean; signal?: AbortSignal; progress?: CompareProgress },
): Promise<HistogramComparison> {
  const reachableOnly = options.reachableOnly ?? false;
  const progress = options.progress;
  // Asked for as a query starts: the histogram of every object and an int[] count of none run no query.
  const scan = (runs: boolean, dump: ComparedDump, what: string) => (runs && progress ? progress(dump, what) : undefined);
  const before = await histogramOf(baseline, reachableOnly, options.signal, scan(reachableOnly, 'baseline', 'reachable objects by class'));
  const after = await histogramOf(current, reachableOnly, options.signal, scan(reachableOnly, 'current', 'reachable objects by class'));
  const result = { ...compareHistograms(before, after, options), reachableOnly };
  if (!reachableOnly) {
    const b = byName(before).get('int[]') ?? { count: 0, bytes: 0 };
    const a = byName(after).get('int[]') ?? { count: 0, bytes: 0 };
    if (b.count !== a.count || b.bytes !== a.bytes) {
      const ub = await unreachableIntArraysOf(baseline, b, options.signal, scan(b.count > 0, 'baseline', 'reachable int[] arrays'));
      const ua = await unreachableIntArraysOf(current, a, options.signal, scan(a.count > 0, 'current', 'reachable int[] arrays'));
      const notes = fillerNote(ub, ua, { advice: "compare reachable objects only (the server's --reachable-only)", figures: 'plain' });
      if (notes.length > 0) result.notes = notes;
    }
  }
  return result;
}

export function compareHistograms(
  baseline: Pick<HistogramRow, 'className' | 'count' | 'shallow'>[],
  current: Pick<HistogramRow, 'className' | 'count' | 'shallow'>[],
  options: CompareOptions,
): HistogramComparison {
  const before = byName(baseline);
  const after = byName(current);
  const names = new Set([...before.keys(), ...after.keys()]);
  const sum = (m: Map<string, { count: number; bytes: number }>) =>
    [...m.values()].reduce((t, e) => ({ objects: t.objects + e.count, bytes: t.bytes + e.bytes }), { objects: 0, bytes: 0 });
  const totalsBefore = sum(before);
  const totalsAfter = sum(after);

  let shared = 0;
  const pattern = options.pattern?.toLowerCase();
  const rows: ClassChange[] = [];
  for (const className of names) {
    const b = before.get(className);
    const a = after.get(className);
    if (a && b) shared++;
    if (pattern && !className.toLowerCase().includes(pattern)) continue;
    const row: ClassChange = {
      className,
      baselineCount: b?.count ?? 0,
      currentCount: a?.count ?? 0,
      countDelta: (a?.count ?? 0) - (b?.count ?? 0),
      baselineBytes: b?.bytes ?? 0,
      currentBytes: a?.bytes ?? 0,
      bytesDelta: (a?.bytes ?? 0) - (b?.bytes ?? 0),
    };
    if ((options.changedOnly ?? true) && row.countDelta === 0 && row.bytesDelta === 0) continue;
    rows.push(row);
  }
  const key = options.sortBy === 'count' ? (r: ClassChange) => r.countDelta : (r: ClassChange) => r.bytesDelta;
  // Ties by name in Java's order, as every front sorts texts (heapql diff too).
  rows.sort((x, y) => key(y) - key(x) || compareText(x.className, y.className));

  const result: HistogramComparison = {
    totals: {
      baseline: totalsBefore,
      current: totalsAfter,
      objectsDelta: totalsAfter.objects - totalsBefore.objects,
      bytesDelta: totalsAfter.bytes - totalsBefore.bytes,
    },
    classes: { shared, onlyBaseline: before.size - shared, onlyCurrent: after.size - shared },
    matchingRows: rows.length,
    truncated: rows.length > options.limit,
    rows: rows.slice(0, options.limit),
  };
  const app = [...names].filter(isApplicationClass);
  const appShared = app.filter((n) => before.has(n) && after.has(n)).length;
  if (app.length > 0 && appShared / app.length < 0.5) {
    result.note =
      `the two dumps share only ${appShared} of ${app.length} application class names (outside the JDK): ` +
      'they probably come from different programs, so the differences say little about growth';
  }
  return result;
}

/** Both dumps of any two Java programs share the JDK's classes; the program's own tell them apart. */
function isApplicationClass(name: string): boolean {
  return !/^(java|javax|jdk|sun|com\.sun)\./.test(name) && !/^(boolean|byte|char|short|int|long|float|double)(\[\])+$/.test(name);
}
