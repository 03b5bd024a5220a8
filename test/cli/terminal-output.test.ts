/**
 * What the CLI writes for a terminal outside the REPL: `heapql summary` text and stderr
 * warnings and errors carry no control character from the dump or the file name (escaped as
 * the query table escapes them), the top-classes table lines up in terminal cells, and the GC
 * root kind column is as wide as its longest kind (an Android dump's `Reference Cleanup`).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { errorText, notice, setQuiet, warn } from '../../ts/cli/stderr.js';
import { renderSummary, type HeapSummary } from '../../ts/report/summary.js';
import { heapql } from '../tools/run.js';
import { CJK_CLASS, demo, HOSTILE_CLASS_SHOWN, writeHostileDump } from '../repl/hostile-dump.js';

/** A character a terminal acts on, or that reorders the line (LF aside). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-terminal-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Terminal cells of a line of ASCII and CJK (an oracle apart from the code under test). */
const cells = (line: string) => [...line].reduce((n, c) => n + (/\p{Script=Han}/u.test(c) ? 2 : 1), 0);

describe('heapql summary', () => {
  it('shows class names escaped, and its top-classes table lines up in terminal cells', async () => {
    const dump = writeHostileDump(tmp);
    const r = await heapql(['summary', dump]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).not.toMatch(/^fake/m);
    expect(r.stdout).toContain(`  ${HOSTILE_CLASS_SHOWN}  `);
    const lines = r.stdout.split('\n');
    const top = lines.slice(lines.findIndex((l) => l.startsWith('Top 20 classes')) + 1).filter((l) => l !== '');
    expect(top).toHaveLength(21);
    expect(top.some((l) => l.includes(CJK_CLASS))).toBe(true);
    for (const line of top) expect(cells(line), line).toBe(cells(top[0]!));
  });

  it('sizes the GC root kind column to the longest kind', () => {
    const summary: HeapSummary = {
      file: 'app.hprof', fileSize: 1000, format: 'JAVA PROFILE 1.0.3', idSize: 4, compression: 'none', dumpTime: null,
      dump: { index: 0, count: 1 }, jvmVersion: null,
      sizeModel: { referenceSize: 4, objectHeaderSize: 8, arrayHeaderSize: 12, alignment: 8, estimated: false, source: 'dump' },
      objects: { total: 10, instances: 5, objectArrays: 1, primitiveArrays: 2, classes: 2 },
      classCount: 2,
      gcRoots: { total: 1300, objects: 1300, byKind: [{ kind: 'Sticky Class', count: 1000 }, { kind: 'Reference Cleanup', count: 298 }, { kind: 'Debugger', count: 2 }] },
      totalShallow: 100,
      topClasses: [],
      warnings: [],
    };
    const text = renderSummary(summary);
    expect(text).toContain('\n  Sticky Class      1,000\n  Reference Cleanup 298\n  Debugger          2\n');
    // A kind that fits keeps the column of the lines above it (17 wide).
    const short = renderSummary({ ...summary, gcRoots: { total: 1, objects: 1, byKind: [{ kind: 'JNI Global', count: 36 }] } });
    expect(short).toContain('\n  object arrays    1\n');
    expect(short).toContain('\n  JNI Global       36\n');
  });

  it('a class or heap name of a megabyte is cut in its column, not padded into every row', () => {
    const huge = `com.acme.${'C'.repeat(1_000_000)}`;
    const summary: HeapSummary = {
      file: 'app.hprof', fileSize: 1000, format: 'JAVA PROFILE 1.0.3', idSize: 4, compression: 'none', dumpTime: null,
      dump: { index: 0, count: 1 }, jvmVersion: null,
      sizeModel: { referenceSize: 4, objectHeaderSize: 8, arrayHeaderSize: 12, alignment: 8, estimated: false, source: 'dump' },
      objects: { total: 10, instances: 5, objectArrays: 1, primitiveArrays: 2, classes: 2 },
      classCount: 2,
      gcRoots: { total: 0, objects: 0, byKind: [] },
      totalShallow: 100,
      heaps: [{ name: huge, objects: 6, shallow: 60 }, { name: 'app', objects: 4, shallow: 40 }],
      topClasses: [{ className: huge, instances: 3, shallow: 60 }, { className: 'int[]', instances: 7, shallow: 40 }],
      warnings: [],
    };
    const text = renderSummary(summary);
    expect(text.length).toBeLessThan(5_000);
    const rows = text.split('\n').filter((l) => l.includes('com.acme.') || /^ {2}(int\[\]|app) /.test(l));
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(cells(row)).toBeLessThan(130);
    expect(text).toContain(`com.acme.${'C'.repeat(70)}`);
    expect(text).toMatch(/C…  +3  +60\n/);
  });

  it('a hostile file name: the summary and the warning about the dump show it escaped, on one line each', async () => {
    // A header timestamp past the year 9999 gives a warning naming the file.
    const file = path.join(tmp, 'evil\x1b]0;T\x07\nname\u202e.hprof');
    copyFileSync(demo, file);
    const bytes = readFileSync(file);
    bytes.writeBigUInt64BE(0xffff_ffff_ffff_ffffn, 23);
    writeFileSync(file, bytes);
    const r = await heapql(['summary', file, '--no-cache']);
    expect(r.code, r.stderr).toBe(0);
    const shown = `evil\\u001b]0;T\\u0007\\nname\\u202e.hprof`;
    expect(r.stdout).toContain(`Heap dump ${path.join(tmp, shown)} (`);
    expect(r.stderr).toMatch(new RegExp(`^warning: ${path.join(tmp, shown).replace(/[\\[\]$.]/g, '\\$&')}: .*timestamp.*$`, 'm'));
    expect(r.stdout + r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).not.toMatch(/^name/m);
  });
});

