/**
 * `heapql waste` end to end on the WasteHeap fixture dumps: every row the program planted comes
 * out of the CLI's JSON with exactly the count and bytes the program computed from the live
 * JVM's layout (fixtures/dumps/waste/*.facts.json); Markdown and HTML carry the same rows; the
 * library's heap.waste() and the full report's `waste` section agree with the command.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { openHeap } from '../../ts/heap.js';
import { validateWasteModel, type WasteModel, type WasteRow } from '../../ts/report/index.js';
import { heapql } from '../tools/run.js';

const root = path.resolve(__dirname, '../..');
const dir = path.join(root, 'fixtures/dumps/waste');

interface Fact {
  check: string;
  holder: string;
  class: string;
  objects: number;
  overhead: number;
  formula: string;
}

const dumps = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('.hprof'))
      .sort()
      .map((f) => ({ name: f, path: path.join(dir, f), facts: JSON.parse(readFileSync(path.join(dir, f.replace(/\.hprof$/, '.facts.json')), 'utf8')) }))
  : [];

/** The one row of `check` held by `Owner.FIELD` for objects of `cls`. */
function rowFor(model: WasteModel, f: Fact): WasteRow {
  const cat = model.waste.categories.find((c) => c.check === f.check);
  expect(cat, f.check).toBeDefined();
  const rows = cat!.rows.filter((r) => r.className === f.class && `${r.holder.owner}.${r.holder.field}` === f.holder);
  expect(rows, `${f.check} ${f.holder} → ${f.class}`).toHaveLength(1);
  return rows[0]!;
}

describe('heapql waste', () => {
  it('the WasteHeap dumps are committed', () => {
    expect(dumps.map((d) => d.name)).toEqual(['WasteHeap-jdk17-coops.hprof', 'WasteHeap-jdk17-nocoops.hprof', 'WasteHeap-jdk25-compact.hprof']);
  });

  for (const d of dumps) {
    it(`${d.name}: every planted problem has its exact row in the JSON`, async () => {
      const out = path.join(mkdtempSync(path.join(tmpdir(), 'heapql-waste-')), 'w.json');
      const r = await heapql(['waste', d.path, out, '--limit', '1000']);
      expect(r.code, r.stderr).toBe(0);
      const model = JSON.parse(readFileSync(out, 'utf8')) as WasteModel;
      expect(validateWasteModel(model).ok).toBe(true);
      for (const f of d.facts.waste as Fact[]) {
        const row = rowFor(model, f);
        expect([row.objects, row.overhead], `${f.check} ${f.holder}: ${f.formula}`).toEqual([f.objects, f.overhead]);
        expect(row.holder.label).toBe(`${f.holder} → ${f.class}`);
        expect(row.overheadPercent).toBeCloseTo((row.overhead * 100) / model.waste.usedHeap, 9);
      }
      const checks = model.waste.categories.map((c) => c.overhead);
      expect(model.waste.overhead).toBe(checks.reduce((a, b) => a + b, 0));
      const dup = model.waste.duplicateStrings.top.find((s) => s.value === d.facts.duplicate_string.value);
      expect(dup?.count).toBe(d.facts.duplicate_string.count);
    });
  }

  it('Markdown (the default) and HTML show the rows; --format overrides; bad options are usage errors', async () => {
    const d = dumps[0]!;
    const md = await heapql(['waste', d.path]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^# Heap waste: WasteHeap-jdk17-coops\.hprof/);
    expect(md.stdout).toContain('### Empty collections');
    expect(md.stdout).toContain('| WasteHeap.EMPTY\\_LISTS → java.util.ArrayList | 1,000 |');
    const tmp = mkdtempSync(path.join(tmpdir(), 'heapql-waste-'));
    const html = path.join(tmp, 'w.html');
    expect((await heapql(['waste', d.path, html])).code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('<code>WasteHeap.SPARSE_MAPS → java.util.HashMap</code>');
    expect(page).toContain('<svg class="chart bar"');
    const forced = await heapql(['waste', d.path, '--format', 'json']);
    expect(JSON.parse(forced.stdout).waste.categories).toHaveLength(10);
    expect((await heapql(['waste', d.path, '--limit', '0'])).code).toBe(2);
    // Above what the library takes: refused before the dump is opened, not by the library
    // after the full analysis (exit 1).
    for (const limit of ['4294967296', '99999999999', '0x10', '1e3']) {
      const r = await heapql(['waste', d.path, '--limit', limit]);
      expect(r.stderr).toBe(`error: --limit takes a whole number of rows from 1 to 4294967295, not '${limit}'\n`);
      expect(r.code).toBe(2);
    }
    expect((await heapql(['waste', d.path, '--limt', '3'])).code).toBe(2);
  });

  it('the library and the full report give the same figures as the command', async () => {
    const d = dumps[dumps.length - 1]!;
    const heap = await openHeap(d.path);
    try {
      const model = await heap.waste({ limit: 1000 });
      const report = await heap.report({ limit: 1000 });
      expect(report.waste.categories).toEqual(model.waste.categories);
      for (const f of d.facts.waste as Fact[]) expect(rowFor(model, f).overhead).toBe(f.overhead);
      const blocked = d.facts.being_finalized;
      const rows = model.waste.categories.find((c) => c.check === 'pendingFinalization')!.rows.filter((r) => r.className === blocked.class);
      expect(rows.reduce((n, r) => n + r.overhead, 0)).toBe(blocked.overhead);
    } finally {
      heap.close();
    }
  });
});
