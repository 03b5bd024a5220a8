/**
 * Text meant for a terminal, made safe and unambiguous, and measured in terminal cells.
 *
 * Why: class and field names, String contents, thread names and system properties come from
 * the dump, and whoever wrote the heap chose them. A terminal acts on control characters: ESC
 * and C1 CSI (U+009B) sequences set the window title, clear the screen, recolour or hide text,
 * spoof hyperlinks or write the clipboard; a CR or a line break rewrites the line or fakes one;
 * bidi controls (U+202E…) reverse heapql's own text after them. So every text heapql writes to a
 * terminal (query tables, the REPL's views and completion lists, `heapql summary`, stderr
 * warnings and errors) goes through `terminalText`, which shows those characters as escapes:
 * `\n`, `\t`, `\r`, and `\uXXXX` for the other C0 controls, DEL, C1 controls, bidi controls and
 * unpaired surrogates. A backslash is shown as `\\`, so that the escape `\u0000` and the six
 * characters `\u0000` read differently (data outputs; a message may keep its backslashes).
 * Data formats (JSON, CSV, TSV files) are not terminal text: they carry the text exactly.
 *
 * `displayWidth` and `cutToWidth` measure in terminal cells (East Asian wide characters take
 * two, combining marks and zero-width characters none: `string-width`), so tables line up.
 */
import stringWidth from 'string-width';

/** The bidirectional controls: they reorder the text around them. */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
/** Controls (C0, DEL, C1), the line and paragraph separators and the bidi controls, as a class body. */
const CONTROLS = `\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI}`;
/** An unpaired surrogate. */
const LONE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';

/** What `terminalText` escapes (a backslash, controls, bidi controls, unpaired surrogates). */
const ESCAPED = new RegExp(`[\\\\${CONTROLS}]|${LONE}`, 'g');
/** A quick test for any of them (a surrogate, paired or not, sends the text to the full pass). */
const ANY_ESCAPED = new RegExp(`[\\\\${CONTROLS}\\ud800-\\udfff]`);
/** Bidi controls alone (the browser REPL escapes them in plain-text output). */
export const BIDI_CONTROLS = new RegExp(`[${BIDI}]`, 'g');

export interface TerminalTextOptions {
  /** Keep line breaks (LF) as they are: a message of several lines (an error with a caret line). */
  keepLineBreaks?: boolean;
  /** Keep backslashes as they are: a message, where no one has to tell `\u0000` from a NUL. */
  keepBackslashes?: boolean;
}

/**
 * `text` with every character a terminal would act on, or that would hide, reorder or break
 * the line, shown as an escape: LF `\n`, TAB `\t`, CR `\r`; other C0 controls, DEL, C1 controls
 * (U+0080–U+009F), the line and paragraph separators (U+2028, U+2029), bidi controls (U+061C,
 * U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and
 * unpaired surrogates as `\uXXXX`; a backslash as `\\`. Nothing else changes.
 */
