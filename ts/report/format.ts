/**
 * Number and text formatting shared by the Markdown and HTML renderers. Locale-independent on
 * purpose: the same model must give byte-identical output on every machine.
 */
import { terminalText } from '../terminal-text.js';
import { estimatedSizesText, formatBytes, NO_HEAP_DUMP_TEXT } from './summary.js';
import type { ObjectRef, Value } from './query-result.js';
import type { ClassHeapShare, HeapShare, HistogramRow, LeakSuspect, ReportModel, Via, Waste, WasteHeap } from './model.js';

export { formatBytes };

export const int = (n: number): string => (Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 3 }));

/**
 * `12.3%`. A share that is not none never reads `0.0%`, nor one short of the whole `100.0%`:
 * it gets the decimals that tell it apart (`0.03%`, `0.0004%`, `99.97%`).
 */
export function percent(p: number): string {
  const s = p.toFixed(1);
  if ((s === '0.0' && p > 0) || (s === '100.0' && p < 100)) {
    const gap = p > 50 ? 100 - p : p;
    return `${p.toFixed(Math.min(20, Math.max(2, Math.ceil(-Math.log10(gap)))))}%`;
  }
  return `${s}%`;
}

/** `4.8 MiB (40.0%)`. */
export const sizeWithPercent = (bytes: number, pct: number): string => `${formatBytes(bytes)} (${percent(pct)})`;

/**
 * The waste figure of a report's summary: the overhead a change in the code would save (in
 * reachable objects), and the garbage's part apart, as the waste section's headline says it.
 */
export function wasteSummary(w: { reachableOverhead: number; reachableOverheadPercent: number; unreachableOverhead: number; unreachableOverheadPercent: number; dumpCutShort: boolean }): string {
  const reachable = sizeWithPercent(w.reachableOverhead, w.reachableOverheadPercent);
  if (w.unreachableOverhead === 0) return reachable;
  const where = w.dumpCutShort ? 'in objects no GC root of this cut dump reaches' : 'in unreachable objects';
  return `${reachable}, and ${sizeWithPercent(w.unreachableOverhead, w.unreachableOverheadPercent)} ${where}`;
}

/**
 * What the waste in objects no GC root reaches is: garbage the next collection frees, unless the
 * dump is cut short, whose lost root records may have reached them.
 */
function unreachableWasteText(w: Waste): string {
  return w.dumpCutShort
    ? 'is in objects no GC root this dump records reaches (it is cut short: the root records after the cut are missing, so they are not shown to be garbage)'
    : 'is in unreachable objects, which the next garbage collection frees';
}

/** The waste section's headline, as plain text (each renderer escapes it its own way). */
export function wasteHeadline(w: Waste): string {
  const unreachable =
    w.unreachableOverhead > 0
      ? `; a further ${sizeWithPercent(w.unreachableOverhead, w.unreachableOverheadPercent)} ${unreachableWasteText(w)} (the checks count both)`
      : '';
  return (
    `${sizeWithPercent(w.reachableOverhead, w.reachableOverheadPercent)} of the ${formatBytes(w.usedHeap)} heap is overhead that a change in the code would save${unreachable}. ` +
    'Each object is counted by at most one check; rows are grouped by the field that holds the objects.'
  );
}

/**
 * The duplicate string values' headline, as plain text. The copies an empty collection or an
 * object waiting for finalization keeps alive are in the values' wasted bytes but counted by
 * that check, not by the duplicate strings' (docs/report-model.md): the sentence says how much.
 */
export function duplicateStringsHeadline(w: Waste): string {
  const d = w.duplicateStrings;
  const elsewhere = d.wastedBytes - (w.categories.find((c) => c.check === 'duplicateStrings')?.overhead ?? 0);
  const inside = elsewhere > 0 ? `, ${formatBytes(elsewhere)} of it inside objects counted under other checks (empty collections, objects waiting for finalization)` : '';
  return `${int(d.strings)} strings, ${int(d.distinct)} distinct values; ${int(d.duplicatedValues)} values occur more than once and waste ${formatBytes(d.wastedBytes)}${inside}.`;
}

/**
 * Replaces control characters (newlines in strings from the dump) with visible escapes: C0, DEL,
 * C1, the line and paragraph separators, and the bidirectional controls (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069), which would otherwise reorder the text around them.
 */
