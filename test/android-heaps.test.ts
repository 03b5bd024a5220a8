/**
 * Android heaps (app, zygote, image) from HEAP DUMP INFO records, end to end on a dump written
 * from scratch: the session's `heaps()`, OQL's `@heap` (a filter, GROUP BY), `!obj`, the
 * summary's heaps table, the report's `overview.heaps` and suspects' `heaps` (validated against
 * the published schema) and how Markdown and HTML show them; nothing of it for a dump without
 * heaps.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { renderObject } from '../ts/repl/render.js';
import { buildReport } from '../ts/session/index.js';
import { renderHtml, renderMarkdown, renderWasteHtml, renderWasteMarkdown, validateReportModel, validateWasteModel, type ReportModel, type WasteCategory } from '../ts/report/index.js';
import { mdText } from '../ts/report/markdown.js';
import { buildSummary, renderSummary } from '../ts/report/summary.js';
import { sampleModel } from './report-sample.js';
import { writeHeapSplitDump } from './tools/heap-split-dump.js';
import { HprofWriter, T } from './tools/hprof-writer.js';

const root = path.resolve(__dirname, '..');
const dir = mkdtempSync(path.join(tmpdir(), 'heapql-heaps-'));

/** Ids of the objects of the dump. */
const ID = { zygoteArray: 0x5000, app: 0x6000, appData: 0x6010 } as const;

/**
 * The kit's classes first (before any HEAP DUMP INFO: heap `default`, 12 class objects), then
 * image: two byte[100]; zygote: three byte[1000] in an Object[3] that `com.example.Cache.blocks`
 * holds; app: a byte[5000] held by a `com.example.Cache` instance, a JNI global.
 */
function androidDump(file: string): string {
  const d = new HprofWriter();
  const object = d.defineClass('java.lang.Object', 0);
  d.defineClass('java.lang.Class', object);
  for (const p of ['boolean', 'char', 'float', 'double', 'byte', 'short', 'int', 'long']) d.defineClass(`${p}[]`, object);
  const objects = d.defineClass('java.lang.Object[]', object);
  const cache = d.defineClass('com.example.Cache', object, [['data', T.object]], [['blocks', T.object, ID.zygoteArray]]);
  d.heapInfo(0x49, 'image');
  for (let i = 0; i < 2; i++) d.primitiveArray(T.byte, 100, Buffer.alloc(100));
  d.heapInfo(0x5a, 'zygote');
  const blocks = [0, 1, 2].map(() => d.primitiveArray(T.byte, 1000, Buffer.alloc(1000)));
  d.objectArray(objects, blocks, ID.zygoteArray);
  d.heapInfo(0x41, 'app');
  d.primitiveArray(T.byte, 5000, Buffer.alloc(5000), ID.appData);
  d.instance(cache, [ID.appData], ID.app);
  d.roots.u1(0x01).u4(ID.app).u4(0);
  return d.write(file, { systemClassRoots: true, format: 'JAVA PROFILE 1.0.3' });
}

/** The per-heap figures the construction gives (Android sizes: a 12-byte array header, the instance size the class dump states). */
const EXPECTED = [
  { name: 'image', objects: 2, shallow: 2 * 112 },
  { name: 'zygote', objects: 4, shallow: 3 * 1012 + 12 + 3 * 4 },
  { name: 'app', objects: 2, shallow: 5012 + 4 },
];

let heap: HeapSession;
let demo: HeapSession;

