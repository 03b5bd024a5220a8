/**
 * JSON text with exact 64-bit integers. A query value that is an integer outside ±(2^53 − 1) (a
 * Java long that a double would round) is a `bigint`, which `JSON.stringify` refuses; here it is
 * written as a bare integer literal with all its digits. Every JSON output of a query result
 * (CLI `--format json`, the server's JSON and NDJSON, MCP tool results, the REPL's `!save`) goes
 * through `stringifyJson`.
 *
 * A double that is NaN or infinite (a Java `double` can be) has no JSON literal: `JSON.stringify`
 * would write `null`, which reads as SQL NULL. It is written as the string "NaN", "Infinity" or
 * "-Infinity" (as protobuf's JSON mapping does).
 *
 * A double's -0 keeps its sign, as the table and CSV keep it: it is written `-0.0` (valid JSON,
 * which `JSON.parse` reads back as -0), where `JSON.stringify` writes `0`.
 *
 * A double that is a whole number beyond ±(2^53 − 1) (2^53 itself, a SUM of longs past a long's
 * range) is written with an exponent, `9.007199254740992e+15`, as the table and CSV write it:
 * `JSON.stringify` writes `9007199254740992`, the very text of an exact long, which an exact
 * reader (`parseJsonExact`) would take for one, with digits the double never had. Any JSON
 * reader reads the exponent form back as the same double.
 *
 * The common case costs little: a value without a bigint, a -0, a non-finite number or such a
 * double is plain `JSON.stringify` after one walk looking for the latter (a tenth of the
 * stringify's time). Otherwise the value is written again with each of them as a marker string
 * (a random nonce no string of the value contains), then the markers are replaced by their
 * literals. Browser-safe (no Node built-ins).
 */
import type { QueryResult, Value } from './schema.js';

/**
 * `JSON.stringify(value, null, indent)`, with bigints as exact integer literals, NaN/±Infinity as
 * strings, -0 as `-0.0` and a whole double beyond ±(2^53 − 1) with an exponent.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  const special = containsSpecialNumber(value);
  if (!special) {
    try {
      return JSON.stringify(value, null, indent);
    } catch (err) {
      if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err;
    }
  }
  for (;;) {
    const nonce = `\u0001bigint-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}:`;
    let clash = false;
    const text = JSON.stringify(
      value,
      (key, v: unknown) => {
        if (typeof v === 'bigint') return `${nonce}${v}`;
        if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
        if (Object.is(v, -0)) return `${nonce}-0.0`;
        if (typeof v === 'number' && isUnsafeWholeDouble(v)) return `${nonce}${v.toExponential()}`;
        if ((typeof v === 'string' && v.includes(nonce)) || key.includes(nonce)) clash = true;
        return v;
      },
      indent,
    );
    if (clash) continue;
    // The nonce's \u0001 is written escaped; nothing else in the text can be such a string.
    const quoted = JSON.stringify(nonce).slice(0, -1);
    return text.split(quoted).map((part, i) => (i === 0 ? part : part.replace(/^(-?\d+(?:\.\d+)?(?:e[+-]\d+)?)"/, '$1'))).join('');
  }
}

/** Whether `test` holds for a value or anything in it (arrays and plain objects walked). */
function anyLeaf(value: unknown, test: (leaf: unknown) => boolean): boolean {
  if (value === null || typeof value !== 'object') return test(value);
  if (Array.isArray(value)) {
    for (const x of value) if (anyLeaf(x, test)) return true;
    return false;
  }
  for (const k in value) if (anyLeaf((value as Record<string, unknown>)[k], test)) return true;
  return false;
}

/**
 * A whole number beyond ±(2^53 − 1) held in a double: `JSON.stringify` writes it as a plain
 * integer (below 1e21), which reads as an exact long. (Longs that big are bigints.)
 */
function isUnsafeWholeDouble(x: number): boolean {
  return Number.isInteger(x) && !Number.isSafeInteger(x);
}

/** Whether a value holds a NaN, an infinite number, a -0 or a whole double beyond 2^53 anywhere. */
function containsSpecialNumber(value: unknown): boolean {
  return anyLeaf(value, (x) => typeof x === 'number' && (!Number.isFinite(x) || Object.is(x, -0) || isUnsafeWholeDouble(x)));
}

/** Whether a value holds a NaN or an infinite number anywhere. */
export function containsNonFinite(value: unknown): boolean {
  return anyLeaf(value, (x) => typeof x === 'number' && !Number.isFinite(x));
}

/** Whether a value holds a bigint anywhere. */
export function containsBigInt(value: unknown): boolean {
  return anyLeaf(value, (x) => typeof x === 'bigint');
}

/**
 * The value as its `stringifyJson` text reads back with `JSON.parse`: bigints become (rounded)
 * numbers, NaN and ±Infinity strings. For checking an in-memory value against a JSON Schema,
 * whose validators know no bigint and take no NaN for a number.
 */
export function asJsonReadsBack(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(asJsonReadsBack);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = asJsonReadsBack(v);
  return out;
}

/** An integer literal of at least 16 digits: the only kind that may lie beyond ±(2^53 − 1). */
const LONG_DIGITS = /\d{16}/;
/** JSON string literals (skipped whole) and number literals. */
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * `JSON.parse`, but an integer literal beyond ±(2^53 − 1) becomes an exact `bigint` (the
 * inverse of `stringifyJson`): for JavaScript clients of heapql's JSON, such as the browser REPL.
 * A text without a 16-digit run is plain `JSON.parse`.
 */
export function parseJsonExact(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  for (;;) {
    const nonce = `\u0001bigint-${Math.random().toString(36).slice(2)}:`;
    const escaped = JSON.stringify(nonce).slice(1, -1);
    let marked = 0;
    const rewritten = text.replace(TOKENS, (token) => {
      if (token.startsWith('"') || !/^-?\d+$/.test(token)) return token;
      if (Number.isSafeInteger(Number(token))) return token;
      marked++;
      return `"${escaped}${token}"`;
    });
    let seen = 0;
    const value: unknown = JSON.parse(rewritten, function (this: unknown, key: string, v: unknown) {
      if (key.startsWith(nonce)) seen = Number.NaN;
      if (typeof v === 'string' && v.startsWith(nonce)) {
        seen++;
        return BigInt(v.slice(nonce.length));
      }
      return v;
    });
    // Every marker found and nothing else looked like one (a string of the text never does
    // but by chance; then another nonce).
    if (seen === marked) return value;
  }
}

/** The strings `stringifyJson` writes for the doubles JSON has no literal for. */
const NON_FINITE: Readonly<Record<string, number>> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY };

/**
 * A QueryResult read from JSON (`parseJsonExact`, `JSON.parse`) with its NaN and ±Infinity
 * numbers again: in a column of type `number`, which holds numbers only, the strings "NaN",
 * "Infinity" and "-Infinity" are the doubles `stringifyJson` wrote so. A list cell is left as
 * read (a list may hold text, and "NaN" there may be a string). Changes `result` in place and
 * returns it.
 */
export function restoreNonFinite(result: QueryResult): QueryResult {
  const numeric = result.columns.flatMap((c, i) => (c.type === 'number' ? [i] : []));
  if (numeric.length === 0) return result;
  for (const row of result.rows as Value[][]) {
    for (const i of numeric) {
      const v = row[i];
      if (typeof v === 'string' && v in NON_FINITE) row[i] = NON_FINITE[v]!;
    }
  }
  return result;
}
