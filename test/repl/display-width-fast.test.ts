/**
 * `displayWidth` and `cutToWidth` measure text of one-cell characters that never join the next
 * (ASCII, Latin-1, Latin Extended, Greek, Cyrillic, general punctuation such as `…`) by its
 * length, without string-width (about 0.1 ms a call: seconds over a long listing of object
 * labels cut with `…`), and give what string-width gives for every such character; other text
 * is measured a character (grapheme cluster) at a time, string-width asked once per distinct one.
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

const { cutToWidth, displayWidth, ONE_CELL } = await import('../../ts/terminal-text.js');
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
