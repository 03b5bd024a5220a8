import { describe, expect, test } from 'vitest';

import { withVizWarnings } from '../ts/report/charts.js';
import { COLLAPSE_ROWS, renderHtml } from '../ts/report/html.js';
import { barChartSvg, pieChartSvg, REST_COLOR, treemapSvg } from '../ts/report/svg.js';
import { confusableThreads, HOSTILE, modelWithoutPaths, sampleModel } from './report-sample.js';

describe('HTML report', () => {
  test('is one self-contained file: no script, no external resource, a CSP that forbids both', () => {
    const html = renderHtml(withVizWarnings(sampleModel()));
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<iframe|<img|@import|url\(/i);
    // The only absolute URL is the SVG namespace; every link is an in-page anchor.
    expect([...html.matchAll(/https?:\/\/[^\s"')<]+/g)].map((m) => m[0]).filter((u) => u !== 'http://www.w3.org/2000/svg')).toEqual([]);
    for (const m of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) expect(m[1]).toMatch(/^#/);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'`);
  });

  test('class loaders: the classes retain and the loader object retains, with what they mean', () => {
    const html = renderHtml(withVizWarnings(sampleModel()));
    for (const head of ['classes retain', 'loader object retains']) expect(html).toContain(`<th class="n">${head}</th>`);
    expect(html).toContain('<p class="note">Classes retain: the classes a loader defined, taken together');
    // The bootstrap loader has no object: its last cell is a dash.
    expect(html).toMatch(/<tr><td>&lt;bootstrap&gt;<\/td>.*<td class="n">—<\/td><\/tr>/);
  });

  test('carries every section and the charts', () => {
    const html = renderHtml(withVizWarnings(sampleModel()));
    for (const id of ['summary', 'system-overview', 'leak-suspects', 'top-consumers', 'thread-overview', 'waste', 'queries']) {
      expect(html).toContain(`<section id="${id}">`);
    }
    expect(html).toContain('<h3>Problem Suspect 1: Demo.cache</h3>');
    expect(html).toContain('<h3 id="waste-emptyCollections">Empty collections</h3>');
    expect(html).toContain('<code>com.acme.SessionStore.attributes → java.util.HashMap</code>');
    expect(html).toContain('<h3 id="duplicate-strings">Duplicate string values</h3>');
    expect(html).toContain('<code>static cache</code> → <code>java.util.HashMap @ 0x7f0a12c8</code>');
    // Summary pie, class histogram bars, biggest-objects pie, biggest-classes bars, packages treemap, waste bars, and the three query charts.
    expect(html.match(/<svg class="chart bar"/g)).toHaveLength(4);
    expect(html.match(/<svg class="chart pie"/g)).toHaveLength(3);
    expect(html.match(/<svg class="chart treemap"/g)).toHaveLength(2);
    // A thread's frames with their locals.
    expect(html).toContain('<li>at <code>Demo$RequestHandler.awaitNextRequest()V (Demo.java:131)</code><ul><li>local <code>byte[] @ 0x7f0c0000</code>');
  });

  test('a suspect without a path: a group with no accumulation point has no single path; a single object is unreachable', () => {
    const [, one, many] = renderHtml(modelWithoutPaths()).split('<section id="top-consumers">')[0].split(/<h3>Problem Suspect \d+: /);
    expect(many).toContain('<p>No single path: the instances share no common accumulation point, so no one path from a GC root leads to them all.</p>');
    expect(many).not.toContain('unreachable');
    expect(one).toContain('<p>No path to a GC root (the object is unreachable).</p>');
  });

  test('escapes everything from the dump, in text, attributes and SVG labels', () => {
    const m = sampleModel();
    m.overview.file.path = `/tmp/${HOSTILE}.hprof`;
    m.overview.classHistogram.rows[0].className = HOSTILE;
    m.overview.systemProperties[0].value = HOSTILE;
    m.threads.threads[0].name = HOSTILE;
    m.threads.threads[0].frames[1].method = HOSTILE;
    m.waste.duplicateStrings.top[0].value = HOSTILE;
    m.leakSuspects.suspects[0].title = HOSTILE;
    m.leakSuspects.suspects[0].explanation = HOSTILE;
    m.topConsumers.biggestPackages[0].name = HOSTILE;
    m.queries[0].rows[0][0] = HOSTILE;
    m.queries[0].oql = HOSTILE;
    m.queries[0].viz = { kind: 'histogram', title: HOSTILE, name: HOSTILE };
    m.queries[3].rows[0][1] = { objectId: 1, address: '0x1', className: HOSTILE, label: HOSTILE };
    const html = renderHtml(withVizWarnings(m));
    expect(html).not.toMatch(/<img|<script|onerror="/);
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;|[x](javascript:alert(2))\\n&lt;script&gt;alert(3)&lt;/script&gt;');
  });

  test("a query's OQL keeps its lines and tabs (escaped line by line), as the Markdown report's does", () => {
    const m = sampleModel();
    m.queries[0].oql = 'SELECT s\n\tFROM java.lang.String s\r\nWHERE s.@length < 3';
    const html = renderHtml(m);
    expect(html).toContain('<pre><code>SELECT s\n\tFROM java.lang.String s\nWHERE s.@length &lt; 3</code></pre>');
    expect(html).not.toContain('SELECT s\\n');
  });

  test('long tables start collapsed', () => {
    const m = sampleModel();
    const base = m.overview.classHistogram.rows[0];
    m.overview.classHistogram.rows = Array.from({ length: COLLAPSE_ROWS + 5 }, (_, i) => ({ ...base, className: `com.example.C${i}` }));
    const html = renderHtml(m);
    expect(html).toContain(`<details><summary>Class histogram: ${COLLAPSE_ROWS + 5} rows (show)</summary>`);
    // Short tables are shown open.
    expect(html).not.toContain('<summary>GC roots by kind');
  });

  test('charts: bars scale to the largest value, pie slices sum to a circle, treemap tiles fill the area', () => {
    const bar = barChartSvg([{ label: 'a', value: 100 }, { label: 'b', value: 25 }], { title: 't', width: 760 });
    const widths = [...bar.matchAll(/<rect x="280" y="[\d.]+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths).toEqual([374, 93.5]);
    const pie = pieChartSvg([{ label: 'a', value: 3 }, { label: 'b', value: 1 }], { title: 't' });
    expect(pie.match(/<path d="M/g)).toHaveLength(2);
    expect(pie).toContain('75.0%');
    const tm = treemapSvg({ label: 'root', value: 0, children: [{ label: 'a', value: 3 }, { label: 'b', value: 1 }] }, { title: 't', width: 400, height: 200 });
    const area = [...tm.matchAll(/width="(\d+)" height="(\d+)" fill=/g)].reduce((s, m) => s + Number(m[1]) * Number(m[2]), 0);
    // Two tiles with 2px inner padding between them cover the 400×200 area less the gutter.
    expect(area).toBe(398 * 200);
    expect(tm).toContain('<title>a: 3</title>');
  });
});

describe('treemap tiles', () => {
  test("a tile's figure is drawn whole or not at all (its tooltip has it), never cut to 107.6…", () => {
    const fmt = (n: number) => `${n.toFixed(1)} KiB`;
    // One big tile, and narrow ones whose label is cut but whose figure would not fit whole.
    const children = [{ label: 'big', value: 5000 }, ...Array.from({ length: 12 }, (_, i) => ({ label: `java.lang.Package${i}`, value: 107.6 }))];
    const tm = treemapSvg({ label: 'root', value: 0, children }, { title: 't', width: 760, height: 380, format: fmt });
    const figures = [...tm.matchAll(/<text x="0" y="28" class="tm tmv">([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(figures).toContain('5000.0 KiB');
    for (const f of figures) expect(f).toMatch(/^\d+\.\d KiB$/);
    // The narrow tiles still carry their figure in the tooltip.
    expect(tm).toContain('<title>java.lang.Package0: 107.6 KiB</title>');
    expect(figures.length).toBeLessThan(children.length);
  });
});

describe('pie charts', () => {
  test('no two slices share a colour: past nine, the rest are one "N more" slice; the rest of the heap keeps its grey', () => {
    const data = Array.from({ length: 13 }, (_, i) => ({ label: `thread-${i}`, value: 1000 - i * 10 }));
    const pie = pieChartSvg([...data, { label: 'Rest of the heap', value: 500, color: REST_COLOR }], { title: 't' });
    const fills = [...pie.matchAll(/<path d="M[^"]*" fill="([^"]+)"/g)].map((m) => m[1]);
    expect(fills).toHaveLength(11);
    expect(new Set(fills).size).toBe(fills.length);
    expect(pie).toContain('>thread-8<');
    expect(pie).not.toContain('>thread-9<');
    // thread-9 … thread-12 together: 910 + 900 + 890 + 880.
    expect(pie).toContain('<title>4 more: 3,580 (');
    expect(pie).toContain('<title>Rest of the heap: 500 (');
    // Ten slices or fewer are drawn as they are.
    expect(pieChartSvg(data.slice(0, 10), { title: 't' }).match(/<path d="M/g)).toHaveLength(10);
  });
});

describe('threads a reader could confuse', () => {
  test('each stack names the thread and its address; a nameless thread is (unnamed); a thread local and an instance row carry the address', () => {
    const html = renderHtml(confusableThreads());
    expect(html).toMatch(/<summary><bdi>dup<\/bdi> @ 0x7f0021a0: 6 frames, \d+ locals<\/summary>/);
    expect(html).toMatch(/<summary><bdi>dup<\/bdi> @ 0x7f002000: 2 frames, \d+ locals<\/summary>/);
    expect(html).toMatch(/<summary><i>\(unnamed\)<\/i> @ 0x7f002340: /);
    expect(html).toMatch(/<summary><i>\(unnamed\)<\/i> @ 0x7f0022d0: /);
    expect(html.match(/<tr><td><i>\(unnamed\)<\/i><\/td>/g)).toHaveLength(2);
    expect(html).toContain('<li>local <code>thread &quot;dup&quot; @ 0x7f0021a0</code>');
    expect(html).toContain('<li>local <code>thread &quot;dup&quot; @ 0x7f002000</code>');
    expect(html).toContain('<td><code>dup @ 0x7f0021a0</code></td>');
    expect(html).toContain('<td><code>dup @ 0x7f002000</code></td>');
    expect(html).toContain('local <code>byte[] @ 0x7f0c0000</code>');
  });
});
