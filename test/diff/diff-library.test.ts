/**
 * `diffDumps` on the DiffHeap fixture: the growth the program made between its two dumps
 * (facts computed by the program itself, and the JVM's own class histograms) comes out exactly.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { diffDumps, diffJsonSchema, parseGateRule, renderDiff, validateDiffModel, type DiffModel } from '../../ts/diff/index.js';
import { HeapqlError } from '../../ts/errors.js';
import { openHeap } from '../../ts/session/index.js';
import { baselineDump, currentDump, demoDump, facts, histogram, knownDump } from './fixtures.js';

let model: DiffModel;

beforeAll(async () => {
  model = await diffDumps(baselineDump, currentDump);
});

const classRow = (name: string) => {
  const rows = model.classes.filter((r) => r.className === name);
  expect(rows, name).toHaveLength(1);
  return rows[0]!;
};

describe('diffDumps: a map that gained a known number of entries', () => {
  it('the map entry classes grew by exactly the entries added, times their size', () => {
    const n = facts.entries_added;
    for (const name of ['DiffHeap$Key', 'DiffHeap$Payload']) {
      const row = classRow(name);
      expect(row.instances).toMatchObject({ baseline: facts.entries_before, current: facts.entries_before + n, delta: n });
      expect(row.shallow.delta).toBe(n * facts.shallow[name]!);
      expect(row.shallow.growthPercent).toBeCloseTo((n * 100) / facts.entries_before, 10);
      expect(row.classLoader).toBe('app');
    }
  });

  it('every plain class changes exactly as the JVM\'s own histograms say (HashMap$Node included)', () => {
    const { rows: before, unstable: u1 } = histogram('baseline');
    const { rows: after, unstable: u2 } = histogram('current');
    const h = (m: typeof before, k: string) => m.get(k) ?? { instances: 0, bytes: 0 };
    const node = classRow('java.util.HashMap$Node');
    expect(node.instances.delta).toBe(h(after, 'java.util.HashMap$Node').instances - h(before, 'java.util.HashMap$Node').instances);
    expect(node.shallow.delta).toBe(h(after, 'java.util.HashMap$Node').bytes - h(before, 'java.util.HashMap$Node').bytes);
    // The program's map accounts for all but the JVM's own few nodes.
    expect(node.instances.delta).toBeGreaterThanOrEqual(facts.entries_added);
    let compared = 0;
    for (const name of new Set([...before.keys(), ...after.keys()])) {
      // Class mirrors hold VM data the dump does not show; lambda names carry the run's addresses.
      if (u1.has(name) || u2.has(name) || name === 'java.lang.Class' || name.includes('$$Lambda')) continue;
      const rows = model.classes.filter((r) => r.className === name);
      expect(rows.reduce((s, r) => s + r.instances.delta, 0), name).toBe(h(after, name).instances - h(before, name).instances);
      expect(rows.reduce((s, r) => s + r.shallow.delta, 0), name).toBe(h(after, name).bytes - h(before, name).bytes);
      compared++;
    }
    expect(compared).toBeGreaterThan(200);
  });

  it('the map itself is a big dominator matched by its path, grown by exactly the added entries', () => {
    const row = model.dominators.rows.find((r) => r.key.endsWith('class DiffHeap · CACHE → java.util.HashMap'));
    expect(row).toBeDefined();
    expect(row!.status).toBe('grown');
    expect(row!.retained).toMatchObject({ baseline: facts.cache_retained_before, current: facts.cache_retained_after });
    expect(row!.retained.delta).toBe(facts.entries_added * facts.entry_bytes);
    // Rows come sorted by growth.
    const deltas = model.dominators.rows.map((r) => r.retained.delta);
    expect(deltas).toEqual([...deltas].sort((a, b) => b - a));
    expect(model.dominators.thresholdBytes).toBe(Math.ceil(Math.max(model.baseline.usedHeap, model.current.usedHeap) / 100));
  });

  it('marks the current leak suspects new, grown (by how much) and unchanged', () => {
    const byTitle = new Map(model.leakSuspects.map((s) => [s.title, s]));
    const late = byTitle.get(facts.late_holder)!;
    expect(late).toMatchObject({ status: 'new', baselineSource: 'none', baselineRank: null, key: `thread "${facts.late_holder}"` });
    expect(late.retained.current).toBeGreaterThanOrEqual(facts.late_bytes);
    const constant = byTitle.get(facts.constant_holder)!;
    expect(constant).toMatchObject({ status: 'unchanged', baselineSource: 'suspect' });
    expect(constant.retained.delta).toBe(0);
    const cache = byTitle.get('DiffHeap.CACHE')!;
    expect(cache).toMatchObject({ status: 'grown', baselineSource: 'suspect', kind: 'single' });
    expect(cache.key).toMatch(/→ class DiffHeap$/);
    // The class DiffHeap retains the map and a little reflection data the program cached between the dumps.
    expect(cache.retained.delta).toBeGreaterThanOrEqual(facts.entries_added * facts.entry_bytes);
    expect(cache.retained.delta).toBeLessThan(facts.entries_added * facts.entry_bytes * 1.01);
    expect(model.leakSuspects.filter((s) => s.currentRank !== null)).toHaveLength(3);
  });

  it('lists the duplicated string that grew, by exactly the copies added', () => {
    const row = model.duplicateStrings.grown.find((r) => r.value === facts.duplicate_text)!;
    expect(row.count.delta).toBe(facts.duplicates_added);
    expect(row.inBaseline).toBe(true);
    expect(model.duplicateStrings.grown[0]!.value).toBe(facts.duplicate_text);
    expect(model.duplicateStrings.complete).toBe(true);
  });

  it('a value the baseline does not list as duplicated: its copies there are counted, not taken as 0', async () => {
    const notListed = model.duplicateStrings.grown.filter((r) => !r.inBaseline);
    expect(notListed.length).toBeGreaterThanOrEqual(10);
    const integer = model.duplicateStrings.grown.find((r) => r.value === 'java.lang.Integer')!;
    expect(integer).toMatchObject({ inBaseline: false, count: { baseline: 1, current: 2, delta: 1 }, wastedBytes: { baseline: 0 } });
    // Every such count is what a query of the baseline finds.
    const session = await openHeap(baselineDump);
    try {
      for (const r of notListed) {
        expect(r.value, 'a value a literal can hold').not.toMatch(/'/);
        const q = await session.query(`SELECT COUNT(*) AS n FROM java.lang.String s WHERE toString(s) = '${r.value}'`);
        expect(r.count.baseline, r.value).toBe(Number(q.rows[0]![0]));
        expect(r.count.delta, r.value).toBe(r.count.current - r.count.baseline);
      }
    } finally {
      session.close();
    }
    expect(notListed.map((r) => r.count.baseline)).toContain(0);
  });

  it('class loaders and packages: the app loader and java.util grew', () => {
    const app = model.classLoaders.find((r) => r.loader === 'app')!;
    expect(app.instances.delta).toBeGreaterThanOrEqual(2 * facts.entries_added);
    const util = model.packages.find((r) => r.package === 'java.util')!;
    expect(util.instances.delta).toBe(model.classes.filter((r) => /^java\.util\.[^.]+$/.test(r.className.replace(/(\[\])+$/, ''))).reduce((s, r) => s + r.instances.delta, 0));
  });

  it('is one program, and the model validates against the published schema', () => {
    expect(model.sameProgram).toMatchObject({ verdict: 'same', baselineMainClass: 'DiffHeap', currentMainClass: 'DiffHeap', note: null });
    expect(validateDiffModel(model).ok).toBe(true);
    expect(diffJsonSchema().$id).toBe('urn:heapql:schema:diff');
  });

  it('rows are sorted by growth', () => {
    const d = model.classes.map((r) => r.shallow.delta);
    expect(d).toEqual([...d].sort((a, b) => b - a));
  });

  it("the Markdown and HTML name the class rows' retained size for what it is: MAT's minimum retained size, not the retained set", () => {
    // A class's retained size is the report's histogram figure: the retained sizes of the
    // instances no other instance of the class dominates, summed. An object several instances
    // keep alive together is not in it (the JDK 17 dumps of a small program read 80,104 B for
    // HashMap$Node where the retained set of all its instances is 91,784 B).
    const md = renderDiff(model, 'md');
    expect(md).toContain("Retained is MAT's minimum retained size of the class's instances");
    expect(md).not.toContain("Retained is MAT's retained size of all instances of the class.");
    expect(renderDiff(model, 'html')).toContain('Retained is MAT&#39;s minimum retained size of the class&#39;s instances');
  });
});

describe('diffDumps: the gate', () => {
  it('reports rows past a byte or percentage limit, glob and regex patterns', async () => {
    const m = await diffDumps(baselineDump, currentDump, {
      gate: ['DiffHeap$Key=1000', 'DiffHeap$Payload=60%', '/DiffHeap\\$P.*/=47999', 'java.util.HashMap$Node=1MiB', 'DiffHeap$*=49%'],
    });
    expect(m.gate.failed).toBe(true);
    const hits = m.gate.offending.map((r) => `${r.rule} ${r.className}`).sort();
    // The holder threads' lambda: one instance per holder thread, 1 → 2 (+100 %).
    const lambda = m.classes.find((r) => r.className.startsWith('DiffHeap$$Lambda'))!;
    expect(lambda.instances).toMatchObject({ baseline: 1, current: 2 });
    expect(hits).toEqual(
      ['/DiffHeap\\$P.*/=47999 DiffHeap$Payload', `DiffHeap$*=49% ${lambda.className}`, 'DiffHeap$*=49% DiffHeap$Key', 'DiffHeap$*=49% DiffHeap$Payload', 'DiffHeap$Key=1000 DiffHeap$Key'].sort(),
    );
  });

  it('parses limits and refuses bad rules', () => {
    expect(parseGateRule('a.B=2MB').limit).toEqual({ kind: 'bytes', bytes: 2_000_000 });
    expect(parseGateRule('a.B=64KiB').limit).toEqual({ kind: 'bytes', bytes: 65_536 });
    expect(parseGateRule('a.B=12.5%').limit).toEqual({ kind: 'percent', percent: 12.5 });
    expect(() => parseGateRule('a.B')).toThrow(/--fail-if-grown/);
    expect(() => parseGateRule('a.B=lots')).toThrow(/neither bytes/);
    expect(() => parseGateRule('/(/=1')).toThrow(/bad regular expression/);
  });
});

