// Golden plans: the planner's output for fixtures/plans/<name>.oql must equal <name>.json.
// The Rust executor checks the same files deserialize (crates/exec). Regenerate with
// UPDATE_GOLDEN=1 after a deliberate change, and review the diff.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { plan, planToJson, type PlanOptions } from '../ts/plan/index.js';

const dir = path.resolve(import.meta.dirname, '../fixtures/plans');
const update = process.env.UPDATE_GOLDEN === '1';
const files = readdirSync(dir).filter((f) => f.endsWith('.oql')).sort();

/** A first line `-- options: fullPath reachableOnly` sets planner options. */
function optionsOf(text: string): PlanOptions {
  const m = /^--\s*options:(.*)$/m.exec(text);
  const words = m ? m[1].trim().split(/\s+/) : [];
  return { fullPath: words.includes('fullPath'), reachableOnly: words.includes('reachableOnly') };
}

describe('golden physical plans', () => {
  test('there are at least 25 golden queries', () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
  });

  for (const file of files) {
    test(file, () => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const planned = plan(text, optionsOf(text));
      const goldenPath = path.join(dir, file.replace(/\.oql$/, '.json'));
      if (update || !existsSync(goldenPath)) {
        if (!update) throw new Error(`${goldenPath} is missing: run with UPDATE_GOLDEN=1 to create it`);
        writeFileSync(goldenPath, `${planToJson(planned.plan, true)}\n`);
      }
      const golden = JSON.parse(readFileSync(goldenPath, 'utf8'));
      expect(JSON.parse(planned.json)).toEqual(golden);
    });
  }
});
