/**
 * What the Markdown and HTML diffs share: signed numbers, the rows each section shows, and the
 * facts table. Plain text here; each renderer escapes it for its format.
 */
import { baseName, formatBytes, int } from '../report/format.js';
import type { Change, DiffModel } from './model.js';

/** Rows of each section the Markdown and HTML show (the JSON has every changed row); the HTML collapses longer tables. */
export const SHOWN_ROWS = 20;

/** `1 class row`, `3 class rows`. */
export const rowsText = (n: number): string => `${int(n)} class row${n === 1 ? '' : 's'}`;

const MINUS = '−';

export const signedInt = (n: number): string => (n > 0 ? `+${int(n)}` : n < 0 ? `${MINUS}${int(-n)}` : '0');
export const signedBytes = (n: number): string => (n > 0 ? `+${formatBytes(n)}` : n < 0 ? `${MINUS}${formatBytes(-n)}` : '0 B');

/** `+50.0%`, `new` when the baseline had none. */
export function growthText(c: Change): string {
  if (c.growthPercent === null) return c.current > 0 ? 'new' : '';
  const p = c.growthPercent;
  return `${p > 0 ? '+' : p < 0 ? MINUS : ''}${Math.abs(p).toFixed(1)}%`;
}

/** `+447.2 KiB +46.8%`: the signed byte change and its growth (`new`; nothing when unknown). */
export const bytesChange = (c: Change): string => `${signedBytes(c.delta)} ${growthText(c)}`.trim();

/** `1.2 MiB → 1.6 MiB`. */
export const bytesPair = (c: Change): string => `${formatBytes(c.baseline)} → ${formatBytes(c.current)}`;
export const countPair = (c: Change): string => `${int(c.baseline)} → ${int(c.current)}`;

/** The rows of a section that grew, in model order, at most SHOWN_ROWS. */
export function grownRows<R>(rows: R[], measure: (r: R) => Change): { shown: R[]; grown: number } {
  const grown = rows.filter((r) => measure(r).delta > 0);
  return { shown: grown.slice(0, SHOWN_ROWS), grown: grown.length };
}

/** The comparison's head facts: (label, baseline, current, change). */
export function factRows(m: DiffModel): [string, string, string, string][] {
  const b = m.baseline;
  const c = m.current;
  return [
    ['File', `${baseName(b.path)} (${formatBytes(b.fileSize)})`, `${baseName(c.path)} (${formatBytes(c.fileSize)})`, ''],
    ['Dump time', b.dumpTime ?? 'not recorded', c.dumpTime ?? 'not recorded', ''],
    ['JVM', b.jvmVersion ?? 'unknown', c.jvmVersion ?? 'unknown', ''],
    ['Main class', b.mainClass ?? 'unknown', c.mainClass ?? 'unknown', ''],
    ['Used heap', formatBytes(b.usedHeap), formatBytes(c.usedHeap), `${signedBytes(m.usedHeap.delta)} (${growthText(m.usedHeap)})`],
    ['Objects', int(b.objects), int(c.objects), signedInt(m.objects.delta)],
    ...heapFacts(m),
    ['Classes with instances', int(b.classes), int(c.classes), signedInt(c.classes - b.classes)],
    ['Objects counted', ...counted(m), ''],
  ];
}

/** Android, with several heaps: a row per heap (`zygote heap`: shallow bytes and objects), in the model's order. */
function heapFacts(m: DiffModel): [string, string, string, string][] {
  if (!m.heaps || m.heaps.length < 2) return [];
  const objects = (n: number, text: string) => `${text} object${Math.abs(n) === 1 ? '' : 's'}`;
  const side = (bytes: number, n: number) => `${formatBytes(bytes)} (${objects(n, int(n))})`;
  return m.heaps.map((h) => [
    `${h.name} heap`,
    side(h.shallow.baseline, h.objects.baseline),
    side(h.shallow.current, h.objects.current),
    `${signedBytes(h.shallow.delta)} (${growthText(h.shallow) || 'none before or after'}), ${objects(h.objects.delta, signedInt(h.objects.delta))}`,
  ]);
}

/** What each dump's figures count: reachable objects only (--reachable-only) or every object. */
function counted(m: DiffModel): [string, string] {
  const text = m.reachableOnly ? 'reachable only (--reachable-only)' : 'all, unreachable included';
  return [text, text];
}

/** ` (3 classes)` after a class row's name when it sums several classes of one dump (hidden classes, unnamed loaders). */
export function classesText(r: { classes: { baseline: number; current: number } }): string {
  const n = Math.max(r.classes.baseline, r.classes.current);
  return n > 1 ? ` (${r.classes.baseline === r.classes.current ? int(n) : `${int(r.classes.baseline)} → ${int(r.classes.current)}`} classes)` : '';
}

export const STATUS_TEXT: Record<string, string> = { new: 'new', grown: 'grown', unchanged: 'unchanged', shrunk: 'shrunk', gone: 'gone' };

/** One line per offending gate row: `java.util.HashMap$Node (<bootstrap>): shallow +96,064 bytes (+42.9%), limit 1000 bytes [rule]`; `(…, app heap)` for a heap's row. */
export function gateLines(m: DiffModel): string[] {
  return m.gate.offending.map(
    (r) => `${r.className} (${r.classLoader}${r.heap !== undefined ? `, ${r.heap} heap` : ''}): shallow ${signedInt(r.shallow.delta)} bytes (${growthText(r.shallow)}), limit ${r.limit} [${r.rule}]`,
  );
}

/**
 * Android: whether the class and dominator tables show a heap column — their rows are per heap
 * (`heap`) and the dumps have several heaps between them. A pair of one-heap dumps reads as
 * without heaps.
 */
export const heapColumn = (m: DiffModel): boolean => (m.heaps?.length ?? 0) > 1 && (m.classes.some((r) => r.heap !== undefined) || m.dominators.rows.some((r) => r.heap !== undefined));

/** Android, under the classes table with a heap column: what a row is. */
/** What a class row's retained size is, under the classes table in Markdown and HTML. */
export const CLASS_RETAINED_NOTE =
  "Retained is MAT's minimum retained size of the class's instances: the retained sizes of those no other instance of the class dominates, summed (less than the retained set of all of them when several instances together keep an object alive).";

export const CLASS_HEAPS_NOTE =
  "Android: a row per class and heap, so growth in the app heap is never netted against a shrink in the zygote's or the image's (memory shared with the system's other processes); Retained is then the retained size of the class's instances in that heap.";
/** Android, under the dominators table with a heap column: what a row is. */
export const DOMINATOR_HEAPS_NOTE =
  'Android: a row per path and heap of the bytes it retains (the shallow sizes of the retained objects in that heap), whichever heap the dominator itself is in; paths are chosen by what they retain in all heaps together.';
