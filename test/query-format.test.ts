// QueryResult: schema, batch conversion, and the table / JSON / CSV / TSV formatters.
import { describe, expect, test } from 'vitest';
import {
  batchToQueryResult, formatCsv, formatJson, formatTable, formatTsv, queryResultJsonSchema, StreamedTable, validateQueryResult,
  type Batch, type ObjectRef, type QueryResult,
} from '../ts/query/index.js';

const ref = (i: number): ObjectRef => ({
  objectId: i, address: `0x${(0x1000 + i * 16).toString(16)}`, className: 'java.lang.String',
  label: `java.lang.String @ 0x${(0x1000 + i * 16).toString(16)}`,
});

function result(columns: QueryResult['columns'], rows: QueryResult['rows'], extra: Partial<QueryResult> = {}): QueryResult {
  return { name: 'q1', oql: 'SELECT ...', columns, rows, rowCount: rows.length, truncated: false, elapsedMs: 1.5, ...extra };
}

describe('batchToQueryResult', () => {
  test('every column type, NULLs, one resolver call with distinct indices', () => {
    const calls: number[][] = [];
    const resolve = (idx: Uint32Array) => {
      calls.push([...idx]);
      return [...idx].map(ref);
    };
    const batch: Batch = {
      rowCount: 3,
      columns: [
        { name: '*', type: 'object', values: Uint32Array.from([4, 7, 4]) },
        { name: 'n', type: 'number', values: Float64Array.from([1, 2.5, Number.NaN]), nulls: Uint8Array.from([0, 1, 0]) },
        { name: 's', type: 'string', values: ['a', 'b', 'c'] },
        { name: 'd', type: 'string', values: [1, 0, 1], dict: ['x', 'y'] },
        { name: 'b', type: 'bool', values: [1, 0, 1] },
        { name: 'l', type: 'list', values: ['[{"o":9},{"o":4}]', '"text"', '3'], nulls: Uint8Array.from([0, 0, 1]) },
      ],
    };
    const r = batchToQueryResult(batch, resolve, { name: 'q1', oql: 'SELECT', elapsedMs: 2 });
    expect(calls).toEqual([[9, 4, 7]]);
    expect(r.rows).toEqual([
      [ref(4), 1, 'a', 'y', true, [ref(9), ref(4)]],
      [ref(7), null, 'b', 'x', false, 'text'],
      // NaN is a value (a Java double can be NaN), not NULL.
      [ref(4), Number.NaN, 'c', 'y', true, null],
    ]);
    expect(r.columns.map((c) => c.type)).toEqual(['object', 'number', 'string', 'string', 'bool', 'list']);
    expect(r).toMatchObject({ rowCount: 3, truncated: false, elapsedMs: 2 });
    expect(validateQueryResult(r)).toEqual({ ok: true, errors: [] });
  });

  test('no objects: the resolver is not called; note and viz are carried', () => {
    const r = batchToQueryResult(
      { rowCount: 1, columns: [{ name: 'COUNT(*)', type: 'number', values: Float64Array.from([42]) }] },
      () => { throw new Error('not expected'); },
      { name: 'count', oql: 'SELECT COUNT(*) FROM X', elapsedMs: 0, truncated: true, note: 'n', viz: { kind: 'histogram', cap: 3 } },
    );
    expect(r).toMatchObject({ rows: [[42]], truncated: true, note: 'n', viz: { kind: 'histogram', cap: 3 } });
  });

  test('a resolver that returns too few references is an error', () => {
    expect(() =>
      batchToQueryResult({ rowCount: 1, columns: [{ name: '*', type: 'object', values: Uint32Array.from([1]) }] }, () => [], {
        name: 'q', oql: '', elapsedMs: 0,
      }),
    ).toThrow('object resolver returned 0 references for 1 indices');
  });
});