export function terminalText(text: string, options: TerminalTextOptions = {}): string {
  if (!ANY_ESCAPED.test(text)) return text;
  return text.replace(ESCAPED, (c) => {
    switch (c) {
      case '\\':
        return options.keepBackslashes ? c : '\\\\';
      case '\n':
        return options.keepLineBreaks ? c : '\\n';
      case '\t':
        return '\\t';
      case '\r':
        return '\\r';
      default:
        return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

const CONTROL = new RegExp(`[${CONTROLS}]|${LONE}`);

/**
 * Where the first character `terminalText` escapes, backslashes aside, stands in `text` (a
 * control or bidi character, an unpaired surrogate); -1 when there is none: the text can be
 * shown, and typed, as it is.
 */
export function controlIndex(text: string): number {
  return CONTROL.exec(text)?.index ?? -1;
}

/**
 * Text of characters that each take one cell and never join the next (printable ASCII, Latin-1
 * but the soft hyphen, Latin Extended, IPA and modifier letters, Greek, Cyrillic but its
 * combining marks, general punctuation such as `…` and `–` but the zero-width and bidi ones): its
 * width is its length. string-width spends about 0.1 ms on a 60-character text beyond ASCII
 * (an object label cut with `…`), seconds over a listing of 500,000 rows; it gives the same.
 */
export const ONE_CELL = /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u0482\u048a-\u052f\u2010-\u2027\u2030-\u205e]*$/;

/**
 * Text of `ONE_CELL`'s characters and of wide ones that take two cells each and never join a
 * neighbour either (CJK ideographs, kana but the combining voicing marks, Hangul syllables
 * and compatibility jamo but the filler, CJK punctuation but the tone marks, fullwidth forms):
 * every character is a grapheme cluster of its own, so its width is its length plus one for
 * each wide character, and those all lie from U+3000 on (`ONE_CELL`'s end below it). Text of
 * a CJK string's label is measured so without Intl.Segmenter, which took about a microsecond a
 * character: over a second for the 30,000 such labels of a listing of 483,713 rows.
 */
export const ONE_OR_TWO_CELLS =
  /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u0482\u048a-\u052f\u2010-\u2027\u2030-\u205e\u3000-\u3029\u3030-\u303e\u3041-\u3096\u309b-\u30ff\u3105-\u312f\u3131-\u3163\u3165-\u318e\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff01-\uff60\uffe0-\uffe6]*$/;
/** The first wide character of `ONE_OR_TWO_CELLS`: those from here on take two cells. */
const FIRST_WIDE = 0x3000;

/**
 * Terminal cells `text` takes (text already made safe by `terminalText`): the sum of its
 * characters' (grapheme clusters'), as string-width counts them.
 */
export function displayWidth(text: string): number {
  if (ONE_CELL.test(text)) return text.length;
  if (ONE_OR_TWO_CELLS.test(text)) {
    let width = text.length;
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= FIRST_WIDE) width++;
    return width;
  }
  segmenter ??= new Intl.Segmenter();
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += segmentWidth(segment);
  return width;
}

let segmenter: Intl.Segmenter | null = null;

/**
 * Widths of the characters (grapheme clusters) measured so far: a long listing measures and
 * cuts text of the same few thousand characters again and again (a column of CJK strings), and
 * string-width takes microseconds a call. At most `SEGMENT_CACHE` are kept.
 */
const segmentWidths = new Map<string, number>();
const SEGMENT_CACHE = 4096;

function segmentWidth(segment: string): number {
  if (ONE_CELL.test(segment)) return segment.length;
  let w = segmentWidths.get(segment);
  if (w === undefined) {
    if (segmentWidths.size >= SEGMENT_CACHE) segmentWidths.clear();
    w = stringWidth(segment);
    segmentWidths.set(segment, w);
  }
  return w;
}

/**
 * `text` cut to at most `max` cells: a longer text keeps whole characters (grapheme clusters:
 * a letter with its combining marks, a wide character) up to `max - 1` cells and ends in `…`
 * (at least one character is kept).
 */
export function cutToWidth(text: string, max: number): string {
  if (ONE_CELL.test(text)) return text.length > max ? `${text.slice(0, Math.max(1, max - 1))}…` : text;
  const budget = Math.max(1, max - 1);
  if (ONE_OR_TWO_CELLS.test(text)) {
    // As below, a character (a UTF-16 unit here) at a time: where the budget ends, and whether the text goes past `max`.
    let cut = -1;
    let width = 0;
    for (let i = 0; i < text.length; i++) {
      const w = text.charCodeAt(i) >= FIRST_WIDE ? 2 : 1;
      if (cut < 0 && width + w > budget && i > 0) cut = i;
      width += w;
      if (width > max) return `${text.slice(0, cut < 0 ? i + 1 : cut)}…`;
    }
    return text;
  }
  if (text.length <= max && stringWidth(text) <= max) return text;
  segmenter ??= new Intl.Segmenter();
  let kept = '';
  let cut: string | null = null;
  let width = 0;
  // From the start, and only as far as needed: a 1 MB string is not measured whole.
  for (const { segment } of segmenter.segment(text)) {
    const w = segmentWidth(segment);
    if (cut === null) {
      if (width + w > budget && kept !== '') cut = kept;
      else kept += segment;
    }
    width += w;
    if (width > max) return `${cut ?? kept}…`;
  }
  return text;
}

/** `text` padded with spaces to `width` cells (at the end). */
export function padEndWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** `text` padded with spaces to `width` cells (at the start). */
export function padStartWidth(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text;
}
