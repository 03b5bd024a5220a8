/**
 * `displayWidth` and `cutToWidth` measure text of one-cell characters that never join the next
 * (ASCII, Latin-1, Latin Extended, Greek, Cyrillic, general punctuation such as `…`) by its
 * length, without string-width (about 0.1 ms a call: seconds over a long listing of object
 * labels cut with `…`), and give what string-width gives for every such character; other text
 * is measured a character (grapheme cluster) at a time, string-width asked once per distinct one.
 * Text of those and of wide characters that never join a neighbour (CJK, kana, Hangul syllables,
 * fullwidth forms) is measured and cut without Intl.Segmenter, as the segments would have it:
 * checked for every such character, and against the measure by segments on random text of
 * CJK, emoji, combining marks, Hangul jamo, control and bidi characters.
 */
import { describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ n: 0 }));
vi.mock('string-width', async (importOriginal) => {
  const real = (await importOriginal<typeof import('string-width')>()).default;
  return {
    default: (text: string, options?: Parameters<typeof real>[1]) => {
      calls.n++;
      return real(text, options);
    },
  };
});

const { cutToWidth, displayWidth, ONE_CELL, ONE_OR_TWO_CELLS, terminalText } = await import('../../ts/terminal-text.js');
const { default: stringWidth } = await import('string-width');

describe('the one-cell fast path', () => {
  it('measures and cuts an object label with … and Latin, Greek and Cyrillic text without string-width', () => {
    calls.n = 0;
    const label = 'java.lang.String @ 0x753d396a0  "crème brûlée – Ελληνικά кириллица…"';
    expect(displayWidth(label)).toBe(label.length);
    expect(cutToWidth(label, 20)).toBe(`${label.slice(0, 19)}…`);
    expect(cutToWidth(label, 200)).toBe(label);
    expect(calls.n).toBe(0);
  });

  it('agrees with string-width on every character it takes by length', () => {
    const differ: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      if (ONE_CELL.test(ch) && stringWidth(ch) !== 1) differ.push(c.toString(16));
    }
    expect(differ).toEqual([]);
  });

  it('measures and cuts text beyond them asking string-width once per distinct character (a column of CJK strings)', () => {
    calls.n = 0;
    const text = '中文'.repeat(100);
    expect(cutToWidth(text, 80)).toBe(`${'中文'.repeat(19)}中…`);
    expect(cutToWidth(`${text}!`, 80)).toBe(`${'中文'.repeat(19)}中…`);
    expect(displayWidth('中文中文!')).toBe(9);
    // 中 and 文, each measured once (a cache shared by every measure and cut).
    expect(calls.n).toBeLessThanOrEqual(2);
  });

  it('leaves the rest to string-width: a combining mark, a soft hyphen, wide and zero-width characters', () => {
    calls.n = 0;
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('soft\u00adhyphen')).toBe(10);
    expect(displayWidth('Ж\u0483')).toBe(1);
    expect(displayWidth('中文')).toBe(4);
    expect(displayWidth('a\u200bb')).toBe(2);
    expect(calls.n).toBeGreaterThan(0);
    // Measured a character at a time, text gives what string-width gives for it whole.
    for (const text of ['👨‍👩‍👧 family', '🇫🇷🇩🇪', '한국어 각', 'e\u0301\u0301x', 'ab\ufe0f中\u200d文', '｡ｶﾀｶﾅ', '1️⃣ ok']) {
      expect([text, displayWidth(text)]).toEqual([text, stringWidth(text)]);
    }
  });
});

/** The measure by grapheme clusters, string-width's width of each (what displayWidth and cutToWidth gave for any text). */
const graphemes = new Intl.Segmenter();
const known = new Map<string, number>();
function segments(text: string): { segment: string; width: number }[] {
  return [...graphemes.segment(text)].map(({ segment }) => {
    let width = known.get(segment);
    if (width === undefined) known.set(segment, (width = stringWidth(segment)));
    return { segment, width };
  });
}
const widthBySegments = (text: string) => segments(text).reduce((sum, s) => sum + s.width, 0);
function cutBySegments(text: string, max: number): string {
  const budget = Math.max(1, max - 1);
  let kept = '';
  let cut: string | null = null;
  let width = 0;
  for (const { segment, width: w } of segments(text)) {
    if (cut === null) {
      if (width + w > budget && kept !== '') cut = kept;
      else kept += segment;
    }
    width += w;
    if (width > max) return `${cut ?? kept}…`;
  }
  return text;
}