beforeAll(async () => {
  heap = await openHeap(androidDump(path.join(dir, 'android.hprof')), { cache: false });
  demo = await openHeap(path.join(root, 'fixtures/demo/demo.hprof'), { cache: false });
});
afterAll(() => {
  heap.close();
  demo.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the heaps of an Android dump', () => {
  test('heaps(): every heap with objects, in the order the dump names them, default first', () => {
    const heaps = heap.heaps();
    expect(heaps.map((h) => h.name)).toEqual(['default', 'image', 'zygote', 'app']);
    expect(heaps[0]!.objects).toBe(12);
    expect(heaps.slice(1)).toEqual(EXPECTED);
    expect(heaps.reduce((n, h) => n + h.objects, 0)).toBe(heap.info().objectCount);
    expect(heaps.reduce((n, h) => n + h.shallow, 0)).toBe(heap.counts().totalShallow);
    expect(demo.heaps()).toEqual([]);
  });

  test('@heap filters and groups; NULL where the dump records no heaps', async () => {
    const app = await heap.query('SELECT COUNT(*), SUM(x.@usedHeapSize) FROM INSTANCEOF java.lang.Object x WHERE x.@heap = "app"');
    expect(app.rows).toEqual([[2, 5016]]);
    const grouped = await heap.query('SELECT x.@heap AS heap, COUNT(*) AS n, SUM(x.@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY x.@heap ORDER BY bytes DESC');
    expect(grouped.rows.slice(0, 3)).toEqual(EXPECTED.map((e) => [e.name, e.objects, e.shallow]).reverse());
    expect(grouped.rows[3]![0]).toBe('default');
    const none = await demo.query('SELECT x.@heap AS heap, COUNT(*) AS n FROM INSTANCEOF java.lang.Object x GROUP BY x.@heap');
    expect(none.rows).toEqual([[null, demo.info().objectCount]]);
  });

  test('!obj shows the heap; not on a dump without heaps', async () => {
    const o = await heap.object(heap.resolveObject('0x6000'));
    expect(o.heap).toBe('app');
    expect(renderObject(o)).toMatch(/\nheap +app\n/);
    const z = await heap.object(heap.resolveObject('0x5000'));
    expect(z.heap).toBe('zygote');
    const d = await demo.object(0);
    expect(d.heap).toBeNull();
    expect(renderObject(d)).not.toMatch(/\nheap /);
  });

  test('the summary lists the heaps, with their share; none for a dump without heaps', () => {
    const s = buildSummary(heap);
    expect(s.heaps?.slice(1)).toEqual(EXPECTED);
    const text = renderSummary(s);
    expect(text).toContain('\nHeaps (Android: zygote and image objects are shared with other processes)\n');
    expect(text).toMatch(/\n {2}heap +objects +shallow bytes +share\n/);
    const total = s.totalShallow;
    expect(text).toMatch(new RegExp(`\\n  zygote +4 +3,060 +${((100 * 3060) / total).toFixed(1)}%\\n`));
    const plain = buildSummary(demo);
    expect(plain).not.toHaveProperty('heaps');
    expect(renderSummary(plain)).not.toContain('Heaps');
  });

  test('the report: overview.heaps and each suspect\'s heaps validate, and Markdown and HTML show them', async () => {
    const model = await buildReport(heap, {});
    expect(validateReportModel(model)).toEqual({ ok: true, errors: [] });
    const heaps = model.overview.heaps!;
    expect(heaps.map(({ name, objects, shallow }) => ({ name, objects, shallow }))).toEqual(heap.heaps());
    expect(heaps.reduce((n, h) => n + h.shallowPercent, 0)).toBeCloseTo(100, 6);
    // The class histogram per heap (schema 9): each row's instances in each heap, against OQL.
    const perClass = await heap.query('SELECT classof(x) AS c, x.@heap AS heap, COUNT(*) AS n, SUM(x.@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY classof(x), x.@heap');
    const oql = perClass.rows.map(([c, h, n, b]) => [/^class (.+) @/.exec((c as { label: string }).label)![1], h, Number(n), Number(b)]);
    const rows = model.overview.classHistogram.rows.flatMap((r) => r.heaps!.map((h) => [r.className, h.name, h.instances, h.shallow]));
    const order = (a: unknown[], b: unknown[]) => `${a[0]}/${a[1]}`.localeCompare(`${b[0]}/${b[1]}`);
    expect(rows.sort(order)).toEqual(oql.sort(order));
    const bytes = model.overview.classHistogram.rows.find((r) => r.className === 'byte[]')!;
    expect(bytes.heaps!.map((h) => [h.name, h.instances, h.shallow])).toEqual([
      ['image', 2, 224],
      ['zygote', 3, 3036],
      ['app', 1, 5012],
    ]);
    expect(bytes.heaps!.find((h) => h.name === 'zygote')!.retained).toBe(3036);
    expect(model.leakSuspects.suspects.length).toBeGreaterThan(0);
    const app = model.leakSuspects.suspects.find((s) => s.object?.address === '0x6000');
    expect(app?.heaps).toEqual(['app']);
    const md = renderMarkdown(model);
    expect(md).toContain('### Heaps\n\n| heap | objects | shallow | % heap |');
    expect(md).toMatch(/\| zygote \| 4 \| 3\.0 KiB \| \d+\.\d% \|/);
    expect(md).toContain(`### Problem Suspect ${app!.rank}: ${app!.title} (app heap)`);
    const html = renderHtml(model);
    expect(html).toContain('<h3>Heaps</h3>');
    expect(html).toContain('<span class="note">(<bdi>app heap</bdi>)</span>');
  });
});

