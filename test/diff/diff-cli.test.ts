/** `heapql diff` end to end: formats, the JSON against `heapql schema diff`, the gate's exit codes, unrelated dumps. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';

import { evaluateGate, parseGateRule, change } from '../../ts/diff/index.js';
import { baselineDump, currentDump, demoDump, facts, knownDump } from './fixtures.js';
import { heapql } from '../tools/run.js';


describe('heapql diff', () => {
  it('prints Markdown without a path: suspects with their status, the grown classes and dominators', async () => {
    const r = await heapql(['diff', baselineDump, currentDump]);
    expect(r.code).toBe(0);
    for (const s of ['# Heap dump comparison', '## Leak suspects', '## Classes that grew', '## Dominators that grew', '## Class loaders that grew', '## Packages that grew', '## Duplicate strings that grew']) {
      expect(r.stdout).toContain(s);
    }
    expect(r.stdout).toMatch(/\| \*\*new\*\* \| late-holder/);
    expect(r.stdout).toMatch(/\| \*\*grown\*\* \| DiffHeap\.CACHE/);
    expect(r.stdout).toMatch(/\| \*\*unchanged\*\* \| constant-holder/);
    const n = facts.entries_added;
    expect(r.stdout).toContain(`| \`DiffHeap$Key\` | app | 6,000 → 9,000 | +${n.toLocaleString('en-US')} |`);
    expect(r.stdout).toContain(`+${(n * facts.shallow['DiffHeap$Key']!).toLocaleString('en-US')} B (+50.0%)`);
    expect(r.stdout).not.toContain('## Gate');
    // The baseline holds 4 unreachable int[]s (240 B), the current none: the one note on stderr.
    expect(r.stderr).toMatch(/^warning: int\[\] counts unreachable int\[\] arrays \(baseline 4 \(240 B\), current none\): they may be the JVM's filler arrays .*compare with --reachable-only\n$/);
  });

  it('writes JSON that validates against heapql schema diff; HTML by extension; --format overrides', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-diff-'));
    const json = path.join(dir, 'diff.json');
    const r = await heapql(['diff', baselineDump, currentDump, json]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`comparison written to ${json}`);
    const model = JSON.parse(readFileSync(json, 'utf8'));
    const schema = JSON.parse((await heapql(['schema', 'diff'])).stdout);
    const validate = new Ajv({ allErrors: true }).compile(schema);
    expect(validate(model), JSON.stringify(validate.errors)).toBe(true);
    const cache = model.dominators.rows.find((row: { key: string }) => row.key.endsWith('CACHE → java.util.HashMap'));
    expect(cache.retained.delta).toBe(facts.entries_added * facts.entry_bytes);
    // A broken model does not validate (the schema is not vacuous).
    expect(validate({ ...model, classes: [{ className: 1 }] })).toBe(false);

    const html = path.join(dir, 'diff.html');
    expect((await heapql(['diff', baselineDump, currentDump, html])).code).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!DOCTYPE html>/);
    const forced = path.join(dir, 'diff.out');
    expect((await heapql(['diff', baselineDump, currentDump, forced, '--format', 'json'])).code).toBe(0);
    expect(JSON.parse(readFileSync(forced, 'utf8')).schemaVersion).toBe(6);
    const bad = await heapql(['diff', baselineDump, currentDump, path.join(dir, 'diff.txt')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('.md, .html or .json');
  });

  it('--fail-if-grown exits 1 listing the offending rows, 0 when within the limits', async () => {
    const fail = await heapql(['diff', baselineDump, currentDump, '--fail-if-grown', 'DiffHeap$Key=1000', '--fail-if-grown=java.util.HashMap$Node=10%']);
    expect(fail.code).toBe(1);
    expect(fail.stderr).toContain('error: 2 class rows grew past --fail-if-grown:');
    expect(fail.stderr).toContain(`DiffHeap$Key (app): shallow +${(facts.entries_added * 24).toLocaleString('en-US')} bytes (+50.0%), limit 1000 bytes [DiffHeap$Key=1000]`);
    expect(fail.stderr).toMatch(/java\.util\.HashMap\$Node \(<bootstrap>\): shallow \+[\d,]+ bytes \(\+42\.9%\), limit 10% \[java\.util\.HashMap\$Node=10%\]/);
    expect(fail.stdout).toContain('**FAILED**: 2 class rows');

    const pass = await heapql(['diff', baselineDump, currentDump, '--fail-if-grown', 'DiffHeap$Key=1MB', '--fail-if-grown', '/DiffHeap\\$(Key|Payload)/=51%']);
    expect(pass.code).toBe(0);
    expect(pass.stdout).toContain('Passed: no class grew past');

    const typo = await heapql(['diff', baselineDump, currentDump, '--fail-if-grown', 'DiffHeap$Kee=1']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('no class of either dump matches');
    const syntax = await heapql(['diff', baselineDump, currentDump, '--fail-if-grown', 'DiffHeap$Key']);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toContain('--fail-if-grown <class-or-pattern>[@<heap>]=<bytes|percent>');
  });

  it('two unrelated dumps: a warning and a note that they come from different programs', async () => {
    const r = await heapql(['diff', demoDump, knownDump]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: The two dumps seem to come from different programs: the main class is Demo in the baseline but KnownHeap in the current dump; \d+ of \d+ application classes are shared/m);
    expect(r.stdout).toContain('> **Warning: different programs.**');
  });
});

describe('heapql diff: a file with no heap dump', () => {
  // The demo dump cut before its heap dump records: strings, classes and traces, no objects.
  const dir = mkdtempSync(path.join(tmpdir(), 'heapql-diff-cut-'));
  const cut = path.join(dir, 'cut.hprof');
  writeFileSync(cut, readFileSync(demoDump).subarray(0, 1_000_000));

  it('is refused on either side as the report refuses it (ERR_NO_SUCH_DUMP, exit 2), naming the side and the file; no comparison is written', async () => {
    const report = await heapql([cut]);
    expect(report.code).toBe(2);
    const asBaseline = await heapql(['diff', cut, demoDump]);
    expect(asBaseline.code).toBe(2);
    expect(asBaseline.stderr).toContain(`error: the baseline dump ${cut} holds no heap dump, so there are no objects to compare (heap dump: none: the file holds no heap dump records (no objects)`);
    expect(asBaseline.stdout).toBe('');
    // The gate does not blame the classes of the other dump.
    const asCurrent = await heapql(['diff', demoDump, cut, '--fail-if-grown', 'java.*=10%']);
    expect(asCurrent.code).toBe(2);
    expect(asCurrent.stderr).toContain(`error: the current dump ${cut} holds no heap dump`);
    expect(asCurrent.stderr).not.toContain('grew past --fail-if-grown');
    expect(asCurrent.stdout).toBe('');
  });
});

describe('heapql diff: duplicate strings the baseline does not list', () => {
  it('show the copies the baseline really holds (one of java.lang.Integer, none of DiffHeap$ByteProbe)', async () => {
    const r = await heapql(['diff', baselineDump, currentDump]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('| `java.lang.Integer` | 1 → 2 | +1 | 0 B → 64 B | +64 B |');
    expect(r.stdout).toContain('| `DiffHeap$ByteProbe` | 0 → 2 | +2 | 0 B → 64 B | +64 B |');
    expect(r.stdout).not.toContain('≤1');
  });
});

describe('the gate on its own', () => {
  const row = (className: string, b: number, c: number) => ({ className, classLoader: 'app', classes: { baseline: 1, current: 1 }, instances: change(1, 1), shallow: change(b, c), retained: change(b, c) });

  it('a class absent from the baseline exceeds every percentage; growth equal to the limit passes', () => {
    const rows = [row('a.New', 0, 16), row('a.Old', 100, 150)];
    expect(evaluateGate([parseGateRule('a.*=1000%')], rows, ['a.New', 'a.Old']).map((r) => r.className)).toEqual(['a.New']);
    expect(evaluateGate([parseGateRule('a.Old=50')], rows, ['a.Old'])).toEqual([]);
    expect(evaluateGate([parseGateRule('a.Old=49')], rows, ['a.Old'])).toHaveLength(1);
    expect(evaluateGate([parseGateRule('a.Old=50%')], rows, ['a.Old'])).toEqual([]);
    expect(evaluateGate([parseGateRule('a.?ld=49.9%')], rows, ['a.Old'])).toHaveLength(1);
  });
});
