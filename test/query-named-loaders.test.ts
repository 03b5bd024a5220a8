// classes-per-loader counts every class record per defining loader, on HotSpot and ART alike
// (ART's ClassLoader has no `classes` field; HotSpot's lists only what Java code registered).
// The independent count: `describeClass` of every class name, one view per defining loader,
// each naming its loader's address (0x0: the bootstrap loader).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type Heap } from '../dist/index.js';
import { findNamedQuery } from '../ts/query/index.js';
import type { ObjectRef } from '../ts/query/schema.js';

const root = path.resolve(__dirname, '..');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const ahat = path.resolve(root, '../shared/corpus/ahat-test-dump.hprof');

/** The named query's rows as loader address (0x0 for NULL, the bootstrap loader) → classes. */
async function perLoader(heap: Heap): Promise<Map<string, number>> {
  const r = await heap.query(findNamedQuery('classes-per-loader')!.oql);
  expect(r.columns.map((c) => c.name)).toEqual(['loader', 'classes']);
  return new Map(r.rows.map(([l, n]) => [l === null ? '0x0' : (l as ObjectRef).address, n as number]));
}

/** The same count from the class look-ups. */
async function described(heap: Heap): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const name of heap.classNames()) {
    for (const c of await heap.describeClass(name)) out.set(c.loader, (out.get(c.loader) ?? 0) + 1);
  }
  return out;
}

const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => a.localeCompare(b));

describe('classes-per-loader on a HotSpot dump (KnownHeap, JDK 17)', () => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(known, { cache: false });
  });
  afterAll(() => heap?.close());

  it('counts every class of each defining loader, not the loader\'s `classes` list', async () => {
    const got = await perLoader(heap);
    expect(sorted(got)).toEqual(sorted(await described(heap)));
    // The application loader defined KnownHeap's 23 classes; its `classes` list holds 19.
    const app = await heap.query('SELECT l, l.classes.size FROM jdk.internal.loader.ClassLoaders$AppClassLoader l');
    const address = (app.rows[0]![0] as ObjectRef).address;
    expect([got.get(address), app.rows[0]![1]]).toEqual([23, 19]);
    expect(got.get('0x0')).toBe(783);
  });
});

if (!existsSync(ahat)) console.log(`skipped: ${ahat} is absent (the shared corpus is not beside the project)`);
describe.skipIf(!existsSync(ahat))('classes-per-loader on an ART dump (ahat\'s test dump)', () => {
  let heap: Heap;
  beforeAll(async () => {
    heap = await openHeap(ahat, { cache: false });
  });
  afterAll(() => heap?.close());

  it('runs where ClassLoader has no `classes` field, and counts the boot and app loaders\' classes', async () => {
    const got = await perLoader(heap);
    expect(sorted(got)).toEqual(sorted(await described(heap)));
    const loaders = await heap.query('SELECT l FROM dalvik.system.PathClassLoader l');
    expect(got.get((loaders.rows[0]![0] as ObjectRef).address)).toBe(27);
    expect(got.get('0x0')).toBe(1099);
  });
});
