/**
 * The HTML report: one self-contained file (inline CSS, charts as inline SVG, no script, no
 * external request — a Content-Security-Policy forbids them), readable from disk. Everything
 * from the dump is HTML-escaped: class names and strings are attacker-controlled. Dump text that
 * stands in a line of the report's own text is bidi-isolated, so right-to-left text cannot
 * reorder the words around it: in a `<code>` (the stylesheet isolates every one) or a `<bdi>`
 * (`isolateHtml`); text alone in a table cell is a paragraph of its own. Text longer than
 * DISPLAY_TEXT_MAX is cut with its full length stated (`displayModel`, applied once as the
 * model comes in).
 */
import { planQuery, queryChartSvg, type QueryView } from './charts.js';
import { baseName, displayModel, duplicateStringsHeadline, formatBytes, framesLeftOutText, frameText, HEAPS_NOTE, heapClassesNote, heapClassesShown, heapsShown, int, noPathText, objectText, overviewFacts, percent, rootNote, sizeWithPercent, suspectHeapFact, suspectHeaps, UNNAMED, valueText, viaText, WASTE_HEAPS_NOTE, wasteHeadline, wasteHeapsShown, wasteSummary } from './format.js';
import { escapeHtml as esc, escapeHtmlLines, isolateHtml } from './html-escape.js';
import { CLASS_LOADER_COLUMNS, classLoadersNote } from './markdown.js';
import type { ConsumerGroup, LeakSuspect, ReportModel, ReportWarning, ThreadInfo, Waste, WasteModel } from './model.js';
import type { QueryResult } from './query-result.js';
import { CHART_TEXT_CSS, barChartSvg, pieChartSvg, REST_COLOR, treemapSvg, type Datum, type TreeDatum } from './svg.js';

/** Tables longer than this start collapsed. */
export const COLLAPSE_ROWS = 20;
/** Classes drawn in the histogram chart of the overview (the table has them all). */
const CHART_CLASSES = 15;

/** The report's style sheet (the diff report uses it too). */
export const CSS = `
:root{--fg:#1d2330;--muted:#5d6677;--line:#d9dee7;--bg:#fff;--soft:#f4f6fa;--accent:#3b6fb6;--warn:#9a5b00}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:20px 32px 8px;border-bottom:1px solid var(--line)}
h1{font-size:22px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--accent)}
h3{font-size:16px;margin:22px 0 8px}h4{font-size:14px;margin:14px 0 6px}
.meta{color:var(--muted);margin:0}
nav{position:sticky;top:0;background:var(--bg);padding:8px 32px;border-bottom:1px solid var(--line);z-index:1;white-space:nowrap;overflow-x:auto}
nav a{margin-right:16px;color:var(--accent);text-decoration:none}
a{color:var(--accent)}
main{padding:0 32px 48px;max-width:1200px}
section,.suspect{scroll-margin-top:48px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th.k{background:none;font-weight:600;white-space:nowrap}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
code,bdi{unicode-bidi:isolate}
td,code{overflow-wrap:anywhere}
pre{background:var(--soft);padding:10px 12px;border-radius:4px;overflow-x:auto;white-space:pre-wrap}
details{margin:6px 0 12px}summary{cursor:pointer;color:var(--accent)}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}
.card{background:var(--soft);border-radius:6px;padding:10px 14px;min-width:150px}
.card b{display:block;font-size:18px}
.suspect{border-left:4px solid #c2413b;padding:2px 0 2px 14px;margin:18px 0}
.explain{font-size:15px}
.warn{color:var(--warn);border-left:4px solid var(--warn);padding:4px 10px;background:#fff8ec}
.note{color:var(--muted)}
ol.path{list-style:none;padding-left:0;margin:6px 0}
ol.path li{padding:2px 0}
.root{background:#e7eefa;border-radius:3px;padding:0 5px;font-size:12px;color:#2f5d9c}
.frames{list-style:none;padding-left:0}.frames li{padding:1px 0}.frames ul{margin:0 0 2px 0;padding-left:24px;color:var(--muted)}
svg.chart{display:block;max-width:100%;height:auto;margin:8px 0 14px}
table{display:block;max-width:100%;overflow-x:auto}
.chart-box{overflow-x:auto}.chart-box svg.chart{min-width:540px}
@media print{nav{position:static}table{display:table}.chart-box{overflow:visible}.chart-box svg.chart{min-width:0}details::details-content{content-visibility:visible}tr,li{break-inside:avoid}}
${CHART_TEXT_CSS}
`;