describe('schema', () => {
  test('the JSON Schema is plain JSON describing QueryResult', () => {
    const s = queryResultJsonSchema();
    expect(s.title).toBe('QueryResult');
    expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(Object.keys(s.properties as object)).toEqual(['name', 'oql', 'columns', 'rows', 'rowCount', 'truncated', 'elapsedMs', 'note', 'viz']);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  test('invalid results are rejected with paths', () => {
    const bad = { ...result([{ name: 'a', type: 'number' }], [[{ objectId: 1, address: 'zz', className: 'C', label: 'C' }]]) };
    const v = validateQueryResult(bad);
    expect(v.ok).toBe(false);
    expect(v.errors.some((e) => e.instancePath.startsWith('/rows/0/0'))).toBe(true);
    expect(validateQueryResult({ ...bad, rows: [], extra: 1 }).ok).toBe(false);
  });
});

describe('table', () => {
  test('header, rule, aligned cells, footer', () => {
    const r = result(
      [{ name: 'object', type: 'object' }, { name: 'bytes', type: 'number' }, { name: 'text', type: 'string' }],
      [[ref(1), 24, 'hello'], [ref(2), 1024, null]],
    );
    expect(formatTable(r)).toBe(
      [
        'object                    | bytes | text',
        '--------------------------+-------+------',
        'java.lang.String @ 0x1010 |    24 | hello',
        'java.lang.String @ 0x1020 |  1024 | null',
        '(2 rows)',
      ].join('\n'),
    );
  });

  test('one row, truncation, note, floats, lists, control characters, long cells', () => {
    const r = result(
      [{ name: 'v', type: 'list' }, { name: 'f', type: 'number' }, { name: 's', type: 'string' }],
      [[[ref(1), 3], 0.1 + 0.2, `a\nb${'x'.repeat(20)}`]],
      { truncated: true, note: 'something to know' },
    );
    expect(formatTable(r, { maxCellWidth: 12 })).toBe(
      [
        'v            | f   | s',
        '-------------+-----+-------------',
        '[java.lang.… | 0.3 | a\\nbxxxxxxx…',
        '(1 row, truncated)',
        'note: something to know',
      ].join('\n'),
    );
  });

  test("a String's label: the escapes of its quoted text shown once, its line breaks escaped; a class name's backslash doubled", () => {
    // The label as the executor makes it: `"` and `\` in the text escaped by a backslash.
    const json: ObjectRef = {
      objectId: 1, address: '0x10', className: 'java.lang.String',
      label: 'java.lang.String @ 0x10  "{\n  \\"program\\": \\"a\\\\b\\"}"',
    };
    const odd: ObjectRef = { objectId: 2, address: '0x20', className: 'A\\u0000', label: 'A\\u0000 @ 0x20' };
    const r = result([{ name: 'o', type: 'object' }, { name: 'l', type: 'list' }], [[json, [json, 'x\\y']], [odd, null]]);
    const lines = formatTable(r, { maxCellWidth: 200 }).split('\n');
    expect(lines[2]).toBe('java.lang.String @ 0x10  "{\\n  \\"program\\": \\"a\\\\b\\"}" | [java.lang.String @ 0x10  "{\\n  \\"program\\": \\"a\\\\b\\"}", x\\\\y]');
    expect(lines[3]).toMatch(/^A\\\\u0000 @ 0x20 +\| null$/);
  });

  test('text for a terminal: C1 and bidi controls escaped, a backslash doubled, CR shown as \\r', () => {
    const r = result(
      [{ name: 'name', type: 'string' }, { name: 'n', type: 'number' }],
      [
        ['c1\u0085c1\u009b31mred', 1],
        ['rtl\u202egnp.exe\u2066x\u2069', 2],
        ['real\u0000nul', 3],
        ['literal\\u0000nul', 4],
        ['line1\nline2\r\nline3\rcr', 5],
        ['a\x1b[2Jb', 6],
      ],
    );
    // Once escaped, every cell is plain ASCII: String.padEnd is the layout.
    const cells = [
      'c1\\u0085c1\\u009b31mred',
      'rtl\\u202egnp.exe\\u2066x\\u2069',
      'real\\u0000nul',
      'literal\\\\u0000nul',
      'line1\\nline2\\r\\nline3\\rcr',
      'a\\u001b[2Jb',
    ];
    expect(formatTable(r)).toBe(['name'.padEnd(29) + ' | n', `${'-'.repeat(29)}-+--`, ...cells.map((c, i) => `${c.padEnd(29)} | ${i + 1}`), '(6 rows)'].join('\n'));
    // No character a terminal acts on is left, in the streamed table either.
    // eslint-disable-next-line no-control-regex
    expect(formatTable(r)).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e\u2066\u2069]/);
    const streamed = new StreamedTable(['name', 'n'], r.rows.slice(0, 1));
    // eslint-disable-next-line no-control-regex
    expect(streamed.begin() + streamed.rows(r.rows.slice(1))).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e\u2066\u2069]/);
  });

  test('columns line up in terminal cells: wide characters, combining marks, zero-width characters', () => {
    const r = result(
      [{ name: 'name', type: 'string' }, { name: 'n', type: 'number' }],
      [['中文类名', 1], ['zalgo a\u0301\u0301\u0301 b', 2], ['zero\u200bwidth\ufeff', 3], ['plain', 4]],
    );
    expect(formatTable(r)).toBe(
      [
        // 9 cells: 中文类名 takes 8, the marks and zero-width characters none.
        'name      | n',
        '----------+--',
        '中文类名  | 1',
        'zalgo a\u0301\u0301\u0301 b | 2',
        'zero\u200bwidth\ufeff | 3',
        'plain     | 4',
        '(4 rows)',
      ].join('\n'),
    );
  });

  test('long cells are cut by display width at whole characters', () => {
    const r = result([{ name: 's', type: 'string' }, { name: 'n', type: 'number' }], [['中'.repeat(20), 1], ['e\u0301'.repeat(20), 2]]);
    expect(formatTable(r, { maxCellWidth: 9 }).split('\n').slice(2, 4)).toEqual(['中中中中… | 1', `${'e\u0301'.repeat(8)}… | 2`]);
  });

  test('an empty result', () => {
    expect(formatTable(result([{ name: 'a', type: 'null' }], []))).toBe('a\n-\n(0 rows)');
  });

  test('a result of 300 000 rows is laid out like a small one', () => {
    // Every object of a real dump's String class is a result this size.
    const rows = Array.from({ length: 300_000 }, (_, i) => [i, i % 7 === 0 ? 'seven' : null]);
    const lines = formatTable(result([{ name: 'n', type: 'number' }, { name: 's', type: 'string' }], rows)).split('\n');
    expect(lines.length).toBe(300_003);
    expect(lines.slice(0, 3)).toEqual(['n      | s', '-------+------', '     0 | seven']);
    expect(lines.slice(300_000, 300_002)).toEqual(['299998 | null', '299999 | seven']);
    expect(lines[300_002]).toBe('(300000 rows)');
  });
});

