/**
 * What a report's `limit` caps, the one rule of every front: the library's `heap.report({limit})`
 * and `heap.reportData({limit})`, the server's `/report…?limit=N`, MCP's `get_report_section`.
 *
 * `limit` N: every list of the report holds at most N rows — the class histogram, class loaders,
 * duplicate classes, each top-consumers list, the threads, each leak suspect's retained-by-class
 * rows and biggest instances, each waste check's holder rows and the duplicate string values
 * (the library's `topStrings`, when given, sets those alone). The leak suspects themselves are
 * findings, not rows: never dropped (each retains more than 10 % of the heap and no two share an
 * object, so there are a few at most). Without a limit: 25 rows a list, 20 duplicate strings,
 * every thread.
 *
 * The totals stay whole-dump figures whatever the cap: `overview.classHistogram.classes`,
 * `overview.heap.classLoaders` (one row per loader before the cap),
 * `threads.threadCount`, a waste check's `holders`, `duplicateStrings.duplicatedValues`, a
 * suspect's `retainedByClass.classes`; summaries count from them, never from a capped list.
 *
 * The native core caps every list but the threads when it builds the sections; capping its
 * answer again at a smaller N gives what it would have built at N (each list is sorted, then cut),
 * which is how the server answers every limit up to 25 from one model.
 */
import type { ReportModel } from './model.js';

/** Rows of each list when no limit is given (the native core's default). */
export const DEFAULT_LIST_ROWS = 25;
/** Duplicate string values when neither a limit nor `topStrings` is given (the native core's default). */
export const DEFAULT_TOP_STRINGS = 20;

type Sections = Pick<ReportModel, 'overview' | 'leakSuspects' | 'topConsumers' | 'threads' | 'waste'>;

/**
 * The `limit` package-tree nodes that retain the most (a parent before its child on a tie),
 * still in pre-order: the native core's rule (`keep_biggest`), so a big top-level package is
 * never cut for the small nodes listed before it.
 */
function keepBiggestPackages<T extends { retained: number; depth: number }>(nodes: T[], limit: number): T[] {
  if (nodes.length <= limit) return nodes;
  const order = nodes.map((_, i) => i).sort((a, b) => nodes[b]!.retained - nodes[a]!.retained || nodes[a]!.depth - nodes[b]!.depth || a - b);
  const kept = new Set(order.slice(0, limit));
  return nodes.filter((_, i) => kept.has(i));
}

/**
 * The sections with every list cut to `limit` rows (none cut when undefined; below 1 counts as 1,
 * as in the core) and the duplicate string values to `topStrings` (by default `limit`; none cut
 * when undefined); the suspects and the totals are kept.
 */
export function capSections<S extends Sections>(s: S, limit: number | undefined, topStrings: number | undefined = limit): S {
  const cap = <T>(rows: T[]): T[] => (limit === undefined ? rows : rows.slice(0, Math.max(1, limit)));
  const o = s.overview;
  const t = s.topConsumers;
  const w = s.waste;
  return {
    ...s,
    overview: { ...o, classHistogram: { ...o.classHistogram, rows: cap(o.classHistogram.rows) }, classLoaders: cap(o.classLoaders), duplicateClasses: cap(o.duplicateClasses) },
    leakSuspects: {
      ...s.leakSuspects,
      suspects: s.leakSuspects.suspects.map((x) => ({ ...x, retainedByClass: { ...x.retainedByClass, rows: cap(x.retainedByClass.rows) }, biggestInstances: cap(x.biggestInstances) })),
    },
    topConsumers: {
      ...t,
      biggestObjects: cap(t.biggestObjects),
      biggestClasses: cap(t.biggestClasses),
      biggestClassLoaders: cap(t.biggestClassLoaders),
      biggestPackages: limit === undefined ? t.biggestPackages : keepBiggestPackages(t.biggestPackages, Math.max(1, limit)),
    },
    threads: { ...s.threads, threads: cap(s.threads.threads) },
    waste: {
      ...w,
      categories: w.categories.map((c) => ({ ...c, rows: cap(c.rows) })),
      duplicateStrings: { ...w.duplicateStrings, top: topStrings === undefined ? w.duplicateStrings.top : w.duplicateStrings.top.slice(0, topStrings) },
    },
  };
}
