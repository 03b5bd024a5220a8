/**
 * Suspects and threads of one dump only, on small dumps written here (synthetic-dumps.ts):
 *  - a group suspect of one dump only is sized in the other by the very measure a group suspect
 *    has (its class's top-level instances, single suspects left out), never by the class
 *    histogram's retained size of all instances, in both directions, and says so;
 *  - threads sharing a name are paired by tid first: of two `pool`s the one that ended is gone
 *    and the other unchanged; in another run (every tid moved) they are paired by name;
 *  - threads without a tid (0, as the JDK 7 hprof agent writes) pair by name even when a namesake
 *    pairs by tid; a name with one thread per side pairs by tid too in one JVM (the dumps share a
 *    thread), by name in another run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { diffDumps, renderDiffHtml, renderDiffMarkdown, validateDiffModel, type DiffModel, type SuspectDiffRow } from '../../ts/diff/index.js';
import { openHeap } from '../../ts/session/index.js';
import { writeItemsDump, writeThreadsDump } from './synthetic-dumps.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-diff-one-sided-'));
});

const brief = (r: SuspectDiffRow) => [r.status, r.key, r.retained.baseline, r.retained.current, r.matchedBy];

/** What the `Item`s that are top-level dominators retain, single suspects left out (a query of the dump). */
async function topLevelItems(dump: string, leaveOut: number): Promise<number> {
  const heap = await openHeap(dump);
  try {
    await heap.analyze();
    const r = await heap.query('SELECT x.@retainedHeapSize AS r FROM Item x WHERE dominatorof(x) IS NULL ORDER BY r DESC');
    return r.rows.slice(leaveOut).reduce((s, [v]) => s + Number(v), 0);
  } finally {
    heap.close();
  }
}

describe('a group suspect of one dump only', () => {
  const key = 'instances of Item (<bootstrap>)';
  let small: string;
  let big: string;
  beforeAll(() => {
    // 30 top-level Items (a third of the heap: a group suspect) and 60 held by an array.
    small = writeItemsDump(dir, 'items-small.hprof', { topLevel: 30, held: 60, big: 0 });
    // The same, and one more top-level Item holding 2 MB: a single suspect; the 30 are 1.5 % now.
    big = writeItemsDump(dir, 'items-big.hprof', { topLevel: 30, held: 60, big: 2_000_000 });
  });

  it('no longer a suspect: its top-level instances now, not all instances (the class row), and "below the threshold now"', async () => {
    const m = await diffDumps(small, big);
    const own = await topLevelItems(small, 0);
    expect(await topLevelItems(big, 1)).toBe(own);
    const rows = m.leakSuspects.filter((r) => r.key === key);
    expect(rows.map(brief)).toEqual([['unchanged', key, own, own, `baseline suspect (#${rows[0]!.baselineRank}), below the threshold now`]]);
    expect(rows[0]).toMatchObject({ currentRank: null, baselineSource: 'suspect', currentSource: 'instances' });
    // The class row counts the 60 held Items too (and the big one): another measure.
    expect(m.classes.find((r) => r.className === 'Item')!.retained.current).toBeGreaterThan(3 * own);
    expect(validateDiffModel(m).ok).toBe(true);
    expect(renderDiffMarkdown(m)).toContain('| baseline suspect (\\#2), below the threshold now |');
    expect(renderDiffHtml(m)).toContain('<span class="note">baseline suspect (#2), below the threshold now</span>');
  });

  it('a suspect now only: the baseline is sized the same way, and the row says the baseline had it below the threshold', async () => {
    const m = await diffDumps(big, small);
    const own = await topLevelItems(small, 0);
    const rows = m.leakSuspects.filter((r) => r.key === key);
    expect(rows.map(brief)).toEqual([['unchanged', key, own, own, `suspect now (#${rows[0]!.currentRank}), below the threshold in the baseline`]]);
    expect(rows[0]).toMatchObject({ baselineRank: null, baselineSource: 'instances', currentSource: 'suspect' });
  });

  it('a suspect in both: matched by its baseline rank', async () => {
    const m = await diffDumps(small, small);
    const row = m.leakSuspects.find((r) => r.key === key)!;
    expect(row).toMatchObject({ status: 'unchanged', baselineSource: 'suspect', currentSource: 'suspect', matchedBy: `baseline suspect (#${row.baselineRank})` });
  });
});

