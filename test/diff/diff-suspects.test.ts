/**
 * Leak suspects that share a matching key (several unreachable `int[]`, whose path key is just
 * `int[]`) are paired one to one, biggest with biggest: none is lost, and a dump compared with
 * itself shows each one unchanged with its own size.
 */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';

import { computeDiff, diffDumps, type SuspectDiffRow } from '../../ts/diff/index.js';
import { dominatorThreshold } from '../../ts/diff/compute.js';
import { fullSections, snapshot, type DumpSnapshot } from '../../ts/diff/snapshot.js';
import { openHeap } from '../../ts/session/index.js';
import { baselineDump, corpus } from './fixtures.js';

const brief = (r: SuspectDiffRow) => ({ status: r.status, key: r.key, baseline: r.retained.baseline, current: r.retained.current, source: r.baselineSource });

describe('suspects with one key (corpus: hprof-64.bin, three unreachable int[] suspects)', () => {
  const h64 = corpus('hprof-64.bin');
  const jdk11 = corpus('openjdk_jdk11_04_x64.hprof.gz');
  const present = existsSync(h64) && existsSync(jdk11);
  if (!present) console.log(`skipped: ${h64} is absent (the shared corpus is not beside the project)`);

  it.skipIf(!present)('a dump compared with itself: every suspect unchanged, with its own retained size and rank', async () => {
    const m = await diffDumps(h64, h64);
    const ints = m.leakSuspects.filter((s) => s.key === 'int[]');
    expect(ints.map((s) => [s.status, s.retained.baseline, s.retained.current, s.baselineRank, s.currentRank])).toEqual([
      ['unchanged', 650_016, 650_016, 1, 1],
      ['unchanged', 649_984, 649_984, 2, 2],
      ['unchanged', 645_576, 645_576, 3, 3],
    ]);
    expect(m.leakSuspects.every((s) => s.status === 'unchanged' && s.retained.delta === 0)).toBe(true);
  });

  it.skipIf(!present)('suspects the current dump has none of with their key are each gone, with their own size', async () => {
    const m = await diffDumps(h64, jdk11);
    const gone = m.leakSuspects.filter((s) => s.key === 'int[]');
    expect(gone.map((s) => [s.status, s.retained.baseline, s.baselineRank, s.currentRank])).toEqual([
      ['gone', 645_576, 3, null],
      ['gone', 649_984, 2, null],
      ['gone', 650_016, 1, null],
    ]);
    // The dominator section sums the key: the three suspects and a fourth int[].
    expect(m.dominators.rows.find((r) => r.key === 'int[]')).toMatchObject({ objects: { baseline: 4, current: 0 }, retained: { baseline: 2_079_560 } });
  });
});

describe('suspects with one key (DiffHeap snapshot with a second suspect of a key)', () => {
  let base: DumpSnapshot;
  beforeAll(async () => {
    const session = await openHeap(baselineDump);
    try {
      await session.analyze();
      const sections = await fullSections(session);
      base = await snapshot(session, sections, dominatorThreshold(sections.overview.heap.usedHeap, 0), 'baseline');
    } finally {
      session.close();
    }
  });

  /**
   * `snap` with one more suspect: a twin of its suspect `title` (same key) retaining `retained`
   * (none when null), and big dominators with that key that are no suspects.
   */
  function withTwin(snap: DumpSnapshot, title: string, retained: number | null, dominators: number[] = []): DumpSnapshot {
    const suspects = snap.sections.leakSuspects.suspects;
    const model = suspects.find((s) => s.title === title)!;
    const key = snap.keyOf.get(model.object!.objectId)!;
    const twinId = 900_000_000;
    const twin = { ...model, rank: suspects.length + 1, retained, object: { ...model.object!, objectId: twinId } };
    const extra = dominators.map((r, i) => ({ objectId: twinId + 1 + i, key, className: model.className, retained: r }));
    return {
      ...snap,
      sections: { ...snap.sections, leakSuspects: { ...snap.sections.leakSuspects, suspects: retained === null ? suspects : [...suspects, { ...twin, retained }] } },
      keyOf: new Map([...snap.keyOf, [twinId, key], ...extra.map((d): [number, string] => [d.objectId, key])]),
      dominators: [...snap.dominators, ...extra],
    };
  }

  it('itself: both suspects of the key unchanged, each with its own size', () => {
    const twin = withTwin(base, 'constant-holder', 5_000);
    const rows = computeDiff(twin, twin).leakSuspects;
    expect(rows).toHaveLength(base.sections.leakSuspects.suspects.length + 1);
    const holders = rows.filter((r) => r.title === 'constant-holder');
    const own = base.sections.leakSuspects.suspects.find((s) => s.title === 'constant-holder')!.retained;
    expect(holders.map(brief)).toEqual([
      { status: 'unchanged', key: holders[0]!.key, baseline: own, current: own, source: 'suspect' },
      { status: 'unchanged', key: holders[0]!.key, baseline: 5_000, current: 5_000, source: 'suspect' },
    ]);
    expect(holders.map((r) => [r.baselineRank, r.currentRank])).toEqual([
      [1, 1],
      [base.sections.leakSuspects.suspects.length + 1, base.sections.leakSuspects.suspects.length + 1],
    ]);
  });

  it('one more in the current: the biggest are paired, the extra one is new, or sized by a big dominator of the key that is no suspect', () => {
    const rows = computeDiff(base, withTwin(base, 'constant-holder', 5_000)).leakSuspects.filter((r) => r.title === 'constant-holder');
    expect(rows.map((r) => [r.status, r.retained.current, r.baselineSource])).toEqual(
      expect.arrayContaining([
        ['unchanged', expect.any(Number), 'suspect'],
        ['new', 5_000, 'none'],
      ]),
    );
    expect(rows).toHaveLength(2);
    // The baseline has two more objects with the key, not suspects: the extra suspect takes the biggest.
    const sized = computeDiff(withTwin(base, 'constant-holder', null, [4_000, 4_900]), withTwin(base, 'constant-holder', 5_000)).leakSuspects.filter(
      (r) => r.title === 'constant-holder',
    );
    expect(sized.map((r) => [r.status, r.retained.baseline, r.retained.current, r.baselineSource])).toEqual(
      expect.arrayContaining([['grown', 4_900, 5_000, 'dominator']]),
    );
  });

  it('one fewer in the current: the smaller one is gone, the biggest still paired', () => {
    const rows = computeDiff(withTwin(base, 'constant-holder', 5_000), base).leakSuspects.filter((r) => r.title === 'constant-holder');
    expect(rows.map((r) => [r.status, r.retained.baseline, r.currentRank === null])).toEqual([
      ['unchanged', expect.any(Number), false],
      ['gone', 5_000, true],
    ]);
  });
});
