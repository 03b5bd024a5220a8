/**
 * What `npm pack` puts in the main package, from package.json's `files` (its scripts skipped:
 * dist/ is built already): everything `main`, `types`, `bin` and every `exports` entry name,
 * the addon's declarations and the demo dump, and no test data beside them (the demo's facts
 * and histograms, which only the tests read, went into the tarball before). The same list
 * `npm run pack:npm` ships (pack/npm-packages.mjs).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { root, run } from '../tools/run.js';

/** npm's own script, run by node directly (the npm on PATH may be a shell wrapper). */
function npmCli(): string {
  if (process.env.npm_execpath?.endsWith('.js')) return process.env.npm_execpath;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (existsSync(path.join(dir, 'npm'))) return path.join(path.dirname(realpathSync(path.join(dir, 'npm'))), 'npm-cli.js');
  }
  throw new Error('npm is not on PATH');
}

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
let files: string[];

beforeAll(async () => {
  const dist = path.join(root, 'dist/index.js');
  expect(existsSync(dist), `${dist} is missing: run npm run build:ts`).toBe(true);
  const r = await run(process.execPath, [npmCli(), 'pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root });
  expect(r.code, r.stderr).toBe(0);
  files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
});

describe('npm pack of the main package', () => {
  it('holds every file main, types, bin and exports name, the addon declarations and the demo dump', () => {
    const targets = [pkg.main, pkg.types, ...Object.values(pkg.bin as Record<string, string>)];
    for (const entry of Object.values(pkg.exports as Record<string, string | Record<string, string>>)) {
      targets.push(...(typeof entry === 'string' ? [entry] : Object.values(entry)));
    }
    const wanted = [...targets.map((t) => path.posix.normalize(t)), 'native/heapql.d.ts', 'fixtures/demo/demo.hprof', 'README.md', 'package.json'];
    for (const w of wanted) expect(files, w).toContain(w);
  });

  it('holds no test data, sources or addon binary', () => {
    expect(files.filter((f) => f.startsWith('fixtures/'))).toEqual(['fixtures/demo/demo.hprof']);
    expect(files.filter((f) => /^(test|ts|crates|pack|target|docs)\//.test(f) || f.endsWith('.node'))).toEqual([]);
  });

  it("lists in package.json's files what pack/npm-packages.mjs ships", () => {
    const script = readFileSync(path.join(root, 'pack/npm-packages.mjs'), 'utf8');
    const shipped = /const files = (\[[^\]]*\]);/.exec(script);
    expect(shipped, 'the files list of pack/npm-packages.mjs').not.toBeNull();
    const list = JSON.parse(shipped![1]!.replace(/'/g, '"')) as string[];
    expect([...pkg.files, 'README.md'].sort()).toEqual([...list].sort());
  });
});
