/**
 * Text from the dump that is very long or carries bidirectional controls, in the human-readable
 * reports: a name of a megabyte is cut once (`… (cut from N characters)`), wherever it appears
 * (thread table, `### Thread` heading, each `local` line, class histogram, charts' tooltips),
 * while the JSON report keeps it exactly; bidi controls are escaped in Markdown (`\u202e`) and
 * escaped and isolated in HTML.
 */
import { describe, expect, test } from 'vitest';

import { cutDisplayText, DISPLAY_TEXT_MAX, displayModel } from '../ts/report/format.js';
import { renderHtml } from '../ts/report/html.js';
import { renderJson, validateReportModel } from '../ts/report/json.js';
import { renderMarkdown, renderMarkdownSection } from '../ts/report/markdown.js';
import { renderReport } from '../ts/report/output.js';
import { barChartSvg, pieChartSvg, treemapSvg } from '../ts/report/svg.js';
import { sampleModel } from './report-sample.js';

const LONG_THREAD = `worker-${'T'.repeat(1_000_000)}-end`; // 1,000,011 characters
const LONG_CLASS = `com.acme.${'C'.repeat(1_000_000)}`;
const LONG_VALUE = `/opt/${'v'.repeat(500_000)}.jar`;

/** The sample with a 1 MB thread name (also its object's label, so it is each of its locals'), class name and property value. */
function longModel() {
  const m = sampleModel();
  const t = m.threads.threads[0]!;
  t.name = LONG_THREAD;
  t.object.label = LONG_THREAD;
  for (const f of t.frames) for (const l of f.locals) l.object.label = LONG_THREAD;
  m.overview.classHistogram.rows[0]!.className = LONG_CLASS;
  m.topConsumers.biggestClasses[0]!.name = LONG_CLASS;
  m.overview.systemProperties[1]!.value = LONG_VALUE;
  return m;
}

const BIDI = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
const RAW_BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('very long text from the dump', () => {
  test('Markdown: each appearance cut with its full length; the file stays small', () => {
    const md = renderMarkdown(longModel());
    expect(md.length).toBeLessThan(100_000);
    const threadCut = `${LONG_THREAD.slice(0, DISPLAY_TEXT_MAX)}… (cut from 1,000,011 characters)`;
    expect(md).toContain(`### Thread ${threadCut}`);
    expect(md).toContain(`| ${threadCut} |`);
    expect(md).toContain(`    local ${threadCut} @ 0x7f0c0000  (retained`);
    expect(md).toContain(`| ${LONG_CLASS.slice(0, DISPLAY_TEXT_MAX)}… (cut from 1,000,009 characters) |`);
    expect(md).toContain(`${LONG_VALUE.slice(0, DISPLAY_TEXT_MAX)}… (cut from 500,009 characters)`);
    for (const line of md.split('\n')) expect(line.length).toBeLessThan(3 * DISPLAY_TEXT_MAX);
    // The server's one-section Markdown goes through the same boundary.
    expect(renderMarkdownSection(longModel(), 'threads').length).toBeLessThan(30_000);
  });

  test('HTML: cut the same way, the charts\' tooltips too', () => {
    const html = renderHtml(longModel());
    expect(html.length).toBeLessThan(150_000);
    expect(html).toContain(`${LONG_THREAD.slice(0, DISPLAY_TEXT_MAX)}… (cut from 1,000,011 characters)`);
    expect(html).toContain(`${LONG_CLASS.slice(0, DISPLAY_TEXT_MAX)}… (cut from 1,000,009 characters)`);
  });

  test('JSON: every value exact, and the model still valid against the schema', () => {
    const model = longModel();
    const json = JSON.parse(renderJson(model));
    expect(json.threads.threads[0].name).toBe(LONG_THREAD);
    expect(json.overview.classHistogram.rows[0].className).toBe(LONG_CLASS);
    expect(json.overview.systemProperties[1].value).toBe(LONG_VALUE);
    expect(() => validateReportModel(json)).not.toThrow();
    // The display copy is a valid model too (same shape, only strings shorter), and the input is untouched.
    expect(() => validateReportModel(displayModel(model))).not.toThrow();
    expect(model.threads.threads[0]!.name).toBe(LONG_THREAD);
  });

  test('the user\'s OQL of a folded-in query is never cut; its long cells are', () => {
    const m = sampleModel();
    const oql = `SELECT s FROM java.lang.String s WHERE ${Array.from({ length: 300 }, (_, i) => `s.@length = ${i}`).join(' OR ')}`;
    expect(oql.length).toBeGreaterThan(3 * DISPLAY_TEXT_MAX);
    m.queries[0]!.oql = oql;
    m.queries[0]!.rows[0]![0] = LONG_CLASS;
    for (const text of [renderMarkdown(m), renderHtml(m)]) {
      expect(text).toContain(oql);
      expect(text).toContain('… (cut from 1,000,009 characters)');
      expect(text.length).toBeLessThan(150_000);
    }
  });

  test('charts: a label of a megabyte is not copied into the SVG', () => {
    const data = [{ label: LONG_CLASS, value: 10 }, { label: 'short', value: 5 }];
    for (const svg of [barChartSvg(data, { title: 't' }), pieChartSvg(data, { title: 't' }), treemapSvg({ label: 'root', value: 0, children: data }, { title: 't' })]) {
      expect(svg.length).toBeLessThan(10_000);
      expect(svg).toContain('(cut from 1,000,009 characters)');
    }
  });

  test('cutDisplayText: short text unchanged, a cut states the first length once, no half surrogate pair', () => {
    expect(cutDisplayText('abc')).toBe('abc');
    const once = cutDisplayText(LONG_CLASS);
    expect(cutDisplayText(once)).toBe(once);
    const emoji = `${'x'.repeat(DISPLAY_TEXT_MAX - 1)}😀${'y'.repeat(10)}`;
    expect(cutDisplayText(emoji)).toBe(`${'x'.repeat(DISPLAY_TEXT_MAX - 1)}… (cut from ${(DISPLAY_TEXT_MAX + 11).toLocaleString('en-US')} characters)`);
  });
});

