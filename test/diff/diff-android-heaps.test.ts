/**
 * `heapql diff` of two Android dumps with app, zygote and image heaps: the per-heap totals in
 * both dumps, and class and dominator rows per heap, so the app's own growth is told from the
 * system's shared memory and never netted against it; `--fail-if-grown` per heap and with a
 * heap named; nothing of it for dumps without heaps. On dumps written from scratch, and on two
 * copies of the AOSP ahat test dump whose objects are spread over heaps in two ways.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { openHeap } from '../../ts/index.js';
import { diffDumps, renderDiffHtml, renderDiffMarkdown, validateDiffModel, type DiffModel } from '../../ts/diff/index.js';
import { writeHeapSplitDump } from '../tools/heap-split-dump.js';
import { HprofWriter, T } from '../tools/hprof-writer.js';
import { heapql } from '../tools/run.js';
import { demoDump, knownDump, root } from './fixtures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'heapql-diff-heaps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Image: two byte[100]; zygote: `zygote` byte[1000]s; app: `app` byte[5000]s; each array a JNI global. */
function androidDump(name: string, zygote: number, app: number): string {
  const d = new HprofWriter();
  const object = d.defineClass('java.lang.Object', 0);
  d.defineClass('java.lang.Class', object);
  d.defineClass('byte[]', object);
  const global = (id: number) => d.roots.u1(0x01).u4(id).u4(0);
  d.heapInfo(0x49, 'image');
  for (let i = 0; i < 2; i++) global(d.primitiveArray(T.byte, 100, Buffer.alloc(100, i + 1)));
  d.heapInfo(0x5a, 'zygote');
  for (let i = 0; i < zygote; i++) global(d.primitiveArray(T.byte, 1000, Buffer.alloc(1000, i + 1)));
  d.heapInfo(0x41, 'app');
  for (let i = 0; i < app; i++) global(d.primitiveArray(T.byte, 5000, Buffer.alloc(5000, i + 1)));
  return d.write(path.join(dir, name), { systemClassRoots: true, format: 'JAVA PROFILE 1.0.3' });
}

describe('diff of two dumps with several heaps', () => {
  it('compares each heap\'s objects and shallow bytes, the app\'s growth apart from the zygote\'s', async () => {
    // The app grows by two byte[5000] (+10,024 B: a 12-byte header each), the zygote loses one byte[1000].
    const m = await diffDumps(androidDump('before.hprof', 3, 1), androidDump('after.hprof', 2, 3));
    expect(validateDiffModel(m)).toEqual({ ok: true, errors: [] });
    const rows = m.heaps!.map((h) => [h.name, h.objects.baseline, h.objects.current, h.shallow.baseline, h.shallow.current, h.shallow.delta]);
    expect(rows).toEqual([
      ['app', 1, 3, 5012, 3 * 5012, 2 * 5012],
      ['default', 3, 3, rows.find((r) => r[0] === 'default')![3], rows.find((r) => r[0] === 'default')![3], 0],
      ['image', 2, 2, 224, 224, 0],
      ['zygote', 3, 2, 3036, 2024, -1012],
    ]);
    expect(m.heaps!.reduce((n, h) => n + h.shallow.delta, 0)).toBe(m.usedHeap.delta);
    expect(m.heaps!.reduce((n, h) => n + h.objects.delta, 0)).toBe(m.objects.delta);

    const md = renderDiffMarkdown(m);
    expect(md).toContain('| app heap | 4.9 KiB (1 object) | 14.7 KiB (3 objects) | +9.8 KiB (+200.0%), +2 objects |');
    expect(md).toContain('| zygote heap | 3.0 KiB (3 objects) | 2.0 KiB (2 objects) | −1012 B (−33.3%), −1 object |');
    expect(renderDiffHtml(m)).toContain('<td>app heap</td>');
  });

  it('dumps without heaps: no heaps in the model, no heap rows', async () => {
    const m = await diffDumps(demoDump, demoDump);
    expect(m).not.toHaveProperty('heaps');
    expect(validateDiffModel(m).ok).toBe(true);
    expect(renderDiffMarkdown(m)).not.toMatch(/\| (app|zygote|image|default) heap \|/);
  });
});