describe('the one-or-two-cell fast path', () => {
  it('measures and cuts CJK, kana, Hangul and fullwidth text without Intl.Segmenter or string-width', () => {
    const label = 'java.lang.String @ 0x753d396a0  "日本語中文한국어грüße カタ… ＡＢＣ「かな」"';
    const [width, cut] = [widthBySegments(label), cutBySegments(label, 40)];
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    calls.n = 0;
    expect(displayWidth(label)).toBe(width);
    expect(displayWidth('日本語 한국어 abc')).toBe(17);
    expect(cutToWidth(label, 40)).toBe(cut);
    expect(cutToWidth('中文类名字', 5)).toBe('中文…');
    expect(cutToWidth('中', 1)).toBe('中…');
    expect(segment).not.toHaveBeenCalled();
    expect(calls.n).toBe(0);
    segment.mockRestore();
  });

  it('every character it takes is a grapheme cluster of its own next to any other, one cell below U+3000 and two from there on, as string-width says', () => {
    // One of each Grapheme_Cluster_Break class the set holds: Other (ASCII, Latin-1, Cyrillic,
    // punctuation, CJK) and the Hangul syllables LV and LVT. A character of any class that joins
    // (Extend, ZWJ, SpacingMark, Prepend, Regional_Indicator, the jamo L, V, T) would join one.
    const others = ['a', 'é', 'ж', '…', '中', '가', '각'];
    // Each character before and after each of those, and twice: every boundary a break.
    const apart = (ch: string) => {
      const text = `${others.map((o) => `${ch}${o}`).join('')}${ch}${ch}`;
      return [...graphemes.segment(text)].length === text.length;
    };
    const wrong: string[] = [];
    let wide = 0;
    for (let c = 0x20; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      if (!ONE_OR_TWO_CELLS.test(ch)) continue;
      const cells = c >= 0x3000 ? 2 : 1;
      if (cells === 2) wide++;
      if (stringWidth(ch) !== cells) wrong.push(`${c.toString(16)}: ${stringWidth(ch)} cells`);
      if (!apart(ch)) wrong.push(`${c.toString(16)} joins`);
    }
    expect(wrong).toEqual([]);
    expect(wide).toBeGreaterThan(39_000);
  });

  it('gives what the measure by segments gives on random text of CJK, emoji, combining marks, jamo, control and bidi characters', () => {
    const alphabet = [
      'a', 'Z', ' ', '~', 'é', 'ß', 'ж', 'Ω', '…', '–', '\u00ad', '\u00a0',
      '日', '本', '語', '中', '文', '한', '국', '어', '가', '각', 'ㄱ', '\u3164', 'か', 'カ', '\u3099', '\u309a', 'ｶ', 'ﾟ', 'Ａ', '￥', '\u3000', '〃', '\u302a',
      '\u1100', '\u1161', '\u11a8', '\u0301', '\u0483', '\u20dd', '\ufe0f', '\u200d', '\u200b', '\ufeff',
      '😀', '👍', '\u{1f3fd}', '🇫', '🇷', '1\ufe0f\u20e3', '👨\u200d👩\u200d👧', '\u{20000}', '\u{e0100}',
      '\u0000', '\u001b', '\n', '\t', '\u007f', '\u009b', '\u202e', '\u2066', '\u200e', '\u061c', '\u2028', '\ud800', '\udc00',
    ];
    // A fixed sequence (xorshift), so a failure is the same on every run.
    let seed = 0x2545f491;
    const next = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const differ: unknown[] = [];
    for (let k = 0; k < 4000; k++) {
      // Mostly the fast path's characters, some of the others.
      let raw = '';
      const length = next(40);
      for (let i = 0; i < length; i++) raw += alphabet[next(4) === 0 ? next(alphabet.length) : next(35)]!;
      for (const text of [raw, terminalText(raw)]) {
        if (displayWidth(text) !== widthBySegments(text)) differ.push(['width', text]);
        const max = next(50);
        if (cutToWidth(text, max) !== cutBySegments(text, max)) differ.push(['cut', max, text]);
      }
    }
    expect(differ).toEqual([]);
  });
});
