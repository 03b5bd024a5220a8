/**
 * The REPL's shared part (ts/repl/index.ts) must bundle for the browser: nothing it imports,
 * directly or through other modules, may be a Node built-in or the native addon.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

it('ts/repl/index.ts reaches no Node built-in and no addon', () => {
  const seen = new Set<string>();
  const external: string[] = [];
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    // Type-only imports vanish when compiled.
    for (const m of source.matchAll(/^\s*(?:import|export)\s(?!type\s)[^'"]*?from\s*['"]([^'"]+)['"]/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) walk(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
      else external.push(spec);
    }
  };
  walk(path.join(root, 'ts/repl/index.ts'));
  expect(seen.size).toBeGreaterThan(10);
  expect([...seen].filter((f) => /native|session\/session|repl\/terminal\.ts$|history/.test(f))).toEqual([]);
  // The OQL lexer and parser's libraries and the display width of text (ts/terminal-text.ts:
  // string-width, which needs only Intl.Segmenter), nothing else.
  expect([...new Set(external)].sort()).toEqual(['moo', 'nearley', 'string-width']);
});
