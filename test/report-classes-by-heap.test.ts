/**
 * Android: the class histogram per heap (`overview.classHistogram.rows[].heaps` in the JSON) in
 * the Markdown and HTML reports, "Classes by heap": a table per heap of a dump of several heaps,
 * the histogram's classes with instances there, the most retained there first. End to end
 * (`heapql <dump> out.md|out.html|out.json`) on the AOSP ahat test dump: its objects are all in
 * the app heap, so it shows no such table; a copy whose HEAP DUMP INFO records name image, zygote
 * and app (test/tools/heap-split-dump.ts: every object and reference of the real dump kept) shows
 * them, each figure the JSON's.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';

import { percent } from '../ts/report/format.js';
import { renderHtml, renderMarkdown, validateReportModel, type ReportModel } from '../ts/report/index.js';
import { formatBytes } from '../ts/report/summary.js';
import { requireFreshDist } from './clients/dist-check.js';
import { twoHeapModel } from './report-sample.js';
import { writeHeapSplitDump } from './tools/heap-split-dump.js';
import { heapql, root } from './tools/run.js';

const ahat = path.resolve(root, '../shared/corpus/ahat-test-dump.hprof');
if (!existsSync(ahat)) console.log(`skipped: ${ahat} is absent (the shared corpus is not beside the project)`);

const dir = mkdtempSync(path.join(tmpdir(), 'heapql-classes-by-heap-'));

interface Written {
  json: ReportModel;
  md: string;
  html: string;
}

/** The report of `dump` in the three formats, each written by the CLI to its file. */
async function reports(dump: string, name: string): Promise<Written> {
  const out: Record<string, string> = {};
  for (const ext of ['json', 'md', 'html']) {
    const file = path.join(dir, `${name}.${ext}`);
    const r = await heapql([dump, file, '--no-cache']);
    expect(r.code, r.stderr).toBe(0);
    out[ext] = readFileSync(file, 'utf8');
  }
  return { json: JSON.parse(out.json!) as ReportModel, md: out.md!, html: out.html! };
}

/** What each heap's table must hold, from the JSON alone: class, loader, instances, shallow, retained (bytes), % heap. */
function expectedByHeap(m: ReportModel): Map<string, [string, string, number, number, number, string][]> {
  const rows = m.overview.classHistogram.rows;
  const byHeap = new Map<string, [string, string, number, number, number, string][]>();
  for (const h of m.overview.heaps!) {
    const mine = rows
      .map((r, at) => ({ r, at, s: r.heaps!.find((x) => x.name === h.name) }))
      .filter((x) => x.s !== undefined)
      .sort((a, b) => b.s!.retained - a.s!.retained || a.at - b.at);
    byHeap.set(
      h.name,
      mine.map(({ r, s }) => [r.className, r.classLoader ?? '', s!.instances, s!.shallow, s!.retained, percent((s!.retained * 100) / m.overview.heap.usedHeap)]),
    );
  }
  return byHeap;
}

/** The Markdown tables under "### Classes by heap", by heap: each row's cells. */
function markdownTables(md: string): Map<string, string[][]> {
  const start = md.indexOf('\n### Classes by heap\n');
  expect(start, 'no "Classes by heap" section').toBeGreaterThan(0);
  const section = md.slice(start + 1, md.indexOf('\n### ', start + 1));
  const tables = new Map<string, string[][]>();
  for (const part of section.split('\n#### ').slice(1)) {
    const [title, ...lines] = part.split('\n');
    const cells = lines.filter((l) => l.startsWith('| ') && !l.startsWith('| class ') && !l.startsWith('| ---')).map((l) => l.slice(2, -2).split(' | ').map((c) => c.trim().replace(/\\(.)/g, '$1')));
    tables.set(title!.replace(/ heap$/, ''), cells);
  }
  return tables;
}

/** The HTML tables after `<h3>Classes by heap</h3>`, by heap: class, loader, instances, shallow bytes, retained bytes, % heap. */
function htmlTables(html: string): Map<string, string[][]> {
  const start = html.indexOf('<h3>Classes by heap</h3>');
  expect(start, 'no "Classes by heap" section').toBeGreaterThan(0);
  const section = html.slice(start, html.indexOf('<h3>', start + 1));
  const tables = new Map<string, string[][]>();
  for (const part of section.split('<h4>').slice(1)) {
    const heap = /^<bdi>([^<]*)<\/bdi> heap<\/h4>/.exec(part)![1]!;
    const rows = [...part.matchAll(/<tr><td><code>([^<]*)<\/code><\/td><td>([^<]*)<\/td><td class="n">([\d,]+)<\/td><td class="n"><span title="([\d,]+) bytes">[^<]*<\/span><\/td><td class="n"><span title="([\d,]+) bytes">[^<]*<\/span><\/td><td class="n">([\d.]+%)<\/td><\/tr>/g)];
    tables.set(heap, rows.map((r) => r.slice(1)));
  }
  return tables;
}

const num = (text: string) => Number(text.replace(/,/g, ''));
const unescapeHtml = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

