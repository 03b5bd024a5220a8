/**
 * A dump cut short before its GC root records (HotSpot writes them after the objects): the
 * report uses MAT's System Class fallback (every non-array class of the bootstrap loader is a
 * root), says so in a warning, and does not call java.lang.System or the JDK's classes
 * unreachable garbage. What the cut dump leaves unreachable is worded as what the dump shows,
 * never as "the next garbage collection frees it".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap } from '../ts/index.js';
import { heapql, root } from './tools/run.js';

const fixture = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-noccp.hprof');
let tmp: string;
let report: {
  overview: { heap: { objects: number; unreachableObjects: number }; gcRoots: { total: number; byKind: { kind: string; count: number }[] } };
  leakSuspects: { suspects: { title: string; explanation: string }[] };
  warnings: { source: string; message: string }[];
  waste: { dumpCutShort: boolean };
};
let stderr: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-cut-roots-'));
  // The first 1.5 MB: the class dumps and part of the objects, none of the root records.
  const cut = path.join(tmp, 'cut.hprof');
  writeFileSync(cut, readFileSync(fixture).subarray(0, 1_500_000));
  const out = path.join(tmp, 'cut.json');
  const r = await heapql([cut, out, '--no-cache']);
  expect(r.code, r.stderr).toBe(0);
  stderr = r.stderr;
  report = JSON.parse(readFileSync(out, 'utf8'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the report on a dump cut short before its GC roots', () => {
  it('has System Class roots, and objects they reach', () => {
    const sticky = report.overview.gcRoots.byKind.find((k) => k.kind === 'System Class');
    expect(sticky?.count).toBeGreaterThan(100);
    expect(report.overview.gcRoots.total).toBeGreaterThanOrEqual(sticky!.count);
    expect(report.overview.heap.unreachableObjects).toBeLessThan(report.overview.heap.objects / 2);
  });

  it('warns that the roots are MAT\'s fallback and the results partial, on stderr and in the report', () => {
    const w = report.warnings.filter((x) => x.message.includes('no System Class root'));
    expect(w).toHaveLength(1);
    expect(w[0]!.message).toContain('as Eclipse MAT does');
    expect(w[0]!.message).toContain('cut short');
    expect(w[0]!.message).toContain('partial');
    expect(stderr).toContain('no System Class root');
  });

  it('the waste says the dump is cut short, so what no root reaches is not called garbage', () => {
    expect(report.waste.dumpCutShort).toBe(true);
  });

  it('no suspect calls java.lang.System or the JDK classes unreachable garbage', () => {
    expect(report.leakSuspects.suspects.length).toBeGreaterThan(0);
    for (const s of report.leakSuspects.suspects) {
      expect(s.explanation).not.toContain('the next garbage collection frees');
      expect(s.explanation).not.toMatch(/java\.lang\.System\b[^.]*\. It is unreachable/);
    }
    const classes = report.leakSuspects.suspects.find((s) => s.title === 'java.lang.Class');
    expect(classes, 'the cut dump has a java.lang.Class suspect').toBeDefined();
    expect(classes!.explanation).not.toMatch(/They are unreachable/);
  });

  it('the library says the dump is cut short (info().cutShort); a whole one is not', async () => {
    for (const [file, cut] of [[path.join(tmp, 'cut.hprof'), true], [fixture, false]] as const) {
      const heap = await openHeap(file);
      try {
        expect(heap.info().cutShort, file).toBe(cut);
      } finally {
        heap.close();
      }
    }
  });
});
