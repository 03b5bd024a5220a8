/**
 * `!save`'s file text a block at a time (`fileText`, the command's blocks) is byte for byte the
 * whole conversion it replaced: `formatCsv`, `formatTsv`, `stringifyJson(result, 2)` and a
 * newline, for every kind of value (objects, exact longs, -0, NaN, ±Infinity, doubles past 2^53,
 * lists, NULL, text with quotes, line breaks, CJK, emoji, bidi and a `"rows": []` of its own),
 * the keys in the result's order, any block size, no rows. The command hands a front blocks
 * made one at a time, and says how far a save went that Ctrl-C stopped.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { fileText, formatCsv, formatTsv, type FileFormat } from '../../ts/query/format.js';
import { stringifyJson } from '../../ts/query/json.js';
import type { ObjectRef, QueryResult, Value } from '../../ts/query/schema.js';
import { Repl, type ReplIO } from '../../ts/repl/index.js';
import { SaveInterrupted } from '../../ts/repl/errors.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

const ref = (i: number, label = `java.lang.String @ 0x${(0x1000 + i * 16).toString(16)}`): ObjectRef => ({
  objectId: i, address: `0x${(0x1000 + i * 16).toString(16)}`, className: 'java.lang.String', label,
});

const CELLS: Value[] = [
  ref(1),
  ref(2, 'java.lang.String @ 0x1020  "say \\"hi\\",\r\nthere"'),
  9007199254740993n,
  -9223372036854775808n,
  -0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2 ** 60,
  0.1 + 0.2,
  null,
  '',
  'plain',
  '=cmd()',
  'tab\there\\back',
  '名前 中文类名 😀👍🏽 e\u0301 \u202eevil\u202c \u0000\u001b[31m',
  '\n  "rows": []\n',
  true,
  [ref(3), 12n, [null, 'x'], []],
];

/** `n` rows of the cells above, shifted by the row's number. */
function sample(n: number, extra: Partial<QueryResult> = {}): QueryResult {
  const columns: QueryResult['columns'] = [
    { name: 'obj', type: 'object' },
    { name: 'value', type: 'list' },
    { name: 'text "rows": []', type: 'string' },
  ];
  const rows: Value[][] = [];
  for (let i = 0; i < n; i++) rows.push([ref(i), CELLS[i % CELLS.length]!, CELLS[(i * 7 + 3) % CELLS.length]!]);
  return { name: 'q1', oql: 'SELECT x FROM "rows": [] x', columns, rows, rowCount: n, truncated: false, elapsedMs: 1.5, ...extra };
}

function whole(result: QueryResult, format: FileFormat): string {
  if (format === 'csv') return formatCsv(result);
  if (format === 'tsv') return formatTsv(result);
  return `${stringifyJson(result, 2)}\n`;
}

function pieces(result: QueryResult, format: FileFormat, size: number): string {
  const text = fileText(result, format);
  let out = text.head();
  for (let at = 0; at < result.rows.length; at += size) out += text.rows(result.rows.slice(at, at + size));
  return out + text.tail();
}

describe('fileText', () => {
  for (const format of ['csv', 'tsv', 'json'] as const) {
    it(`${format}: the pieces are the whole text, whatever the piece size`, () => {
      const results = [
        sample(0),
        sample(1),
        sample(57),
        sample(57, { note: 'a note with "rows": [] in it', viz: { kind: 'histogram', label: 'obj', value: 2, cap: 3 } }),
        // The keys in another order (a result read back from JSON may have them so).
        (({ rows, ...rest }) => ({ rows, ...rest }))(sample(5)),
        (({ elapsedMs, ...rest }) => ({ elapsedMs, ...rest }))(sample(5)) as QueryResult,
      ];
      for (const r of results) {
        const expected = whole(r, format);
        for (const size of [1, 2, 7, 1000]) expect(pieces(r, format, size)).toBe(expected);
      }
    });
  }

  it('the JSON reads back as the result, exact longs and all', () => {
    const r = sample(40);
    expect(JSON.parse(pieces(r, 'json', 3))).toEqual(JSON.parse(whole(r, 'json')));
  });
});

describe('!save', () => {
  let session: HeapSession;
  beforeAll(async () => {
    session = await openHeap(demo);
  });
  afterAll(() => session.close());

  /** A front that takes the blocks one by one; `stopAfter` blocks, then it stops as Ctrl-C would. */
  function front(stopAfter = Infinity) {
    const out: string[] = [];
    const taken: string[] = [];
    let made = 0;
    const io: ReplIO = {
      print: (t) => out.push(t),
      error: (t) => out.push(t),
      saveFile: (_file, content) => {
        const it = content[Symbol.iterator]();
        for (;;) {
          if (taken.length === stopAfter) throw new SaveInterrupted('out.json was not written');
          const next = it.next();
          if (next.done) return;
          made++;
          // Blocks are made as they are taken, not before.
          expect(made).toBe(taken.length + 1);
          taken.push(next.value);
        }
      },
      quit: () => {},
    };
    return { io, out, taken };
  }

  it('hands the front the file a block of 1000 rows at a time, together the whole text', async () => {
    const oql = 'SELECT x, x.@usedHeapSize AS size, classof(x) AS class, toString(x) AS text FROM INSTANCEOF java.lang.Object x';
    for (const format of ['csv', 'tsv', 'json'] as const) {
      const { io, out, taken } = front();
      const repl = new Repl(session, io);
      expect(await repl.execute(oql)).toBe(true);
      const result = repl.state.result!;
      expect(result.rows.length).toBe(20437);
      expect(await repl.execute(`!save out.${format}`)).toBe(true);
      expect(out.at(-1)).toBe(`saved 20437 rows to out.${format}`);
      expect(taken).toHaveLength(21);
      expect(taken.join('')).toBe(whole(result, format));
    }
  });

  it('a save stopped by Ctrl-C says after how many rows, and what became of the file', async () => {
    for (const [blocks, rows] of [[1, 1000], [20, 20000]]) {
      const { io, out, taken } = front(blocks);
      const repl = new Repl(session, io);
      await repl.execute('SELECT x FROM INSTANCEOF java.lang.Object x');
      expect(await repl.execute('!save out.json')).toBe(false);
      expect(taken).toHaveLength(blocks);
      expect(out.at(-1)).toBe(`error: interrupted; !save stopped after ${rows} of 20437 rows: out.json was not written`);
    }
  });
});