describe("an object's retained size split by heap", () => {
  test('retainedByHeap: the heaps of what each object retains, in the order asked; nothing on a dump without heaps', async () => {
    const [app, zygoteArray] = [heap.resolveObject('0x6000'), heap.resolveObject('0x5000')];
    const fresh = await openHeap(path.join(dir, 'android.hprof'), { cache: false });
    try {
      await expect(fresh.retainedByHeap([app])).rejects.toMatchObject({ code: 'ERR_NEEDS_ANALYSIS' });
    } finally {
      fresh.close();
    }
    await heap.analyze();
    // The app's Cache (4 B) keeps its byte[5000]; the zygote's Object[3] (24 B) its three byte[1000].
    expect(await heap.retainedByHeap([zygoteArray, app, zygoteArray])).toEqual([
      [{ name: 'zygote', retained: 24 + 3 * 1012 }],
      [{ name: 'app', retained: 4 + 5012 }],
      [{ name: 'zygote', retained: 24 + 3 * 1012 }],
    ]);
    await expect(heap.retainedByHeap([heap.info().objectCount])).rejects.toMatchObject({ code: 'ERR_NO_SUCH_OBJECT' });
    await expect(heap.retainedByHeap(app as unknown as number[])).rejects.toMatchObject({ code: 'ERR_ARGUMENT' });
    await demo.analyze();
    expect(await demo.retainedByHeap([0, 1])).toEqual([[], []]);
  });
});

