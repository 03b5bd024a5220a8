import { describe, expect, test } from 'vitest';

import { withVizWarnings } from '../ts/report/charts.js';
import { renderHtml } from '../ts/report/html.js';
import { asciiBars, MARKDOWN_HISTOGRAM_ROWS, mdText, renderMarkdown } from '../ts/report/markdown.js';
import { percent } from '../ts/report/format.js';
import { displayWidth } from '../ts/terminal-text.js';
import { formatBytes } from '../ts/report/summary.js';
import { confusableThreads, HOSTILE, modelWithoutPaths, sampleModel } from './report-sample.js';

describe('Markdown report', () => {
  test('is deterministic: two renders differ only in the one timestamp line', () => {
    const a = renderMarkdown(sampleModel());
    expect(renderMarkdown(sampleModel())).toBe(a);
    const later = sampleModel();
    later.generatedAt = '2031-12-24T23:59:59.999Z';
    const b = renderMarkdown(later);
    const la = a.split('\n');
    const lb = b.split('\n');
    expect(lb.length).toBe(la.length);
    const differing = la.map((l, i) => (l === lb[i] ? -1 : i)).filter((i) => i >= 0);
    expect(differing).toHaveLength(1);
    expect(la[differing[0]]).toContain('2025-06-01T12:00:00.000Z');
    // elapsedMs varies between runs of the same query; the Markdown must not show it.
    const slower = sampleModel();
    slower.queries.forEach((q) => (q.elapsedMs *= 7));
    expect(renderMarkdown(slower)).toBe(a);
  });

  test("GC roots are the dump's records, by kind adding up to the total; unreachable pseudo-roots apart", () => {
    const md = renderMarkdown(sampleModel());
    expect(md).toContain('| **GC roots** | 2,960 (on 2,950 objects) |');
    expect(md).toContain('| **Unreachable objects** | 1,204 (60.0 KiB), under 61 pseudo-roots of the analysis (not GC roots) |');
    const rows = md.split('### GC roots by kind')[1].split('\n###')[0].split('\n').filter((l) => /^\| [^-k]/.test(l));
    expect(rows.reduce((sum, l) => sum + Number(l.split('|')[2].replace(/,/g, '')), 0)).toBe(2960);
    expect(rows.join('\n')).not.toMatch(/unreachable/i);
    const reach = sampleModel();
    reach.overview.reachableOnly = true;
    reach.overview.heap.unreachablePseudoRoots = 0;
    expect(renderMarkdown(reach)).toContain('| **Unreachable objects** | 1,204 (60.0 KiB), excluded (--reachable-only) |');
  });

  test('a model of a file with no heap dump says so, not "1 of 0"', () => {
    const none = sampleModel();
    none.overview.dumpIndex = { index: 0, count: 0 };
    expect(renderMarkdown(none)).toContain('| **Heap dump** | none: the file holds no heap dump records (no objects) |');
    expect(renderMarkdown(sampleModel())).toContain('| **Heap dump** | 1 of 1 |');
  });

  test("a path that starts at the analysis's pseudo-root of garbage does not call it a GC root", () => {
    const model = sampleModel();
    model.leakSuspects.suspects[0]!.pathToRoot!.rootKinds = ['Unreachable'];
    const md = renderMarkdown(model);
    expect(md).toMatch(/class Demo {2}\(retained 4\.8 MiB\) {2}\[unreachable: a pseudo-root of the analysis, not a GC root\]\n/);
    expect(md).not.toContain('GC root: Unreachable');
    const html = renderHtml(model);
    expect(html).toContain('<span class="root">unreachable: a pseudo-root of the analysis, not a GC root</span>');
    expect(html).not.toContain('GC root: Unreachable');
  });

  test('tells the truth about each section', () => {
    const md = renderMarkdown(sampleModel());
    for (const h of ['## Summary', '## System Overview', '## Leak Suspects', '## Top Consumers', '## Thread Overview', '## Waste', '### Duplicate string values', '## Queries']) {
      expect(md).toContain(`\n${h}\n`);
    }
    expect(md).toContain('### Problem Suspect 1: Demo.cache');
    expect(md).toContain('4.8 MiB (40.0%), 5,033,165 bytes');
    // The path from the GC root names the static field and the fields on the way.
    expect(md).toMatch(/class Demo {2}\(retained 4\.8 MiB\) {2}\[GC root: sticky class\]\n└─ static cache → java\.util\.HashMap @ 0x7f0a12c8/);
    expect(md).toContain('   └─ .table → java.util.HashMap$Node[] @ 0x7f0a1300');
    // Threads: stack frames with the locals each holds and what they retain.
    expect(md).toContain('at Demo$RequestHandler.awaitNextRequest()V (Demo.java:131)\n    local byte[] @ 0x7f0c0000  (retained 64.0 KiB)');
    expect(md).toMatch(/\| cache-evictor \| yes \| TIMED\\_WAITING \|/);
    // Every system property, GC roots by kind, loaders, duplicate classes, duplicate strings.
    for (const p of sampleModel().overview.systemProperties) expect(md).toContain(`| ${mdText(p.key)} | ${mdText(p.value)} |`);
    expect(md).toContain('| sticky class | 2,480 |');
    expect(md).toContain('| org.example.plugin.Config | app, plugin-loader-2 | 2 |');
    expect(md).toContain('| locale=en | 9 | 400 | 18.7 KiB |');
  });

  test('class loaders: one measure of the classes for every loader, the loader object apart, and every loader accounted for', () => {
    const md = renderMarkdown(sampleModel());
    expect(md).toContain('| loader | classes | instances | shallow | classes retain | % heap | loader object retains |');
    expect(md).toContain('| app | 16 | 1,402 | 23.3 KiB | 6.3 MiB | 52.5% | 12.9 KiB |');
    // The bootstrap loader has no object.
    expect(md).toMatch(/\| \\<bootstrap\\> \| 2,398 \| [^\n]* \| 2\.1 MiB \| 17\.1% \| — \|/);
    expect(md).toContain('_Classes retain: the classes a loader defined, taken together');
    expect(md).toContain('All 4 loaders._');
    // Capped below the count, the note says how many are listed; a loader defining no class is counted.
    const m = sampleModel();
    m.overview.classLoaders = m.overview.classLoaders.slice(0, 2);
    m.overview.heap.classLoaders = 5;
    expect(renderMarkdown(m)).toContain('The 2 loaders whose classes retain the most, of 5._');
    const idle = sampleModel();
    idle.overview.classLoaders[3] = { ...idle.overview.classLoaders[3]!, definedClasses: 0, instances: 0, shallow: 0, retained: 0, retainedPercent: 0 };
    expect(renderMarkdown(idle)).toContain('All 4 loaders, 1 of them defining no class._');
  });

  test('a suspect without a path: a group with no accumulation point has no single path; a single object is unreachable', () => {
    const [, one, many] = renderMarkdown(modelWithoutPaths()).split('\n## Top Consumers')[0].split(/\n### Problem Suspect \d+: /);
    expect(many).toContain('**Shortest path from a GC root**\n\n_No single path: the instances share no common accumulation point, so no one path from a GC root leads to them all._');
    expect(many).not.toContain('unreachable');
    expect(one).toContain('_No path to a GC root (the object is unreachable)._');
    // A group whose accumulation point has no path: that point is unreachable.
    const lost = sampleModel();
    lost.leakSuspects.suspects[1].pathToRoot = null;
    expect(renderMarkdown(lost)).toContain('_No path to a GC root (the accumulation point is unreachable)._');
  });

  test('escapes text from the dump: no raw markup, no broken table rows', () => {
    const m = sampleModel();
    m.overview.classHistogram.rows[0].className = HOSTILE;
    m.threads.threads[0].name = HOSTILE;
    m.waste.duplicateStrings.top[0].value = HOSTILE;
    m.leakSuspects.suspects[0].title = HOSTILE;
    const md = renderMarkdown(m);
    // Every `<`, `|`, `[` and `]` from the dump arrives backslash-escaped; the newline is visible.
    expect(md).not.toMatch(/(?<!\\)<(img|script)/);
    expect(md).not.toMatch(/(?<!\\)\]\(javascript:/);
    expect(md).toContain('\\<img src=x onerror="alert(1)"\\>\\|\\[x\\](javascript:alert(2))\\\\n\\<script\\>');
    // Each table row of the histogram still has its 6 cells.
    const row = md.split('\n').find((l) => l.includes('onerror') && l.includes('21,344'))!;
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(6);
  });

  test('caps the class histogram and says so', () => {
    const m = sampleModel();
    const base = m.overview.classHistogram.rows[0];
    m.overview.classHistogram.rows = Array.from({ length: 120 }, (_, i) => ({ ...base, className: `com.example.C${String(i).padStart(3, '0')}` }));
    const md = renderMarkdown(m);
    expect(md).toContain(`com.example.C${String(MARKDOWN_HISTOGRAM_ROWS - 1).padStart(3, '0')}`);
    expect(md).not.toContain(`com.example.C${String(MARKDOWN_HISTOGRAM_ROWS).padStart(3, '0')}`);
    expect(md).toContain(`_${MARKDOWN_HISTOGRAM_ROWS} of 2,616 classes shown, by retained size; the HTML and JSON reports list 120._`);
  });

  test('draws ASCII bars for a histogram, tables for pie and treemap', () => {
    const md = renderMarkdown(withVizWarnings(sampleModel()));
    expect(md).toContain('java.util.HashMap                       ' + '█'.repeat(40) + ' 1,890');
    expect(md).toContain('java.util.concurrent.ConcurrentHashMap  ████▌ 212');
    // piechart (q2, named "Biggest sessions"): only the table, under its name=.
    const pie = md.slice(md.indexOf('### Biggest sessions'), md.indexOf('### q3'));
    expect(pie).not.toContain('█');
    expect(pie).toContain('| Demo\\$Session | 11,590 |');
    const tm = md.slice(md.indexOf('### q3'), md.indexOf('### q4'));
    expect(tm).toContain('_The treemap is drawn in the HTML report; the table below has its data._');
    expect(tm).toContain('| java.util.HashMap | 90,720 |');
  });

  test('cap= limits the bars, not the table', () => {
    const m = sampleModel();
    m.queries[0].viz = { kind: 'histogram', cap: 2 };
    const md = renderMarkdown(m);
    const block = md.slice(md.indexOf('### q1'), md.indexOf('### Biggest sessions'));
    expect(block.split('\n').filter((l) => l.includes('█'))).toHaveLength(2);
    expect(block).toContain('_Chart shows the first 2 of 5 rows._');
    expect(block).toContain('| java.util.TreeMap | 4 |');
  });

  test('an un-drawable directive shows the table with a warning, keeping name=', () => {
    const m = sampleModel();
    m.queries[3].viz = { kind: 'histogram', name: 'Thread objects' };
    const md = renderMarkdown(withVizWarnings(m));
    expect(md).toContain('### Thread objects');
    expect(md).toContain('> **Warning:** Thread objects: cannot draw a histogram: the result has no numeric column to chart; showing the table');
    expect(md).toContain('| http-worker-1 | http-worker-1 |');
    expect(md).toContain('## Warnings\n\n- viz: Thread objects: cannot draw a histogram');
  });

  test('a $ is escaped, so a lambda or nested class name is never read as TeX math where Markdown renders it ($$Lambda$)', () => {
    expect(mdText('Demo$$Lambda$14/0x0000000800c03000')).toBe('Demo\\$\\$Lambda\\$14/0x0000000800c03000');
    const m = sampleModel();
    m.overview.classHistogram.rows[0]!.className = 'Outer$Inner$Deep';
    expect(renderMarkdown(m)).toContain('| Outer\\$Inner\\$Deep |');
  });

  test('asciiBars starts every bar in one column, whatever the labels: a CJK character or an emoji takes two cells', () => {
    const bars = asciiBars([{ label: '日本語', value: 8 }, { label: 'abc', value: 4 }, { label: '😀 x', value: 2 }, { label: '漢'.repeat(40), value: 1 }], 8).split('\n');
    // Where each bar starts, in the cells of a monospaced font.
    const starts = bars.map((l) => displayWidth(l.slice(0, l.search(/[█▏▎▍▌▋▊▉]/))));
    expect(new Set(starts).size).toBe(1);
    expect(bars[0]).toBe('日本語' + ' '.repeat(starts[0]! - 6) + '████████ 8');
    // A long label is cut to 48 cells (24 wide characters less one for the …), not 48 characters.
    expect(bars[3]!.startsWith('漢'.repeat(23) + '…')).toBe(true);
  });

  test('asciiBars uses eighth blocks and keeps zero rows', () => {
    expect(asciiBars([{ label: 'a', value: 16 }, { label: 'bb', value: 1 }, { label: 'c', value: 0 }], 4)).toBe('a   ████ 16\nbb  ▎ 1\nc   0');
  });
});

describe('a thread\'s locals in no frame of the dump', () => {
  test('are listed under its stack in Markdown and HTML, so its max local retained matches a row', async () => {
    const { renderHtml } = await import('../ts/report/html.js');
    const m = sampleModel();
    const t = m.threads.threads[0]!;
    const local = { object: { objectId: 999_999, address: '0xdeadbee0', className: 'byte[]', label: 'byte[3000] @ 0xdeadbee0' }, shallow: 3016, retained: 3016 };
    m.threads.threads[0] = { ...t, frames: [], otherLocals: [local], maxLocalRetained: 3016 };
    const md = renderMarkdown(m);
    expect(md).toContain('_No stack trace in the dump._\n\n```');
    expect(md).toMatch(/in no frame of the dump\n {4}local byte\[3000\] @ 0xdeadbee0 {2}\(retained 2\.9 KiB\)/);
    const html = renderHtml(m);
    expect(html).toContain('<li>in no frame of the dump<ul><li>local <code>byte[3000] @ 0xdeadbee0</code>');
  });
});

describe('a stack deeper than the listed frames', () => {
  test('says how many frames below are not listed, and the HTML summary counts them all', () => {
    const m = sampleModel();
    const t = m.threads.threads[0]!;
    m.threads.threads[0] = { ...t, framesLeftOut: 18_976 };
    const md = renderMarkdown(m);
    expect(md).toContain('… 18,976 deeper frames not listed (the report lists a stack\'s top 1024 frames');
    const html = renderHtml(m);
    expect(html).toContain(`${(t.frames.length + 18_976).toLocaleString('en-US')} frames,`);
    expect(html).toContain('<li>… 18,976 deeper frames not listed');
    expect(renderMarkdown(sampleModel())).not.toContain('deeper frame');
  });
});

describe('threads a reader could confuse', () => {
  test('each heading names the thread and its address; a nameless thread is (unnamed); a thread local and an instance row carry the address', () => {
    const m = confusableThreads();
    m.topConsumers.biggestObjects[1]!.object = { objectId: 99, address: '0x7f0e0000', className: 'java.lang.String', label: 'java.lang.String @ 0x7f0e0000  "hello"' };
    const md = renderMarkdown(m);
    // Two threads named dup: one heading each, told apart by the address the table's object column shows.
    expect(md).toContain('\n### Thread dup @ 0x7f0021a0\n');
    expect(md).toContain('\n### Thread dup @ 0x7f002000\n');
    expect(md).toContain('| java.lang.Thread @ 0x7f0021a0 |');
    // Every heading has the address, named or not; no heading is left empty.
    expect(md).toContain('\n### Thread _(unnamed)_ @ 0x7f002340\n');
    expect(md).toContain('\n### Thread _(unnamed)_ @ 0x7f0022d0\n');
    expect(md).not.toMatch(/^### Thread *$/m);
    // The table: an empty name and no name read alike, never an empty cell.
    expect(md.match(/^\| _\(unnamed\)_ \| /gm)).toHaveLength(2);
    // main holds both dup threads: labelled as threads, with their addresses.
    expect(md).toContain('    local thread "dup" @ 0x7f0021a0  (retained');
    expect(md).toContain('    local thread "dup" @ 0x7f002000  (retained');
    // The group suspect's biggest instances: the two dup threads apart.
    expect(md).toContain('| dup @ 0x7f0021a0 |');
    expect(md).toContain('| dup @ 0x7f002000 |');
    // Labels that carry their address already, and class objects, are unchanged.
    expect(md).toContain('    local byte[] @ 0x7f0c0000  (retained 64.0 KiB)');
    expect(md).toMatch(/^class Demo {2}\(retained/m);
    expect(md).toContain('| java.lang.String @ 0x7f0e0000  "hello" |');
  });
});

describe('sizes', () => {
  test('a size that would round to 1024.0 of a unit is given in the next unit', () => {
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(1_048_524)).toBe('1023.9 KiB');
    // 16 arrays of 65,536 bytes less a few non-zero ones: 1023.97 KiB, not "1024.0 KiB".
    expect(formatBytes(1_048_547)).toBe('1.0 MiB');
    expect(formatBytes(1_048_575)).toBe('1.0 MiB');
    expect(formatBytes(1024 ** 3 - 1)).toBe('1.0 GiB');
    const m = sampleModel();
    m.waste.categories[0].overhead = 1_048_547;
    expect(renderMarkdown(m)).toContain(`| ${m.waste.categories[0].title} | ${m.waste.categories[0].objects.toLocaleString('en-US')} | 1.0 MiB |`);
  });
});

describe('percentages', () => {
  test('a share that is not none never reads 0.0%, nor one short of the whole 100.0%', () => {
    expect(percent(0)).toBe('0.0%');
    expect(percent(100)).toBe('100.0%');
    expect(percent(12.345)).toBe('12.3%');
    expect(percent(0.05)).toBe('0.1%');
    // 1.9 KiB of a 5.3 MiB heap: the KnownHeap fixture's unreachable waste.
    expect(percent((1_946 * 100) / 5_536_752)).toBe('0.04%');
    expect(percent(0.0004)).toBe('0.0004%');
    expect(percent(99.97)).toBe('99.97%');
    expect(percent(99.9996)).toBe('99.9996%');
    const m = sampleModel();
    m.waste.unreachableOverhead = 1_946;
    m.waste.unreachableOverheadPercent = (1_946 * 100) / m.overview.heap.usedHeap;
    expect(m.waste.unreachableOverheadPercent).toBeLessThan(0.05);
    const md = renderMarkdown(m);
    expect(md).toMatch(/- Waste: .*, and 1\.9 KiB \(0\.0\d+%\) in unreachable objects/);
    expect(md).not.toContain('(0.0%)');
    expect(renderHtml(m)).toMatch(/and 1\.9 KiB \(0\.0\d+%\) in unreachable objects<\/b>/);
  });
});

describe('the thread table', () => {
  test('has the same columns in Markdown as in HTML, the priority included', () => {
    const m = sampleModel();
    const md = renderMarkdown(m);
    const html = renderHtml(m);
    const mdHead = md.split('## Thread Overview\n')[1]!.split('\n').find((l) => l.startsWith('| thread'))!;
    const mdCols = mdHead.split('|').slice(1, -1).map((c) => c.trim());
    const htmlSection = html.split('id="thread-overview"')[1]!.split('</thead>')[0]!;
    const htmlCols = [...htmlSection.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((x) => x[1]);
    expect(mdCols).toEqual(htmlCols);
    const t = m.threads.threads[0]!;
    expect(t.priority).not.toBeNull();
    const row = md.split('## Thread Overview\n')[1]!.split('\n').find((l) => l.includes(`| ${t.object.className} @ ${t.object.address} |`))!;
    expect(row.split('|')[4]!.trim()).toBe(String(t.priority));
  });
});
