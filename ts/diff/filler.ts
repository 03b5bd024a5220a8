/**
 * The JVM's filler arrays, for both comparisons of two dumps (`heapql diff` and the MCP
 * server's `compare_with_baseline`): HotSpot fills gaps in its heap (retired TLABs, the archived
 * CDS heap) with filler arrays, `int[]`s before JDK 21 and `jdk.internal.vm.FillerElement[]` (a
 * type array of int) since, written to the dump as plain `int[]`s either way; no GC root reaches
 * them, and their number moves between dumps whatever the program does, so a class histogram's
 * `int[]` row can even change direction. Each comparison counts the unreachable `int[]`s of both
 * dumps (`unreachableIntArraysOf`) and, when they differ, adds the one note `fillerNote` writes.
 */
import { int } from '../report/format.js';
import type { HeapSession, ProgressEvent } from '../session/index.js';

/** Instances and shallow bytes of some `int[]`s. */
export interface IntArrays {
  count: number;
  bytes: number;
}

/** How the note on unreachable int[]s begins (the CLI prints it on stderr too). */
export const FILLER_NOTE_START = 'int[] counts unreachable int[] arrays';

/**
 * The unreachable ones among a dump's `int[]`s: `all`, the histogram's `int[]` row (every
 * object, unreachable ones included), less the reachable ones (one query over the `int[]`s).
 */
export async function unreachableIntArraysOf(session: HeapSession, all: IntArrays, signal?: AbortSignal, onProgress?: (e: ProgressEvent) => void): Promise<IntArrays> {
  if (all.count === 0) return { count: 0, bytes: 0 };
  const r = await session.query('SELECT COUNT(*) AS n, SUM(x.@usedHeapSize) AS bytes FROM int[] x', {
    reachableOnly: true,
    ...(signal ? { signal } : {}),
    ...(onProgress ? { onProgress } : {}),
  });
  const [n, b] = r.rows[0] ?? [0, 0];
  return { count: Math.max(0, all.count - Number(n ?? 0)), bytes: Math.max(0, all.bytes - Number(b ?? 0)) };
}

export interface FillerNoteOptions {
  /** What to do about it, ending the note (the diff's: `compare with --reachable-only`). */
  advice: string;
  /** How one side's figures read: the diff's `1,273 (24,768 B)` or `none` (default), or `1273 (24768 B)`. */
  figures?: 'grouped' | 'plain';
}

/**
 * One line when the dumps count different unreachable `int[]`s (`unreachableIntArraysOf`);
 * none when they count the same, which changes nothing a comparison reports (deltas).
 */
export function fillerNote(baseline: IntArrays, current: IntArrays, options: FillerNoteOptions): string[] {
  if (baseline.count === current.count && baseline.bytes === current.bytes) return [];
  const side =
    options.figures === 'plain'
      ? (u: IntArrays) => `${u.count} (${u.bytes} B)`
      : (u: IntArrays) => (u.count === 0 ? 'none' : `${int(u.count)} (${int(u.bytes)} B)`);
  return [
    `${FILLER_NOTE_START} (baseline ${side(baseline)}, current ${side(current)}): they may be the JVM's filler arrays ` +
      '(HotSpot fills gaps in its heap with them; JDK 21+ makes them jdk.internal.vm.FillerElement[], which the dump writes as int[]), ' +
      `which come and go whatever the program does; ${options.advice}`,
  ];
}
