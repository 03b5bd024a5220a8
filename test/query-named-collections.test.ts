// The collection named queries count maps and map-backed sets too (a Map is no
// AbstractCollection, and HashSet / TreeSet keep their size in their backing map), with sizes
// read exactly from the JDK's fields. Expected numbers: the KnownHeap program's facts
// (fixtures/dumps/*.facts.json: HashMap 500, ArrayList 250, LinkedList 1000) and counts made
// from the raw dumps by an independent HPROF reader, with Java's own size() of each class (a
// ConcurrentHashMap's counter cells summed).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type Heap } from '../dist/index.js';
import { findNamedQuery } from '../ts/query/index.js';
import type { ObjectRef, QueryResult } from '../ts/query/schema.js';

const root = path.resolve(__dirname, '..');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const jdk11 = path.resolve(root, '../shared/corpus/openjdk_jdk11_04_x64.hprof.gz');

const className = (v: unknown): string => (v as ObjectRef).label.replace(/^class /, '').replace(/ @ 0x[0-9a-f]+$/, '');
const oql = (name: string): string => findNamedQuery(name)!.oql;
/** large-collections with a lower threshold: the fixtures hold no collection above 1000. */
const largerThan = (n: number): string => oql('large-collections').replace('> 1000', `> ${n}`);
const perClass = (r: QueryResult): [string, unknown][] => r.rows.map((row) => [className(row[0]), row[1]]);
const sizes = (r: QueryResult): [string, unknown][] => r.rows.map((row) => [className(row[1]), row[2]]);

describe('collection named queries on KnownHeap (JDK 17)', () => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(known, { cache: false });
  });
  afterAll(() => heap?.close());

  it('empty-collections counts empty maps and sets, not only AbstractCollections with a size field', async () => {
    const r = await heap.query(oql('empty-collections'));
    expect(r.columns.map((c) => c.name)).toEqual(['class', 'empty']);
    expect(perClass(r)).toEqual([
      ['java.util.concurrent.ConcurrentHashMap', 19],
      ['java.util.ArrayList', 4],
      ['java.util.HashSet', 2],
      ['java.util.HashMap', 2],
      ['java.util.ImmutableCollections$SetN', 1],
      ['java.util.ImmutableCollections$MapN', 1],
    ]);
  });

  it('large-collections sizes maps and lists alike (the facts: HashMap 500, ArrayList 250, LinkedList 1000)', async () => {
    const r = await heap.query(largerThan(200));
    expect(r.columns.map((c) => c.name)).toEqual(['collection', 'class', 'size']);
    expect(sizes(r)).toEqual([
      ['java.util.LinkedList', 1000],
      ['java.util.concurrent.ConcurrentHashMap', 741],
      ['java.util.HashMap', 500],
      ['java.util.ArrayList', 250],
    ]);
    expect((await heap.query(oql('large-collections'))).rowCount).toBe(0);
  });

  it('a HashSet\'s size is its backing map\'s', async () => {
    const r = await heap.query(`${largerThan(-1).replace(' LIMIT 20', '')}`);
    const bySet = await heap.query('SELECT s, s.map.size FROM INSTANCEOF java.util.HashSet s');
    const got = new Map(r.rows.map((row) => [(row[0] as ObjectRef).objectId, row[2]]));
    expect(bySet.rowCount).toBeGreaterThan(0);
    for (const [s, size] of bySet.rows) expect(got.get((s as ObjectRef).objectId)).toBe(size);
  });
});

if (!existsSync(jdk11)) console.log(`skipped: ${jdk11} is absent (the shared corpus is not beside the project)`);
describe.skipIf(!existsSync(jdk11))('collection named queries on the corpus JDK 11 dump', () => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(jdk11, { cache: false });
  });
  afterAll(() => heap?.close());

  it('empty-collections: every empty map and set kind (TreeSet, Hashtable, Properties, Vector, SetFromMap …)', async () => {
    const r = await heap.query(oql('empty-collections'));
    const got = new Map(perClass(r));
    expect(got).toEqual(new Map<string, number>([
      ['java.util.HashMap', 79], ['java.util.TreeMap', 28], ['java.util.concurrent.ConcurrentHashMap', 28],
      ['java.util.ArrayList', 21], ['java.util.LinkedHashMap', 20], ['java.util.Hashtable', 14], ['java.util.TreeSet', 14],
      ['java.util.HashSet', 12], ['java.util.WeakHashMap', 10], ['java.util.IdentityHashMap', 9], ['java.util.PriorityQueue', 9],
      ['java.util.Vector', 9], ['java.util.LinkedHashSet', 8], ['java.util.concurrent.PriorityBlockingQueue', 7],
      ['java.util.LinkedList', 5], ['javax.management.AttributeList', 5], ['javax.print.attribute.standard.PrinterStateReasons', 5],
      ['java.util.Properties', 4], ['javax.management.relation.RoleList', 4], ['javax.management.relation.RoleUnresolvedList', 4],
      ['javax.print.attribute.standard.JobStateReasons', 4], ['java.util.Collections$SetFromMap', 2],
      ['java.util.ImmutableCollections$MapN', 1], ['java.util.ImmutableCollections$SetN', 1], ['java.util.Stack', 1],
      ['javax.swing.UIDefaults', 1],
    ]));
  });

  it('views and sub-maps are not counted as collections of their own', async () => {
    const r = await heap.query(oql('empty-collections'));
    expect(perClass(r).map(([c]) => c).filter((c) => /\$(KeySet|Values|EntrySet|\w*SubMap)$/.test(c))).toEqual([]);
  });
});