describe('diffDumps: a file with no heap dump', () => {
  it('is refused (ERR_NO_SUCH_DUMP) on either side before any dump is analyzed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-diff-cut-'));
    const cut = path.join(dir, 'cut.hprof');
    writeFileSync(cut, readFileSync(demoDump).subarray(0, 1_000_000));
    for (const [b, c, which] of [
      [cut, demoDump, 'baseline'],
      [demoDump, cut, 'current'],
    ] as const) {
      let analyzed = 0;
      let open = 0;
      const err = await diffDumps(b, c, {
        open: async (p) => {
          const s = await openHeap(p);
          open++;
          const close = s.close.bind(s);
          s.close = () => {
            open--;
            close();
          };
          return s;
        },
        analyze: async (s) => {
          analyzed++;
          await s.analyze();
        },
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HeapqlError);
      expect(err).toMatchObject({ code: 'ERR_NO_SUCH_DUMP', exitCode: 2 });
      expect((err as Error).message).toMatch(new RegExp(`^the ${which} dump ${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds no heap dump`));
      expect(analyzed).toBe(0);
      expect(open, 'dumps left open').toBe(0);
    }
  });
});

describe('diffDumps: unrelated dumps', () => {
  it('says they come from different programs', async () => {
    const m = await diffDumps(demoDump, knownDump);
    expect(m.sameProgram.verdict).toBe('different');
    expect(m.sameProgram.baselineMainClass).toBe('Demo');
    expect(m.sameProgram.currentMainClass).toBe('KnownHeap');
    expect(m.sameProgram.applicationClasses.overlapPercent).toBeLessThan(50);
    expect(m.sameProgram.note).toMatch(/different programs: the main class is Demo in the baseline but KnownHeap in the current dump/);
    expect(validateDiffModel(m).ok).toBe(true);
  });
});
