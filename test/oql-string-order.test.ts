/**
 * Strings are ordered as Java's String.compareTo orders them, by UTF-16 unit, everywhere: OQL's
 * ORDER BY (full sort and top-k), GROUP BY's ordered groups, MIN/MAX, `<` / `>` against a literal
 * and against a String object, and the REPL's !sort. Code point order (the order of UTF-8 bytes)
 * differs for a character beyond U+FFFF (a surrogate pair, units U+D800..U+DFFF) against one from
 * U+E000 to U+FFFF: Java puts the pair first. Over a real dump (fixtures/programs/TextOrderHeap.java)
 * whose `Text` objects hold such strings, `made` numbering them in the order they were made.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import type { QueryResult } from '../ts/query/schema.js';
import { sortRows } from '../ts/repl/table.js';
import { histogramOrder, type HistogramRow } from '../ts/session/session.js';
import { compareText } from '../ts/text-order.js';
import { root } from './tools/run.js';

const DUMP = path.join(root, 'fixtures/dumps/text/TextOrderHeap-jdk17.hprof.gz');
const TEXT = 'TextOrderHeap$Text t';

/** The texts by `made` (as the program made them). */
const TEXTS = ['a\ue000', 'a\u{1f600}', 'a\ufffd', 'a\ud7ff', 'a\uff10', 'a\u{10000}', 'a', 'b', 'a\u00e9'];
/**
 * Java's order, worked out by hand from the second unit of each: "a" (none) < é 00E9 < D7FF
 * < D800 (U+10000 is D800 DC00) < D83D (U+1F600 is D83D DE00) < E000 < FF10 < FFFD, then "b".
 * By code point U+10000 and U+1F600 would come last of the "a…" texts: 6, 8, 3, 0, 4, 2, 5, 1, 7.
 */
const JAVA_ORDER = [6, 8, 3, 5, 1, 0, 4, 2, 7];

let heap: HeapSession;
beforeAll(async () => {
  heap = await openHeap(DUMP, { noCache: true });
});
afterAll(() => heap?.close());

const made = (r: QueryResult) => r.rows.map((row) => row[0]);

describe('OQL orders strings by UTF-16 unit, as Java does', () => {
  test('the dump holds the texts the test expects', async () => {
    const r = await heap.query(`SELECT t.made, toString(t.s) FROM ${TEXT}`);
    expect(new Map(r.rows.map(([m, s]) => [m, s]))).toEqual(new Map(TEXTS.map((s, i) => [i, s])));
  });

  test('ORDER BY, ascending and descending, whole and with LIMIT (top-k)', async () => {
    expect(made(await heap.query(`SELECT t.made FROM ${TEXT} ORDER BY toString(t.s)`))).toEqual(JAVA_ORDER);
    expect(made(await heap.query(`SELECT t.made FROM ${TEXT} ORDER BY toString(t.s) DESC`))).toEqual([...JAVA_ORDER].reverse());
    expect(made(await heap.query(`SELECT t.made FROM ${TEXT} ORDER BY toString(t.s) LIMIT 5`))).toEqual(JAVA_ORDER.slice(0, 5));
    expect(made(await heap.query(`SELECT t.made, toString(t.s) AS s FROM ${TEXT} ORDER BY s`))).toEqual(JAVA_ORDER);
  });

  test('groups ordered by their text', async () => {
    const r = await heap.query(`SELECT toString(t.s) AS s, COUNT(*) AS n FROM ${TEXT} GROUP BY toString(t.s) ORDER BY toString(t.s)`);
    expect(r.rows.map((row) => row[0])).toEqual(JAVA_ORDER.map((i) => TEXTS[i]));
  });

  test('MIN and MAX', async () => {
    const r = await heap.query(`SELECT MIN(toString(t.s)) AS lo, MAX(toString(t.s)) AS hi FROM ${TEXT} WHERE t.made != 6 AND t.made != 7`);
    // By code point the greatest would be "a😀".
    expect(r.rows).toEqual([['a\u00e9', 'a\ufffd']]);
  });

  test('< and > against a literal, for toString(x) and for the String object itself', async () => {
    const below = JAVA_ORDER.slice(0, JAVA_ORDER.indexOf(0)).sort((x, y) => x - y);
    expect(below).toEqual([1, 3, 5, 6, 8]);
    const sorted = (r: QueryResult) => made(r).sort((x, y) => (x as number) - (y as number));
    expect(sorted(await heap.query(`SELECT t.made FROM ${TEXT} WHERE toString(t.s) < "a\ue000"`))).toEqual(below);
    expect(sorted(await heap.query(`SELECT t.made FROM ${TEXT} WHERE t.s < "a\ue000"`))).toEqual(below);
    // U+1F600 is above U+FF10 by code point, below it in Java.
    expect(sorted(await heap.query(`SELECT t.made FROM ${TEXT} WHERE "a\uff10" > t.s AND t.s > "a"`))).toEqual([0, 1, 3, 5, 8]);
  });

  test('the REPL\'s !sort on a text column', async () => {
    const r = await heap.query(`SELECT t.made, toString(t.s) AS s FROM ${TEXT}`);
    expect(made(sortRows(r, 's', false))).toEqual(JAVA_ORDER);
    expect(made(sortRows(r, 's', true))).toEqual([...JAVA_ORDER].reverse());
  });

  test('the class histogram breaks ties by class name in the same order', () => {
    const row = (className: string): HistogramRow => ({ className, count: 1, shallow: 16 }) as HistogramRow;
    const rows = ['p.\uff10', 'p.\u{1f600}', 'p.a'].map(row).sort(histogramOrder);
    expect(rows.map((r) => r.className)).toEqual(['p.a', 'p.\u{1f600}', 'p.\uff10']);
    expect(compareText('\u{10000}', '\ue000')).toBe(-1);
  });
});
