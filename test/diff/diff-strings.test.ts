/**
 * Counting copies of listed string values in a dump (strings.ts): the one-`LIKE` scan and the
 * streamed scan agree with a plain count of every String, on texts cut at 200 characters, texts
 * beyond ASCII and texts with quotes; and a baseline whose list was cut.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { computeDiff } from '../../ts/diff/index.js';
import { dominatorThreshold } from '../../ts/diff/compute.js';
import { fullSections, snapshot, type DumpSnapshot } from '../../ts/diff/snapshot.js';
import { countCopies, stringKey, textKey, type ListedValue } from '../../ts/diff/strings.js';
import { MAX_QUERY_LENGTH, openHeap, type HeapSession } from '../../ts/session/index.js';
import { baselineDump, corpus, currentDump, demoDump, knownDump } from './fixtures.js';

/** Every String's text of a dump, counted by the key the report lists it under. */
async function allCounts(session: HeapSession): Promise<Map<string, { value: ListedValue; count: number }>> {
  const out = new Map<string, { value: ListedValue; count: number }>();
  const r = await session.query('SELECT toString(s) AS text, COUNT(*) AS n FROM java.lang.String s GROUP BY toString(s)');
  for (const [text, n] of r.rows) {
    if (typeof text !== 'string') continue;
    const k = textKey(text);
    const [length, value] = [Number(k.slice(0, k.indexOf('\u0000'))), k.slice(k.indexOf('\u0000') + 1)];
    const e = out.get(k) ?? { value: { value, length, truncated: value.length < text.length }, count: 0 };
    e.count += Number(n);
    out.set(k, e);
  }
  return out;
}

describe('textKey cuts a text as the report lists it', () => {
  it('200 code points (a surrogate pair is one), the length in UTF-16 units', () => {
    expect(textKey('abc')).toBe(stringKey({ value: 'abc', length: 3 }));
    const long = 'x'.repeat(250);
    expect(textKey(long)).toBe(stringKey({ value: 'x'.repeat(200), length: 250 }));
    const astral = '😀'.repeat(150); // 150 code points, 300 UTF-16 units: not cut
    expect(textKey(astral)).toBe(stringKey({ value: astral, length: 300 }));
    expect(textKey('😀'.repeat(201))).toBe(stringKey({ value: '😀'.repeat(200), length: 402 }));
  });

  it('matches the keys of the values a report lists (one of KnownHeap\'s is beyond ASCII)', async () => {
    const session = await openHeap(knownDump);
    try {
      await session.analyze();
      const listed = (await fullSections(session)).waste.duplicateStrings.top;
      const counts = await allCounts(session);
      expect(listed.some((s) => /[^\x20-\x7e]/.test(s.value))).toBe(true);
      for (const s of listed) expect(counts.get(stringKey(s))?.count, s.value.slice(0, 40)).toBe(s.count);
    } finally {
      session.close();
    }
  });
});

const dumps: [string, string][] = [
  ['DiffHeap baseline', baselineDump],
  ['demo (texts over 200 characters)', demoDump],
  ['KnownHeap (texts beyond ASCII)', knownDump],
  ['OpenJDK 11 corpus dump (long and non-ASCII texts)', corpus('openjdk_jdk11_04_x64.hprof.gz')],
];

