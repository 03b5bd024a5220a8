/**
 * Compares two dump snapshots (pure: no native calls). Matching rules (docs/diff.md):
 *  - classes: by class name (a hidden class's address suffix replaced by `0x…`: hidden.ts) and
 *    loader key; loaders: by loader key (`<bootstrap>`, the loader's name such as `app`, else its
 *    class with the address dropped); same-key rows are summed;
 *  - packages: the package of each class row, instances and shallow bytes summed;
 *  - big dominators and single leak suspects: by the path key (snapshot.ts `pathKey`, its
 *    thread steps labelled from both dumps' threads: threads.ts); group suspects by `instances of
 *    <class> (<loader>)`; suspects of one key one to one, biggest with biggest (dominators of one
 *    key are summed); a suspect of one dump only is sized in the other by the same measure;
 *  - duplicate strings: by the text (and its length, as texts are cut at 200 characters).
 */
import { VERSION } from '../version.js';
import type { ReportSections } from '../session/index.js';
import { FILLER_NOTE_START, fillerNote } from './filler.js';
import { evaluateGate, type GateRule } from './gate.js';
import { hiddenClassKey } from './hidden.js';
import {
  DIFF_SCHEMA_VERSION,
  type Change,
  type ClassDiffRow,
  type DiffModel,
  type DominatorDiffRow,
  type HeapDiffRow,
  type LoaderDiffRow,
  type MatchStatus,
  type PackageDiffRow,
  type StringDiffRow,
  type SuspectDiffRow,
} from './model.js';
import { sameProgram } from './programs.js';
import type { DumpSnapshot } from './snapshot.js';
import { stringKey } from './strings.js';
import { labelThreads, threadLabels } from './threads.js';

/** A change within this share of the baseline (percent) counts as unchanged. */
export const UNCHANGED_PERCENT = 1;
/** Big dominators: objects retaining at least this share (percent) of the larger used heap. */
export const DOMINATOR_PERCENT = 1;

export function change(baseline: number, current: number): Change {
  return { baseline, current, delta: current - baseline, growthPercent: baseline > 0 ? ((current - baseline) * 100) / baseline : null };
}

/** `<bootstrap>` for null; a loader label without its address (`Foo @ 0x1a2b` → `Foo`). */
export function loaderKey(label: string | null): string {
  if (label === null) return '<bootstrap>';
  return label.replace(/ @ 0x[0-9a-f]+$/i, '');
}

/** The package of a class (`(no package)` for primitive arrays and the default package). */
export function packageOf(className: string): string {
  const element = className.replace(/(\[\])+$/, '');
  const dot = element.lastIndexOf('.');
  return dot > 0 ? element.slice(0, dot) : '(no package)';
}

export function statusOf(baseline: number | null, current: number | null): MatchStatus {
  if (baseline === null) return 'new';
  if (current === null) return 'gone';
  const d = current - baseline;
  if (Math.abs(d) * 100 <= baseline * UNCHANGED_PERCENT) return 'unchanged';
  return d > 0 ? 'grown' : 'shrunk';
}

type Sums<F extends string> = Record<F, number> & { n: number };

/** Sums the numeric `fields` of rows with the same key; `n` counts the rows. */
function sumBy<R extends Record<F, number>, F extends string>(rows: R[], key: (r: R) => string, fields: readonly F[]): Map<string, Sums<F>> {
  const out = new Map<string, Sums<F>>();
  for (const r of rows) {
    const k = key(r);
    let acc = out.get(k);
    if (!acc) out.set(k, (acc = Object.fromEntries([['n', 0], ...fields.map((f) => [f, 0])]) as Sums<F>));
    acc.n++;
    for (const f of fields) (acc as Record<F, number>)[f] += r[f];
  }
  return out;
}

/** One row per key of either side (`keys`, default all); rows without a change are dropped. */
function pairRows<T, R>(bs: Map<string, T>, cs: Map<string, T>, make: (key: string, x: T | undefined, y: T | undefined) => R, changed: (r: R) => boolean, keys?: Iterable<string>): R[] {
  const rows: R[] = [];
  for (const k of keys ?? new Set([...bs.keys(), ...cs.keys()])) {
    const row = make(k, bs.get(k), cs.get(k));
    if (changed(row)) rows.push(row);
  }
  return rows;
}