export const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export interface Col {
  head: string;
  num?: boolean;
}

/** A table from pre-escaped cells; long ones go into a closed <details>. */
export function table(cols: Col[], rows: string[][], what: string): string {
  const head = `<tr>${cols.map((c) => `<th${c.num ? ' class="n"' : ''}>${esc(c.head)}</th>`).join('')}</tr>`;
  const body = rows.map((r) => `<tr>${r.map((cell, i) => `<td${cols[i]?.num ? ' class="n"' : ''}>${cell}</td>`).join('')}</tr>`).join('\n');
  const html = `<table>\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
  if (rows.length <= COLLAPSE_ROWS) return html;
  return `<details><summary>${esc(what)}: ${int(rows.length)} rows (show)</summary>\n${html}\n</details>`;
}

function keyValues(rows: [string, string][]): string {
  return `<table>\n${rows.map(([k, v]) => `<tr><th scope="row" class="k">${esc(k)}</th><td>${v}</td></tr>`).join('\n')}\n</table>`;
}

const code = (s: string) => `<code>${esc(s)}</code>`;

/**
 * A chart in a box that scrolls sideways in a narrow window: the chart keeps a width its 12 px
 * labels stay readable at (shrunk to fit 400 px they were 5 px high) instead of the page
 * scrolling as a whole. '' for no chart.
 */
const chartBox = (svg: string): string => (svg ? `<div class="chart-box">${svg}</div>` : '');
const bytes = (n: number) => `<span title="${int(n)} bytes">${formatBytes(n)}</span>`;

export function renderHtml(full: ReportModel): string {
  const model = displayModel(full);
  const o = model.overview;
  const title = `Heap report: ${baseName(o.file.path)}`;
  const sections = [
    summary(model),
    systemOverview(model),
    leakSuspects(model),
    topConsumers(model),
    threads(model),
    wasteSection(model.waste),
    model.queries.length ? queries(model.queries) : '',
    warningsSection(model.warnings),
  ].filter(Boolean);
  const nav = [
    ['summary', 'Summary'],
    ['system-overview', 'System Overview'],
    ['leak-suspects', 'Leak Suspects'],
    ['top-consumers', 'Top Consumers'],
    ['thread-overview', 'Thread Overview'],
    ['waste', 'Waste'],
    ...(model.queries.length ? [['queries', 'Queries']] : []),
    ...(model.warnings.length ? [['warnings', 'Warnings']] : []),
  ]
    .map(([id, label]) => `<a href="#${id}">${label}</a>`)
    .join('');
  const meta = `Generated by heapql ${esc(model.generator.version)} at ${esc(model.generatedAt)} from ${code(o.file.path)}`;
  return page(title, `Heap report: ${code(baseName(o.file.path))}`, meta, model.generator.version, nav, sections);
}

function warningsSection(warnings: ReportWarning[]): string {
  if (!warnings.length) return '';
  return `<section id="warnings"><h2>Warnings</h2><ul>${warnings.map((w) => `<li class="warn">${esc(w.source)}: ${esc(w.message)}</li>`).join('')}</ul></section>`;
}

/** `heapql waste <dump>` as one HTML page: the waste section under its own title. */
export function renderWasteHtml(full: WasteModel): string {
  const model = displayModel(full);
  const sections = [
    wasteSection(model.waste),
    warningsSection(model.warnings),
  ].filter(Boolean);
  const meta = `Generated by heapql ${esc(model.generator.version)} at ${esc(model.generatedAt)} from ${code(model.file.path)}`;
  const name = baseName(model.file.path);
  return page(`Heap waste: ${name}`, `Heap waste: ${code(name)}`, meta, model.generator.version, '<a href="#waste">Waste</a>', sections);
}

/** The page around the sections (title, CSP, styles, header, navigation); `heading` and `meta` are HTML. */
function page(title: string, heading: string, meta: string, version: string, nav: string, sections: string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="heapql ${esc(version)}">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
<header><h1>${heading}</h1>
<p class="meta">${meta}</p></header>
<nav>${nav}</nav>
<main>
${sections.join('\n')}
</main>
</body>
</html>
`;
}

