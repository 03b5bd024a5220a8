/**
 * `heapql diff` on the fixture dumps of KnownHeap from two JVMs and two runs:
 *  - `--reachable-only` (JDK 25 writes its filler arrays, `jdk.internal.vm.FillerElement[]`, as
 *    unreachable `int[]`s, which the default counts) and the note when it is not given;
 *  - hidden classes (lambdas) matched without their per-process address suffix;
 *  - the Markdown's code spans keep names with backticks exact.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { diffDumps, evaluateGate, parseGateRule, renderDiff, renderDiffMarkdown, type ClassDiffRow, type DiffModel } from '../../ts/diff/index.js';
import { hiddenClassKey } from '../../ts/diff/hidden.js';
import { codeSpan } from '../../ts/diff/markdown.js';
import { compareSessions } from '../../ts/mcp/histogram-compare.js';
import { openHeap } from '../../ts/session/index.js';
import { heapql } from '../tools/run.js';
import { root } from './fixtures.js';

const dumps = path.join(root, 'fixtures/dumps');
/** JDK 17, no compressed oops: its int[]s are (nearly) all reachable. */
const jdk17 = path.join(dumps, 'KnownHeap-jdk17-nocoops.hprof');
/** JDK 25 (the same program, scale and heap size): 486 filler arrays, written as int[]. */
const jdk25 = path.join(dumps, 'KnownHeap-jdk25-coops.hprof');
/** Two JDK 17 runs of KnownHeap: their lambdas have other addresses. */
const run1 = path.join(dumps, 'KnownHeap-jdk17-coops.hprof');
const run2 = jdk17;

/** Instances of a class in the JVM's `GC.class_histogram` (its JVM-internal name, e.g. `[I`). */
function jvmInstances(histogram: string, jvmName: string): number {
  for (const line of readFileSync(histogram, 'utf8').split('\n')) {
    const m = /^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)/.exec(line);
    if (m && m[3] === jvmName) return Number(m[1]);
  }
  return 0;
}

/** int[]s reachable from GC roots, as `query --reachable-only` counts them. */
async function reachableIntArrays(dump: string): Promise<number> {
  const heap = await openHeap(dump);
  try {
    const r = await heap.query('SELECT COUNT(*) AS n FROM int[] x', { reachableOnly: true });
    return Number(r.rows[0]![0]);
  } finally {
    heap.close();
  }
}

const intRow = (m: DiffModel) => m.classes.find((r) => r.className === 'int[]');