describe('stderr lines (ts/cli/stderr.ts)', () => {
  const written: string[] = [];
  beforeAll(() => {
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    written.length = 0;
    setQuiet(false);
  });
  afterAll(() => vi.restoreAllMocks());

  it('warnings and notices are one line each, controls escaped, backslashes kept', () => {
    warn('field Hostile$\x1b[31mRED\x1b]0;T\x07|\nfake\u009b2J\u202e.payload of C:\\dumps');
    notice('report written to out\r\x1b[2J.md');
    expect(written).toEqual([
      'warning: field Hostile$\\u001b[31mRED\\u001b]0;T\\u0007|\\nfake\\u009b2J\\u202e.payload of C:\\dumps\n',
      'report written to out\\r\\u001b[2J.md\n',
    ]);
    setQuiet(true);
    warn('quiet');
    expect(written).toHaveLength(2);
  });

  it('an error keeps its own lines (indented: the query, a caret under it) and escapes every control', () => {
    expect(errorText('q1: no such class\n  SELECT x FROM "a\\d"\n                 ^\x1b[2J\u009b')).toBe(
      'error: q1: no such class\n  SELECT x FROM "a\\d"\n                 ^\\u001b[2J\\u009b\n',
    );
    // A line break in a name the message quotes cannot start a line of its own.
    expect(errorText("Demo has no field 'x' (its fields: created\nerror: fake, id)")).toBe(
      "error: Demo has no field 'x' (its fields: created\\nerror: fake, id)\n",
    );
  });
});

describe('error lines', () => {
  it('errors of several --query options: each starts a line of its own, the later ones indented', async () => {
    const r = await heapql(['query', demo, '--no-cache', '--query', 'SELECT x FRM y', '--query', 'SELECT FROM']);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: --query:1:10: unexpected "FRM"/);
    expect(lines).toContain('  hint: did you mean FROM?');
    expect(lines.some((l) => /^ {2}--query:1:8: unexpected keyword FROM/.test(l))).toBe(true);
    expect(r.stderr).not.toContain('\\n');
  });

  it('a query error naming a field of the dump carries none of its control characters', async () => {
    const dump = writeHostileDump(tmp, 'hostile-error.hprof');
    const r = await heapql(['query', dump, '--no-cache', '--query', 'SELECT x.nope FROM Demo$Session x']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^error: q1:1:10: .*has no field 'nope'/m);
    // The field's ESC and line break arrive escaped: the message is one line; only the error's
    // own lines follow it (the query, a caret under the name).
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(r.stderr).toContain('created\\u001b[2J\\nAt');
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^error: /), '  SELECT x.nope FROM Demo$Session x', '           ^^^^']);
  });
});
