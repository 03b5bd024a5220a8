/**
 * ts/terminal-text.ts: what a terminal is shown of text from a dump (controls, bidi controls and
 * backslashes escaped), display widths in cells, cutting by width; and how the terminal REPL
 * hands completions with control characters to readline.
 */
import { describe, expect, it } from 'vitest';

import { readlineCompletion, ESCAPED_COMPLETION_NOTE } from '../../ts/repl/terminal.js';
import { controlIndex, cutToWidth, displayWidth, padEndWidth, terminalText } from '../../ts/terminal-text.js';

describe('terminalText', () => {
  it('escapes C0 controls, DEL, C1 controls and bidi controls as \\uXXXX; LF, TAB, CR by name', () => {
    expect(terminalText('a\x1b[31mb\x07c\x00d\x7fe')).toBe('a\\u001b[31mb\\u0007c\\u0000d\\u007fe');
    expect(terminalText('line1\nline2\r\nline3\ttab\rcr')).toBe('line1\\nline2\\r\\nline3\\ttab\\rcr');
    // U+009B is CSI for xterm in UTF-8 mode; U+0085 is NEL.
    expect(terminalText('c1\u0085c1\u009b31m')).toBe('c1\\u0085c1\\u009b31m');
    for (const c of ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']) {
      expect(terminalText(`x${c}y`)).toBe(`x\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}y`);
    }
  });

  it('shows a backslash as \\\\, so an escape and its six characters read differently', () => {
    expect(terminalText('real\x00nul')).toBe('real\\u0000nul');
    expect(terminalText('literal\\u0000')).toBe('literal\\\\u0000');
    expect(terminalText('back\\slash')).toBe('back\\\\slash');
    // A message keeps its backslashes (and with keepLineBreaks its lines), never its controls.
    expect(terminalText('a\\d+\x1b\nb', { keepBackslashes: true, keepLineBreaks: true })).toBe('a\\d+\\u001b\nb');
  });

  it('escapes unpaired surrogates, keeps pairs, and leaves other text as it is', () => {
    expect(terminalText('hi\ud800end\udc00x')).toBe('hi\\ud800end\\udc00x');
    const text = 'emoji 😀 wide 中文 zero\u200bwidth e\u0301 <script>"\'`|';
    expect(terminalText(text)).toBe(text);
    expect(controlIndex(text)).toBe(-1);
    expect(controlIndex('ab\x1bc')).toBe(2);
    expect(controlIndex('a\\b')).toBe(-1);
  });
});

describe('display width', () => {
  it('counts terminal cells: wide characters 2, combining marks and zero-width characters 0', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('中文类名')).toBe(8);
    expect(displayWidth('e\u0301\u0301\u0301')).toBe(1);
    expect(displayWidth('a\u200bb\ufeff')).toBe(2);
    expect(displayWidth('😀')).toBe(2);
    expect(padEndWidth('中文', 6)).toBe('中文  ');
  });

  it('cuts by width at whole characters and ends in …', () => {
    expect(cutToWidth('abcdefgh', 5)).toBe('abcd…');
    expect(cutToWidth('abcde', 5)).toBe('abcde');
    // 10 cells do not fit in 5: 2 characters (4 cells) and the ellipsis.
    expect(cutToWidth('中文类名字', 5)).toBe('中文…');
    expect(cutToWidth('中文', 4)).toBe('中文');
    // A combining mark stays on its letter; it takes no cell.
    expect(cutToWidth('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
    expect(cutToWidth('e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301e\u0301');
    // A very long text is cut without measuring it whole.
    expect(cutToWidth(`中${'x'.repeat(1_000_000)}`, 4)).toBe('中x…');
  });
});

describe('completions for readline', () => {
  it('hands plain candidates on unchanged', () => {
    expect(readlineCompletion(['Demo$Session', 'Demo$SessionStore'], 'Demo$S')).toEqual([['Demo$Session', 'Demo$SessionStore'], 'Demo$S']);
  });

  it('inserts the common prefix only up to a control character, and lists candidates escaped', () => {
    const evil = 'Hostile$X\x1b]0;TITLE\x07\u202e';
    // One candidate: Tab inserts what can be typed of it.
    expect(readlineCompletion([evil], 'Host')).toEqual([['Hostile$X'], 'Host']);
    // Then the list: escaped, with a note whose first character no name shares (nothing inserted).
    const [items, word] = readlineCompletion([evil, 'Hostile$Xylophone'], 'Hostile$X');
    expect(word).toBe('Hostile$X');
    expect(items).toEqual(['Hostile$X\\u001b]0;TITLE\\u0007\\u202e', 'Hostile$Xylophone', '', ESCAPED_COMPLETION_NOTE]);
    expect(items.join('')).not.toMatch(/[\x00-\x1f\u202e]/);
  });

  it('ends a list cut short with how many more match (nothing inserted)', () => {
    expect(readlineCompletion(['java.lang.A', 'java.lang.B'], 'j', 150)).toEqual([['java.lang.A', 'java.lang.B', '', '… and 150 more: type more letters'], 'j']);
  });
});