describe('diff --reachable-only (JDK 21+ filler arrays are written as int[])', () => {
  const histo25 = path.join(dumps, 'KnownHeap-jdk25-coops.histo-before.txt');
  const fillers = jvmInstances(histo25, '[Ljdk.internal.vm.FillerElement;');
  const jvmInts = jvmInstances(histo25, '[I');

  it('the fixture has filler arrays, and by default the int[] row counts them, with one note saying so', async () => {
    expect(fillers).toBeGreaterThan(400);
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-diff-ro-'));
    const json = path.join(dir, 'diff.json');
    const r = await heapql(['diff', jdk17, jdk25, json]);
    expect(r.code).toBe(0);
    const m: DiffModel = JSON.parse(readFileSync(json, 'utf8'));
    expect(m.reachableOnly).toBe(false);
    // The JVM's int[]s plus its FillerElement[]s: the dump does not tell them apart.
    expect(intRow(m)!.instances.current).toBe(jvmInts + fillers);
    const notes = m.warnings.filter((w) => w.includes('filler arrays'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^int\[\] counts unreachable int\[\] arrays \(baseline \d+ \([\d,]+ B\), current 1,273 \(24,768 B\)\): they may be the JVM's filler arrays .*compare with --reachable-only$/);
    expect(r.stderr).toContain(`warning: ${notes[0]}`);
    const md = await heapql(['diff', jdk17, jdk25]);
    expect(md.stdout).toContain(`- ${notes[0]!.replace(/[[\]]/g, (c) => `\\${c}`)}`);
    expect(md.stdout).toContain('| Objects counted | all, unreachable included | all, unreachable included |  |');
  });

  it('--reachable-only counts reachable objects only in both dumps: the fillers are out and no note is given', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-diff-ro-'));
    const json = path.join(dir, 'diff.json');
    const r = await heapql(['diff', jdk17, jdk25, json, '--reachable-only']);
    expect(r.stderr).not.toContain('unknown option');
    expect(r.code).toBe(0);
    const m: DiffModel = JSON.parse(readFileSync(json, 'utf8'));
    expect(m.reachableOnly).toBe(true);
    const row = intRow(m)!;
    expect(row.instances.current).toBe(await reachableIntArrays(jdk25));
    expect(row.instances.baseline).toBe(await reachableIntArrays(jdk17));
    // No filler is reachable (and the JVM's own count has archived int[]s no root in the dump reaches).
    expect(row.instances.current).toBeLessThanOrEqual(jvmInts);
    expect(m.warnings.some((w) => w.includes('filler'))).toBe(false);
    expect(r.stderr).not.toContain('filler');
    const md = await heapql(['diff', jdk17, jdk25, '--reachable-only']);
    expect(md.stdout).toContain('| Objects counted | reachable only (--reachable-only) | reachable only (--reachable-only) |  |');
  });

  it('the library passes reachableOnly through; a custom analyze must honour it', async () => {
    const m = await diffDumps(jdk17, jdk25, { reachableOnly: true });
    expect(m.reachableOnly).toBe(true);
    expect(intRow(m)!.instances.current).toBe(await reachableIntArrays(jdk25));
    await expect(diffDumps(jdk17, jdk25, { reachableOnly: true, analyze: (s) => s.analyze() })).rejects.toThrow(/analyzed without reachableOnly/);
  });

  it('the MCP comparison (compareSessions) counts reachable objects only when asked, else notes the unreachable int[]s', async () => {
    const base = await openHeap(jdk17);
    const heap = await openHeap(jdk25);
    try {
      const all = await compareSessions(base, heap, { pattern: 'int[]', limit: 100 });
      const allInts = all.rows.find((r) => r.className === 'int[]')!;
      expect(allInts.currentCount).toBe(jvmInts + fillers);
      expect(all.notes?.[0]).toMatch(/^int\[\] counts unreachable int\[\] arrays .*filler arrays/);
      const reachable = await compareSessions(base, heap, { pattern: 'int[]', limit: 100, reachableOnly: true });
      expect(reachable.reachableOnly).toBe(true);
      expect(reachable.rows.find((r) => r.className === 'int[]')!.currentCount).toBe(await reachableIntArrays(jdk25));
      expect(reachable.notes).toBeUndefined();
    } finally {
      base.close();
      heap.close();
    }
  });
});

describe('hidden classes are matched without their address suffix', () => {
  it('hiddenClassKey writes the address as 0x… and leaves other names alone', () => {
    expect(hiddenClassKey('java.lang.ProcessHandleImpl$$Lambda$2+0x00007fb9bd046168')).toBe('java.lang.ProcessHandleImpl$$Lambda$2+0x…');
    expect(hiddenClassKey('Foo$$Lambda+0x0000000013005450')).toBe('Foo$$Lambda+0x…');
    expect(hiddenClassKey('Foo$$Lambda/0x0000000013005450[][]')).toBe('Foo$$Lambda/0x…[][]');
    expect(hiddenClassKey('java.lang.invoke.LambdaForm$MH+0x00007fb779004400')).toBe('java.lang.invoke.LambdaForm$MH+0x…');
    for (const plain of ['int[]', 'com.acme.Hex0x12', 'com.acme.A$1', 'Foo$$Lambda$3']) expect(hiddenClassKey(plain)).toBe(plain);
  });

  it('two runs of one program: their lambdas are one row each, not new + gone, and a percentage gate over them passes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-diff-hidden-'));
    const json = path.join(dir, 'diff.json');
    // Lambda$1 is the same 16 B in both runs; Lambda$2 is 24 B with compressed oops, 32 B without.
    const r = await heapql(['diff', run1, run2, json, '--fail-if-grown', 'java.lang.ProcessHandleImpl$$Lambda$1*=10%']);
    expect(r.stderr).not.toContain('grew past');
    expect(r.code).toBe(0);
    const m: DiffModel = JSON.parse(readFileSync(json, 'utf8'));
    const lambdas = m.classes.filter((c) => c.className.startsWith('java.lang.ProcessHandleImpl$$Lambda'));
    expect(lambdas.map((c) => c.className)).toEqual(['java.lang.ProcessHandleImpl$$Lambda$2+0x…']);
    expect(lambdas[0]!.instances).toMatchObject({ baseline: 1, current: 1 });
    expect(lambdas[0]!.classes).toEqual({ baseline: 1, current: 1 });
    expect(lambdas[0]!.shallow).toMatchObject({ baseline: 24, current: 32 });
    // No class row of either side keeps an address.
    expect(m.classes.filter((c) => /0x[0-9a-f]+/i.test(c.className))).toEqual([]);
    // A rule naming one run's class with its address still applies to the merged row.
    const exact = await heapql(['diff', run1, run2, '--fail-if-grown', 'java.lang.ProcessHandleImpl$$Lambda$2+0x00007fb779049690=1']);
    expect(exact.code).toBe(1);
    expect(exact.stderr).toContain('java.lang.ProcessHandleImpl$$Lambda$2+0x… (<bootstrap>): shallow +8 bytes');
  });

  it('the gate matches a hidden-class row by its real names too', () => {
    const change = (baseline: number, current: number) => ({ baseline, current, delta: current - baseline, growthPercent: baseline ? ((current - baseline) * 100) / baseline : null });
    const row: ClassDiffRow = {
      className: 'Foo$$Lambda+0x…',
      classLoader: 'app',
      classes: { baseline: 2, current: 3 },
      instances: change(2, 3),
      shallow: change(32, 48),
      retained: change(32, 48),
    };
    const names = ['Foo$$Lambda+0x0000000013005450', 'Foo$$Lambda+0x0000000013005800'];
    expect(evaluateGate([parseGateRule('Foo$$Lambda+0x0000000013005800=10%')], [row], names)).toHaveLength(1);
    expect(evaluateGate([parseGateRule('Foo$$Lambda*=10%')], [row], names)).toHaveLength(1);
    expect(evaluateGate([parseGateRule('Foo$$Lambda*=60%')], [row], names)).toHaveLength(0);
  });
});

