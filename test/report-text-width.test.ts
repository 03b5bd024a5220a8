/** The chart labels' width estimate and cut (ts/report/text-width.ts). */
import { describe, expect, test } from 'vitest';

import { barChartSvg, pieChartSvg, treemapSvg } from '../ts/report/svg.js';
import { fitText, textWidthPx } from '../ts/report/text-width.js';

describe('fitText', () => {
  test('a label that fits is unchanged; one that does not ends with … inside the room', () => {
    expect(fitText('java.lang.String', 200)).toBe('java.lang.String');
    const cut = fitText('java.util.concurrent.ConcurrentHashMap$Node[]', 120);
    expect(cut.endsWith('…')).toBe(true);
    expect('java.util.concurrent.ConcurrentHashMap$Node[]'.startsWith(cut.slice(0, -1))).toBe(true);
    expect(textWidthPx(cut)).toBeLessThanOrEqual(120);
    // The longest start that fits: one more character would not.
    const longer = 'java.util.concurrent.ConcurrentHashMap$Node[]'.slice(0, cut.length) + '…';
    expect(textWidthPx(longer)).toBeGreaterThan(120);
  });

  test('wide letters, CJK and emoji take more room than narrow ones', () => {
    expect(fitText('W'.repeat(40), 120).length).toBeLessThan(fitText('i'.repeat(40), 120).length);
    expect(textWidthPx('漢字')).toBeGreaterThan(textWidthPx('ab'));
    expect(textWidthPx('😀')).toBeGreaterThan(textWidthPx('a'));
    expect(textWidthPx('e\u0301')).toBe(textWidthPx('e'));
  });

  test('cuts whole graphemes only: no half surrogate pair, no emoji without its modifier, no mark without its letter', () => {
    for (let room = 10; room < 200; room += 7) {
      const emoji = fitText('👍🏽'.repeat(30), room);
      expect(emoji.replace(/…$/, '').replace(/👍🏽/g, '')).toBe('');
      const marks = fitText('e\u0301'.repeat(60), room);
      expect(marks.replace(/…$/, '').replace(/e\u0301/g, '')).toBe('');
    }
  });

  test('no room, no label; a label of a megabyte costs what a short one does', () => {
    expect(fitText('abc', 5)).toBe('');
    expect(fitText('', 5)).toBe('');
    const huge = 'x'.repeat(1_000_000);
    const cut = fitText(huge, 100);
    expect(cut.length).toBeLessThan(30);
    expect(cut.endsWith('…')).toBe(true);
  });
});

describe('chart labels with control characters', () => {
  test('are measured as they are drawn, escaped (\\u0000 is six characters wide), so they are cut with … inside their room', () => {
    // A String of the bytes 0..127, as the JVMTI agent's 2006 dump holds one.
    const label = `java.lang.String @ 0x50000994  "${Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join('')}"`;
    const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    const drawn = (svg: string, cls: string) => [...svg.matchAll(new RegExp(`<svg x="[\\d.]+" y="[\\d.]+" width="([\\d.]+)"[^>]*><text [^>]*class="${cls}">([^<]*)</text>`, 'g'))].map((m) => ({ room: Number(m[1]), text: unescape(m[2]!) }));
    const charts = [
      drawn(barChartSvg([{ label, value: 1 }], { title: 't' }), 'lbl'),
      drawn(pieChartSvg([{ label, value: 1 }, { label: 'b', value: 1 }], { title: 't' }), 'lbl'),
      drawn(treemapSvg({ label: 'root', value: 0, children: [{ label, value: 1 }] }, { title: 't', width: 300, height: 100 }), 'tm'),
    ];
    for (const labels of charts) {
      const [first] = labels;
      expect(first).toBeDefined();
      expect(first!.text.startsWith('java.lang.String @ 0x50000994  "\\u0000')).toBe(true);
      expect(first!.text.endsWith('…')).toBe(true);
      expect(textWidthPx(first!.text)).toBeLessThanOrEqual(first!.room);
    }
  });
});
