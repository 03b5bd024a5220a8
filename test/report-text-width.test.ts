/** The chart labels' width estimate and cut (ts/report/text-width.ts). */
import { describe, expect, test } from 'vitest';

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
