/**
 * Compares the class histograms of two dumps (instances and shallow bytes per class name), for
 * the MCP server's `compare_with_baseline`. Classes are matched by name: addresses and object
 * indices differ between dumps, names do not. Classes of one name under several class loaders
 * count together. This is the histogram part only; retained sizes and suspects are not compared.
 */
import type { HistogramRow } from '../session/index.js';

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

function byName(rows: HistogramRow[]): Map<string, { count: number; bytes: number }> {
  const out = new Map<string, { count: number; bytes: number }>();
  for (const r of rows) {
    const entry = out.get(r.className) ?? { count: 0, bytes: 0 };
    entry.count += r.count;
    entry.bytes += r.shallow;
    out.set(r.className, entry);
  }
  return out;
}

export function compareHistograms(baseline: HistogramRow[], current: HistogramRow[], options: CompareOptions): HistogramComparison {
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
  rows.sort((x, y) => key(y) - key(x) || x.className.localeCompare(y.className));

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
