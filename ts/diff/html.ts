/**
 * The HTML diff: one self-contained file in the report's style (inline CSS, charts as inline
 * SVG drawn by the report's chart code, no script, no outside request). Everything from the
 * dumps is escaped.
 */
import { displayModel, formatBytes, int } from '../report/format.js';
import { escapeHtml as esc } from '../report/html-escape.js';
import { CSP, CSS, table, type Col } from '../report/html.js';
import { barChartSvg } from '../report/svg.js';
import {
  CLASS_HEAPS_NOTE,
  CLASS_RETAINED_NOTE,
  DOMINATOR_HEAPS_NOTE,
  SHOWN_ROWS,
  bytesChange,
  bytesPair,
  classesText,
  countPair,
  factRows,
  gateLines,
  growthText,
  grownRows,
  heapColumn,
  rowsText,
  signedBytes,
  signedInt,
  STATUS_TEXT,
} from './format.js';
import type { DiffModel } from './model.js';

/** Bars in each growth chart. */
const CHART_ROWS = 12;

const EXTRA_CSS = `
.status{display:inline-block;white-space:nowrap;border-radius:3px;padding:0 6px;font-size:12px;font-weight:600;color:#fff}
.s-new{background:#c2413b}.s-grown{background:#d9822b}.s-unchanged{background:#5f6b7a}.s-shrunk{background:#3a9a5b}.s-gone{background:#3a9a5b}
.nw{white-space:nowrap}.gain{color:#b3261e;white-space:nowrap}.loss{color:#2e7d32;white-space:nowrap}
.fail{color:#fff;background:#c2413b;border-radius:4px;padding:6px 12px;display:inline-block}
.pass{color:#fff;background:#3a9a5b;border-radius:4px;padding:6px 12px;display:inline-block}
`;

const code = (s: string) => `<code>${esc(s)}</code>`;
const delta = (text: string, n: number) => `<span class="${n > 0 ? 'gain' : n < 0 ? 'loss' : ''}">${esc(text)}</span>`;
const status = (s: string) => `<span class="status s-${esc(s)}">${esc(STATUS_TEXT[s] ?? s)}</span>`;
const cols = (...heads: [string, boolean?][]): Col[] => heads.map(([head, num]) => ({ head, ...(num ? { num: true } : {}) }));

function more(grown: number, shown: number): string {
  return grown > shown ? `<p class="note">${int(grown - shown)} more rows grew; the JSON output lists every changed row.</p>` : '';
}

function chart(title: string, data: { label: string; value: number }[]): string {
  const bars = data.filter((d) => d.value > 0).slice(0, CHART_ROWS);
  return bars.length === 0 ? '' : `<h3>${esc(title)}</h3>\n${barChartSvg(bars, { title, format: (n) => `+${formatBytes(n)}` })}`;
}

