/**
 * Copies of string values in a dump that does not list them among its duplicates. A dump's
 * report lists only values with at least two copies (and at most STRING_LIMIT of them), so a
 * value the current dump lists and the baseline does not had 0 or 1 copies there (any number
 * when the baseline's list was cut): one OQL query over the baseline's Strings counts them.
 */
import { HeapqlError } from '../errors.js';
import { MAX_QUERY_LENGTH, type HeapSession, type PreparedQuery, type ProgressEvent } from '../session/index.js';

/** Characters of a value the report shows (the Rust side's VALUE_MAX_CHARS). */
const VALUE_MAX_CHARS = 200;
/**
 * Up to this many characters of regular expression the wanted values are matched in the scan
 * itself (one `LIKE`, a few hundred to a few thousand values; well under the regex engine's
 * size limit); beyond it every String's text is streamed and matched here. Either way one scan
 * of the Strings, and the regex one sends back only the matches.
 */
export const LOOKUP_PATTERN_CHARS = 100_000;

/** A duplicated value as the report lists it: its text cut at 200 characters and its full length. */
export interface ListedValue {
  value: string;
  truncated: boolean;
  /** Full length in UTF-16 code units (Java chars). */
  length: number;
}

/** The matching key of a listed value: its full length and its (cut) text. */
export const stringKey = (s: { value: string; length: number }): string => `${s.length}\u0000${s.value}`;

/** The key a String's full text is listed under (cut as the report cuts it: 200 code points). */
export function textKey(text: string): string {
  if (text.length <= VALUE_MAX_CHARS) return stringKey({ value: text, length: text.length });
  let end = 0;
  for (let n = 0; n < VALUE_MAX_CHARS && end < text.length; n++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return stringKey({ value: text.slice(0, end), length: text.length });
}

/** A regular expression (Rust syntax) matching the value's whole text; any tail when it was cut. */
function valuePattern(v: ListedValue): string {
  let out = '';
  for (const ch of v.value) out += /^[A-Za-z0-9]$/.test(ch) ? ch : `\\x{${ch.codePointAt(0)!.toString(16)}}`;
  return v.truncated ? `${out}(?s:.*)` : out;
}

/**
 * How many Strings of `session` have each of `values` as their text (by stringKey; 0 when none),
 * in one scan: a `LIKE` of all the values when its pattern is short enough, else every text
 * streamed and matched by key.
 */
export async function countCopies(
  session: HeapSession,
  values: ListedValue[],
  options: { signal?: AbortSignal; onProgress?: (e: ProgressEvent) => void; patternChars?: number } = {},
): Promise<Map<string, number>> {
  const { signal, onProgress, patternChars = LOOKUP_PATTERN_CHARS } = options;
  const run = { ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}) };
  const counts = new Map(values.map((v) => [stringKey(v), 0]));
  if (values.length === 0 || !session.classNames().includes('java.lang.String')) return counts;
  const add = (text: unknown, n: number) => {
    if (typeof text !== 'string') return;
    const k = textKey(text);
    const c = counts.get(k);
    if (c !== undefined) counts.set(k, c + n);
  };
  const pattern = `(?:${values.map(valuePattern).join('|')})`;
  const query = `SELECT toString(s) AS text, COUNT(*) AS copies FROM java.lang.String s WHERE toString(s) LIKE "${pattern}" GROUP BY toString(s)`;
  // A query longer than any front takes (MAX_QUERY_LENGTH) streams too.
  if (pattern.length <= patternChars && query.length <= MAX_QUERY_LENGTH) {
    let prepared: PreparedQuery | null = null;
    try {
      prepared = session.prepare(query);
    } catch (e) {
      // A pattern the regex engine finds too big to compile: the stream below instead.
      if (!(e instanceof HeapqlError && e.code === 'ERR_OQL_PLAN')) throw e;
    }
    if (prepared) {
      const r = await session.query(prepared, run);
      for (const [text, n] of r.rows) add(text, Number(n));
      return counts;
    }
  }
  for await (const batch of session.queryBatches('SELECT toString(s) AS text FROM java.lang.String s', run)) {
    for (const [text] of batch.rows) add(text, 1);
  }
  return counts;
}
