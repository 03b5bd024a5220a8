/**
 * Damage that used to pass silently or crash: a header timestamp that is no time (past the
 * year 9999: an unhandled `RangeError: Invalid time value` in `summary`, year 584556019 in the
 * report), and references to ids that are no object in the dump (they read as null with no
 * warning). Both now give one warning naming where, and never change an answer.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap } from '../../ts/index.js';
import { heapql, root } from '../tools/run.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-damaged-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** demo.hprof with `change` applied to a copy of its bytes. */
function variant(name: string, change: (b: Buffer) => void): string {
  const b = readFileSync(demo);
  change(b);
  const p = path.join(tmp, name);
  writeFileSync(p, b);
  return p;
}

describe('a header timestamp that is no time', () => {
  // `JAVA PROFILE 1.0.2\0` (19 bytes), the id size (4), then the timestamp at byte 23.
  const cases: [string, bigint][] = [
    ['all ones', 0xffff_ffff_ffff_ffffn],
    ['0x7f…', 0x7fff_ffff_ffff_ffffn],
    ["JavaScript's last date", 8_640_000_000_000_000n],
    ['one past it', 8_640_000_000_000_001n],
    ['year 10000', 253_402_300_800_000n],
  ];
  it.each(cases)('%s: summary and report say "not recorded" with a warning at byte 23, no exception', async (name, ts) => {
    const file = variant(`ts-${name.replace(/\W/g, '_')}.hprof`, (b) => b.writeBigUInt64BE(ts, 23));
    const s = await heapql(['summary', file, '--format', 'json', '--no-cache']);
    expect(s.stderr).not.toMatch(/RangeError|Invalid time/);
    expect(s.code).toBe(0);
    const summary = JSON.parse(s.stdout);
    expect(summary.dumpTime).toBeNull();
    const w = summary.warnings.filter((x: { message: string }) => x.message.includes('timestamp'));
    expect(w).toHaveLength(1);
    expect(w[0].offset).toBe(23);
    expect(w[0].message).toContain(`(${ts} ms since 1970) at byte offset 23 is not a valid time`);
    expect(s.stderr).toContain('at byte offset 23 is not a valid time');
    const text = await heapql(['summary', file, '--no-cache']);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain('dumped at');
  });

  it('the report shows no dump time and carries the warning once', async () => {
    const file = variant('ts-report.hprof', (b) => b.writeBigUInt64BE(0xffff_ffff_ffff_ffffn, 23));
    const out = path.join(tmp, 'ts-report.json');
    const r = await heapql([file, out, '--no-cache']);
    expect(r.code).toBe(0);
    const model = JSON.parse(readFileSync(out, 'utf8'));
    expect(model.overview.dumpTime).toBeNull();
    const w = model.warnings.filter((x: { message: string }) => x.message.includes('timestamp'));
    expect(w).toEqual([{ source: 'dump', message: expect.stringMatching(/at byte offset 23 is not a valid time.*ignored/) }]);
    expect(w[0].message).not.toContain('(at byte 23)');
  });

  it('the last millisecond of the year 9999 is still a time', async () => {
    const file = variant('ts-9999.hprof', (b) => b.writeBigUInt64BE(253_402_300_799_999n, 23));
    const s = await heapql(['summary', file, '--format', 'json', '--no-cache']);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout).dumpTime).toBe('9999-12-31T23:59:59.999Z');
    expect(s.stderr).not.toContain('timestamp');
  });
});

describe('references to ids that are no object in the dump', () => {
  // The `value` field of the String @ 0xfec97fe0 (its instance record at byte 4374528), one bit
  // flipped: 0xfec97ff0 -> 0xfec97ff8, no object.
  const STRING = 'SELECT s.value AS value FROM OBJECTS 0xfec97fe0 s';
  const WARNING =
    '1 reference points to ids that are no object in the dump (they read as null), e.g. field java.lang.String.value of java.lang.String @ 0xfec97fe0 = 0xfec97ff8, record at byte offset 4374528.';
  let file: string;
  beforeAll(() => {
    file = variant('dangling.hprof', (b) => {
      b[4374570] ^= 8;
    });
  });

  it('analyze warns once on stderr, from a fresh and from a cached analysis; the answer stays null', async () => {
    const cacheDir = path.join(tmp, 'cache');
    for (const pass of ['fresh', 'cached']) {
      const r = await heapql(['analyze', file, '--query', STRING, '--format', 'json', '--cache-dir', cacheDir]);
      expect(r.code, pass).toBe(0);
      expect(r.stderr.split(WARNING).length - 1, `${pass}: ${r.stderr}`).toBe(1);
      expect(JSON.parse(r.stdout)[0].rows, pass).toEqual([[null]]);
    }
    // The report (analysis from the cache): the warning in its warnings, and once on stderr.
    const out = path.join(tmp, 'dangling.json');
    const r = await heapql([file, out, '--cache-dir', cacheDir]);
    expect(r.code).toBe(0);
    expect(r.stderr.split(WARNING).length - 1, r.stderr).toBe(1);
    const model = JSON.parse(readFileSync(out, 'utf8'));
    expect(model.warnings.filter((w: { source: string }) => w.source === 'analysis')).toEqual([{ source: 'analysis', message: expect.stringContaining(WARNING) }]);
  });

  it('the library: analysisWarnings() is empty before the analysis, and none on the clean dump', async () => {
    const heap = await openHeap(file, { noCache: true });
    try {
      expect(heap.analysisWarnings()).toEqual([]);
      await heap.analyze();
      expect(heap.analysisWarnings()).toEqual([{ offset: 4374528, message: expect.stringContaining(WARNING) }]);
    } finally {
      heap.close();
    }
    const clean = await openHeap(demo, { noCache: true });
    try {
      await clean.analyze();
      expect(clean.analysisWarnings()).toEqual([]);
    } finally {
      clean.close();
    }
  });
});
