/**
 * inspect_object on an object no GC root reaches says so in `pathNote` whatever the analysis's
 * mode: without --reachable-only the analysis keeps such an object in its tree, hung from the
 * pseudo-root "Unreachable", and `pathToRoot` is that one step; before, only the mode that gives
 * no path (null) had the note, so in the usual mode the pseudo-root read as a GC root and the cut
 * dump's caveat (its root records after the cut are missing) was never said.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { embedded } from './embedded.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

let dir: string;
let cut: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-mcp-unreachable-'));
  // The demo cut in the middle of its heap data: its GC root records (at the end) are lost.
  cut = path.join(dir, 'cut.hprof');
  writeFileSync(cut, readFileSync(demo).subarray(0, 2_661_203));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The path part of inspect_object for each instance of `className` in `dump` after analyze_heap, split by reachability. */
async function paths(dump: string, className: string, reachableOnly: boolean) {
  const s = await embedded(dump);
  try {
    const analyzed = await s.call('analyze_heap', { reachableOnly });
    expect(analyzed.isError, analyzed.texts[0]).toBe(false);
    const rows = JSON.parse((await s.call('run_oql', { query: `SELECT x FROM ${className} x`, maxRows: 500 })).texts[0]!).rows;
    const seen = { reachable: [] as any[], unreachable: [] as any[] };
    for (const [ref] of rows) {
      const o = JSON.parse((await s.call('inspect_object', { object: ref.objectId, include: ['pathToRoot'] })).texts[0]!);
      (o.reachable ? seen.reachable : seen.unreachable).push(o);
    }
    return seen;
  } finally {
    await s.close();
  }
}

describe('heapql mcp: inspect_object says when no GC root reaches the object', () => {
  it('a whole dump, the usual mode: the path from the "Unreachable" pseudo-root, said to be no GC root, and garbage', async () => {
    const { reachable, unreachable } = await paths(demo, 'java.lang.Object', false);
    expect(reachable.length).toBeGreaterThan(0);
    expect(unreachable.length).toBeGreaterThan(0);
    for (const o of reachable) expect(o).not.toHaveProperty('pathNote');
    for (const o of unreachable) {
      // From the pseudo-root (the object itself, or an unreachable object that holds it) to the object.
      expect(o.pathToRoot[0].via).toBe('Unreachable');
      expect(o.pathToRoot[o.pathToRoot.length - 1].object).toEqual(o.object);
      expect(o.pathNote).toBe(
        'no GC root reaches this object (it is garbage the next collection would free): pathToRoot starts at "Unreachable", the pseudo-root the analysis hangs unreachable objects from, not a GC root',
      );
    }
  });

  it('a dump cut short: not shown to be garbage, in the usual mode and with reachableOnly', async () => {
    const usual = await paths(cut, 'java.util.HashMap$Node', false);
    expect(usual.unreachable.length).toBeGreaterThan(0);
    for (const o of usual.unreachable) {
      expect(o.pathNote).toMatch(/^no GC root this dump records reaches this object \(the dump is cut short: its root records after the cut are missing, so it is not shown to be garbage\): pathToRoot starts at "Unreachable"/);
    }
    const reachableOnly = await paths(cut, 'java.util.HashMap$Node', true);
    expect(reachableOnly.unreachable.length).toBeGreaterThan(0);
    for (const o of reachableOnly.unreachable) {
      expect(o.pathToRoot).toBeNull();
      expect(o.pathNote).toBe('no path: no GC root this dump records reaches this object (the dump is cut short: its root records after the cut are missing, so it is not shown to be garbage)');
    }
  });
});
