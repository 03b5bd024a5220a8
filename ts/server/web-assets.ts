/**
 * The browser REPL's script: `dist/web/repl.js`, bundled by esbuild from `ts/web/` (`npm run
 * build:web`, part of `npm run build:ts`). Read once, through the shipped-files module, so it is
 * found in a checkout, an npm installation and the single-file binary's assets alike.
 */
import { readFileSync } from 'node:fs';

import { packageFile } from '../package-files.js';

let script: string | null | undefined;

export function replScript(): string | null {
  if (script === undefined) {
    const file = packageFile('dist/web/repl.js');
    script = file ? readFileSync(file, 'utf8') : null;
  }
  return script;
}
