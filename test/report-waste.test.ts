/**
 * The waste section's sentences in Markdown and HTML say what the figures are: the headline is the
 * overhead a change in the code would save (the reachable objects'), the overhead in unreachable
 * objects stated apart; the duplicate string values' bytes say how much of them lies inside
 * objects other checks count (an empty collection's, an object's waiting for finalization).
 */
import { describe, expect, test } from 'vitest';

import { renderHtml } from '../ts/report/html.js';
import { renderMarkdown } from '../ts/report/markdown.js';
import { validateReportModel } from '../ts/report/json.js';
import type { ReportModel } from '../ts/report/model.js';
import { sampleModel } from './report-sample.js';

/** The sample with the figures of a dump taken without a collection (the tester's e17-all). */
function nonLive(): ReportModel {
  const m = sampleModel();
  const w = m.waste;
  w.usedHeap = 8_600_000;
  w.overhead = 7_249_678;
  w.reachableOverhead = 233_356;
  w.unreachableOverhead = 7_016_322;
  w.overheadPercent = (w.overhead * 100) / w.usedHeap;
  w.reachableOverheadPercent = (w.reachableOverhead * 100) / w.usedHeap;
  w.unreachableOverheadPercent = (w.unreachableOverhead * 100) / w.usedHeap;
  return m;
}

/** The sample whose duplicate strings' check counts 4,368 B of the values' 4,928 B (the tester's e17). */
function stringsInsideOthers(inside: number): ReportModel {
  const m = sampleModel();
  const check = m.waste.categories.find((c) => c.check === 'duplicateStrings')!;
  m.waste.duplicateStrings.wastedBytes = check.overhead + inside;
  return m;
}

const text = (html: string) => html.replace(/<[^>]+>/g, '');

describe('waste section', () => {
  test('the headline is the reachable overhead; the unreachable part is stated apart', () => {
    const m = nonLive();
    expect(validateReportModel(m).ok).toBe(true);
    const md = renderMarkdown(m);
    const html = text(renderHtml(m));
    const sentence =
      '227.9 KiB (2.7%) of the 8.2 MiB heap is overhead that a change in the code would save; ' +
      'a further 6.7 MiB (81.6%) is in unreachable objects, which the next garbage collection frees (the checks count both).';
    expect(md).toContain(sentence);
    expect(html).toContain(sentence);
    expect(md).not.toContain('6.9 MiB (84.3%) of the');
    // The summary's figure is the same one, not the total of both.
    expect(md).toContain('- Waste: 227.9 KiB (2.7%), and 6.7 MiB (81.6%) in unreachable objects (see [Waste](#waste))');
    expect(html).toContain('Waste227.9 KiB (2.7%), and 6.7 MiB (81.6%) in unreachable objects');
  });

  test('a dump cut short: the overhead no root reaches is not called garbage the next collection frees', () => {
    const m = nonLive();
    m.waste.dumpCutShort = true;
    expect(validateReportModel(m).ok).toBe(true);
    const md = renderMarkdown(m);
    const html = text(renderHtml(m));
    const sentence =
      'a further 6.7 MiB (81.6%) is in objects no GC root this dump records reaches (it is cut short: the root records after the cut are missing, so they are not shown to be garbage) (the checks count both).';
    expect(md).toContain(sentence);
    expect(html).toContain(sentence);
    expect(md).not.toContain('next garbage collection frees');
    expect(md).toContain('- Waste: 227.9 KiB (2.7%), and 6.7 MiB (81.6%) in objects no GC root of this cut dump reaches (see [Waste](#waste))');
  });

  test('without unreachable overhead (a live dump, --reachable-only) the headline is as before', () => {
    const m = sampleModel();
    const sentence = '92.9 KiB (0.8%) of the 12.0 MiB heap is overhead that a change in the code would save. Each object';
    expect(renderMarkdown(m)).toContain(sentence);
    expect(text(renderHtml(m))).toContain(sentence);
    expect(renderMarkdown(m)).not.toContain('unreachable objects, which');
  });

  test('the duplicate string values say how much of their bytes other checks count', () => {
    const m = stringsInsideOthers(560);
    const line = '38,211 strings, 30,114 distinct values; 1,402 values occur more than once and waste ';
    const md = renderMarkdown(m);
    const html = text(renderHtml(m));
    for (const out of [md, html]) {
      expect(out).toContain(line);
      expect(out).toMatch(/values occur more than once and waste 19\.3 KiB, 560 B of it inside objects counted under other checks \(empty collections, objects waiting for finalization\)\./);
    }
    // Equal figures: nothing inside other checks, nothing said.
    const equal = stringsInsideOthers(0);
    expect(renderMarkdown(equal)).toMatch(/values occur more than once and waste 18\.7 KiB\.\n/);
    expect(text(renderHtml(equal))).toContain('values occur more than once and waste 18.7 KiB.');
  });
});