/**
 * A zygote `com.example.Registry` (a JNI global) whose Object[4] holds four `com.example.Blob`s,
 * `zygote` of them zygote objects and the rest app objects, each Blob holding a byte[1000] of
 * its own heap: moving Blobs from the zygote to the app changes no total.
 */
function registryDump(name: string, zygote: number): string {
  const d = new HprofWriter();
  const object = d.defineClass('java.lang.Object', 0);
  d.defineClass('java.lang.Class', object);
  d.defineClass('byte[]', object);
  const objects = d.defineClass('java.lang.Object[]', object);
  const registry = d.defineClass('com.example.Registry', object, [['items', T.object]]);
  const blob = d.defineClass('com.example.Blob', object, [['data', T.object]]);
  const blobs = [0, 1, 2, 3].map(() => d.alloc());
  const made = (i: number) => d.instance(blob, [d.primitiveArray(T.byte, 1000, Buffer.alloc(1000, i + 1))], blobs[i]);
  d.heapInfo(0x5a, 'zygote');
  const items = d.objectArray(objects, blobs);
  d.roots.u1(0x01).u4(d.instance(registry, [items])).u4(0);
  for (let i = 0; i < zygote; i++) made(i);
  d.heapInfo(0x41, 'app');
  for (let i = zygote; i < 4; i++) made(i);
  return d.write(path.join(dir, name), { systemClassRoots: true, format: 'JAVA PROFILE 1.0.3' });
}

/** (class, heap, Δ instances, Δ shallow) of the model's class rows of `className`. */
const classRows = (m: DiffModel, className: string) => m.classes.filter((r) => r.className === className).map((r) => [r.heap, r.instances.delta, r.shallow.delta]);

/** Per heap, each class's instances and shallow bytes, by OQL (`@heap`) over the dump. */
async function oqlClassHeaps(file: string): Promise<Map<string, [number, number]>> {
  const h = await openHeap(file, { cache: false });
  try {
    const r = await h.query('SELECT classof(x) AS c, x.@heap AS heap, COUNT(*) AS n, SUM(x.@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY classof(x), x.@heap');
    const out = new Map<string, [number, number]>();
    for (const [c, heap, n, bytes] of r.rows) {
      const name = /^class (.+) @ 0x[0-9a-f]+$/i.exec((c as { label: string }).label)![1]!;
      out.set(`${name}\u0000${heap}`, [Number(n), Number(bytes)]);
    }
    return out;
  } finally {
    h.close();
  }
}