function summary(model: ReportModel): string {
  const h = model.overview.heap;
  const ls = model.leakSuspects.suspects;
  const cards = [
    ['Used heap', formatBytes(h.usedHeap)],
    ['Objects', int(h.objects)],
    ['Classes', `${int(h.classes)} loaded, ${int(model.overview.classHistogram.classes)} with instances`],
    ['Leak suspects', int(ls.length)],
    ['Threads', int(model.threads.threadCount)],
    ['Waste', wasteSummary(model.waste)],
  ]
    .map(([k, v]) => `<div class="card">${esc(k)}<b>${esc(v)}</b></div>`)
    .join('');
  let chart = '';
  if (ls.length > 0 && h.usedHeap > 0) {
    const data: Datum[] = ls.map((s) => ({ label: `Suspect ${s.rank}: ${s.title}`, value: s.retained }));
    const rest = h.usedHeap - ls.reduce((sum, s) => sum + s.retained, 0);
    if (rest > 0) data.push({ label: 'Rest of the heap', value: rest, color: REST_COLOR });
    chart = chartBox(pieChartSvg(data, { title: 'Leak suspects, share of the heap', format: formatBytes }));
  }
  const list = ls.length
    ? `<ul>${ls.map((s) => `<li><a href="#suspect-${s.rank}">Problem Suspect ${s.rank}</a>: ${isolateHtml(s.title)}${heapsLabel(model, s)}, ${sizeWithPercent(s.retained, s.retainedPercent)}</li>`).join('')}</ul>`
    : `<p>No object or group of objects of one class retains more than ${model.leakSuspects.thresholdPercent}% of the heap.</p>`;
  return `<section id="summary"><h2>Summary</h2><div class="cards">${cards}</div>${list}${chart}</section>`;
}

/** ` (zygote heap)` after a suspect's title on a dump of several heaps; '' otherwise. */
function heapsLabel(model: ReportModel, s: LeakSuspect): string {
  const heaps = suspectHeaps(model, s);
  return heaps ? ` <span class="note">(${isolateHtml(heaps)})</span>` : '';
}

/** Android: the heaps table, on a dump of several heaps. */
function heapsHtml(model: ReportModel): string {
  const heaps = heapsShown(model);
  if (!heaps) return '';
  const rows = heaps.map((h) => [isolateHtml(h.name), int(h.objects), bytes(h.shallow), percent(h.shallowPercent)]);
  return `\n<h3>Heaps</h3>${table([{ head: 'heap' }, { head: 'objects', num: true }, { head: 'shallow', num: true }, { head: '% heap', num: true }], rows, 'Heaps')}<p class="note">${esc(HEAPS_NOTE)}</p>`;
}

