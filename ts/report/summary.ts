/**
 * The index summary (`heapql demo`, `heapql <dump>` on the query-only path): what the dump is,
 * who wrote it, how many of what it holds, and where the shallow bytes are.
 */
import type { Heap, DumpInfo, DumpWarning } from '../heap.js';
import { cutToWidth, displayWidth, padEndWidth, terminalText } from '../terminal-text.js';

export interface HeapSummary {
  file: string;
  fileSize: number;
  format: string;
  idSize: number;
  compression: string;
  dumpTime: string | null;
  dump: { index: number; count: number };
  jvmVersion: string | null;
  /** `estimated`: the layout is assumed (no object addresses in the dump), so every size is an estimate; `source` says how it was chosen. */
  sizeModel: { referenceSize: number; objectHeaderSize: number; arrayHeaderSize: number; alignment: number; estimated: boolean; source: string };
  objects: { total: number; instances: number; objectArrays: number; primitiveArrays: number; classes: number };
  classCount: number;
  /** `total`: GC root records; `objects`: the distinct objects they name (what MAT counts as GC roots). */
  gcRoots: { total: number; objects: number; byKind: { kind: string; count: number }[] };
  totalShallow: number;
  /**
   * Android: the heaps the objects are in (`app`, `zygote`, `image`; `default` for objects before
   * the dump's first HEAP DUMP INFO), in the order they first appear, with their objects and
   * shallow bytes; absent for a dump that records no heaps (any non-Android dump).
   */
  heaps?: { name: string; objects: number; shallow: number }[];
  topClasses: { className: string; instances: number; shallow: number }[];
  warnings: DumpWarning[];
}

export function buildSummary(heap: Heap, top = 20): HeapSummary {
  const info: DumpInfo = heap.info();
  const counts = heap.counts();
  const histogram = heap.classHistogram();
  const heaps = heap.heaps();
  return {
    file: info.path,
    fileSize: info.fileSize,
    format: info.format,
    idSize: info.idSize,
    compression: info.compression,
    dumpTime: info.timestampMs > 0 ? new Date(info.timestampMs).toISOString() : null,
    dump: { index: info.dump, count: info.dumpCount },
    jvmVersion: info.jvmVersion ?? null,
    sizeModel: {
      referenceSize: info.referenceSize,
      objectHeaderSize: info.objectHeaderSize,
      arrayHeaderSize: info.arrayHeaderSize,
      alignment: info.objectAlignment,
      estimated: info.sizesEstimated,
      source: info.sizeModelSource,
    },
    objects: {
      total: info.objectCount,
      instances: counts.instances,
      objectArrays: counts.objectArrays,
      primitiveArrays: counts.primitiveArrays,
      classes: counts.classes,
    },
    classCount: info.classCount,
    gcRoots: {
      total: counts.rootsByKind.reduce((sum, r) => sum + r.count, 0),
      objects: counts.rootObjects,
      byKind: [...counts.rootsByKind].sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind)),
    },
    totalShallow: counts.totalShallow,
    ...(heaps.length > 0 ? { heaps: heaps.map((h) => ({ name: h.name, objects: h.objects, shallow: h.shallow })) } : {}),
    topClasses: histogram.slice(0, top).map((r) => ({ className: r.className, instances: r.count, shallow: r.shallow })),
    warnings: heap.warnings(),
  };
}

const int = (n: number) => n.toLocaleString('en-US');

/** `part` as a percent of `whole`, one decimal (`23.9%`); `0.0%` of nothing. */
export function shareText(part: number, whole: number): string {
  return `${whole > 0 ? ((100 * part) / whole).toFixed(1) : '0.0'}%`;
}

/** What to say of a file with no heap dump record (summary and the report's overview). */
export const NO_HEAP_DUMP_TEXT = 'none: the file holds no heap dump records (no objects)';

/** What to say when the object layout is assumed (`source`: `assumed: 32-bit VM layout (ids are not addresses)`). */
export function estimatedSizesText(source: string): string {
  return `estimated, from an assumed layout: ${source.replace(/^assumed: /, '')}; shallow and retained sizes may differ from the JVM's`;
}