describe('bidirectional controls from the dump', () => {
  /** The sample with a right-to-left override in a thread name, a class name, a label and a suspect's title. */
  function bidiModel() {
    const m = sampleModel();
    const t = m.threads.threads[0]!;
    t.name = `rtl\u202egnp.exe ${BIDI.join('')}`;
    t.object.label = t.name;
    m.overview.classHistogram.rows[0]!.className = `evil\u202eCBA\u2066x\u2069`;
    m.leakSuspects.suspects[0]!.title = `title\u202e\u200fend`;
    return m;
  }

  test('Markdown escapes every one as \\uXXXX, as it does C0 controls', () => {
    const md = renderReport(bidiModel(), 'md');
    expect(md).not.toMatch(RAW_BIDI);
    expect(md).toContain('### Thread rtl\\\\u202egnp.exe \\\\u061c\\\\u200e\\\\u200f\\\\u202a\\\\u202b\\\\u202c\\\\u202d\\\\u202e\\\\u2066\\\\u2067\\\\u2068\\\\u2069');
    expect(md).toContain('```text\nat java.lang.Object.wait');
    expect(md).toContain('evil\\\\u202eCBA\\\\u2066x\\\\u2069');
  });

  test('HTML escapes them, and isolates dump text that stands among the report\'s own words', () => {
    const html = renderReport(bidiModel(), 'html');
    expect(html).not.toMatch(RAW_BIDI);
    expect(html).toContain('<summary><bdi>rtl\\u202egnp.exe \\u061c');
    expect(html).toMatch(/<summary><bdi>[^<]*<\/bdi> @ 0x7f0021a0: 6 frames, 3 locals<\/summary>/);
    expect(html).toContain('</a>: <bdi>title\\u202e\\u200fend</bdi>, ');
    // Names in <code> are isolated by the stylesheet.
    expect(html).toContain('code,bdi{unicode-bidi:isolate}');
  });
});