/** Android, a dump of several heaps: the histogram's classes in each heap, a table per heap; '' otherwise. */
function classesByHeapHtml(model: ReportModel): string {
  const byHeap = heapClassesShown(model);
  if (!byHeap) return '';
  const hist = model.overview.classHistogram;
  const tables = byHeap.map(({ heap, rows }) => {
    const body = rows.length
      ? table(
          [{ head: 'class' }, { head: 'loader' }, { head: 'instances', num: true }, { head: 'shallow', num: true }, { head: 'retained', num: true }, { head: '% heap', num: true }],
          rows.map(({ row, share, retainedPercent }) => [code(row.className), row.classLoader === null ? '' : esc(row.classLoader), int(share.instances), bytes(share.shallow), bytes(share.retained), percent(retainedPercent)]),
          `Classes in the ${heap.name} heap`,
        )
      : '<p>No class of the class histogram has instances in this heap.</p>';
    return `<h4>${isolateHtml(heap.name)} heap</h4>${body}`;
  });
  return `\n<h3>Classes by heap</h3>${tables.join('\n')}<p class="note">${esc(heapClassesNote(hist.rows.length, hist.classes))}</p>`;
}

function systemOverview(model: ReportModel): string {
  const o = model.overview;
  const kv = keyValues(overviewFacts(model).map(([k, v]): [string, string] => [k, esc(v)]));
  const roots = table([{ head: 'kind' }, { head: 'roots', num: true }], o.gcRoots.byKind.map((r) => [esc(r.kind), int(r.count)]), 'GC roots by kind');
  const rows = o.classHistogram.rows;
  const histChart = rows.length
    ? barChartSvg(
        rows.slice(0, CHART_CLASSES).map((r) => ({ label: r.className, value: r.retained })),
        { title: 'Classes by retained size', format: formatBytes },
      )
    : '';
  const hist = table(
    [{ head: 'class' }, { head: 'loader' }, { head: 'instances', num: true }, { head: 'shallow', num: true }, { head: 'retained', num: true }, { head: '% heap', num: true }],
    rows.map((r) => [code(r.className), r.classLoader === null ? '' : esc(r.classLoader), int(r.instances), bytes(r.shallow), bytes(r.retained), percent(r.retainedPercent)]),
    'Class histogram',
  );
  const histNote = rows.length < o.classHistogram.classes ? `<p class="note">The ${int(rows.length)} classes with the largest retained size, of ${int(o.classHistogram.classes)}.</p>` : '';
  const loaders = o.classLoaders.length
    ? table(
        CLASS_LOADER_COLUMNS.map((head, i) => (i === 0 ? { head } : { head, num: true })),
        o.classLoaders.map((l) => [
          (l.loader ? isolateHtml(l.name) : esc(l.name)) + (l.loader ? ` <span class="note">${esc(l.loader.className)} @ ${esc(l.loader.address)}</span>` : ''),
          int(l.definedClasses),
          int(l.instances),
          bytes(l.shallow),
          bytes(l.retained),
          percent(l.retainedPercent),
          l.loaderRetained === null ? '—' : bytes(l.loaderRetained),
        ]),
        'Class loaders',
      ) + `<p class="note">${esc(classLoadersNote(o))}</p>`
    : '<p>No class loaders.</p>';
  const dups = o.duplicateClasses.length
    ? table(
        [{ head: 'class' }, { head: 'loaders' }, { head: 'instances', num: true }],
        o.duplicateClasses.map((d) => [code(d.className), d.loaders.map(isolateHtml).join(', '), int(d.instances)]),
        'Duplicate classes',
      )
    : '<p>No class name is defined by more than one loader.</p>';
  const props = o.systemProperties.length
    ? `<details><summary>${int(o.systemProperties.length)} system properties (show)</summary>${table(
        [{ head: 'key' }, { head: 'value' }],
        o.systemProperties.map((p) => [code(p.key), code(p.value)]),
        'System properties',
      )}</details>`
    : '<p>The dump holds no system properties.</p>';
  return `<section id="system-overview"><h2>System Overview</h2>${kv}${heapsHtml(model)}
<h3>GC roots by kind</h3>${roots}
<h3>Class histogram</h3>${chartBox(histChart)}${hist}${histNote}${classesByHeapHtml(model)}
<h3>Class loaders</h3>${loaders}
<h3>Duplicate classes</h3>${dups}
<h3>System properties</h3>${props}</section>`;
}

