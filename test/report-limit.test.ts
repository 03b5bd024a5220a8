/**
 * One meaning of a report's `limit` on every front (README, "Lists and `limit`"): every list cut
 * at N rows, the threads too, never the leak suspects; the Summary's figures and the JSON's
 * totals are the whole dump's however the lists are cut. On GzSmall-jdk17 (4 leak suspects, 12
 * threads): the library (`reportData`, `report`), the server's `/report?limit=N`, MCP's
 * `get_report_section`, and the renderers on the sample model.
 */
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { McpContext } from '../ts/mcp/context.js';
import { compact } from '../ts/mcp/result.js';
import { createMcpServer } from '../ts/mcp/server.js';
import { renderHtml } from '../ts/report/html.js';
import { validateReportModel } from '../ts/report/json.js';
import { renderMarkdown } from '../ts/report/markdown.js';
import type { ReportModel } from '../ts/report/model.js';
import { createApp } from '../ts/server/app.js';
import { sampleModel } from './report-sample.js';

const root = path.resolve(__dirname, '..');
const dump = path.join(root, 'fixtures/dumps/gz/GzSmall-jdk17.hprof.gz');

const PORT = 7070;
type App = ReturnType<typeof createApp>;
const get = (app: App, p: string) => app.request(`http://127.0.0.1:${PORT}${p}`, { headers: { host: `127.0.0.1:${PORT}` } });

type Sections = Pick<ReportModel, 'overview' | 'leakSuspects' | 'topConsumers' | 'threads' | 'waste'>;
const sectionsOf = (m: Sections): Sections => ({ overview: m.overview, leakSuspects: m.leakSuspects, topConsumers: m.topConsumers, threads: m.threads, waste: m.waste });

/** Every list of the sections, by name, with its length. */
function listLengths(s: Sections): Record<string, number> {
  const out: Record<string, number> = {
    'overview.classHistogram.rows': s.overview.classHistogram.rows.length,
    'overview.classLoaders': s.overview.classLoaders.length,
    'overview.duplicateClasses': s.overview.duplicateClasses.length,
    'topConsumers.biggestObjects': s.topConsumers.biggestObjects.length,
    'topConsumers.biggestClasses': s.topConsumers.biggestClasses.length,
    'topConsumers.biggestClassLoaders': s.topConsumers.biggestClassLoaders.length,
    'topConsumers.biggestPackages': s.topConsumers.biggestPackages.length,
    'threads.threads': s.threads.threads.length,
    'waste.duplicateStrings.top': s.waste.duplicateStrings.top.length,
  };
  for (const x of s.leakSuspects.suspects) {
    out[`suspect ${x.rank} retainedByClass.rows`] = x.retainedByClass.rows.length;
    out[`suspect ${x.rank} biggestInstances`] = x.biggestInstances.length;
  }
  for (const c of s.waste.categories) out[`waste ${c.check} rows`] = c.rows.length;
  return out;
}

/** The list lengths the sections have once every list is cut at `n`. */
function cutAt(s: Sections, n: number): Record<string, number> {
  return Object.fromEntries(Object.entries(listLengths(s)).map(([k, v]) => [k, Math.min(v, n)]));
}