describe.each(dumps)('countCopies on %s', (_name, dump) => {
  const present = existsSync(dump);
  if (!present) console.log(`skipped: ${dump} is absent`);
  let session: HeapSession;
  let counts: Map<string, { value: ListedValue; count: number }>;
  beforeAll(async () => {
    if (!present) return;
    session = await openHeap(dump);
    counts = await allCounts(session);
  });
  afterAll(() => session?.close());

  it.skipIf(!present)('the LIKE scan and the streamed scan count what a plain count finds; values not in the dump count 0', async () => {
    const all = [...counts.values()];
    // Every text cut at 200 characters, every text beyond ASCII or with a quote or backslash, and a spread of the rest.
    const odd = all.filter((e) => e.value.truncated || /[^\x20-\x7e]|['"\\]/.test(e.value.value));
    const plain = all.filter((_, i) => i % 97 === 0);
    const absent: ListedValue[] = [
      { value: 'heapql: no such text \u00e9"\'', truncated: false, length: 25 },
      { value: (all.find((e) => e.value.truncated)?.value.value ?? 'y'.repeat(200)), truncated: true, length: 99_999 },
    ];
    const values = [...odd, ...plain].map((e) => e.value).concat(absent);
    expect(values.length).toBeGreaterThan(20);
    const streams = vi.spyOn(session, 'queryBatches');
    const like = await countCopies(session, values);
    expect(streams, 'the LIKE scan, not the stream').not.toHaveBeenCalled();
    const streamed = await countCopies(session, values, { patternChars: 0 });
    expect(streams).toHaveBeenCalledTimes(1);
    streams.mockRestore();
    for (const v of values) {
      const k = stringKey(v);
      const want = counts.get(k)?.count ?? 0;
      expect(like.get(k), v.value.slice(0, 60)).toBe(want);
      expect(streamed.get(k), v.value.slice(0, 60)).toBe(want);
    }
    expect(like.get(stringKey(absent[0]!))).toBe(0);
    expect(like.get(stringKey(absent[1]!))).toBe(0);
  });
});

describe('countCopies with a pattern too big for the regex engine or the query', () => {
  const expectStreamed = async (values: ListedValue[], queryLength: (q: number) => void) => {
    const session = await openHeap(baselineDump);
    try {
      values.push({ value: 'session-token-7f3a', truncated: false, length: 18 });
      const prepares = vi.spyOn(session, 'prepare');
      const streams = vi.spyOn(session, 'queryBatches');
      const counts = await countCopies(session, values, { patternChars: Infinity });
      expect(streams).toHaveBeenCalledTimes(1);
      queryLength(prepares.mock.calls.length === 0 ? Infinity : String(prepares.mock.calls[0]![0]).length);
      expect(counts.get(stringKey(values[0]!))).toBe(0);
      expect(counts.get(stringKey(values.at(-1)!))).toBe(101);
    } finally {
      session.close();
    }
  };

  it('streams the texts when the regex engine refuses the pattern (cut values: a `.*` each)', async () => {
    // 13,000 cut values: a pattern within the query limit that compiles too big.
    const values: ListedValue[] = Array.from({ length: 13_000 }, (_, i) => ({ value: `v${i}x`, truncated: true, length: 50 }));
    await expectStreamed(values, (length) => expect(length).toBeLessThanOrEqual(MAX_QUERY_LENGTH));
  });

  it('streams the texts, never asking, when the query would be longer than any front takes', async () => {
    const values: ListedValue[] = Array.from({ length: 20_000 }, (_, i) => ({ value: `heapql-absent-${i}-${'z'.repeat(30)}`, truncated: false, length: 50 }));
    await expectStreamed(values, (length) => expect(length).toBe(Infinity));
  });
});

describe('a baseline whose list of duplicated values was cut', () => {
  let base: DumpSnapshot;
  let cur: DumpSnapshot;
  beforeAll(async () => {
    const take = async (dump: string, other: ListedValue[]) => {
      const session = await openHeap(dump);
      try {
        await session.analyze();
        const sections = await fullSections(session);
        // As if the list had stopped before the most wasteful value.
        if (other.length > 0) sections.waste.duplicateStrings.top = sections.waste.duplicateStrings.top.slice(1);
        return await snapshot(session, sections, dominatorThreshold(sections.overview.heap.usedHeap, 0), 'x', other);
      } finally {
        session.close();
      }
    };
    cur = await take(currentDump, []);
    base = await take(baselineDump, cur.sections.waste.duplicateStrings.top);
  });

  it('counts the copies of a value it no longer lists, and estimates its wasted bytes at the current bytes per copy', () => {
    const m = computeDiff(base, cur);
    const token = m.duplicateStrings.grown.find((r) => r.value === 'session-token-7f3a')!;
    expect(token.inBaseline).toBe(false);
    expect(token.count).toMatchObject({ baseline: 101, current: 301, delta: 200 });
    expect(token.wastedBytes.baseline).toBe(Math.round((token.wastedBytes.current * 100) / 300));
    expect(m.duplicateStrings.complete).toBe(true);
  });
});
