/**
 * The browser REPL's script: `dist/web/repl.js`, bundled by esbuild from `ts/web/` (`npm run
 * build:web`, part of `npm run build:ts`). Read once; found from the compiled server
 * (`dist/server/`) and from the TypeScript sources (tests run those).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CANDIDATES = ['../web/repl.js', '../../dist/web/repl.js'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

let script: string | null | undefined;

export function replScript(): string | null {
  if (script === undefined) {
    const file = CANDIDATES.find((f) => existsSync(f));
    script = file ? readFileSync(file, 'utf8') : null;
  }
  return script;
}
