/**
 * OQL over a dump with virtual threads (fixtures/dumps/vthreads, `fixtures/make-fixtures.sh
 * VThreadHeap`, Temurin 25): every virtual thread is a GC root (`@GCRoots` has `Thread`), the
 * objects only its frames hold are `Java Local`s whose `dominatorof` is that thread and whose
 * retained size its `@retainedHeapSize` counts, and the named `retained-threads` query lists the
 * virtual threads. The serviceability agent's dump of the same program records no virtual
 * thread: the session's warnings say so, and a parked thread's local is no GC root there.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../dist/index.js';

const dir = path.resolve(__dirname, '../fixtures/dumps/vthreads');

type Ref = { objectId: number; className: string };

let heap: HeapSession;
beforeAll(async () => {
  heap = await openHeap(path.join(dir, 'VThreadHeap-jdk25.hprof.gz'), { noCache: true });
  await heap.analyze();
});
afterAll(() => heap?.close());

describe('virtual threads in OQL', () => {
  test('each virtual thread is a Thread root; what only its frames hold it dominates and retains', async () => {
    const threads = await heap.query('SELECT t, toString(t.name) AS name, t.@GCRoots AS roots, t.@retainedHeapSize AS retained FROM java.lang.VirtualThread t');
    const byId = new Map<number, { name: string; roots: string[]; retained: number }>();
    for (const [t, name, roots, retained] of threads.rows) {
      byId.set((t as Ref).objectId, { name: name as string, roots: roots as string[], retained: retained as number });
    }
    expect([...byId.values()].map((t) => t.name).sort()).toEqual(['vt-parked-0', 'vt-parked-1', 'vt-parked-2', 'vt-sleeping', 'vt-spinning']);
    for (const t of byId.values()) expect(t.roots).toContain('Thread');

    const held = await heap.query(
      'SELECT x, classof(x).@displayName AS cls, x.@GCRoots AS roots, dominatorof(x) AS dom, x.@retainedHeapSize AS retained ' +
        'FROM INSTANCEOF java.lang.Object x WHERE classof(x).@displayName LIKE "VThreadHeap\\$.*VirtualLocal"',
    );
    const holders: string[] = [];
    for (const [, cls, roots, dom, retained] of held.rows) {
      expect(roots).toEqual(['Java Local']);
      const holder = byId.get((dom as Ref).objectId);
      expect(holder, `${cls} is dominated by a virtual thread`).toBeDefined();
      expect(holder!.retained).toBeGreaterThan(retained as number);
      holders.push(`${holder!.name} ${cls}`);
    }
    expect(holders.sort()).toEqual([
      'vt-parked-0 VThreadHeap$ParkedVirtualLocal',
      'vt-parked-1 VThreadHeap$ParkedVirtualLocal',
      'vt-parked-2 VThreadHeap$ParkedVirtualLocal',
      'vt-sleeping VThreadHeap$SleepingVirtualLocal',
      'vt-spinning VThreadHeap$SpinningVirtualLocal',
    ]);
    // Held by two virtual threads: a local of both, dominated by neither.
    const shared = await heap.query('SELECT x.@GCRoots, dominatorof(x) FROM VThreadHeap$SharedLocal x');
    expect(shared.rows).toEqual([[['Java Local'], null]]);
  });

  test('retained-threads lists the virtual threads by what they retain', async () => {
    const r = await heap.query(
      'SELECT t AS thread, toString(t.name) AS name, t.@retainedHeapSize AS retained_bytes FROM INSTANCEOF java.lang.Thread t ORDER BY retained_bytes DESC',
    );
    const names = r.rows.map((row) => row[1]);
    // The spinning one holds the biggest local (long[5000]), then the sleeping one (long[4000]).
    expect(names.slice(0, 2)).toEqual(['vt-spinning', 'vt-sleeping']);
    for (const n of ['vt-parked-0', 'vt-parked-1', 'vt-parked-2']) expect(names).toContain(n);
    expect(heap.warnings().filter((w) => w.message.includes('no thread record'))).toEqual([]);
  });

  test("the agent's dump, which records no virtual thread, warns and roots no parked thread's local", async () => {
    const sa = await openHeap(path.join(dir, 'VThreadHeap-jdk25-sa.hprof.gz'), { noCache: true });
    try {
      const w = sa.warnings().filter((x) => x.message.includes('no thread record'));
      expect(w).toHaveLength(1);
      expect(w[0]!.message).toMatch(/^\d+ virtual threads? \(e\.g\. 0x[0-9a-f]+\) (has|have) frames in jdk\.internal\.vm\.StackChunk objects/);
      const r = await sa.query('SELECT x.@GCRoots FROM VThreadHeap$ParkedVirtualLocal x');
      expect(r.rowCount).toBeGreaterThan(0);
      for (const [roots] of r.rows) expect(roots).toBeNull();
    } finally {
      sa.close();
    }
  });
});