describe('the waste of an Android dump, by heap', () => {
  /** (held by, heap, objects, overhead) of a check's rows. */
  const rows = (c: WasteCategory) => c.rows.map((r) => [r.holder.label, r.heap, r.objects, r.overhead]);

  test('each row names the heap its objects are in; the per-heap totals keep the app apart from zygote and image', async () => {
    const model = await heap.waste({});
    expect(validateWasteModel(model)).toEqual({ ok: true, errors: [] });
    const w = model.waste;
    const check = (name: string) => w.categories.find((c) => c.check === name)!;
    // Every array is all zeros: the first copy of each content is a zero tail, the others duplicates.
    expect(rows(check('zeroTailArrays'))).toEqual([
      ['com.example.Cache.data → byte[]', 'app', 1, 5000],
      ['com.example.Cache.blocks → byte[]', 'zygote', 1, 1000],
      ['unreachable → byte[]', 'image', 1, 100],
    ]);
    expect(rows(check('duplicateArrays'))).toEqual([
      ['com.example.Cache.blocks → byte[]', 'zygote', 2, 2 * 1012],
      ['unreachable → byte[]', 'image', 1, 112],
    ]);
    expect(w.heaps!.map(({ name, objects, overhead, reachableOverhead }) => [name, objects, overhead, reachableOverhead])).toEqual([
      ['default', 0, 0, 0],
      ['image', 2, 212, 0],
      ['zygote', 3, 3024, 3024],
      ['app', 1, 5000, 5000],
    ]);
    expect(w.heaps!.reduce((n, h) => n + h.overhead, 0)).toBe(w.overhead);
    expect(w.heaps!.reduce((n, h) => n + h.reachableOverhead, 0)).toBe(w.reachableOverhead);
    // Each heap's reachable bytes, against OQL over the reachable objects grouped by `@heap`:
    // the image's two byte[100] are garbage, so it has none and wastes nothing of them.
    const live = await heap.query('SELECT x.@heap AS heap, SUM(x.@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY x.@heap', { reachableOnly: true });
    const liveByHeap = new Map(live.rows.map(([h, b]) => [h as string, Number(b)]));
    expect(w.heaps!.map((h) => [h.name, h.reachableShallow])).toEqual(w.heaps!.map((h) => [h.name, liveByHeap.get(h.name) ?? 0]));
    expect(w.heaps!.map((h) => [h.name, h.reachableShallow])).toEqual([
      ['default', liveByHeap.get('default')],
      ['image', 0],
      ['zygote', 3 * 1012 + 12 + 3 * 4],
      ['app', 5012 + 4],
    ]);
    const zygote = w.heaps!.find((h) => h.name === 'zygote')!;
    expect(zygote.percentOfReachable).toBeCloseTo((3024 * 100) / 3060, 9);
    expect(w.heaps!.find((h) => h.name === 'image')!.percentOfReachable).toBe(0);

    const md = renderWasteMarkdown(model);
    expect(md).toContain('## Waste by heap\n\n| heap | objects | overhead | % heap | reachable | reachable heap | % of reachable heap |');
    expect(md).toMatch(/\| zygote \| 3 \| 3\.0 KiB \| \d+\.\d% \| 3\.0 KiB \| 3\.0 KiB \| 98\.8% \|/);
    expect(md).toMatch(/\| app \| 1 \| 4\.9 KiB \| \d+\.\d% \| 4\.9 KiB \| 4\.9 KiB \| 99\.7% \|/);
    expect(md).toContain('reachable heap: the shallow bytes of the heap\'s objects a GC root reaches');
    expect(md).toContain('| held by | heap | objects | overhead | % heap | example |');
    expect(md).toContain('| com.example.Cache.data → byte\\[\\] | app | 1 | 4.9 KiB |');
    const html = renderWasteHtml(model);
    expect(html).toContain('<h3 id="waste-heaps">Waste by heap</h3>');
    expect(html).toContain('<th class="n">% of reachable heap</th>');
    expect(html).toContain('<th>heap</th>');
    // The full report's waste section is the same.
    const report = await buildReport(heap, {});
    expect(report.waste.heaps).toEqual(w.heaps);
    expect(renderMarkdown(report)).toContain('### Waste by heap');
  });

  test('a dump without heaps: no heap in the rows, no per-heap table', async () => {
    const model = await demo.waste({});
    expect(validateWasteModel(model)).toEqual({ ok: true, errors: [] });
    expect(model.waste).not.toHaveProperty('heaps');
    expect(model.waste.categories.flatMap((c) => c.rows).every((r) => !('heap' in r))).toBe(true);
    const md = renderWasteMarkdown(model);
    expect(md).not.toContain('Waste by heap');
    expect(md).toContain('| held by | objects | overhead | % heap | example |');
  });
});

const ahat = path.resolve(root, '../shared/corpus/ahat-test-dump.hprof');
if (!existsSync(ahat)) console.log(`skipped: ${ahat} is absent (the shared corpus is not beside the project)`);
describe.skipIf(!existsSync(ahat))('the waste by heap of the AOSP ahat test dump, its objects spread over three heaps', () => {
  test("each heap's reachable bytes: OQL's, and those a reader written apart from heapql counts", async () => {
    // Its 338 HEAP DUMP INFO records: the first 100 image, up to 200 zygote, the rest app.
    const file = path.join(dir, 'ahat-split.hprof');
    writeHeapSplitDump(ahat, file, (k) => (k < 100 ? 'image' : k < 200 ? 'zygote' : 'app'));
    const h = await openHeap(file, { cache: false });
    try {
      const w = (await h.waste({})).waste;
      const live = await h.query('SELECT x.@heap AS heap, SUM(x.@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY x.@heap', { reachableOnly: true });
      const oql = new Map(live.rows.map(([name, b]) => [name as string, Number(b)]));
      expect(w.heaps!.map((x) => [x.name, x.reachableShallow])).toEqual(w.heaps!.map((x) => [x.name, oql.get(x.name)]));
      // A Python reader of the file's records (its own walk of every reference from the GC
      // roots, and the heap of each object from where it lies), with heapql's shallow size of
      // each object, gave these sums; the image also holds 9,340 bytes of garbage.
      expect(w.heaps!.map((x) => [x.name, x.reachableShallow])).toEqual([
        ['image', 265_194],
        ['zygote', 266_314],
        ['app', 1_228_112],
      ]);
      for (const x of w.heaps!) expect(x.percentOfReachable).toBeCloseTo((x.reachableOverhead * 100) / x.reachableShallow, 9);
      expect(w.heaps!.reduce((n, x) => n + x.reachableOverhead, 0)).toBe(w.reachableOverhead);
    } finally {
      h.close();
    }
  });
});