/** The change of one summed field between two optional sums. */
const both = <F extends string>(x: Sums<F> | undefined, y: Sums<F> | undefined, f: F): Change => change(x?.[f] ?? 0, y?.[f] ?? 0);
const moved = (...cs: Change[]) => cs.some((c) => c.delta !== 0);
const growthThenName = (d: number, e: number, a: string, b: string) => e - d || (a < b ? -1 : a > b ? 1 : 0);

const CLASS_FIELDS = ['instances', 'shallow', 'retained'] as const;
const classKey = (className: string, loader: string | null) => `${hiddenClassKey(className)}\u0000${loaderKey(loader)}`;
const classSums = (s: ReportSections) => sumBy(s.overview.classHistogram.rows, (r) => classKey(r.className, r.classLoader), CLASS_FIELDS);

/**
 * Android: whether class and dominator rows are per heap — both dumps record heaps (HEAP DUMP
 * INFO). When only one does, the rows compare totals and the comparison says so (`heapNote`).
 */
export const splitByHeap = (b: ReportSections, c: ReportSections): boolean => b.overview.heaps !== undefined && c.overview.heaps !== undefined;

/** Class rows per heap: each histogram row's instances in each heap (`heaps`), keyed by class and heap. */
const classHeapSums = (s: ReportSections) =>
  sumBy(
    s.overview.classHistogram.rows.flatMap((r) => (r.heaps ?? []).map((h) => ({ key: `${classKey(r.className, r.classLoader)}\u0000${h.name}`, instances: h.instances, shallow: h.shallow, retained: h.retained }))),
    (r) => r.key,
    CLASS_FIELDS,
  );

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function classRows(b: ReportSections, c: ReportSections, perHeap: boolean): ClassDiffRow[] {
  const rows = pairRows(
    perHeap ? classHeapSums(b) : classSums(b),
    perHeap ? classHeapSums(c) : classSums(c),
    (k, x, y): ClassDiffRow => {
      const [className, classLoader, heap] = k.split('\u0000') as [string, string, string | undefined];
      return {
        className,
        classLoader,
        classes: { baseline: x?.n ?? 0, current: y?.n ?? 0 },
        ...(heap !== undefined ? { heap } : {}),
        instances: both(x, y, 'instances'),
        shallow: both(x, y, 'shallow'),
        retained: both(x, y, 'retained'),
      };
    },
    (r) => moved(r.instances, r.shallow, r.retained),
  );
  return rows.sort(
    (p, q) => q.shallow.delta - p.shallow.delta || growthThenName(p.retained.delta, q.retained.delta, p.className, q.className) || byName(p.heap ?? '', q.heap ?? ''),
  );
}

function loaderRows(b: ReportSections, c: ReportSections): LoaderDiffRow[] {
  const fields = ['definedClasses', 'instances', 'shallow', 'retained'] as const;
  const sums = (s: ReportSections) => sumBy(s.overview.classLoaders, (r) => loaderKey(r.loader === null ? null : r.name), fields);
  const rows = pairRows(
    sums(b),
    sums(c),
    (k, x, y): LoaderDiffRow => ({
      loader: k,
      loaders: { baseline: x?.n ?? 0, current: y?.n ?? 0 },
      definedClasses: both(x, y, 'definedClasses'),
      instances: both(x, y, 'instances'),
      shallow: both(x, y, 'shallow'),
      retained: both(x, y, 'retained'),
    }),
    (r) => moved(r.definedClasses, r.instances, r.shallow, r.retained) || r.loaders.baseline !== r.loaders.current,
  );
  return rows.sort((p, q) => q.retained.delta - p.retained.delta || growthThenName(p.shallow.delta, q.shallow.delta, p.loader, q.loader));
}

function packageRows(b: ReportSections, c: ReportSections): PackageDiffRow[] {
  const sums = (s: ReportSections) => sumBy(s.overview.classHistogram.rows, (r) => packageOf(r.className), ['instances', 'shallow'] as const);
  const rows = pairRows(
    sums(b),
    sums(c),
    (k, x, y): PackageDiffRow => ({ package: k, classes: { baseline: x?.n ?? 0, current: y?.n ?? 0 }, instances: both(x, y, 'instances'), shallow: both(x, y, 'shallow') }),
    (r) => moved(r.instances, r.shallow),
  );
  return rows.sort((p, q) => q.shallow.delta - p.shallow.delta || growthThenName(p.instances.delta, q.instances.delta, p.package, q.package));
}

