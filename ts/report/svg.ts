/**
 * Charts rendered to inline SVG strings at report time (no script in the page): bar charts by
 * hand (rectangles), pie arcs by d3-shape, treemap layout by d3-hierarchy. Every label is
 * escaped, and a tooltip's label is cut at DISPLAY_TEXT_MAX (`tip`) like the report's text: a
 * label of a megabyte must not be copied into the SVG. A drawn label is cut to its room by its
 * estimated width (`fitText`) and clipped to that room as well (a nested `<svg>` viewport), so
 * a font wider than the estimate still cannot draw it over a bar, a value or another tile.
 * Coordinates are rounded so the same data gives the same bytes.
 */
import { hierarchy, treemap, treemapSquarify } from 'd3-hierarchy';
import { arc, pie, type PieArcDatum } from 'd3-shape';

import { cutDisplayText, headOf, int, percent, printable } from './format.js';
import { escapeHtml as esc } from './html-escape.js';
import { fitText, textWidthPx } from './text-width.js';

export interface Datum {
  label: string;
  value: number;
  /** A fixed colour (e.g. grey for "rest of the heap"); else the palette's next. */
  color?: string;
}

export interface TreeDatum {
  label: string;
  /** The node's own value (children add theirs). */
  value: number;
  children?: TreeDatum[];
}

/** Grey for the remainder slice. */
export const REST_COLOR = '#b8bfcc';
/**
 * Ten distinguishable colours on which the treemap's white 12 px labels are readable: each has a
 * contrast of at least 4.5:1 with white (WCAG AA for normal text).
 */
export const PALETTE = ['#3b6fb6', '#b35900', '#2f7d4a', '#c2413b', '#7d5ba6', '#8c6d31', '#b3478a', '#737000', '#167f8c', '#5f6b7a'];
const color = (i: number) => PALETTE[i % PALETTE.length];
const r1 = (n: number) => Math.round(n * 10) / 10;

/** A label for a `<title>` tooltip: escaped, and cut with its full length stated when very long. */
const tip = (label: string): string => esc(cutDisplayText(label));

/**
 * A label as it is drawn, which is what `fitText` must measure: control and bidirectional
 * characters as their visible escapes (`\u0000` is six characters wide, not none), as `esc`
 * writes them. Only its start can be drawn, so a long label is looked at no further.
 */
const drawnText = (label: string): string => printable(headOf(label, 4096));

/** The charts' label font size (`CHART_TEXT_CSS`): what `fitText` measures for. */
const FONT_PX = 12;

/** The style of the charts' text, for every page that shows them (the HTML reports, the browser REPL). */
export const CHART_TEXT_CSS =
  `svg .lbl{font:${FONT_PX}px system-ui,sans-serif;fill:#1d2330}svg .val{font:${FONT_PX}px system-ui,sans-serif;fill:#5d6677}\n` +
  `svg .tm{font:${FONT_PX}px system-ui,sans-serif;fill:#fff}svg .tmv{font-size:11px}svg .tmp{fill:#1d2330}`;

/** `inner` drawn in the box at (x, y) of size w × h, clipped to it (coordinates inside are the box's). */
const clipped = (x: number, y: number, w: number, h: number, inner: string): string =>
  `<svg x="${r1(x)}" y="${r1(y)}" width="${r1(Math.max(0, w))}" height="${r1(Math.max(0, h))}" overflow="hidden">${inner}</svg>`;

function svgOpen(width: number, height: number, label: string, cls: string): string {
  return `<svg class="chart ${cls}" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(label)}">`;
}

/** Horizontal bars, one row per datum, longest first as given. */
export function barChartSvg(data: Datum[], options: { title: string; width?: number; format?: (n: number) => string }): string {
  const width = options.width ?? 760;
  const fmt = options.format ?? int;
  const rowH = 22;
  const labelW = 280;
  // Room after the longest bar for the widest value, 6 px from its bar's end.
  const valueW = Math.max(90, Math.ceil(Math.max(0, ...data.map((d) => textWidthPx(fmt(d.value), FONT_PX)))) + 6);
  const barMax = Math.max(0, width - labelW - valueW - 16);
  const max = Math.max(0, ...data.map((d) => d.value));
  const height = data.length * rowH + 8;
  const labelRoom = labelW - 8;
  const rows = data.map((d, i) => {
    const y = 4 + i * rowH;
    const w = max > 0 ? r1((d.value / max) * barMax) : 0;
    const label = fitText(drawnText(d.label), labelRoom, FONT_PX);
    return (
      `<g><title>${tip(d.label)}: ${esc(fmt(d.value))}</title>` +
      clipped(0, y, labelRoom, rowH, `<text x="${labelRoom}" y="15" text-anchor="end" class="lbl">${esc(label)}</text>`) +
      `<rect x="${labelW}" y="${y + 3}" width="${Math.max(w, d.value > 0 ? 1 : 0)}" height="${rowH - 6}" fill="${color(0)}" rx="2"></rect>` +
      `<text x="${r1(labelW + w + 6)}" y="${y + 15}" class="val">${esc(fmt(d.value))}</text></g>`
    );
  });
  return svgOpen(width, height, options.title, 'bar') + rows.join('') + '</svg>';
}

/**
 * The slices a pie draws: each its own colour. More slices than the palette has colours would
 * repeat one (slice 11 as blue as slice 1), so past nine the rest are one grey slice, `N more`
 * (the table beside the chart lists them); a slice of a fixed colour (the rest of the heap) stays.
 */