/** What a CommonMark code span shows, read back from the text of a table cell (GitHub's `\|` undone). */
function shownBy(span: string): string {
  const m = /^(`+)([\s\S]*?)\1$/.exec(span);
  if (!m) throw new Error(`not one code span: ${span}`);
  let body = m[2]!;
  for (const run of body.match(/`+/g) ?? []) if (run.length === m[1]!.length) throw new Error(`a run as long as the delimiter closes the span early: ${span}`);
  if (body.length > 1 && body.startsWith(' ') && body.endsWith(' ') && /[^ ]/.test(body)) body = body.slice(1, -1);
  return body.replace(/\\\|/g, '|');
}

describe('Markdown code spans keep names exact', () => {
  it('a name with backticks gets a longer delimiter (and padding when it begins or ends with one)', () => {
    for (const name of ['Hostile$nl`tick`', 'thread "```\\n## Injected heading\\n```"', '`edge', 'edge`', 'a``b`c', ' spaced ', 'pipe|name', 'plain']) {
      expect(shownBy(codeSpan(name))).toBe(name);
    }
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`a')).toBe('`` `a ``');
    expect(codeSpan('a|b')).toBe('`a\\|b`');
    expect(codeSpan('a|b', false)).toBe('`a|b`');
  });

  let model: DiffModel;
  beforeAll(async () => {
    model = await diffDumps(run1, run2);
  });

  it('the rendered comparison shows a class name with backticks and pipes as it is', () => {
    const name = 'com.acme.`Odd``|Name';
    const m: DiffModel = { ...model, classes: model.classes.map((c, i) => (i === 0 ? { ...c, className: name, shallow: { ...c.shallow, delta: Math.abs(c.shallow.delta) + 1 } } : c)) };
    const md = renderDiffMarkdown(m);
    const line = md.split('\n').find((l) => l.includes('Odd'))!;
    expect(line).toContain('| ```com.acme.`Odd``\\|Name``` |');
    expect(shownBy('```com.acme.`Odd``\\|Name```')).toBe(name);
    expect(md).not.toContain("'Odd");
  });

  it('a class name of a megabyte is cut in Markdown and HTML, whole in JSON', () => {
    const name = `com.acme.${'C'.repeat(1_000_000)}`;
    const m: DiffModel = { ...model, classes: model.classes.map((c, i) => (i === 0 ? { ...c, className: name, shallow: { ...c.shallow, delta: Math.abs(c.shallow.delta) + 1 } } : c)) };
    for (const text of [renderDiffMarkdown(m), renderDiff(m, 'html')]) {
      expect(text.length).toBeLessThan(200_000);
      expect(text).toContain('… (cut from 1,000,009 characters)');
    }
    expect(renderDiff(m, 'json')).toContain(name);
  });
});

describe('compare_with_baseline (compareHistograms) matches hidden classes without their address', () => {
  it('one row for a lambda of two runs', async () => {
    const { compareHistograms } = await import('../../ts/mcp/histogram-compare.js');
    const c = compareHistograms(
      [{ className: 'java.lang.ProcessHandleImpl$$Lambda$1+0x00007f9539045d50', count: 1, shallow: 16 }],
      [{ className: 'java.lang.ProcessHandleImpl$$Lambda$1+0x00007fb9bd045d50', count: 1, shallow: 16 }],
      { limit: 10, changedOnly: false },
    );
    expect(c.rows.map((r) => [r.className, r.countDelta])).toEqual([['java.lang.ProcessHandleImpl$$Lambda$1+0x…', 0]]);
    expect(c.classes).toEqual({ shared: 1, onlyBaseline: 0, onlyCurrent: 0 });
  });
});
