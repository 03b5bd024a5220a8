// A byte-order mark at the start of a query text or file is skipped; invisible characters are
// named in errors, not printed as they are.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { OqlSyntaxError, parse } from '../ts/oql/index.js';
import { extractViz, loadQueryFile, parseQueryFile } from '../ts/query/index.js';
import { prepareQuery } from '../ts/session/query.js';
import { thrown } from './tools/thrown.js';

function syntaxError(text: string): OqlSyntaxError {
  return thrown(() => parse(text), OqlSyntaxError, `parsed: ${text}`);
}

describe('byte-order mark and invisible characters', () => {
  const BOM = '\uFEFF';

  test('a leading byte-order mark is skipped by the parser, positions stay those of the text', () => {
    // The mark takes the place of one character: the same query as with a space there.
    expect(parse(`${BOM}SELECT * FROM a.B`)).toEqual(parse(' SELECT * FROM a.B'));
    const e = syntaxError(`${BOM}SELECT * FORM a.B`);
    expect(e.reason).toMatch(/^unexpected "FORM"/);
    expect(e.pos.offset).toBe(10);
  });

  test('a query text loses its leading byte-order mark where it enters (prepareQuery, extractViz)', () => {
    const p = prepareQuery(`${BOM}SELECT COUNT(*) FROM java.lang.String`, { fullPath: false });
    expect(p.oql).toBe('SELECT COUNT(*) FROM java.lang.String');
    const v = extractViz(`${BOM}-- @viz histogram\nSELECT classof(x), COUNT(*) FROM INSTANCEOF java.lang.Object x GROUP BY classof(x)`);
    expect(v.viz).toMatchObject({ kind: 'histogram' });
    expect(v.oql.startsWith(BOM)).toBe(false);
  });

  test('a query file saved with a byte-order mark reads as without it', () => {
    const r = parseQueryFile(`${BOM}SELECT COUNT(*) FROM java.lang.String\nSELECT * FROM a.B`, 'q.oql', { plan: {} });
    expect(r.errors).toEqual([]);
    expect(r.queries.map((q) => q.oql)).toEqual(['SELECT COUNT(*) FROM java.lang.String', 'SELECT * FROM a.B']);
    const withComment = parseQueryFile(`${BOM}# checks\nSELECT * FROM a.B`, 'q.oql');
    expect(withComment.queries.map((q) => [q.line, q.oql])).toEqual([[2, 'SELECT * FROM a.B']]);
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-bom-'));
    const file = path.join(dir, 'q7.oql');
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('SELECT COUNT(*) FROM java.lang.String\n')]));
    const loaded = loadQueryFile(file, { plan: {} });
    expect(loaded.errors).toEqual([]);
    expect(loaded.queries.map((q) => q.oql)).toEqual(['SELECT COUNT(*) FROM java.lang.String']);
  });

  test('a byte-order mark anywhere else is named, not printed invisibly', () => {
    const e = syntaxError(`SELECT COUNT(*)${BOM} FROM java.lang.String`);
    expect(e.reason).toBe('unexpected character U+FEFF (a byte-order mark)');
    expect(e.pos).toMatchObject({ line: 1, column: 16 });
    expect(e.hint).toMatch(/byte-order mark is skipped only at the very start/);
  });

  test('other invisible and space-like characters are shown as code points; visible ones quoted', () => {
    const reason = (ch: string) => syntaxError(`SELECT 1${ch} FROM a.B`).reason;
    expect(reason('\u0000')).toBe('unexpected character U+0000 (a NUL character)');
    expect(reason('\u00A0')).toBe('unexpected character U+00A0 (a no-break space)');
    expect(reason('\u200B')).toBe('unexpected character U+200B (a zero-width space)');
    expect(reason('\u202E')).toBe('unexpected character U+202E');
    expect(reason('\u0007')).toBe('unexpected character U+0007');
    expect(reason('\uE000')).toBe('unexpected character U+E000');
    expect(reason('\uD800')).toMatch(/^unpaired surrogate U\+D800: /);
    expect(reason('#')).toBe('unexpected character "#"');
    expect(reason('😀')).toBe('unexpected character "😀"');
    expect(syntaxError('SELECT 1\u00A0FROM a.B').hint).toMatch(/invisible or looks like a space/);
  });
});