export function pieSlices(data: Datum[]): Datum[] {
  const own = data.filter((d) => d.color === undefined);
  if (own.length <= PALETTE.length) return data;
  const kept = own.slice(0, PALETTE.length - 1);
  const more = own.slice(PALETTE.length - 1);
  const merged: Datum = { label: `${int(more.length)} more`, value: more.reduce((s, d) => s + d.value, 0), color: PALETTE[PALETTE.length - 1] };
  return [...kept, merged, ...data.filter((d) => d.color !== undefined)];
}

/** A donut chart with a legend (label, value, share); past ten slices, see `pieSlices`. */
export function pieChartSvg(all: Datum[], options: { title: string; format?: (n: number) => string }): string {
  const data = pieSlices(all);
  const fmt = options.format ?? int;
  const radius = 110;
  const legendX = 2 * radius + 40;
  const rowH = 20;
  const width = 760;
  const height = Math.max(2 * radius + 20, data.length * rowH + 20);
  const total = data.reduce((s, d) => s + d.value, 0);
  const arcs = pie<Datum>()
    .sort(null)
    .value((d) => d.value)(data);
  const path = arc<PieArcDatum<Datum>>().innerRadius(radius * 0.5).outerRadius(radius).digits(1);
  const cx = radius + 10;
  const cy = height / 2;
  const slices = arcs.map(
    (a, i) =>
      `<path d="${path(a) ?? ''}" fill="${a.data.color ?? color(i)}" stroke="#fff" stroke-width="1"><title>${tip(a.data.label)}: ${esc(fmt(a.data.value))} (${percent((a.data.value / total) * 100)})</title></path>`,
  );
  const valueTexts = data.map((d) => `${fmt(d.value)} · ${percent((d.value / total) * 100)}`);
  // The legend's labels end 12 px before the widest value, which is right-aligned at the edge.
  const valueW = Math.ceil(Math.max(0, ...valueTexts.map((t) => textWidthPx(t, FONT_PX))));
  const labelX = legendX + 18;
  const labelRoom = Math.max(0, width - 8 - valueW - 12 - labelX);
  const legend = data.map((d, i) => {
    const y = 10 + i * rowH;
    return (
      `<g><title>${tip(d.label)}</title><rect x="${legendX}" y="${y + 3}" width="12" height="12" fill="${d.color ?? color(i)}"></rect>` +
      clipped(labelX, y, labelRoom, rowH, `<text x="0" y="14" class="lbl">${esc(fitText(drawnText(d.label), labelRoom, FONT_PX))}</text>`) +
      `<text x="${width - 8}" y="${y + 14}" text-anchor="end" class="val">${esc(valueTexts[i]!)}</text></g>`
    );
  });
  return svgOpen(width, height, options.title, 'pie') + `<g transform="translate(${cx},${r1(cy)})">${slices.join('')}</g>` + legend.join('') + '</svg>';
}

/** A squarified treemap; nested data draws nested rectangles, labels where they fit. */
export function treemapSvg(root: TreeDatum, options: { title: string; width?: number; height?: number; format?: (n: number) => string }): string {
  const width = options.width ?? 760;
  const height = options.height ?? 380;
  const fmt = options.format ?? int;
  const h = hierarchy<TreeDatum>(root, (d) => d.children)
    .sum((d) => Math.max(0, d.value))
    .sort((a, b) => (b.value ?? 0) - (a.value ?? 0));
  const laid = treemap<TreeDatum>().tile(treemapSquarify).size([width, height]).paddingInner(2).paddingTop((n) => (n.depth > 0 && n.children ? 16 : 0)).round(true)(h);
  const top = laid.children ?? [];
  const colourOf = new Map(top.map((n, i) => [n, color(i)]));
  const parts: string[] = [];
  for (const n of laid.descendants()) {
    if (n.depth === 0) continue;
    const w = n.x1 - n.x0;
    const hh = n.y1 - n.y0;
    if (w <= 0 || hh <= 0) continue;
    let anc = n;
    while (anc.depth > 1 && anc.parent) anc = anc.parent;
    const fill = colourOf.get(anc) ?? color(0);
    const full = `${cutDisplayText(n.data.label)}: ${fmt(n.value ?? 0)}`;
    // Labels start 4 px into the tile and stop 4 px before its right edge.
    const room = w - 8;
    const label = fitText(drawnText(n.data.label), room, FONT_PX);
    const showLabel = label !== '' && hh >= 16;
    // A figure is drawn whole or not at all (the tooltip has it): `107.6…` would hide its unit.
    const figure = fmt(n.value ?? 0);
    const value = showLabel && !n.children && hh >= 32 && textWidthPx(figure, 11) <= room ? figure : '';
    const opacity = n.children ? 0.55 : 1;
    parts.push(
      `<g><title>${esc(full)}</title><rect x="${n.x0}" y="${n.y0}" width="${w}" height="${hh}" fill="${fill}" fill-opacity="${opacity}"></rect>` +
        (showLabel
          ? clipped(
              n.x0 + 4,
              n.y0,
              room,
              hh,
              // A group's tile is its colour at 55 % on white: too light for white text, so dark text.
              `<text x="0" y="13" class="${n.children ? 'tm tmp' : 'tm'}">${esc(label)}</text>` + (value !== '' ? `<text x="0" y="28" class="tm tmv">${esc(value)}</text>` : ''),
            )
          : '') +
        '</g>',
    );
  }
  return svgOpen(width, height, options.title, 'treemap') + parts.join('') + '</svg>';
}