export function printable(s: string): string {
  // The terminal's escaping, backslashes kept: each renderer escapes them its own way.
  return terminalText(s, { keepBackslashes: true });
}

/**
 * Longest text, in UTF-16 units (Java's `String.length()`), that the Markdown and HTML reports
 * (and the browser REPL's tooltips and charts) show whole: a longer name or value from the dump
 * is cut by `cutDisplayText`. The JSON report keeps every value whole.
 */
export const DISPLAY_TEXT_MAX = 1000;

/** The first `max` UTF-16 units of `s`, one fewer when the last would be half a surrogate pair. */
export function headOf(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = s.charCodeAt(max - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

const CUT_MARK = / \(cut from [\d,]+ characters\)$/;

/**
 * `s` cut to its first `max` units followed by `… (cut from 1,000,020 characters)` (the full
 * length), else `s` itself. Text already cut this way is left as it is, so cutting twice states
 * the first length.
 */
export function cutDisplayText(s: string, max = DISPLAY_TEXT_MAX): string {
  if (s.length <= max) return s;
  const mark = CUT_MARK.exec(s);
  if (mark && mark.index <= max + 1 && s[mark.index - 1] === '…') return s;
  return `${headOf(s, max)}… (cut from ${int(s.length)} characters)`;
}

/** Fields of a model that are the user's own text, never cut: a query's OQL. */
const KEPT_WHOLE = new Set(['oql']);

/**
 * The model as the human-readable renderers (Markdown, HTML) show it: every string longer than
 * DISPLAY_TEXT_MAX cut by `cutDisplayText` (class and thread names, labels, values, property
 * values, query cells), the user's OQL kept whole. Numbers, bigints and the shape are unchanged.
 * The one place the reports cut text; the JSON report renders the model itself.
 */
export function displayModel<T>(model: T): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return cutDisplayText(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = KEPT_WHOLE.has(k) ? x : walk(x);
    return out;
  };
  return walk(model) as T;
}

export function isObjectRef(v: Value): v is ObjectRef {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text of one query cell: an object by its label, a list as `[a, b]`. */
export function valueText(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(valueText).join(', ')}]`;
  if (isObjectRef(v)) return v.label;
  if (typeof v === 'number') return int(v);
  // A Java long beyond 2^53: every digit, grouped like the other numbers.
  if (typeof v === 'bigint') return v.toLocaleString('en-US');
  return String(v);
}

/** What the reports write for a thread without a name: none in the dump, or "" (a virtual thread's default). */
export const UNNAMED = '(unnamed)';

/**
 * An object as the report's sections write it: its label, followed by its address when the label
 * is a name (a thread's, a class loader's) rather than `Class @ 0x…`, since two threads may share
 * a name; an empty name as `(unnamed)`. A class object keeps `class Foo`.
 */
export function objectText(o: ObjectRef): string {
  // `class Foo` (a class object, named by the class it describes), `Class @ 0x…`, a String's
  // followed by its text: the address is there already.
  if (o.label === `class ${o.className}` || new RegExp(` @ ${o.address}(?![0-9a-f])`).test(o.label)) return o.label;
  return `${o.label === '' ? UNNAMED : o.label} @ ${o.address}`;
}

/** How a path step is reached from the previous one, as a person writes it. */
export function viaText(via: Via | null): string {
  if (!via) return '';
  switch (via.kind) {
    case 'field':
      return `.${via.name}`;
    case 'staticField':
      return `static ${via.name}`;
    case 'arrayElement':
      return via.name.startsWith('[') ? via.name : `[${via.name}]`;
    case 'local':
      return `local in ${via.name}`;
    case 'classLoader':
      return `<classloader> ${via.name}`.trim();
    case 'superclass':
      return `<super> ${via.name}`.trim();
    default:
      return via.name;
  }
}

/**
 * What a leak suspect without a path to show is, from the fields of the report JSON: a group
 * with no accumulation point (`kind` group, `accumulationPoint` null) has no single path to
 * show, whatever its instances' own paths; otherwise the object the path would end at (the
 * suspect, or its accumulation point) has no path from a GC root: it is unreachable.
 */
export function noPathText(s: LeakSuspect): string {
  if (s.kind === 'group' && !s.accumulationPoint) {
    return 'No single path: the instances share no common accumulation point, so no one path from a GC root leads to them all.';
  }
  return s.kind === 'group'
    ? 'No path to a GC root (the accumulation point is unreachable).'
    : 'No path to a GC root (the object is unreachable).';
}

/**
 * The root kind the analysis gives the pseudo-roots it hangs unreachable objects from (MAT's
 * "Unreachable" with keep-unreachable-objects): no root record of the dump, so never called a
 * GC root (Dalvik's UNREACHABLE record is `Unreachable (Dalvik)`, a GC root).
 */
export const UNREACHABLE_PSEUDO_ROOT = 'Unreachable';

/** What a path's first object is: its GC root kinds, or the pseudo-root of garbage. */
export function rootNote(kinds: readonly string[]): string {
  return kinds.length === 1 && kinds[0] === UNREACHABLE_PSEUDO_ROOT ? 'unreachable: a pseudo-root of the analysis, not a GC root' : `GC root: ${kinds.join(', ')}`;
}

/** A stack frame as a Java stack trace prints it: `pkg.Cls.m(Sig) (File.java:12)`. */
export function frameText(f: { method: string; signature: string | null; source: string | null }): string {
  return `${f.method}${f.signature ?? ''}${f.source ? ` (${f.source})` : ''}`;
}

/** The line standing for a stack's frames below the listed ones (`framesLeftOut`). */
export function framesLeftOutText(n: number): string {
  return `… ${int(n)} deeper frame${n === 1 ? '' : 's'} not listed (the report lists a stack's top 1024 frames, as the JVM's own thread dump does; their locals count in the biggest local)`;
}

/** The file's base name for titles (the path stays in the overview). */
export function baseName(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

/**
 * The System Overview facts as (label, plain text) pairs, in display order; each renderer
 * escapes the text for its own format.
 */
/** Android: the overview's heaps when there are several (a dump of one heap says nothing new); null otherwise. */
export function heapsShown(model: ReportModel): HeapShare[] | null {
  const heaps = model.overview.heaps;
  return heaps && heaps.length > 1 ? heaps : null;
}

/** Under the heaps table (plain text, for the Markdown and HTML reports alike). */
export const HEAPS_NOTE =
  "Android: zygote and image objects are memory shared with the system's other processes (the classes and objects the zygote preloaded, the boot image); the app cannot free them. The app's own objects are in the app heap.";

/** One class in one heap: the histogram's row and the class's share of that heap. */
export interface HeapClassRow {
  row: HistogramRow;
  share: ClassHeapShare;
  /** `share.retained` as a percent of the used heap (the histogram's `% heap`). */
  retainedPercent: number;
}

/** One heap's classes, the most retained there first. */
export interface HeapClasses {
  heap: HeapShare;
  rows: HeapClassRow[];
}

/**
 * Android, a dump of several heaps: per heap (in the heaps table's order), the classes of the
 * class histogram with instances in it, the most retained in that heap first (then the
 * histogram's order); at most as many as the histogram lists, so the report's limit bounds each.
 * Null for a dump of one heap or none, and for rows without their heaps.
 */
export function heapClassesShown(model: ReportModel): HeapClasses[] | null {
  const heaps = heapsShown(model);
  const rows = model.overview.classHistogram.rows;
  // A model whose histogram does not break its classes down by heap (an older one) has no such tables.
  if (!heaps || !rows.some((r) => r.heaps)) return null;
  const used = model.overview.heap.usedHeap;
  return heaps.map((heap) => {
    const inHeap: (HeapClassRow & { at: number })[] = [];
    rows.forEach((row, at) => {
      const share = row.heaps?.find((h) => h.name === heap.name);
      if (share) inHeap.push({ row, share, retainedPercent: used > 0 ? (share.retained * 100) / used : 0, at });
    });
    inHeap.sort((a, b) => b.share.retained - a.share.retained || a.at - b.at);
    return { heap, rows: inHeap.map(({ row, share, retainedPercent }) => ({ row, share, retainedPercent })) };
  });
}

/** Under the classes-by-heap tables; `listed`: the histogram's rows (plain text, for Markdown and HTML alike). */
export function heapClassesNote(listed: number, classes: number): string {
  const of = listed < classes ? `the ${int(listed)} classes of the class histogram (the most retained over all heaps, of ${int(classes)})` : `the ${int(listed)} classes of the class histogram`;
  return (
    `Of ${of}: those with instances in each heap, the most retained there first, with their instances, shallow and retained size in that heap (% heap: of the whole used heap). ` +
    "A class's retained sizes over its heaps add up to at least its retained size in the histogram (more where an instance in one heap keeps one in another alive)."
  );
}

/** The "Waste by heap" table's note on its last two columns. */
export const WASTE_HEAPS_NOTE =
  "reachable heap: the shallow bytes of the heap's objects a GC root reaches, wasteful or not; % of reachable heap: the heap's reachable overhead as a percent of them (% heap is of the whole used heap, as elsewhere).";

/** Android: the waste per heap when the dump has several heaps (then each row names its heap); null otherwise. */
export function wasteHeapsShown(w: Waste): WasteHeap[] | null {
  return w.heaps && w.heaps.length > 1 ? w.heaps : null;
}

/** `zygote heap`, `app and zygote heaps`: the heaps of a suspect on a dump of several heaps; null otherwise. */
export function suspectHeaps(model: ReportModel, s: LeakSuspect): string | null {
  const names = s.heaps;
  if (!heapsShown(model) || !names || names.length === 0) return null;
  const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
  return `${list} heap${names.length === 1 ? '' : 's'}`;
}

/** A suspect's `Heap` fact: its heaps, and for shared memory only (zygote, image) what that means; null as for `suspectHeaps`. */
export function suspectHeapFact(model: ReportModel, s: LeakSuspect): string | null {
  if (!suspectHeaps(model, s)) return null;
  const names = s.heaps!;
  const shared = names.every((n) => n === 'zygote' || n === 'image');
  return `${names.join(', ')}${shared ? " — memory shared with the system's other processes, which the app cannot free" : ''}`;
}

export function overviewFacts(model: ReportModel): [string, string][] {
  const o = model.overview;
  const h = o.heap;
  const m = o.sizeModel;
  const oops = o.compressedOops === null ? '' : o.compressedOops ? ' (compressed oops)' : ' (uncompressed)';
  return [
    ['File', `${o.file.path} (${formatBytes(o.file.size)}${o.file.compression === 'none' ? '' : `, ${o.file.compression}`})`],
    ['Format', `${o.format}, ${o.identifierSize}-byte identifiers`],
    ['Heap dump', o.dumpIndex.count === 0 ? NO_HEAP_DUMP_TEXT : `${o.dumpIndex.index + 1} of ${o.dumpIndex.count}`],
    ['Dump time', o.dumpTime ?? 'not recorded'],
    ['JVM', o.jvmVersion ?? 'unknown (no system properties in the dump)'],
    [
      'Object layout',
      `${m.referenceSize}-byte references${oops}, ${m.objectHeaderSize}-byte object headers, ` +
        `${m.arrayHeaderSize}-byte array headers, ${m.alignment}-byte alignment`,
    ],
    ...(m.estimated ? [['Sizes', estimatedSizesText(m.source)] as [string, string]] : []),
    ['Used heap', `${formatBytes(h.usedHeap)} (${int(h.usedHeap)} bytes)`],
    [
      'Objects',
      `${int(h.objects)}: ${int(h.instances)} instances, ${int(h.objectArrays)} object arrays, ` +
        `${int(h.primitiveArrays)} primitive arrays, ${int(h.classes)} class objects`,
    ],
    ['Classes', `${int(h.classes)} loaded, ${int(o.classHistogram.classes)} with instances`],
    ['Class loaders', int(h.classLoaders)],
    ['Unreachable objects', unreachableText(model)],
    ['GC roots', o.gcRoots.objects === o.gcRoots.total ? int(o.gcRoots.total) : `${int(o.gcRoots.total)} (on ${int(o.gcRoots.objects)} objects)`],
  ];
}

/** Unreachable objects, and the pseudo-roots the analysis hangs them from (no GC roots: apart from the GC roots row). */
function unreachableText(model: ReportModel): string {
  const o = model.overview;
  const h = o.heap;
  const base = `${int(h.unreachableObjects)} (${formatBytes(h.unreachableShallow)})`;
  if (o.reachableOnly) return `${base}, excluded (--reachable-only)`;
  if (h.unreachablePseudoRoots === 0) return base;
  const s = h.unreachablePseudoRoots === 1 ? '' : 's';
  return `${base}, under ${int(h.unreachablePseudoRoots)} pseudo-root${s} of the analysis (not GC roots)`;
}
