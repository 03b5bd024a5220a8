/**
 * Tests that run compiled code (workers, the CLI) need dist/ to match ts/. This refuses to run
 * them against a stale or missing build, naming the command that fixes it.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Throws unless every .ts under the given ts/ folders (or files) has a newer .js in dist/. */
export function requireFreshDist(...sources: string[]): void {
  for (const source of sources) {
    for (const file of tsFiles(path.join(ROOT, 'ts', source))) {
      const rel = path.relative(path.join(ROOT, 'ts'), file).replace(/\.ts$/, '.js');
      const out = path.join(ROOT, 'dist', rel);
      if (!existsSync(out) || statSync(out).mtimeMs < statSync(file).mtimeMs) {
        throw new Error(`dist/${rel} is missing or older than ts/${rel.replace(/\.js$/, '.ts')}: run \`npm run build:ts\` first`);
      }
    }
  }
}

function tsFiles(p: string): string[] {
  if (statSync(p).isFile()) return [p];
  return readdirSync(p, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(path.join(p, e.name)) : e.name.endsWith('.ts') ? [path.join(p, e.name)] : [],
  );
}