describe('threads that share a name', () => {
  let base: string;
  let ended: string;
  let replaced: string;
  let otherRun: string;
  beforeAll(() => {
    base = writeThreadsDump(dir, 'threads-base.hprof', [
      { name: 'main', tid: 1, holds: 10_000 },
      { name: 'pool', tid: 21, holds: 320_000 },
      { name: 'pool', tid: 22, holds: 160_000 },
    ]);
    // The bigger pool thread ended; the other is as it was; main holds more.
    ended = writeThreadsDump(dir, 'threads-ended.hprof', [
      { name: 'main', tid: 1, holds: 12_000 },
      { name: 'pool', tid: 22, holds: 160_000 },
    ]);
    // The same JVM later: pool 21 ended and a new pool 23 started.
    replaced = writeThreadsDump(dir, 'threads-replaced.hprof', [
      { name: 'main', tid: 1, holds: 10_000 },
      { name: 'pool', tid: 22, holds: 160_000 },
      { name: 'pool', tid: 23, holds: 50_000 },
    ]);
    // Another run of the program: every pool tid moved.
    otherRun = writeThreadsDump(dir, 'threads-run2.hprof', [
      { name: 'main', tid: 1, holds: 10_000 },
      { name: 'pool', tid: 31, holds: 330_000 },
      { name: 'pool', tid: 32, holds: 160_000 },
    ]);
  });

  const poolSuspects = (m: DiffModel) => m.leakSuspects.filter((r) => r.key.startsWith('thread "pool"')).map((r) => [r.status, r.key]);
  const poolDominators = (m: DiffModel) => m.dominators.rows.filter((r) => r.key.startsWith('thread "pool"')).map((r) => [r.status, r.key]);

  it('one ended: it is gone, the other unchanged (paired by tid, not biggest with biggest)', async () => {
    const m = await diffDumps(base, ended);
    expect(poolSuspects(m)).toEqual([
      ['unchanged', 'thread "pool" #22'],
      ['gone', 'thread "pool" #21'],
    ]);
    const gone = m.leakSuspects.find((r) => r.key === 'thread "pool" #21')!;
    expect(gone).toMatchObject({ currentSource: 'none', retained: { current: 0 }, matchedBy: `baseline suspect (#${gone.baselineRank}), nothing with its key now` });
    expect(m.leakSuspects.find((r) => r.key === 'thread "pool" #22')!.retained.delta).toBe(0);
    // Dominators: the ended thread and its local are gone; the other did not change (no row).
    expect(poolDominators(m)).toEqual([
      ['gone', 'thread "pool" #21 · <local> → byte[]'],
      ['gone', 'thread "pool" #21'],
    ]);
    // A name one thread has in each dump keeps its plain key.
    expect(m.dominators.rows.filter((r) => r.key.startsWith('thread "main"')).map((r) => [r.status, r.key])).toEqual([
      ['grown', 'thread "main"'],
      ['grown', 'thread "main" · <local> → byte[]'],
    ]);
  });

  it('one ended and another of the name started in the same JVM: gone and new, not one thread shrunk', async () => {
    const m = await diffDumps(base, replaced);
    expect(poolSuspects(m)).toEqual(
      expect.arrayContaining([
        ['unchanged', 'thread "pool" #22'],
        ['gone', 'thread "pool" #21'],
      ]),
    );
    expect(poolDominators(m)).toEqual(expect.arrayContaining([['new', 'thread "pool" #23']]));
    expect(m.leakSuspects.filter((r) => r.status === 'shrunk')).toEqual([]);
  });

  it('a thread without a tid (0) beside a namesake paired by tid: the same thread on both sides, not gone and new', async () => {
    const tidless = [
      { name: 'main', tid: 1, holds: 10_000 },
      { name: 'pool', tid: 21, holds: 320_000 },
      { name: 'pool', tid: 0, holds: 160_000 },
    ];
    const m = await diffDumps(writeThreadsDump(dir, 'threads-tidless-1.hprof', tidless), writeThreadsDump(dir, 'threads-tidless-2.hprof', tidless));
    expect(poolSuspects(m)).toEqual([
      ['unchanged', 'thread "pool" #21'],
      ['unchanged', 'thread "pool" (2)'],
    ]);
    expect(poolDominators(m)).toEqual([]);
  });

  it('a name with one thread per side in one JVM (the dumps share main #1): a thread that ended and one that started, not one that shrank', async () => {
    const before = writeThreadsDump(dir, 'threads-worker-12.hprof', [
      { name: 'main', tid: 1, holds: 10_000 },
      { name: 'worker', tid: 12, holds: 200_000 },
    ]);
    const after = writeThreadsDump(dir, 'threads-worker-14.hprof', [
      { name: 'main', tid: 1, holds: 10_000 },
      { name: 'worker', tid: 14, holds: 150_000 },
    ]);
    const m = await diffDumps(before, after);
    expect(m.leakSuspects.filter((r) => r.key.startsWith('thread "worker"')).map((r) => [r.status, r.key])).toEqual([
      ['new', 'thread "worker" #14'],
      ['gone', 'thread "worker" #12'],
    ]);
    expect(m.leakSuspects.filter((r) => r.status === 'shrunk')).toEqual([]);
  });

  it('a name with one thread per side in another run (no name and tid in common): paired by name, its key plain', async () => {
    const before = writeThreadsDump(dir, 'threads-run-a.hprof', [{ name: 'worker', tid: 12, holds: 200_000 }]);
    const after = writeThreadsDump(dir, 'threads-run-b.hprof', [{ name: 'worker', tid: 14, holds: 150_000 }]);
    const m = await diffDumps(before, after);
    expect(m.leakSuspects.filter((r) => r.key.startsWith('thread "worker"')).map((r) => [r.status, r.key])).toEqual([['shrunk', 'thread "worker"']]);
  });

  it('another run (no tid in common): paired by name, biggest with biggest, labelled with the current tid', async () => {
    const m = await diffDumps(base, otherRun);
    expect(poolSuspects(m)).toEqual([
      ['grown', 'thread "pool" #31'],
      ['unchanged', 'thread "pool" #32'],
    ]);
    expect(m.leakSuspects.find((r) => r.key === 'thread "pool" #31')!.retained.delta).toBe(10_000);
  });
});
