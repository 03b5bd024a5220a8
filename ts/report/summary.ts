/**
 * The index summary (`heapql demo`, `heapql <dump>` on the query-only path): what the dump is,
 * who wrote it, how many of what it holds, and where the shallow bytes are.
 */
import type { Heap, DumpInfo, DumpWarning } from '../heap.js';

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
  gcRoots: { total: number; byKind: { kind: string; count: number }[] };
  totalShallow: number;
  topClasses: { className: string; instances: number; shallow: number }[];
  warnings: DumpWarning[];
}

export function buildSummary(heap: Heap, top = 20): HeapSummary {
  const info: DumpInfo = heap.info();
  const counts = heap.counts();
  const histogram = heap.classHistogram();
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
      byKind: [...counts.rootsByKind].sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind)),
    },
    totalShallow: counts.totalShallow,
    topClasses: histogram.slice(0, top).map((r) => ({ className: r.className, instances: r.count, shallow: r.shallow })),
    warnings: heap.warnings(),
  };
}

const int = (n: number) => n.toLocaleString('en-US');

/** What to say of a file with no heap dump record (summary and the report's overview). */
export const NO_HEAP_DUMP_TEXT = 'none: the file holds no heap dump records (no objects)';

/** What to say when the object layout is assumed (`source`: `assumed: 32-bit VM layout (ids are not addresses)`). */
export function estimatedSizesText(source: string): string {
  return `estimated, from an assumed layout: ${source.replace(/^assumed: /, '')}; shallow and retained sizes may differ from the JVM's`;
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** Plain text for a terminal. */
export function renderSummary(s: HeapSummary): string {
  const lines: string[] = [];
  lines.push(`Heap dump ${s.file} (${formatBytes(s.fileSize)}${s.compression === 'none' ? '' : `, ${s.compression}`})`);
  lines.push(`  format           ${s.format}, ${s.idSize}-byte identifiers`);
  if (s.dump.count > 1) lines.push(`  heap dump        ${s.dump.index + 1} of ${s.dump.count} (choose with --dump N)`);
  if (s.dump.count === 0) lines.push(`  heap dump        ${NO_HEAP_DUMP_TEXT}`);
  if (s.dumpTime) lines.push(`  dumped at        ${s.dumpTime}`);
  lines.push(`  JVM              ${s.jvmVersion ?? 'unknown (no system properties in the dump)'}`);
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
  lines.push(`GC roots         ${int(s.gcRoots.total)}`);
  for (const r of s.gcRoots.byKind) lines.push(`  ${r.kind.padEnd(17)}${int(r.count)}`);
  lines.push('');
  lines.push(`Top ${s.topClasses.length} classes by shallow size`);
  const nameWidth = Math.max(5, ...s.topClasses.map((c) => c.className.length));
  lines.push(`  ${'class'.padEnd(nameWidth)}  ${'instances'.padStart(12)}  ${'shallow bytes'.padStart(14)}`);
  for (const c of s.topClasses) {
    lines.push(`  ${c.className.padEnd(nameWidth)}  ${int(c.instances).padStart(12)}  ${int(c.shallow).padStart(14)}`);
  }
  return lines.join('\n') + '\n';
}