function pathHtml(s: LeakSuspect): string {
  const p = s.pathToRoot;
  if (!p || p.steps.length === 0) return `<p>${esc(noPathText(s))}</p>`;
  const items = p.steps.map((step, i) => {
    const pad = `style="padding-left:${i * 18}px"`;
    const via = step.via ? `${code(viaText(step.via))} → ` : '';
    const root = i === 0 && p.rootKinds.length ? ` <span class="root">${esc(rootNote(p.rootKinds))}</span>` : '';
    return `<li ${pad}>${i > 0 ? '└ ' : ''}${via}${code(objectText(step.object))} <span class="note">retained ${formatBytes(step.retained)}</span>${root}</li>`;
  });
  return `<ol class="path">${items.join('')}</ol>`;
}

function suspectHtml(model: ReportModel, s: LeakSuspect): string {
  const heaps = suspectHeapFact(model, s);
  const facts: [string, string][] = [
    ['Retained', `${sizeWithPercent(s.retained, s.retainedPercent)}, ${int(s.retained)} bytes`],
    s.kind === 'group' ? ['Instances', `${int(s.instances)} of ${code(s.className)}`] : ['Object', s.object ? code(objectText(s.object)) : code(s.className)],
    ['Class', code(s.className)],
    ['Class loader', esc(s.classLoader ?? '<bootstrap>')],
  ];
  if (heaps) facts.push(['Heap', isolateHtml(heaps)]);
  if (s.accumulationPoint) facts.push(['Accumulation point', `${code(objectText(s.accumulationPoint.object))}, ${sizeWithPercent(s.accumulationPoint.retained, s.accumulationPoint.retainedPercent)}`]);
  if (s.keywords.length) facts.push(['Keywords', s.keywords.map(code).join(', ')]);
  const biggest = s.biggestInstances.length
    ? `<h4>Biggest instances</h4>${table(
        [{ head: 'object' }, { head: 'shallow', num: true }, { head: 'retained', num: true }, { head: '% heap', num: true }],
        s.biggestInstances.map((b) => [code(objectText(b.object)), bytes(b.shallow), bytes(b.retained), percent(b.retainedPercent)]),
        'Biggest instances',
      )}`
    : '';
  const rb = s.retainedByClass;
  return `<div class="suspect" id="suspect-${s.rank}"><h3>Problem Suspect ${s.rank}: ${esc(s.title)}${heapsLabel(model, s)}</h3>
<p class="explain">${esc(s.explanation)}</p>${keyValues(facts)}
<h4>Shortest path from a GC root</h4>${pathHtml(s)}${biggest}
<h4>Retained objects by class (${int(rb.objects)} objects of ${int(rb.classes)} classes)</h4>${table(
    [{ head: 'class' }, { head: 'objects', num: true }, { head: 'shallow', num: true }],
    rb.rows.map((r) => [code(r.className), int(r.objects), bytes(r.shallow)]),
    'Retained objects by class',
  )}</div>`;
}

function leakSuspects(model: ReportModel): string {
  const ls = model.leakSuspects;
  const intro = ls.suspects.length
    ? `<p class="note">Single objects and groups of one class that retain more than ${ls.thresholdPercent}% of the heap.</p>`
    : `<p>No object or group of objects of one class retains more than ${ls.thresholdPercent}% of the heap.</p>`;
  return `<section id="leak-suspects"><h2>Leak Suspects</h2>${intro}${ls.suspects.map((s) => suspectHtml(model, s)).join('\n')}</section>`;
}