describe('a double past 2^53', () => {
  test('is written with an exponent in the table, CSV and TSV, so it cannot pass for an exact integer', () => {
    // 45·10^18 as a double (a SUM beyond a long), beside the exact long 9·10^18 (a bigint).
    const r = result([{ name: 's', type: 'number' }, { name: 'm', type: 'number' }], [[45e18, 9000000000000000000n]]);
    expect(formatTable(r).split('\n')[2]).toBe('4.5e+19 | 9000000000000000000');
    expect(formatCsv(r)).toBe('s,m\r\n4.5e+19,9000000000000000000\r\n');
    expect(formatTsv(r).split('\n')[1]).toBe('4.5e+19\t9000000000000000000');
    expect(Number('4.5e+19')).toBe(45e18);
    // Up to 2^53 a whole double is written whole, as before.
    expect(formatTable(result([{ name: 'x', type: 'number' }], [[2 ** 53 - 1]])).split('\n')[2]).toBe('9007199254740991');
  });
});

describe('json, csv, tsv', () => {
  const r = result(
    [{ name: 'name', type: 'string' }, { name: 'n', type: 'number' }, { name: 'o', type: 'object' }],
    [['plain', 1, ref(3)], ['with, comma "and" quote\nline', null, null]],
  );

  test('json is a pretty array of QueryResult', () => {
    expect(JSON.parse(formatJson([r]))).toEqual([r]);
    expect(formatJson([r])).toContain('\n  {\n    "name": "q1"');
  });

  test('csv quotes per RFC 4180 with CRLF line ends', () => {
    expect(formatCsv(r)).toBe(
      'name,n,o\r\nplain,1,java.lang.String @ 0x1030\r\n"with, comma ""and"" quote\nline",,\r\n',
    );
  });

  test('csv and tsv export every digit of a double and tell NULL from the empty string in csv', () => {
    const doubles: QueryResult = { ...r, columns: [{ name: 'd', type: 'number' }, { name: 's', type: 'string' }], rows: [[1 / 3, ''], [123456789.123456789, null], [0.1 + 0.2, 'x']], rowCount: 3 };
    expect(formatCsv(doubles)).toBe('d,s\r\n0.3333333333333333,""\r\n123456789.12345679,\r\n0.30000000000000004,x\r\n');
    expect(formatTsv(doubles)).toBe('d\ts\n0.3333333333333333\t\n123456789.12345679\t\n0.30000000000000004\tx\n');
    // Every text read back is the same double.
    for (const line of formatCsv(doubles).split('\r\n').slice(1, 4)) expect(doubles.rows.some((row) => row[0] === Number(line.split(',')[0]))).toBe(true);
    // The table keeps its rounded, readable form.
    expect(formatTable(doubles)).toContain('0.3333333333 ');
  });

  test('csv guards text a spreadsheet would run as a formula with a leading quote; numbers and tsv stay exact', () => {
    const hostile: QueryResult = {
      ...r,
      columns: [{ name: 's', type: 'string' }, { name: 'n', type: 'number' }],
      rows: [['=HYPERLINK("http://x","y")', -5], ['+1', -0.5], ['-2', 7], ['@SUM(A1)', 1], ['\tx', 2], ['\r=1', 3], ['a=b', 4], ['[x]', 5]],
      rowCount: 8,
    };
    expect(formatCsv(hostile).split('\r\n').slice(1, -1)).toEqual([
      '"\'=HYPERLINK(""http://x"",""y"")",-5',
      "'+1,-0.5",
      "'-2,7",
      "'@SUM(A1),1",
      "'\tx,2",
      '"\'\r=1",3',
      'a=b,4',
      '[x],5',
    ]);
    // A column named like a formula is guarded too; TSV and JSON keep the text as it is.
    expect(formatCsv({ ...hostile, columns: [{ name: '=c', type: 'string' }, { name: 'n', type: 'number' }] }).split('\r\n')[0]).toBe("'=c,n");
    expect(formatTsv(hostile).split('\n')[1]).toBe('=HYPERLINK("http://x","y")\t-5');
    expect(JSON.parse(formatJson([hostile]))[0].rows[0][0]).toBe('=HYPERLINK("http://x","y")');
  });

  test('tsv escapes tabs and line breaks', () => {
    expect(formatTsv(r)).toBe('name\tn\to\nplain\t1\tjava.lang.String @ 0x1030\nwith, comma "and" quote\\nline\t\t\n');
  });

  test('tsv escapes CR as \\r, a CRLF as \\r\\n, and a backslash as \\\\: one line per row, read back exactly', () => {
    const crs = result([{ name: 'a\rb', type: 'string' }], [['line1\r\nline2'], ['\r=cmd'], ['back\\slash\\n'], ['tab\there']]);
    const tsv = formatTsv(crs);
    expect(tsv).toBe('a\\rb\nline1\\r\\nline2\n\\r=cmd\nback\\\\slash\\\\n\ntab\\there\n');
    expect(tsv).not.toContain('\r');
    const unescape = (cell: string) => cell.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', '\\': '\\' })[c]!);
    expect(tsv.split('\n').slice(1, 5).map(unescape)).toEqual(crs.rows.map((row) => row[0]));
  });
});
