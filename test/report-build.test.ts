/** buildReport on the demo dump: the model validates, names the leak, and renders in all three formats. */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type Heap } from '../ts/heap.js';
import { buildReport } from '../ts/session/index.js';
import { renderHtml, renderJson, renderMarkdown, validateReportModel, type ReportModel } from '../ts/report/index.js';
import { mdText } from '../ts/report/markdown.js';
import { REPORT_SCHEMA_VERSION } from '../ts/report/model.js';
import { VERSION } from '../ts/version.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const facts = JSON.parse(readFileSync(path.join(root, 'fixtures/demo/demo.facts.json'), 'utf8')) as {
  collections: { static_class: string; static_field: string; class: string }[];
  threads: { name: string; daemon: boolean }[];
};

describe('buildReport on demo.hprof', () => {
  let heap: Heap;
  let model: ReportModel;

  beforeAll(async () => {
    heap = await openHeap(demo);
    model = await buildReport(heap, {
      limit: 30,
      queries: [
        {
          name: 'sessions',
          oql: 'SELECT COUNT(*) AS n FROM Demo$Session',
          columns: [{ name: 'n', type: 'number' }],
          rows: [[400]],
          rowCount: 1,
          truncated: false,
          elapsedMs: 1,
        },
      ],
    });
  });

  afterAll(() => heap.close());

  test('the model validates and carries the envelope', () => {
    expect(validateReportModel(model)).toEqual({ ok: true, errors: [] });
    expect(model.schemaVersion).toBe(REPORT_SCHEMA_VERSION);
    expect(model.generator).toEqual({ name: 'heapql', version: VERSION });
    expect(Number.isNaN(Date.parse(model.generatedAt))).toBe(false);
    expect(model.queries.map((q) => q.name)).toEqual(['sessions']);
    const info = heap.info();
    expect(model.overview.file).toEqual({ path: info.path, size: info.fileSize, compression: 'none' });
    expect(model.overview.identifierSize).toBe(info.idSize);
    expect(model.overview.dumpTime).toBe(new Date(info.timestampMs).toISOString());
    expect(model.overview.reachableOnly).toBe(false);
    expect(model.overview.classHistogram.rows.length).toBeLessThanOrEqual(30);
  });

  test('class loaders: a row for each loader counted, the app classes measured like the bootstrap ones', () => {
    const o = model.overview;
    expect(o.classLoaders).toHaveLength(o.heap.classLoaders);
    const app = o.classLoaders.find((l) => l.name === 'app')!;
    const boot = o.classLoaders.find((l) => l.name === '<bootstrap>')!;
    expect(boot.loaderRetained).toBeNull();
    expect(app.loaderRetained).toBeGreaterThan(0);
    // The demo's cache hangs off a static of the class Demo, which the app loader defined.
    expect(app.retained).toBeGreaterThan(o.heap.usedHeap / 2);
    expect(o.classLoaders.map((l) => l.retained)).toEqual(o.classLoaders.map((l) => l.retained).sort((a, b) => b - a));
    for (const l of o.classLoaders.filter((x) => x.definedClasses === 0)) expect(l.retained).toBe(0);
  });

  test('the leak suspect is named after the static field that holds it', () => {
    const leak = facts.collections[0]!;
    const suspect = model.leakSuspects.suspects[0]!;
    expect(suspect.rank).toBe(1);
    expect(suspect.title).toBe(`${leak.static_class}.${leak.static_field}`);
    expect(suspect.retainedPercent).toBeGreaterThan(model.leakSuspects.thresholdPercent);
    const steps = suspect.pathToRoot!.steps;
    const map = steps.find((s) => s.via?.kind === 'staticField' && s.via.name === leak.static_field)!;
    expect(map.object.className).toBe(leak.class);
    expect(steps[steps.indexOf(map) - 1]!.object.label).toBe(`class ${leak.static_class}`);
    expect(steps.at(-1)!.object.objectId).toBe(suspect.accumulationPoint!.object.objectId);
    expect(steps[0]!.via).toBeNull();
  });

  test('threads come with their names, daemon flags and frames', () => {
    for (const t of facts.threads) {
      const thread = model.threads.threads.find((x) => x.name === t.name);
      expect(thread, t.name).toBeDefined();
      expect(thread!.daemon).toBe(t.daemon);
    }
    const worker = model.threads.threads.find((x) => x.name === 'http-worker-1')!;
    expect(worker.frames.some((f) => f.method === 'Demo$RequestHandler.awaitNextRequest')).toBe(true);
  });

  test('renders as Markdown, HTML and JSON', () => {
    const title = model.leakSuspects.suspects[0]!.title;
    const md = renderMarkdown(model);
    expect(md).toContain(mdText(title));
    expect(md).toContain('http-worker-1');
    const html = renderHtml(model);
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain(title);
    const json = JSON.parse(renderJson(model)) as ReportModel;
    expect(json.leakSuspects.suspects[0]!.title).toBe(title);
    expect(json.waste.duplicateStrings.strings).toBeGreaterThan(0);
  });

  test('the library method gives the same sections; reachable-only re-analyzes', async () => {
    const again = await heap.report({ limit: 30 });
    expect(again.leakSuspects).toEqual(model.leakSuspects);
    const live = await heap.report({ reachableOnly: true, limit: 30 });
    expect(live.overview.reachableOnly).toBe(true);
    expect(live.overview.heap.objects).toBe(model.overview.heap.objects - model.overview.heap.unreachableObjects);
    expect(validateReportModel(live).ok).toBe(true);
  });

  test('an unanalyzed session refuses the report data with ERR_NEEDS_ANALYSIS', async () => {
    const fresh = await openHeap(demo);
    try {
      await expect(fresh.reportData({})).rejects.toMatchObject({ code: 'ERR_NEEDS_ANALYSIS' });
    } finally {
      fresh.close();
    }
  });
});
