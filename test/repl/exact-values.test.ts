/**
 * Values reach JavaScript as the dump holds them: a Java string with an unpaired surrogate is
 * that very JavaScript string (JSON writes `\ud800`, the terminal shows it escaped), a `float`
 * reads as its shortest decimal (`0.1f` is 0.1) in query results and in `!obj`, and an Android
 * array dumped without its contents says so instead of listing its elements as null. Over the
 * tiny dump of `tiny-dump.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { Repl, type ReplIO } from '../../ts/repl/index.js';
import { formatTsv } from '../../ts/query/format.js';
import { renderObject } from '../../ts/repl/render.js';
import type { ObjectView } from '../../ts/session/types.js';
import { TINY, writeTinyDump } from './tiny-dump.js';

const dir = mkdtempSync(path.join(tmpdir(), 'heapql-exact-'));
let session: HeapSession;
let repl: Repl;
let out: string[] = [];
const saved = new Map<string, string>();
const io: ReplIO = {
  print: (t) => out.push(t),
  error: (t) => out.push(`error: ${t}`),
  saveFile: (file, content) => void saved.set(file, [...content].join('')),
  quit: () => {},
};
const run = async (statement: string) => {
  out = [];
  await repl.execute(statement);
  return out.join('\n');
};
const hex = (a: number) => `0x${a.toString(16)}`;

beforeAll(async () => {
  session = await openHeap(writeTinyDump(dir));
  repl = new Repl(session, io);
});
afterAll(() => {
  session.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('strings with unpaired surrogates', () => {
  it('a query result holds the exact Java string; JSON writes the escape; the table shows it escaped', async () => {
    const r = await session.query('SELECT toString(s) AS t FROM java.lang.String s WHERE toString(s) IS NOT NULL');
    expect(r.rows.map((row) => row[0])).toEqual(['\ud800x', '\udc00x']);
    expect(JSON.stringify(r.rows)).toBe('[["\\ud800x"],["\\udc00x"]]');
    const grouped = await session.query('SELECT toString(s) AS t, COUNT(*) AS n FROM java.lang.String s WHERE toString(s) IS NOT NULL GROUP BY toString(s)');
    expect(grouped.rowCount).toBe(2);
    // A string column, and a column of mixed kinds (JSON cells across the boundary), alike.
    const char = await session.query('SELECT t.c AS c FROM Tiny t');
    expect(char.rows).toEqual([['\ud800']]);
    const mixed = await session.query('SELECT t.c AS v FROM Tiny t UNION ALL SELECT t.f AS v FROM Tiny t');
    expect(mixed.columns[0]!.type).toBe('list');
    expect(mixed.rows).toEqual([['\ud800'], [0.1]]);
    const table = await run('SELECT toString(s) AS t FROM java.lang.String s WHERE toString(s) IS NOT NULL');
    expect(table).toContain('\\ud800x');
    expect(table).not.toContain('\\\\ud800');
    expect(table).not.toContain('\ufffd');
  });

  it('!save: TSV escapes an unpaired surrogate as the table does; CSV, which cannot escape, writes U+FFFD', async () => {
    await run('SELECT toString(s) AS t FROM java.lang.String s WHERE toString(s) IS NOT NULL');
    await run('!save out.tsv');
    await run('!save out.csv');
    // Two strings that differ stay apart in TSV, and a backslash is still `\\`.
    expect(saved.get('out.tsv')).toBe('t\n\\ud800x\n\\udc00x\n');
    // CSV has no escape: its UTF-8 bytes carry U+FFFD for each, as README says.
    expect(Buffer.from(saved.get('out.csv')!, 'utf8').toString('utf8')).toBe('t\r\n\ufffdx\r\n\ufffdx\r\n');
    const both = await session.query("SELECT toString(s) AS t, 'a\\b' AS b FROM java.lang.String s WHERE toString(s) IS NOT NULL");
    expect(formatTsv(both)).toBe('t\tb\n\\ud800x\ta\\\\b\n\\udc00x\ta\\\\b\n');
    // A surrogate pair is a character, written as it is.
    expect(formatTsv({ ...both, rows: [['a\ud83d\ude00', '\ud800\ud800\udc00']] })).toBe('t\tb\na\ud83d\ude00\t\\ud800\ud800\udc00\n');
  });

  it('!obj shows a char holding a lone surrogate as that unit, escaped once', async () => {
    const chars = await run(`!obj ${hex(TINY.chars)}`);
    expect(chars).toMatch(/\[0\] += \\ud800\n/);
    const view = await session.object((await session.resolveObject(hex(TINY.tiny)))!);
    expect(view.fields.find((f) => f.name === 'c')!.value).toBe('\ud800');
  });
});

describe('float values', () => {
  it('read as their shortest decimal in query results', async () => {
    const r = await session.query('SELECT t.f AS f, t.a[1] AS a1, classof(t).SF AS sf FROM Tiny t WHERE t.f = 0.1');
    expect(r.rows).toEqual([[0.1, 1.1, 0.1]]);
  });

  it('and in !obj', async () => {
    const id = (await session.resolveObject(hex(TINY.floats)))!;
    expect((await session.object(id)).fields.map((f) => f.value)).toEqual([0.1, 1.1]);
    const tiny = await run(`!obj ${hex(TINY.tiny)}`);
    expect(tiny).toMatch(/float +f += 0\.1\n/);
    expect(tiny).not.toContain('0.1000000');
  });
});

describe('an array dumped without its contents (NODATA)', () => {
  it('the look-up flags it and lists no elements; a String over it has its stated length', async () => {
    const id = (await session.resolveObject(hex(TINY.nodata)))!;
    const detail = await session.handle.object(id, {});
    expect(detail).toMatchObject({ arrayLength: 5, contentsMissing: true, fields: [], fieldCount: 0 });
    const text = await session.handle.object((await session.resolveObject(hex(TINY.lone)))!, {});
    expect(text).toMatchObject({ contentsMissing: false });
    const r = await session.query('SELECT s.@length AS n, s.length() AS m, toString(s) AS t FROM java.lang.String s WHERE toString(s) IS NULL');
    expect(r.rows).toEqual([[5, 5, null]]);
    // The REPL's !obj on it.
    const shown = await run(`!obj ${hex(TINY.nodata)}`);
    expect(shown).toMatch(/\nlength +5\ncontents not in the dump \(NODATA\)$/);
    expect(shown).not.toContain('null');
  });

  it('the REPL says the contents are not in the dump instead of listing nulls', () => {
    const view = {
      object: { objectId: 5, address: '0x2040', className: 'byte[]', label: 'byte[5] @ 0x2040' },
      kind: 'primitive-array', shallowSize: 17, retainedSize: null, reachable: null, arrayLength: 5,
      describedClass: null, gcRoots: [], heap: null, fields: [], fieldCount: 0, contentsMissing: true,
    } as ObjectView & { contentsMissing: boolean };
    const text = renderObject(view);
    expect(text).toContain('\ncontents not in the dump (NODATA)');
    expect(text).not.toContain('elements (');
    expect(text).toContain('length         5');
    // Any other array lists its elements as before.
    expect(renderObject({ ...view, contentsMissing: false, fields: [{ name: '[0]', type: 'byte', declaredBy: null, value: 1 }], fieldCount: 1 })).toContain('elements (1):\n  byte  [0]  = 1');
  });
});
