/**
 * How wide a chart label will be drawn, estimated when the report is written (no browser at
 * hand), so a label can be cut to the room it has. The estimate errs wide: a label that comes
 * out narrower leaves a gap, one that comes out wider would run into a bar, a value or the next
 * tile (the charts also clip each label to its room, for the fonts wider still).
 *
 * The widths of printable ASCII are the larger of DejaVu Sans's and Liberation Sans's advances
 * (the sans-serif fonts a Linux browser falls back on; Segoe UI, San Francisco and Roboto are
 * narrower), measured in Chromium at 100 px. Elsewhere: a character a terminal gives two columns
 * (CJK, emoji) 1.25 em, a combining or zero-width one nothing, any other 1.1 em (Cyrillic capitals
 * reach 1.08 em in DejaVu Sans).
 */
import stringWidth from 'string-width';

/** Advances of U+0020..U+007E in hundredths of an em. */
const ASCII_EM100 = [
  32, 40, 46, 84, 64, 95, 78, 27, 39, 39, 50, 84, 32, 36, 32, 34, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 34, 34, 84, 84, 84, 56, 102, 68, 69, 72, 77, 67,
  61, 78, 75, 29, 50, 67, 56, 86, 75, 79, 67, 79, 72, 67, 61, 73, 68, 99, 69, 67, 69, 39, 34, 39, 84, 56, 50, 61, 63, 55, 63, 62, 35, 63, 63, 28, 28, 58,
  28, 97, 63, 61, 63, 63, 41, 52, 39, 63, 59, 82, 59, 59, 52, 64, 34, 64, 84,
];
const WIDE_EM = 1.25;
const OTHER_EM = 1.1;
/** The mark a cut label ends with, and its width (a whole em in DejaVu Sans). */
const ELLIPSIS = '…';
const ELLIPSIS_EM = 1;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The estimated width of one grapheme (a user-perceived character), in ems: an ASCII letter
 * with combining marks on it is as wide as the letter. */
function graphemeEm(g: string): number {
  const c = g.codePointAt(0) ?? 0;
  const ascii = c >= 0x20 && c < 0x7f;
  if (ascii && g.length === 1) return ASCII_EM100[c - 0x20]! / 100;
  const columns = stringWidth(g);
  if (ascii && columns === 1) return ASCII_EM100[c - 0x20]! / 100;
  return columns === 0 ? 0 : columns >= 2 ? WIDE_EM : OTHER_EM;
}

/** The estimated width of `text` drawn at `fontPx`, in pixels. */
export function textWidthPx(text: string, fontPx = 12): number {
  let em = 0;
  for (const { segment } of graphemes.segment(text)) em += graphemeEm(segment);
  return em * fontPx;
}

/**
 * `text` if it fits in `maxPx` at `fontPx`, else its longest start that fits with `…` after it
 * (whole graphemes only; '' when not even the mark fits). Reads only as much of `text` as fits,
 * so a label of a megabyte costs no more than a short one.
 */
export function fitText(text: string, maxPx: number, fontPx = 12): string {
  const room = maxPx / fontPx;
  const roomBeforeMark = room - ELLIPSIS_EM;
  let em = 0;
  let cut = -1;
  for (const { segment, index } of graphemes.segment(text)) {
    em += graphemeEm(segment);
    if (em > room) return cut < 0 ? '' : text.slice(0, cut) + ELLIPSIS;
    if (em <= roomBeforeMark) cut = index + segment.length;
  }
  return text;
}