function groupTable(rows: ConsumerGroup[], what: string): string {
  if (rows.length === 0) return '<p>None above the threshold.</p>';
  return table(
    [{ head: what }, { head: 'objects', num: true }, { head: 'shallow', num: true }, { head: 'retained', num: true }, { head: '% heap', num: true }],
    rows.map((r) => [code(r.name), int(r.objects), bytes(r.shallow), bytes(r.retained), percent(r.retainedPercent)]),
    what,
  );
}

/** The package tree as nested treemap data: a node's own value is its retained size minus its children's. */
function packageTree(model: ReportModel): TreeDatum {
  const nodes = model.topConsumers.biggestPackages;
  const retained = new Map(nodes.map((p) => [p.name, p.retained]));
  const byName = new Map<string, TreeDatum>(nodes.map((p) => [p.name, { label: p.name, value: 0, children: [] }]));
  const root: TreeDatum = { label: 'heap', value: 0, children: [] };
  for (const p of nodes) {
    const parent = p.parent !== null ? byName.get(p.parent) : undefined;
    (parent ?? root).children!.push(byName.get(p.name)!);
  }
  for (const p of nodes) {
    const node = byName.get(p.name)!;
    const kids = node.children!.reduce((s, c) => s + (retained.get(c.label) ?? 0), 0);
    node.value = Math.max(0, p.retained - kids);
    if (node.children!.length === 0) delete node.children;
  }
  return root;
}

function topConsumers(model: ReportModel): string {
  const t = model.topConsumers;
  const h = model.overview.heap;
  let objectsChart = '';
  if (t.biggestObjects.length) {
    const data: Datum[] = t.biggestObjects.map((b) => ({ label: objectText(b.object), value: b.retained }));
    const rest = h.usedHeap - t.biggestObjects.reduce((s, b) => s + b.retained, 0);
    if (rest > 0) data.push({ label: 'Rest of the heap', value: rest, color: REST_COLOR });
    objectsChart = chartBox(pieChartSvg(data, { title: 'Biggest objects, share of the heap', format: formatBytes }));
  }
  const objects = t.biggestObjects.length
    ? table(
        [{ head: 'object' }, { head: 'shallow', num: true }, { head: 'retained', num: true }, { head: '% heap', num: true }],
        t.biggestObjects.map((b) => [code(objectText(b.object)), bytes(b.shallow), bytes(b.retained), percent(b.retainedPercent)]),
        'Biggest objects',
      )
    : '<p>None above the threshold.</p>';
  const classChart = t.biggestClasses.length
    ? barChartSvg(t.biggestClasses.map((c) => ({ label: c.name, value: c.retained })), { title: 'Biggest classes by retained size', format: formatBytes })
    : '';
  const pkgChart = t.biggestPackages.length ? treemapSvg(packageTree(model), { title: 'Biggest packages by retained size', format: formatBytes }) : '';
  const pkgs = t.biggestPackages.length
    ? table(
        [{ head: 'package' }, { head: 'objects', num: true }, { head: 'retained', num: true }, { head: '% heap', num: true }],
        t.biggestPackages.map((p) => [`<span style="padding-left:${p.depth * 16}px">${code(p.name)}</span>`, int(p.objects), bytes(p.retained), percent(p.retainedPercent)]),
        'Biggest packages',
      )
    : '<p>None above the threshold.</p>';
  return `<section id="top-consumers"><h2>Top Consumers</h2><p class="note">Top-level dominators retaining more than ${t.thresholdPercent}% of the heap.</p>
<h3>Biggest objects</h3>${objectsChart}${objects}
<h3>Biggest classes</h3>${chartBox(classChart)}${groupTable(t.biggestClasses, 'class')}
<h3>Biggest class loaders</h3>${groupTable(t.biggestClassLoaders, 'class loader')}
<h3>Biggest packages</h3>${chartBox(pkgChart)}${pkgs}</section>`;
}