/**
 * `n` bytes in binary units with one decimal: `512 B`, `4.8 KiB`, `1.0 MiB`. A figure that would
 * round up to 1024.0 of a unit is given in the next one (1,048,575 bytes is `1.0 MiB`, never
 * `1024.0 KiB`).
 */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  // 1023.95 and above shows as 1024.0 at one decimal: the next unit says it (bytes are whole).
  while (v >= 1023.95 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/**
 * Plain text for a terminal: what comes from the dump or the file system (the file name, the
 * JVM version, GC root kinds, class names) is escaped (`terminalText`), columns are aligned in
 * terminal cells and as wide as their longest entry.
 */
export function renderSummary(s: HeapSummary): string {
  const lines: string[] = [];
  lines.push(`Heap dump ${terminalText(s.file, { keepBackslashes: true })} (${formatBytes(s.fileSize)}${s.compression === 'none' ? '' : `, ${s.compression}`})`);
  lines.push(`  format           ${terminalText(s.format)}, ${s.idSize}-byte identifiers`);
  if (s.dump.count > 1) lines.push(`  heap dump        ${s.dump.index + 1} of ${s.dump.count} (choose with --dump N)`);
  if (s.dump.count === 0) lines.push(`  heap dump        ${NO_HEAP_DUMP_TEXT}`);
  if (s.dumpTime) lines.push(`  dumped at        ${s.dumpTime}`);
  lines.push(`  JVM              ${s.jvmVersion !== null ? terminalText(s.jvmVersion) : 'unknown (no system properties in the dump)'}`);
  const m = s.sizeModel;
  lines.push(`  object layout    ${m.referenceSize}-byte references, ${m.objectHeaderSize}-byte object headers, ${m.arrayHeaderSize}-byte array headers, ${m.alignment}-byte alignment`);
  if (m.estimated) lines.push(`  sizes            ${estimatedSizesText(m.source)}`);
  lines.push('');
  lines.push(`Objects          ${int(s.objects.total)}`);
  lines.push(`  instances        ${int(s.objects.instances)}`);
  lines.push(`  object arrays    ${int(s.objects.objectArrays)}`);
  lines.push(`  primitive arrays ${int(s.objects.primitiveArrays)}`);
  lines.push(`  class objects    ${int(s.objects.classes)}`);
  lines.push(`Classes          ${int(s.classCount)}`);
  lines.push(`Shallow heap     ${formatBytes(s.totalShallow)} (${int(s.totalShallow)} bytes)`);
  lines.push('');
  // Android: only when there is a choice (an app-only dump says nothing new).
  if (s.heaps && s.heaps.length > 1) {
    lines.push('Heaps (Android: zygote and image objects are shared with other processes)');
    const heapNames = s.heaps.map((h) => nameCell(h.name));
    const heapWidth = Math.max(4, ...heapNames.map(displayWidth));
    lines.push(`  ${'heap'.padEnd(heapWidth)}  ${'objects'.padStart(12)}  ${'shallow bytes'.padStart(14)}  ${'share'.padStart(6)}`);
    for (const [i, h] of s.heaps.entries()) {
      lines.push(`  ${padEndWidth(heapNames[i]!, heapWidth)}  ${int(h.objects).padStart(12)}  ${int(h.shallow).padStart(14)}  ${shareText(h.shallow, s.totalShallow).padStart(6)}`);
    }
    lines.push('');
  }
  // Records, as the kinds below count them, and the distinct objects they name (MAT's figure:
  // one object can be a root of several kinds), as the report's overview says it.
  const roots = s.gcRoots;
  lines.push(`GC roots         ${int(roots.total)}${roots.total === roots.objects ? '' : ` (on ${int(roots.objects)} objects)`}`);
  // At least as wide as the labels above (`primitive arrays `), and one space past the longest
  // kind (an Android dump's `Reference Cleanup` is 17 characters).
  const kinds = s.gcRoots.byKind.map((r) => terminalText(r.kind));
  const kindWidth = Math.max(17, ...kinds.map((k) => displayWidth(k) + 1));
  for (const [i, r] of s.gcRoots.byKind.entries()) lines.push(`  ${padEndWidth(kinds[i]!, kindWidth)}${int(r.count)}`);
  lines.push('');
  if (s.topClasses.length === 0) {
    // A dump without heap data (or with no object in it) has no class to rank.
    lines.push('No objects in the heap: no classes by shallow size');
    return lines.join('\n') + '\n';
  }
  lines.push(`Top ${s.topClasses.length} classes by shallow size`);
  const names = s.topClasses.map((c) => nameCell(c.className));
  const nameWidth = Math.max(5, ...names.map(displayWidth));
  lines.push(`  ${'class'.padEnd(nameWidth)}  ${'instances'.padStart(12)}  ${'shallow bytes'.padStart(14)}`);
  for (const [i, c] of s.topClasses.entries()) {
    lines.push(`  ${padEndWidth(names[i]!, nameWidth)}  ${int(c.instances).padStart(12)}  ${int(c.shallow).padStart(14)}`);
  }
  return lines.join('\n') + '\n';
}

/** Widest name column of the summary's tables, in terminal cells (as a query table's cell): a
 * name of a megabyte must not pad every row to its width. */
const NAME_CELLS = 80;

/** A name as a table cell: escaped for the terminal and cut to `NAME_CELLS` with `…`. */
function nameCell(name: string): string {
  return cutToWidth(terminalText(name), NAME_CELLS);
}