/** Big dominators summed by key (`n` = objects with the key). */
const dominatorSums = (s: DumpSnapshot) => sumBy(s.dominators, (d) => d.key, ['retained'] as const);

/** Android: big dominators' retained bytes summed by key and heap (`DominatorEntry.heaps`). */
const dominatorHeapSums = (s: DumpSnapshot) =>
  sumBy(
    s.dominators.flatMap((d) => (d.heaps ?? []).map((h) => ({ key: `${d.key}\u0000${h.name}`, retained: h.retained }))),
    (r) => r.key,
    ['retained'] as const,
  );

/**
 * Keys retaining at least `threshold` in either dump; each side's value comes from its whole
 * walk (down to 1 % of its own heap), so a key only has no baseline value when the baseline
 * has no such object retaining 1 % of the baseline's heap. `perHeap` (Android): a row per key
 * and heap of the retained bytes, the keys chosen by their total as without heaps; a key of
 * one dump only is new or gone in each of its heaps.
 */
function dominatorRows(b: DumpSnapshot, c: DumpSnapshot, threshold: number, perHeap: boolean): DominatorDiffRow[] {
  const bs = dominatorSums(b);
  const cs = dominatorSums(c);
  const classOf = new Map([...b.dominators, ...c.dominators].map((d) => [d.key, d.className]));
  const big = (m: typeof bs) => [...m].filter(([, v]) => v.retained >= threshold).map(([k]) => k);
  const keys = new Set([...big(bs), ...big(cs)]);
  const row = (k: string, x: Sums<'retained'> | undefined, y: Sums<'retained'> | undefined, heap?: string, part?: [number | undefined, number | undefined]): DominatorDiffRow => {
    const [bp, cp] = part ?? [x?.retained, y?.retained];
    return {
      key: k,
      className: classOf.get(k)!,
      ...(heap !== undefined ? { heap } : {}),
      objects: { baseline: x?.n ?? 0, current: y?.n ?? 0 },
      status: statusOf(x ? (bp ?? 0) : null, y ? (cp ?? 0) : null),
      retained: change(x ? (bp ?? 0) : 0, y ? (cp ?? 0) : 0),
    };
  };
  let rows: DominatorDiffRow[];
  if (!perHeap) rows = pairRows(bs, cs, (k, x, y) => row(k, x, y), (r) => moved(r.retained), keys);
  else {
    const [bh, ch] = [dominatorHeapSums(b), dominatorHeapSums(c)];
    // The heaps each key has bytes in, in either dump.
    const heapsOf = new Map<string, Set<string>>();
    for (const d of [...b.dominators, ...c.dominators]) {
      for (const h of d.heaps ?? []) heapsOf.set(d.key, (heapsOf.get(d.key) ?? new Set()).add(h.name));
    }
    rows = [];
    for (const k of keys) {
      for (const heap of heapsOf.get(k) ?? []) {
        const r = row(k, bs.get(k), cs.get(k), heap, [bh.get(`${k}\u0000${heap}`)?.retained, ch.get(`${k}\u0000${heap}`)?.retained]);
        if (moved(r.retained)) rows.push(r);
      }
    }
  }
  return rows.sort((p, q) => growthThenName(p.retained.delta, q.retained.delta, p.key, q.key) || byName(p.heap ?? '', q.heap ?? ''));
}

type Suspect = ReportSections['leakSuspects']['suspects'][number];

/** A suspect keyed by its object's path (single), or by its class (group, or no object). */
const byObject = (s: Suspect) => s.kind === 'single' && s.object !== null;

function suspectKey(s: Suspect, snap: DumpSnapshot): string {
  if (!byObject(s)) return `instances of ${hiddenClassKey(s.className)} (${loaderKey(s.classLoader)})`;
  return snap.keyOf.get(s.object!.objectId) ?? `(no path) ${s.className}`;
}

/** Biggest first: by retained size, then rank. */
const biggestFirst = <T extends { retained: number }>(rank: (x: T) => number) => (p: T, q: T) => q.retained - p.retained || rank(p) - rank(q);