describe('a report limit on GzSmall-jdk17 (4 leak suspects, 12 threads)', () => {
  let heap: HeapSession;
  let whole: Sections;
  let app: App;

  beforeAll(async () => {
    heap = await openHeap(dump);
    await heap.analyze({ forReport: true });
    whole = await heap.reportData({});
    app = createApp(heap, { port: PORT, replScript: () => '' });
  });
  afterAll(() => heap?.close());

  test('the fixture has what these tests need: several threads, several suspects, long lists', () => {
    expect(whole.threads.threads.length).toBe(12);
    expect(whole.leakSuspects.suspects.length).toBe(4);
    expect(whole.overview.classHistogram.rows.length).toBe(25);
    expect(whole.waste.duplicateStrings.top.length).toBeGreaterThan(2);
  });

  test('library: reportData({limit}) cuts every list, the threads and duplicate strings too, and keeps every suspect and the totals', async () => {
    for (const n of [1, 2, 5]) {
      const capped = await heap.reportData({ limit: n });
      expect(listLengths(capped)).toEqual(cutAt(whole, n));
      expect(capped.threads.threads).toEqual(whole.threads.threads.slice(0, n));
      expect(capped.threads.threadCount).toBe(12);
      expect(capped.leakSuspects.suspects.map((s) => s.title)).toEqual(whole.leakSuspects.suspects.map((s) => s.title));
      expect(capped.overview.classHistogram.classes).toBe(whole.overview.classHistogram.classes);
      expect(capped.waste.duplicateStrings.duplicatedValues).toBe(whole.waste.duplicateStrings.duplicatedValues);
    }
    expect(whole.threads.threadCount).toBe(12);
    // topStrings, when given, counts the duplicate strings alone.
    expect((await heap.reportData({ limit: 1, topStrings: 3 })).waste.duplicateStrings.top).toHaveLength(3);
  });

  test('library: report({limit}) is a valid model with the same cut; its Markdown and HTML summaries count the whole dump', async () => {
    const model = await heap.report({ limit: 2 });
    expect(validateReportModel(model).ok).toBe(true);
    expect(listLengths(model)).toEqual(cutAt(whole, 2));
    const md = renderMarkdown(model);
    expect(md).toContain('\n- Threads: 12\n');
    expect(md).toContain('\n- Leak suspects: 4\n');
    expect(md.match(/^### Thread /gm)).toHaveLength(2);
    expect(md).toContain('_2 of 12 threads shown, the largest retained size first._');
    const html = renderHtml(model);
    expect(html).toContain('<div class="card">Threads<b>12</b></div>');
    expect(html).toContain('<div class="card">Leak suspects<b>4</b></div>');
  });

  test('server: /report?format=md&limit=1 states 4 suspects and 12 threads, listing every suspect', async () => {
    const md = await (await get(app, '/report?format=md&limit=1')).text();
    const summary = md.slice(md.indexOf('## Summary'), md.indexOf('## System Overview'));
    expect(summary).toContain('- Leak suspects: 4\n');
    expect(summary).toContain('- Threads: 12\n');
    expect(summary.match(/Problem Suspect \d/g)).toHaveLength(4);
    expect(md.match(/^### Problem Suspect /gm)).toHaveLength(4);
    expect(md.match(/^### Thread /gm)).toHaveLength(1);
    for (const n of [2, 12, 30]) expect(await (await get(app, `/report?format=md&limit=${n}`)).text()).toContain('\n- Threads: 12\n');
  });

  test('server: the JSON report and its sections are the library\'s at the same limit, with the thread total', async () => {
    for (const n of [1, 3, 30]) {
      const lib = await heap.reportData({ limit: n });
      const full = (await (await get(app, `/report?limit=${n}`)).json()) as ReportModel;
      expect(sectionsOf(full)).toEqual(lib);
      expect(full.threads.threadCount).toBe(12);
      expect(await (await get(app, `/report/threads?limit=${n}`)).json()).toEqual(lib.threads);
      expect(await (await get(app, `/report/leaks?limit=${n}`)).json()).toEqual(lib.leakSuspects);
      expect(await (await get(app, `/report/top?limit=${n}`)).json()).toEqual(lib.topConsumers);
      expect(await (await get(app, `/report/overview?limit=${n}`)).json()).toEqual(lib.overview);
    }
    // Without a limit: the library's default report (every thread).
    const none = (await (await get(app, '/report')).json()) as ReportModel;
    expect(sectionsOf(none)).toEqual(whole);
    expect(none.threads.threads).toHaveLength(12);
  });

  test('MCP: get_report_section caps like the library, threadCount is the total', async () => {
    const ctx = new McpContext({ path: dump, reachableOnly: false, log: { notice: () => {}, warn: () => {}, error: () => {} } });
    const server = createMcpServer(ctx);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'report-limit-test', version: '1.0.0' });
    await client.connect(clientSide);
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 2_147_483_647 });
      expect(r.isError).not.toBe(true);
      return JSON.parse((r.content as { text: string }[])[0]!.text);
    };
    try {
      await call('analyze_heap', {});
      const lib = await heap.reportData({ limit: 3 });
      // MCP shortens object references (compact); otherwise its sections are the library's.
      expect(await call('get_report_section', { section: 'threads', limit: 3 })).toEqual(compact({ section: 'threads', ...lib.threads }));
      expect(await call('get_report_section', { section: 'leak_suspects', limit: 3 })).toEqual(compact({ section: 'leak_suspects', ...lib.leakSuspects }));
      expect(await call('get_report_section', { section: 'overview', limit: 3 })).toEqual(compact({ section: 'overview', ...lib.overview }));
      const threads = await call('get_report_section', { section: 'threads', limit: 1 });
      expect(threads.threads).toHaveLength(1);
      expect(threads.threadCount).toBe(12);
    } finally {
      await client.close();
      await server.close();
      await ctx.close();
    }
  });
});

describe('renderers on the sample model: the summary counts the threads, not the rows', () => {
  function cappedSample(): ReportModel {
    const m = sampleModel();
    const all = m.threads.threads;
    m.threads = { threadCount: all.length, threads: all.slice(0, 1) };
    return m;
  }

  test('Markdown', () => {
    const m = cappedSample();
    expect(m.threads.threadCount).toBe(4);
    const md = renderMarkdown(m);
    expect(md).toContain('\n- Threads: 4\n');
    expect(md).toContain('_1 of 4 threads shown, the largest retained size first._');
    expect(renderMarkdown(sampleModel())).not.toContain('threads shown');
  });

  test('HTML', () => {
    const html = renderHtml(cappedSample());
    expect(html).toContain('<div class="card">Threads<b>4</b></div>');
    expect(html).toContain('<p class="note">1 of 4 threads shown, the largest retained size first.</p>');
  });

  test('the schema requires the thread total', () => {
    const m = sampleModel() as unknown as { threads: { threadCount?: number } };
    expect(validateReportModel(m).ok).toBe(true);
    delete m.threads.threadCount;
    expect(validateReportModel(m).ok).toBe(false);
  });
});

describe('the package tree under a limit', () => {
  test('keeps the biggest nodes in pre-order, as the native core does: a big top-level package is never cut for small nodes listed before it', async () => {
    const { capSections } = await import('../ts/report/limit.js');
    const node = (name: string, depth: number, retained: number) => ({ name, parent: name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : null, depth, objects: 1, retained, retainedPercent: 0 });
    const base = sectionsOf(sampleModel());
    const tree = [node('java', 0, 70), node('java.lang', 1, 60), node('java.lang.Tiny', 2, 2), node('sun', 0, 20), node('sun.misc', 1, 20)];
    const s = { ...base, topConsumers: { ...base.topConsumers, biggestPackages: tree } };
    const names = (n: number) => capSections(s, n).topConsumers.biggestPackages.map((p) => p.name);
    expect(names(2)).toEqual(['java', 'java.lang']);
    expect(names(3)).toEqual(['java', 'java.lang', 'sun']);
    expect(names(4)).toEqual(['java', 'java.lang', 'sun', 'sun.misc']);
    expect(capSections(s, undefined).topConsumers.biggestPackages).toHaveLength(5);
  });
});