function stackHtml(t: ThreadInfo): string {
  const locals = (ls: ThreadInfo['otherLocals']) =>
    ls.length ? `<ul>${ls.map((l) => `<li>local ${code(objectText(l.object))} retained ${bytes(l.retained)}</li>`).join('')}</ul>` : '';
  const frames = t.frames.map((f) => `<li>at ${code(frameText(f))}${locals(f.locals)}</li>`);
  if (t.framesLeftOut > 0) frames.push(`<li>${esc(framesLeftOutText(t.framesLeftOut))}</li>`);
  if (t.otherLocals.length > 0) frames.push(`<li>in no frame of the dump${locals(t.otherLocals)}</li>`);
  const note = t.frames.length === 0 ? '<p class="note">No stack trace in the dump.</p>' : '';
  return `${note}${frames.length ? `<ul class="frames">${frames.join('')}</ul>` : ''}`;
}

/** A thread's name, isolated; `(unnamed)` in italics for none or an empty one, so no cell or summary is left blank. */
function threadName(t: ThreadInfo): string {
  return t.name ? isolateHtml(t.name) : `<i>${esc(UNNAMED)}</i>`;
}

/** The table, then each thread's stack under a summary with its address (names repeat: two threads may share one). */
function threads(model: ReportModel): string {
  const ts = model.threads.threads;
  if (model.threads.threadCount === 0) return '<section id="thread-overview"><h2>Thread Overview</h2><p>The dump holds no threads.</p></section>';
  const shown = ts.length < model.threads.threadCount ? `<p class="note">${int(ts.length)} of ${int(model.threads.threadCount)} threads shown, the largest retained size first.</p>` : '';
  const tbl = table(
    [
      { head: 'thread' },
      { head: 'daemon' },
      { head: 'state' },
      { head: 'priority', num: true },
      { head: 'retained', num: true },
      { head: '% heap', num: true },
      { head: 'max local retained', num: true },
      { head: 'context class loader' },
      { head: 'object' },
    ],
    ts.map((t) => [
      threadName(t),
      t.daemon === null ? '?' : t.daemon ? 'yes' : 'no',
      t.state === null ? '' : esc(t.state),
      t.priority === null ? '' : int(t.priority),
      bytes(t.retained),
      percent(t.retainedPercent),
      bytes(t.maxLocalRetained),
      t.contextClassLoader === null ? '' : esc(t.contextClassLoader),
      code(`${t.object.className} @ ${t.object.address}`),
    ]),
    'Threads',
  );
  const stacks = ts
    .map(
      (t) =>
        `<details><summary>${threadName(t)} @ ${esc(t.object.address)}: ${int(t.frames.length + t.framesLeftOut)} frames, ${int(t.frames.reduce((s, f) => s + f.locals.length, t.otherLocals.length))} locals</summary>${stackHtml(t)}</details>`,
    )
    .join('\n');
  return `<section id="thread-overview"><h2>Thread Overview</h2>${tbl}${shown}<h3>Stacks and locals</h3>${stacks}</section>`;
}