/** A dump's suspects grouped by key, each group biggest first (the order they are paired in). */
function suspectsByKey(snap: DumpSnapshot): Map<string, Suspect[]> {
  const out = new Map<string, Suspect[]>();
  for (const s of snap.sections.leakSuspects.suspects) {
    const k = suspectKey(s, snap);
    const list = out.get(k);
    if (list) list.push(s);
    else out.set(k, [s]);
  }
  for (const list of out.values()) list.sort(biggestFirst((s) => s.rank));
  return out;
}

type Source = SuspectDiffRow['baselineSource'];

interface Sized {
  retained: number;
  rank: number | null;
  source: Exclude<Source, 'none'>;
}

/**
 * What else in `snap` has the key of its suspects `own` (all of that key), biggest first, each
 * by the measure a suspect of the key has: the big dominators with the key that are not
 * suspects (single: an object's retained size), or the top-level instances of each class of the
 * key that is no group suspect there (group: what such a suspect retains, not the class
 * histogram's retained size of all instances). Suspects the other dump has more of than `snap`
 * are sized by these, one each, in order.
 */
function othersWithKey(snap: DumpSnapshot, key: string, sample: Suspect, own: Suspect[]): Sized[] {
  if (byObject(sample)) {
    const suspects = new Set(snap.sections.leakSuspects.suspects.map((s) => s.object?.objectId));
    return snap.dominators
      .filter((d) => d.key === key && !suspects.has(d.objectId))
      .sort(biggestFirst((d) => d.objectId))
      .map((d) => ({ retained: d.retained, rank: null, source: 'dominator' }));
  }
  const k = classKey(sample.className, sample.classLoader);
  const taken = new Set(own.map((s) => `${s.className}\u0000${s.classLoader}`));
  return snap.topLevel
    .filter((r) => classKey(r.className, r.classLoader) === k && !taken.has(`${r.className}\u0000${r.classLoader}`))
    .sort((p, q) => q.retained - p.retained || ((p.classLoader ?? '') < (q.classLoader ?? '') ? -1 : (p.classLoader ?? '') > (q.classLoader ?? '') ? 1 : 0))
    .map((r) => ({ retained: r.retained, rank: null, source: 'instances' }));
}

/**
 * The "Matched by" text of a suspect row: a suspect in both dumps, or in one only and what it is
 * in the other (a big dominator; for a group, its class's top-level instances, below the
 * threshold there), or nothing there.
 */
function matchedBy(currentRank: number | null, baselineRank: number | null, baseline: Source, current: Source): string {
  const other = (source: Source, where: string) =>
    source === 'instances' ? `below the threshold ${where}` : source === 'dominator' ? `only a big dominator ${where}` : `nothing with its key ${where}`;
  if (currentRank !== null && baselineRank !== null) return `baseline suspect (#${baselineRank})`;
  if (currentRank !== null) return baseline === 'none' ? 'not in the baseline' : `suspect now (#${currentRank}), ${other(baseline, 'in the baseline')}`;
  return `baseline suspect (#${baselineRank}), ${other(current, 'now')}`;
}

/**
 * Each dump's suspects with one key are paired one to one, biggest with biggest; the ones left
 * over on either side are sized by what else the other dump has with the key (othersWithKey),
 * else have no counterpart (new, or gone).
 */