describe('renderers of a model with heaps', () => {
  const withHeaps = (names: string[]): ReportModel => {
    const m = sampleModel();
    m.overview.heaps = names.map((name, i) => ({ name, objects: 10 + i, shallow: 1000 * (i + 1), shallowPercent: 10 * (i + 1) }));
    const [first, second] = m.leakSuspects.suspects;
    first!.heaps = [names[names.length - 1]!];
    second!.heaps = names.slice(0, 2);
    return m;
  };

  test('several heaps: a table under the overview, each suspect labelled, what shared memory means', () => {
    const m = withHeaps(['app', 'zygote', 'image']);
    expect(validateReportModel(m)).toEqual({ ok: true, errors: [] });
    const md = renderMarkdown(m);
    expect(md).toContain('| zygote | 11 | 2.0 KiB | 20.0% |');
    expect(md).toContain("_Android: zygote and image objects are memory shared with the system's other processes");
    const [first, second] = m.leakSuspects.suspects;
    expect(md).toContain(`  - Problem Suspect 1: ${mdText(first!.title)} (image heap), `);
    expect(md).toContain(`### Problem Suspect 2: ${mdText(second!.title)} (app and zygote heaps)`);
    expect(md).toContain("| **Heap** | image — memory shared with the system's other processes, which the app cannot free |");
    expect(md).toContain('| **Heap** | app, zygote |');
    const html = renderHtml(m);
    expect(html).toContain('<td><bdi>zygote</bdi></td>');
    expect(html).toContain('(<bdi>app and zygote heaps</bdi>)');
  });

  test('one heap (an app-only dump) or none: no table, no labels', () => {
    const appOnly = withHeaps(['app']);
    appOnly.waste.heaps = [{ name: 'app', objects: 1, overhead: 10, overheadPercent: 1, reachableOverhead: 10, reachableShallow: 1000, percentOfReachable: 1 }];
    for (const r of appOnly.waste.categories.flatMap((c) => c.rows)) r.heap = 'app';
    expect(appOnly.waste.categories.some((c) => c.rows.length > 0)).toBe(true);
    for (const m of [appOnly, sampleModel()]) {
      expect(validateReportModel(m)).toEqual({ ok: true, errors: [] });
      const md = renderMarkdown(m);
      expect(md).not.toContain('### Heaps');
      expect(md).not.toMatch(/\((app|zygote|image)[a-z ,]* heaps?\)/);
      expect(md).not.toContain('**Heap**');
      expect(md).not.toContain('Waste by heap');
      expect(md).not.toContain('| held by | heap |');
      expect(renderHtml(m)).not.toContain('<h3>Heaps</h3>');
      expect(renderHtml(m)).not.toContain('Waste by heap');
    }
  });

  test('the schema closes a heap row and wants its fields', () => {
    const extra = withHeaps(['app', 'zygote']);
    (extra.overview.heaps![0] as Record<string, unknown>).retained = 5;
    expect(validateReportModel(extra).ok).toBe(false);
    const missing = withHeaps(['app', 'zygote']);
    delete (missing.overview.heaps![0] as Partial<{ shallowPercent: number }>).shallowPercent;
    expect(validateReportModel(missing).ok).toBe(false);
  });
});