/** The waste checks: a chart and table per check, each check's holders, duplicate string values. */
function wasteSection(w: Waste): string {
  const head = `<p>${esc(wasteHeadline(w))}</p>`;
  const found = w.categories.filter((c) => c.overhead > 0);
  const chart = found.length ? barChartSvg(found.map((c) => ({ label: c.title, value: c.overhead })), { title: 'Overhead by check', format: formatBytes }) : '';
  const totals = table(
    [{ head: 'check' }, { head: 'objects', num: true }, { head: 'overhead', num: true }, { head: '% heap', num: true }],
    w.categories.map((c) => [c.rows.length ? `<a href="#waste-${c.check}">${esc(c.title)}</a>` : esc(c.title), int(c.objects), bytes(c.overhead), percent(c.overheadPercent)]),
    'Checks',
  );
  const heaps = wasteHeapsShown(w);
  const byHeap = heaps
    ? `<h3 id="waste-heaps">Waste by heap</h3>${table(
        [
          { head: 'heap' },
          { head: 'objects', num: true },
          { head: 'overhead', num: true },
          { head: '% heap', num: true },
          { head: 'reachable', num: true },
          { head: 'reachable heap', num: true },
          { head: '% of reachable heap', num: true },
        ],
        heaps.map((x) => [
          isolateHtml(x.name),
          int(x.objects),
          bytes(x.overhead),
          percent(x.overheadPercent),
          bytes(x.reachableOverhead),
          bytes(x.reachableShallow),
          percent(x.percentOfReachable),
        ]),
        'Waste by heap',
      )}<p class="note">${esc(`${WASTE_HEAPS_NOTE} ${HEAPS_NOTE}`)}</p>`
    : '';
  const checks = w.categories
    .filter((c) => c.rows.length > 0)
    .map((c) => {
      const rows = table(
        [{ head: 'held by' }, ...(heaps ? [{ head: 'heap' }] : []), { head: 'objects', num: true }, { head: 'overhead', num: true }, { head: '% heap', num: true }, { head: 'example' }],
        c.rows.map((r) => [code(r.holder.label), ...(heaps ? [isolateHtml(r.heap ?? '')] : []), int(r.objects), bytes(r.overhead), percent(r.overheadPercent), code(r.example.label)]),
        c.title,
      );
      const more = c.holders > c.rows.length ? `<p class="note">… and ${int(c.holders - c.rows.length)} more holders.</p>` : '';
      return `<h3 id="waste-${c.check}">${esc(c.title)}</h3><p class="note">${esc(c.rule)}.</p>${rows}${more}`;
    })
    .join('\n');
  const d = w.duplicateStrings;
  const dupHead = `<p>${esc(duplicateStringsHeadline(w))}</p>`;
  const dupTable = d.top.length
    ? table(
        [{ head: 'value' }, { head: 'length', num: true }, { head: 'count', num: true }, { head: 'wasted', num: true }],
        d.top.map((s) => [`${code(s.value)}${s.truncated ? '…' : ''}`, int(s.length), int(s.count), bytes(s.wastedBytes)]),
        'Duplicate strings',
      )
    : '';
  return `<section id="waste"><h2>Waste</h2>${head}${chartBox(chart)}${totals}${byHeap}${checks}<h3 id="duplicate-strings">Duplicate string values</h3>${dupHead}${dupTable}</section>`;
}

function queryBlock(q: QueryResult, view: QueryView): string {
  const parts = [`<h3>${esc(view.heading)}</h3>`, `<pre><code>${escapeHtmlLines(q.oql.trim())}</code></pre>`];
  if (view.title) parts.push(`<h4>${esc(view.title)}</h4>`);
  parts.push(chartBox(queryChartSvg(view)));
  if (view.kind !== 'table' && view.data.length < view.chartable) parts.push(`<p class="note">Chart shows the first ${int(view.data.length)} of ${int(view.chartable)} rows.</p>`);
  if (view.warning) parts.push(`<p class="warn">${esc(view.warning)}</p>`);
  if (q.note) parts.push(`<p class="note">${esc(q.note)}</p>`);
  parts.push(
    q.columns.length
      ? table(
          q.columns.map((c) => ({ head: c.name, num: c.type === 'number' })),
          q.rows.map((r) => r.map((v) => esc(valueText(v)))),
          view.heading,
        )
      : '<p>No columns.</p>',
  );
  parts.push(`<p class="note">${int(q.rowCount)} row${q.rowCount === 1 ? '' : 's'}${q.truncated ? ' (truncated)' : ''} in ${q.elapsedMs.toFixed(1)} ms.</p>`);
  return `<div class="query">${parts.join('\n')}</div>`;
}

function queries(qs: QueryResult[]): string {
  return `<section id="queries"><h2>Queries</h2>${qs.map((q, i) => queryBlock(q, planQuery(q, i))).join('\n')}</section>`;
}