describe('class and dominator rows per heap', () => {
  // Three Blobs move from the zygote to the app (Blob is 4 B, its array 1012 B): no total changes.
  const blob = 4 + 1012;
  let model: DiffModel;

  it("a class that grew in the app heap and shrank in the zygote's has a row for each; its total did not move", async () => {
    const [before, after] = [registryDump('registry-before.hprof', 3), registryDump('registry-after.hprof', 0)];
    model = await diffDumps(before, after);
    expect(validateDiffModel(model)).toEqual({ ok: true, errors: [] });
    expect(model.usedHeap.delta).toBe(0);
    expect(classRows(model, 'com.example.Blob')).toEqual([
      ['app', 3, 12],
      ['zygote', -3, -12],
    ]);
    expect(classRows(model, 'byte[]')).toEqual([
      ['app', 3, 3 * 1012],
      ['zygote', -3, -3 * 1012],
    ]);
    // Each heap's row against OQL's `@heap` over each dump.
    const [b, c] = [await oqlClassHeaps(before), await oqlClassHeaps(after)];
    for (const r of model.classes) {
      const k = `${r.className}\u0000${r.heap}`;
      expect([r.instances.baseline, r.shallow.baseline], k).toEqual(b.get(k) ?? [0, 0]);
      expect([r.instances.current, r.shallow.current], k).toEqual(c.get(k) ?? [0, 0]);
    }
    // Retained per heap: each Blob is its own top in its heap (nothing of its class above it there).
    const blobApp = model.classes.find((r) => r.className === 'com.example.Blob' && r.heap === 'app')!;
    expect([blobApp.retained.baseline, blobApp.retained.current]).toEqual([blob, 4 * blob]);
  });

  it("a dominator's retained bytes are a row per heap: the registry's app part grew, its zygote part shrank", () => {
    const rows = model.dominators.rows.filter((r) => r.key === 'com.example.Registry');
    expect(rows.map((r) => [r.heap, r.status, r.retained.baseline, r.retained.current])).toEqual([
      ['app', 'grown', blob, 4 * blob],
      ['zygote', 'shrunk', 4 + 28 + 3 * blob, 4 + 28],
    ]);
  });

  it('Markdown and HTML: a heap column in the class and dominator tables, and what a row is', () => {
    const md = renderDiffMarkdown(model);
    expect(md).toContain('| Class | Loader | Heap | Instances | Δ instances | Shallow | Δ shallow | Δ retained |');
    expect(md).toContain('| `com.example.Blob` | \\<bootstrap\\> | app | 1 → 4 | +3 | 4 B → 16 B | +12 B (+300.0%) | +3.0 KiB |');
    expect(md).toContain('| Status | Path from a GC root | Heap | Retained | Δ retained |');
    expect(md).toContain('| grown | `com.example.Registry` | app | 1016 B → 4.0 KiB | +3.0 KiB +300.0% |');
    expect(md).toContain('Android: a row per class and heap');
    // The zygote's rows shrank: the tables show what grew, the JSON has them.
    expect(md).not.toMatch(/\| zygote \| \d/);
    const html = renderDiffHtml(model);
    expect(html).toContain('<th>Heap</th>');
    expect(html).toContain('<span class="nw">app</span>');
  });

  it('--fail-if-grown checks each heap\'s row on its own; @heap checks one heap; a heap neither dump has is a usage error', async () => {
    const [before, after] = [path.join(dir, 'registry-before.hprof'), path.join(dir, 'registry-after.hprof')];
    const gated = await diffDumps(before, after, { gate: ['com.example.Blob=10', 'com.example.Blob@zygote=1', 'com.example.Blob@app=20%'] });
    expect(gated.gate.offending.map((r) => [r.rule, r.heap, r.shallow.delta])).toEqual([
      ['com.example.Blob=10', 'app', 12],
      ['com.example.Blob@app=20%', 'app', 12],
    ]);
    expect(validateDiffModel(gated).ok).toBe(true);
    const r = await heapql(['diff', before, after, '--fail-if-grown', 'com.example.Blob=10']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('com.example.Blob (<bootstrap>, app heap): shallow +12 bytes (+300.0%), limit 10 bytes [com.example.Blob=10]');
    const image = await heapql(['diff', before, after, '--fail-if-grown', 'com.example.Blob@image=1']);
    expect(image.code).toBe(2);
    expect(image.stderr).toContain('neither dump has a heap "image"; their heaps are ');
    const plain = await heapql(['diff', demoDump, demoDump, '--fail-if-grown', 'java.lang.String@app=1']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('the rule names the heap "app", but the dumps do not both record Android heaps');
  });

  it('one dump with heaps and one without: totals, and a warning saying why', async () => {
    const m = await diffDumps(demoDump, path.join(dir, 'registry-after.hprof'));
    expect(m.classes.every((r) => r.heap === undefined)).toBe(true);
    expect(m.dominators.rows.every((r) => r.heap === undefined)).toBe(true);
    expect(m.warnings.some((w) => w.startsWith('the current dump records Android heaps (app, zygote, image) and the baseline dump does not'))).toBe(true);
  });

  it('dumps without heaps (HotSpot): no heap field, column or note, as before', async () => {
    const m = await diffDumps(demoDump, knownDump);
    expect(m.classes.length).toBeGreaterThan(0);
    expect(m.classes.some((r) => 'heap' in r) || m.dominators.rows.some((r) => 'heap' in r)).toBe(false);
    const md = renderDiffMarkdown(m);
    expect(md).toContain('| Class | Loader | Instances | Δ instances | Shallow | Δ shallow | Δ retained |');
    expect(md).toContain('| Status | Path from a GC root | Retained | Δ retained |');
    expect(md).not.toContain('Android:');
    expect(renderDiffHtml(m)).not.toContain('<th>Heap</th>');
  });
});

const ahat = path.resolve(root, '../shared/corpus/ahat-test-dump.hprof');
if (!existsSync(ahat)) console.log(`skipped: ${ahat} is absent (the shared corpus is not beside the project)`);
describe.skipIf(!existsSync(ahat))('the AOSP ahat test dump, its objects spread over heaps two ways', () => {
  it('objects that moved from the zygote to the app heap: every total the same, each class and dominator row per heap, checked by OQL', async () => {
    // Of the dump's HEAP DUMP INFO records (one per segment), the first 100 image, then zygote up
    // to 200 in the baseline and up to 150 in the current, the rest app.
    const split = (zygoteEnd: number) => (k: number) => (k < 100 ? 'image' : k < zygoteEnd ? 'zygote' : 'app');
    const [before, after] = [path.join(dir, 'ahat-before.hprof'), path.join(dir, 'ahat-after.hprof')];
    expect(writeHeapSplitDump(ahat, before, split(200))).toBe(338);
    writeHeapSplitDump(ahat, after, split(150));
    const m = await diffDumps(before, after);
    expect(validateDiffModel(m)).toEqual({ ok: true, errors: [] });
    expect([m.usedHeap.delta, m.objects.delta]).toEqual([0, 0]);
    expect(m.heaps!.map((h) => h.name).sort()).toEqual(['app', 'image', 'zygote']);
    const heapDelta = (name: string) => m.heaps!.find((h) => h.name === name)!.shallow.delta;
    expect(heapDelta('app')).toBeGreaterThan(0);
    expect(heapDelta('app')).toBe(-heapDelta('zygote'));
    expect(heapDelta('image')).toBe(0);
    // Per class, the heaps' changes net out to nothing, and each row is what OQL counts per heap.
    const [b, c] = [await oqlClassHeaps(before), await oqlClassHeaps(after)];
    const net = new Map<string, [number, number]>();
    for (const r of m.classes) {
      expect(r.heap).toMatch(/^(app|zygote)$/);
      const k = `${r.className}\u0000${r.heap}`;
      if (r.classes.baseline === 1 && r.classes.current === 1) {
        expect([r.instances.baseline, r.shallow.baseline], k).toEqual(b.get(k) ?? [0, 0]);
        expect([r.instances.current, r.shallow.current], k).toEqual(c.get(k) ?? [0, 0]);
      }
      const x = net.get(r.className) ?? [0, 0];
      net.set(r.className, [x[0] + r.instances.delta, x[1] + r.shallow.delta]);
    }
    expect(m.classes.length).toBeGreaterThan(20);
    for (const [name, d] of net) expect(d, name).toEqual([0, 0]);
    expect(m.classes.reduce((n, r) => n + r.shallow.delta * (r.heap === 'app' ? 1 : 0), 0)).toBe(heapDelta('app'));
    // Dominators: every path's heaps net out too (no object's total retained size moved).
    const byKey = new Map<string, number>();
    for (const r of m.dominators.rows) byKey.set(r.key, (byKey.get(r.key) ?? 0) + r.retained.delta);
    expect(m.dominators.rows.some((r) => r.retained.delta !== 0)).toBe(true);
    for (const [key, d] of byKey) expect(d, key).toBe(0);
  });
});