function suspectRows(b: DumpSnapshot, c: DumpSnapshot): SuspectDiffRow[] {
  const bByKey = suspectsByKey(b);
  const cByKey = suspectsByKey(c);
  const pct = (bytes: number | null, snap: DumpSnapshot) => (bytes === null || snap.facts.usedHeap === 0 ? null : (bytes * 100) / snap.facts.usedHeap);
  const current: SuspectDiffRow[] = [];
  for (const [key, cs] of cByKey) {
    const bs = bByKey.get(key) ?? [];
    const others = cs.length > bs.length ? othersWithKey(b, key, cs[bs.length]!, bs) : [];
    cs.forEach((s, i) => {
      const base: Sized | undefined = i < bs.length ? { retained: bs[i]!.retained, rank: bs[i]!.rank, source: 'suspect' } : others[i - bs.length];
      current.push({
        status: statusOf(base ? base.retained : null, s.retained),
        title: s.title,
        kind: s.kind,
        key,
        currentRank: s.rank,
        baselineRank: base?.rank ?? null,
        baselineSource: base?.source ?? 'none',
        currentSource: 'suspect',
        matchedBy: matchedBy(s.rank, base?.rank ?? null, base?.source ?? 'none', 'suspect'),
        retained: change(base?.retained ?? 0, s.retained),
        retainedPercent: { baseline: pct(base?.retained ?? null, b), current: pct(s.retained, c) },
      });
    });
  }
  const gone: SuspectDiffRow[] = [];
  for (const [key, bs] of bByKey) {
    const cs = cByKey.get(key) ?? [];
    if (bs.length <= cs.length) continue;
    const others = othersWithKey(c, key, bs[cs.length]!, cs);
    bs.slice(cs.length).forEach((s, j) => {
      const now = others[j];
      gone.push({
        status: statusOf(s.retained, now ? now.retained : null),
        title: s.title,
        kind: s.kind,
        key,
        currentRank: null,
        baselineRank: s.rank,
        baselineSource: 'suspect',
        currentSource: now?.source ?? 'none',
        matchedBy: matchedBy(null, s.rank, 'suspect', now?.source ?? 'none'),
        retained: change(s.retained, now?.retained ?? 0),
        retainedPercent: { baseline: pct(s.retained, b), current: pct(now?.retained ?? null, c) },
      });
    });
  }
  const rank = (r: SuspectDiffRow) => r.currentRank ?? r.baselineRank ?? 0;
  const order = (p: SuspectDiffRow, q: SuspectDiffRow) => growthThenName(p.retained.delta, q.retained.delta, p.key, q.key) || rank(p) - rank(q);
  return [...current.sort(order), ...gone.sort(order)];
}

/**
 * The current dump's duplicated values whose copies grew. A value the baseline does not list
 * has its copies there from `baseline.stringCopies` (counted in the baseline; 0 or 1 unless the
 * baseline's list was cut). Such a value wastes nothing with one copy; with more (only when the
 * baseline's list was cut) its wasted bytes are estimated at the current's bytes per copy.
 */
function stringRows(baseline: DumpSnapshot, current: DumpSnapshot): DiffModel['duplicateStrings'] {
  const b = baseline.sections.waste.duplicateStrings;
  const c = current.sections.waste.duplicateStrings;
  const base = new Map(b.top.map((s) => [stringKey(s), s]));
  const grown: StringDiffRow[] = [];
  for (const s of c.top) {
    const k = stringKey(s);
    const x = base.get(k);
    let count = x?.count;
    let wasted = x?.wastedBytes;
    if (x === undefined) {
      count = baseline.stringCopies.get(k);
      if (count === undefined) throw new Error(`diff: the baseline's copies of a duplicated value of the current dump were not counted (${JSON.stringify(s.value.slice(0, 40))})`);
      wasted = count <= 1 || s.count <= 1 ? 0 : Math.round((s.wastedBytes * (count - 1)) / (s.count - 1));
    }
    const row: StringDiffRow = {
      value: s.value,
      truncated: s.truncated,
      inBaseline: x !== undefined,
      count: change(count!, s.count),
      wastedBytes: change(wasted!, s.wastedBytes),
    };
    if (row.count.delta > 0) grown.push(row);
  }
  grown.sort((p, q) => q.wastedBytes.delta - p.wastedBytes.delta || q.count.delta - p.count.delta || (p.value < q.value ? -1 : 1));
  // Every value the current lists was compared; a value it does not list is missing when its list was cut.
  return { wastedBytes: change(b.wastedBytes, c.wastedBytes), complete: c.top.length >= c.duplicatedValues, grown };
}

export interface ComputeOptions {
  gate?: GateRule[];
}

/** `snap` with the thread steps of its keys written as `labels` say (threads.ts). */
function withThreadLabels(snap: DumpSnapshot, labels: Map<number, string>): DumpSnapshot {
  return {
    ...snap,
    dominators: snap.dominators.map((d) => ({ ...d, key: labelThreads(d.key, labels) })),
    keyOf: new Map([...snap.keyOf].map(([id, k]) => [id, labelThreads(k, labels)])),
  };
}