export function renderDiffHtml(model: DiffModel): string {
  // Names and values cut for reading, as the report's are (`displayModel`); the JSON keeps them.
  const m = displayModel(model);
  const parts: string[] = [];
  const title = `Heap dump comparison: ${m.baseline.path.split(/[\\/]/).pop()} → ${m.current.path.split(/[\\/]/).pop()}`;
  const nav: [string, string][] = [['suspects', 'Leak suspects'], ['classes', 'Classes'], ['dominators', 'Dominators'], ['loaders', 'Class loaders'], ['packages', 'Packages'], ['strings', 'Duplicate strings']];
  if (m.gate.rules.length > 0) nav.unshift(['gate', 'Gate']);

  parts.push(`<section id="overview">`);
  if (m.sameProgram.note) parts.push(`<p class="warn"><b>Different programs.</b> ${esc(m.sameProgram.note)}</p>`);
  parts.push(
    `<div class="cards"><div class="card">Used heap<b>${delta(signedBytes(m.usedHeap.delta), m.usedHeap.delta)}</b>${esc(bytesPair(m.usedHeap))}</div>` +
      `<div class="card">Objects<b>${delta(signedInt(m.objects.delta), m.objects.delta)}</b>${esc(countPair(m.objects))}</div>` +
      `<div class="card">Leak suspects new / grown<b>${m.leakSuspects.filter((s) => s.status === 'new').length} / ${m.leakSuspects.filter((s) => s.status === 'grown').length}</b>of ${m.leakSuspects.filter((s) => s.currentRank !== null).length} now</div></div>`,
  );
  parts.push(table(cols([''], ['Baseline'], ['Current'], ['Change', true]), factRows(m).map((r) => r.map(esc)), 'Facts'));
  parts.push('</section>');

  if (m.gate.rules.length > 0) {
    parts.push(`<section id="gate"><h2>Gate</h2>`);
    parts.push(m.gate.failed ? `<p class="fail">FAILED: ${esc(rowsText(m.gate.offending.length))} grew past a rule</p>` : `<p class="pass">Passed</p>`);
    parts.push(`<ul>${gateLines(m).map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`);
    parts.push(`<p class="note">Rules: ${m.gate.rules.map(code).join(', ')}</p></section>`);
  }

  parts.push(`<section id="suspects"><h2>Leak suspects</h2>`);
  if (m.leakSuspects.length === 0) parts.push('<p>Neither dump has a leak suspect.</p>');
  else {
    parts.push(
      table(
        cols(['Status'], ['Suspect'], ['Baseline', true], ['Current', true], ['Change', true], ['Matched by']),
        m.leakSuspects.map((s) => [
          status(s.status),
          `<b>${esc(s.title)}</b><br>${code(s.key)}`,
          s.baselineSource === 'none' ? '—' : esc(formatBytes(s.retained.baseline)),
          s.currentSource === 'none' ? '—' : esc(formatBytes(s.retained.current)),
          delta(bytesChange(s.retained), s.retained.delta),
          `<span class="note">${esc(s.matchedBy)}</span>`,
        ]),
        'Leak suspects',
      ),
    );
  }
  parts.push('</section>');

  const heaps = heapColumn(m);
  const heapHead: [string][] = heaps ? [['Heap']] : [];
  const heapCell = (r: { heap?: string }) => (heaps ? [`<span class="nw">${esc(r.heap ?? '')}</span>`] : []);
  const withHeap = (label: string, r: { heap?: string }) => (heaps && r.heap !== undefined ? `${label} (${r.heap})` : label);
  const classes = grownRows(m.classes, (r) => r.shallow);
  parts.push(`<section id="classes"><h2>Classes that grew</h2>`, `<p class="note">${esc(CLASS_RETAINED_NOTE)}</p>`);
  if (heaps) parts.push(`<p class="note">${esc(CLASS_HEAPS_NOTE)}</p>`);
  parts.push(chart('Biggest shallow growth by class', classes.shown.map((r) => ({ label: withHeap(r.className, r), value: r.shallow.delta }))));
  parts.push(
    classes.shown.length === 0
      ? '<p>No class grew.</p>'
      : table(
          cols(['Class'], ['Loader'], ...heapHead, ['Instances', true], ['Δ instances', true], ['Shallow', true], ['Δ shallow', true], ['Δ retained', true]),
          classes.shown.map((r) => [
            code(r.className) + esc(classesText(r)),
            `<span class="nw">${esc(r.classLoader)}</span>`,
            ...heapCell(r),
            esc(countPair(r.instances)),
            delta(signedInt(r.instances.delta), r.instances.delta),
            esc(bytesPair(r.shallow)),
            delta(`${signedInt(r.shallow.delta)} B (${growthText(r.shallow)})`, r.shallow.delta),
            delta(signedBytes(r.retained.delta), r.retained.delta),
          ]),
          'Classes',
        ) + more(classes.grown, classes.shown.length),
  );
  parts.push('</section>');

  const doms = grownRows(m.dominators.rows, (r) => r.retained);
  parts.push(`<section id="dominators"><h2>Dominators that grew</h2><p class="note">Objects retaining at least ${esc(formatBytes(m.dominators.thresholdBytes))} in either dump, matched by their path from a GC root.</p>`);
  if (heaps) parts.push(`<p class="note">${esc(DOMINATOR_HEAPS_NOTE)}</p>`);
  parts.push(chart('Biggest retained growth by path', doms.shown.map((r) => ({ label: withHeap(r.key.split(' · ').pop()!, r), value: r.retained.delta }))));
  parts.push(
    doms.shown.length === 0
      ? '<p>No big dominator grew.</p>'
      : table(
          cols(['Status'], ['Path from a GC root'], ...heapHead, ['Retained', true], ['Δ retained', true]),
          doms.shown.map((r) => [
            status(r.status),
            code(r.key),
            ...heapCell(r),
            esc(r.status === 'new' ? `— → ${formatBytes(r.retained.current)}` : bytesPair(r.retained)),
            delta(bytesChange(r.retained), r.retained.delta),
          ]),
          'Dominators',
        ) + more(doms.grown, doms.shown.length),
  );
  parts.push('</section>');

  const loaders = grownRows(m.classLoaders, (r) => r.retained);
  parts.push(`<section id="loaders"><h2>Class loaders that grew</h2>`);
  parts.push(
    loaders.shown.length === 0
      ? '<p>No class loader grew.</p>'
      : table(
          cols(['Loader'], ['Classes', true], ['Instances', true], ['Shallow', true], ['Classes retain', true], ['Δ classes retain', true]),
          loaders.shown.map((r) => [esc(r.loader), esc(countPair(r.definedClasses)), esc(countPair(r.instances)), esc(bytesPair(r.shallow)), esc(bytesPair(r.retained)), delta(bytesChange(r.retained), r.retained.delta)]),
          'Class loaders',
        ) + more(loaders.grown, loaders.shown.length),
  );
  parts.push('</section>');

  const packages = grownRows(m.packages, (r) => r.shallow);
  parts.push(`<section id="packages"><h2>Packages that grew</h2>`);
  parts.push(chart('Biggest shallow growth by package', packages.shown.map((r) => ({ label: r.package, value: r.shallow.delta }))));
  parts.push(
    packages.shown.length === 0
      ? '<p>No package grew.</p>'
      : table(
          cols(['Package'], ['Instances', true], ['Δ instances', true], ['Shallow', true], ['Δ shallow', true]),
          packages.shown.map((r) => [code(r.package), esc(countPair(r.instances)), delta(signedInt(r.instances.delta), r.instances.delta), esc(bytesPair(r.shallow)), delta(bytesChange(r.shallow), r.shallow.delta)]),
          'Packages',
        ) + more(packages.grown, packages.shown.length),
  );
  parts.push('</section>');

  const s = m.duplicateStrings;
  parts.push(`<section id="strings"><h2>Duplicate strings that grew</h2><p>Wasted by duplicates: ${esc(bytesPair(s.wastedBytes))} (${delta(signedBytes(s.wastedBytes.delta), s.wastedBytes.delta)}).</p>`);
  if (!s.complete) parts.push('<p class="note">The current dump has more duplicated values than were listed; the ones beyond its list are not compared.</p>');
  const shown = s.grown.slice(0, SHOWN_ROWS);
  parts.push(
    shown.length === 0
      ? '<p>No duplicated value grew.</p>'
      : table(
          cols(['Value'], ['Copies', true], ['Δ copies', true], ['Wasted', true], ['Δ wasted', true]),
          shown.map((r) => [code(r.value + (r.truncated ? '…' : '')), esc(countPair(r.count)), delta(signedInt(r.count.delta), r.count.delta), esc(bytesPair(r.wastedBytes)), delta(signedBytes(r.wastedBytes.delta), r.wastedBytes.delta)]),
          'Duplicate strings',
        ) + more(s.grown.length, shown.length),
  );
  parts.push('</section>');

  if (m.warnings.length > 0) parts.push(`<section id="warnings"><h2>Warnings</h2><ul>${m.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></section>`);

  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}${EXTRA_CSS}</style></head>
<body>
<header><h1>${esc(title)}</h1><p class="meta">Generated by heapql ${esc(m.generator.version)} at ${esc(m.generatedAt)}</p></header>
<nav>${nav.map(([id, label]) => `<a href="#${id}">${esc(label)}</a>`).join('')}</nav>
<main>
${parts.join('\n')}
</main>
</body></html>
`;
}