describe.skipIf(!existsSync(ahat))('Classes by heap: the AOSP ahat test dump', () => {
  let split: Written;
  let whole: Written;

  beforeAll(async () => {
    requireFreshDist('report', 'cli/report.ts');
    // Its 338 HEAP DUMP INFO records: the first 100 image, up to 200 zygote, the rest app.
    const file = path.join(dir, 'ahat-split.hprof');
    writeHeapSplitDump(ahat, file, (k) => (k < 100 ? 'image' : k < 200 ? 'zygote' : 'app'));
    split = await reports(file, 'split');
    whole = await reports(ahat, 'whole');
  });

  test('the JSON: three heaps, each histogram row broken down by them', () => {
    const m = split.json;
    expect(m.overview.heaps!.map((h) => h.name)).toEqual(['image', 'zygote', 'app']);
    const rows = m.overview.classHistogram.rows;
    expect(rows.length).toBe(25);
    for (const r of rows) {
      expect(r.heaps!.reduce((n, h) => n + h.instances, 0)).toBe(r.instances);
      expect(r.heaps!.reduce((n, h) => n + h.shallow, 0)).toBe(r.shallow);
    }
    // Classes in more than one heap, in each heap's list.
    expect(rows.filter((r) => r.heaps!.length > 1).length).toBeGreaterThan(5);
  });

  test('Markdown: a table per heap, the most retained there first, every figure the JSON\'s', () => {
    const expected = expectedByHeap(split.json);
    const tables = markdownTables(split.md);
    expect([...tables.keys()]).toEqual(['image', 'zygote', 'app']);
    for (const [heap, rows] of expected) {
      expect(rows.length, heap).toBeGreaterThan(0);
      expect(tables.get(heap), heap).toEqual(rows.map(([c, l, n, shallow, retained, pct]) => [c, l, n.toLocaleString('en-US'), formatBytes(shallow), formatBytes(retained), pct]));
    }
    expect(split.md).toContain('_Of the 25 classes of the class histogram (the most retained over all heaps, of ');
    // Placed after the class histogram, before the class loaders.
    expect(split.md.indexOf('### Class histogram')).toBeLessThan(split.md.indexOf('### Classes by heap'));
    expect(split.md.indexOf('### Classes by heap')).toBeLessThan(split.md.indexOf('### Class loaders'));
  });

  test('HTML: the same tables, exact bytes in each size\'s title', () => {
    const expected = expectedByHeap(split.json);
    const tables = htmlTables(split.html);
    expect([...tables.keys()]).toEqual(['image', 'zygote', 'app']);
    for (const [heap, rows] of expected) {
      const got = tables.get(heap)!.map(([c, l, n, shallow, retained, pct]) => [unescapeHtml(c!), unescapeHtml(l!), num(n!), num(shallow!), num(retained!), pct]);
      expect(got, heap).toEqual(rows);
    }
    expect(split.html).toContain('<p class="note">Of the 25 classes of the class histogram');
  });

  test('one heap (the dump as it is, all in app): no such tables, though its JSON has the breakdown', () => {
    expect(whole.json.overview.heaps!.map((h) => h.name)).toEqual(['app']);
    expect(whole.json.overview.classHistogram.rows[0]!.heaps).toEqual([expect.objectContaining({ name: 'app' })]);
    expect(whole.md).toContain('### Class histogram');
    expect(whole.md).not.toContain('Classes by heap');
    expect(whole.html).toContain('<h3>Class histogram</h3>');
    expect(whole.html).not.toContain('Classes by heap');
  });
});

describe('Classes by heap: what bounds and orders the tables (a model made by hand)', () => {
  /** 60 histogram rows, all with instances in app, every third in zygote too; two app shares tie. */
  function model(): ReportModel {
    const m = twoHeapModel(60, (k) => [
      ...(k % 3 === 0 ? [{ name: 'zygote', instances: 1, shallow: 16, retained: 100 + k }] : []),
      // C1 and C2 tie in app: the histogram's order (C1 first) decides.
      { name: 'app', instances: 2, shallow: 32, retained: k === 2 ? 1000 - 1 : 1000 - k },
    ]);
    for (const row of m.overview.classHistogram.rows) row.classLoader = null;
    m.overview.classHistogram.classes = 80;
    return m;
  }

  test('each heap lists the histogram\'s classes in it, the most retained there first; Markdown stops at 50 a heap, as the histogram does', () => {
    const m = model();
    expect(validateReportModel(m)).toEqual({ ok: true, errors: [] });
    const md = markdownTables(renderMarkdown(m));
    expect([...md.keys()]).toEqual(['zygote', 'app']);
    expect(md.get('zygote')!.map((r) => r[0])).toEqual(Array.from({ length: 20 }, (_, i) => `com.example.C${57 - 3 * i}`));
    const app = md.get('app')!;
    expect(app.map((r) => r[0])).toEqual(['com.example.C0', 'com.example.C1', 'com.example.C2', ...Array.from({ length: 47 }, (_, i) => `com.example.C${i + 3}`)]);
    expect(app[0]).toEqual(['com.example.C0', '', '2', '32 B', '1000 B', percent((1000 * 100) / m.overview.heap.usedHeap)]);
    expect(renderMarkdown(m)).toContain('_50 of these 60 classes shown; the HTML and JSON reports list them all._');
    expect(renderMarkdown(m)).toContain('_Of the 60 classes of the class histogram (the most retained over all heaps, of 80): ');
    // HTML: all 60, in a closed <details> as every long table.
    const html = renderHtml(m);
    expect(htmlTables(html).get('app')!.length).toBe(60);
    expect(html).toContain('<details><summary>Classes in the app heap: 60 rows (show)</summary>');
  });

  test('rows without their heaps (a model of schema 8), or one heap: no section', () => {
    const old = model();
    for (const r of old.overview.classHistogram.rows) delete r.heaps;
    expect(renderMarkdown(old)).not.toContain('Classes by heap');
    expect(renderHtml(old)).not.toContain('Classes by heap');
    const one = model();
    one.overview.heaps = [{ name: 'app', objects: 100, shallow: 10000, shallowPercent: 100 }];
    expect(renderMarkdown(one)).not.toContain('Classes by heap');
    expect(renderHtml(one)).not.toContain('Classes by heap');
  });
});