/** The diff model of two snapshots (validated by the JSON renderer before it is written). */
export function computeDiff(baselineSnapshot: DumpSnapshot, currentSnapshot: DumpSnapshot, options: ComputeOptions = {}): DiffModel {
  // Threads are labelled from both dumps' threads at once: which one a name stands for depends on both.
  const labels = threadLabels(baselineSnapshot.threads, currentSnapshot.threads);
  const baseline = withThreadLabels(baselineSnapshot, labels.baseline);
  const current = withThreadLabels(currentSnapshot, labels.current);
  const b = baseline.sections;
  const c = current.sections;
  const perHeap = splitByHeap(b, c);
  const classes = classRows(b, c, perHeap);
  const rules = options.gate ?? [];
  const allNames = new Set([...baseline.classNames, ...current.classNames]);
  const heapNames = perHeap ? [...new Set([...(b.overview.heaps ?? []), ...(c.overview.heaps ?? [])].map((h) => h.name))] : null;
  const offending = evaluateGate(rules, classes, allNames, heapNames);
  const threshold = dominatorThreshold(baseline.facts.usedHeap, current.facts.usedHeap);
  return {
    schemaVersion: DIFF_SCHEMA_VERSION,
    generator: { name: 'heapql', version: VERSION },
    generatedAt: new Date().toISOString(),
    baseline: baseline.facts,
    current: current.facts,
    sameProgram: sameProgram(
      { mainClass: baseline.facts.mainClass, classNames: baseline.classNames },
      { mainClass: current.facts.mainClass, classNames: current.classNames },
    ),
    usedHeap: change(baseline.facts.usedHeap, current.facts.usedHeap),
    objects: change(baseline.facts.objects, current.facts.objects),
    ...heapRows(b, c),
    classes,
    classLoaders: loaderRows(b, c),
    packages: packageRows(b, c),
    dominators: { thresholdBytes: threshold, rows: dominatorRows(baseline, current, threshold, perHeap) },
    leakSuspects: suspectRows(baseline, current),
    duplicateStrings: stringRows(baseline, current),
    reachableOnly: baseline.reachableOnly && current.reachableOnly,
    gate: { rules: rules.map((r) => r.text), failed: offending.length > 0, offending },
    warnings: [
      ...baseline.warnings,
      ...current.warnings,
      ...heapNote(b, c),
      ...fillerNote(baseline.unreachableIntArrays, current.unreachableIntArrays, { advice: 'compare with --reachable-only' }),
    ],
  };
}

/**
 * Android: the note when only one dump records heaps (an `hprof-conv` output, which drops the
 * HEAP DUMP INFO records, against a dump straight from the device): the class and dominator rows
 * then compare totals over every heap.
 */
function heapNote(b: ReportSections, c: ReportSections): string[] {
  if ((b.overview.heaps === undefined) === (c.overview.heaps === undefined)) return [];
  const [has, lacks] = b.overview.heaps ? ['baseline', 'current'] : ['current', 'baseline'];
  return [
    `the ${has} dump records Android heaps (app, zygote, image) and the ${lacks} dump does not, so class and dominator rows compare totals over every heap; to see them per heap, compare two dumps that both come straight from the device (hprof-conv drops the heap records)`,
  ];
}

/**
 * Android: each heap of either dump by name (the report's `overview.heaps`), every one, biggest
 * shallow growth first; no `heaps` when neither dump records heaps.
 */
function heapRows(b: ReportSections, c: ReportSections): { heaps?: HeapDiffRow[] } {
  if (!b.overview.heaps && !c.overview.heaps) return {};
  const byName = (s: ReportSections) => new Map((s.overview.heaps ?? []).map((h) => [h.name, h]));
  const [bs, cs] = [byName(b), byName(c)];
  const heaps = [...new Set([...bs.keys(), ...cs.keys()])].map((name) => ({
    name,
    objects: change(bs.get(name)?.objects ?? 0, cs.get(name)?.objects ?? 0),
    shallow: change(bs.get(name)?.shallow ?? 0, cs.get(name)?.shallow ?? 0),
  }));
  return { heaps: heaps.sort((x, y) => growthThenName(x.shallow.delta, y.shallow.delta, x.name, y.name)) };
}

/** The note on unreachable int[]s among a model's warnings (none or one). */
export const fillerNoteOf = (m: Pick<DiffModel, 'warnings'>): string[] => m.warnings.filter((w) => w.startsWith(FILLER_NOTE_START));

/** DOMINATOR_PERCENT of the larger used heap, in bytes (at least 1). */
export function dominatorThreshold(baselineUsed: number, currentUsed: number): number {
  return Math.max(1, Math.ceil((Math.max(baselineUsed, currentUsed) * DOMINATOR_PERCENT) / 100));
}
