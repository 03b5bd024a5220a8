// Bundles the compiled CLI (dist/cli/entry.js and everything it imports, dependencies included)
// into dist/heapql-cli.js, the script bin/heapql.js starts, and one chunk per lazily loaded
// part (a subcommand's code, shared code): a few files to read instead of some 280 modules to
// resolve (TypeBox alone is 200), about 0.1 s of a report's start-up, while a query still loads
// only what it uses. All sit in dist/ like the modules they replace, so paths taken from
// import.meta.url (the package root, the prebuilt validators, the addon) resolve as before.
// The library (dist/index.js) is not bundled.
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');
for (const old of readdirSync(dist).filter((f) => /^heapql-cli(-.*)?\.js$/.test(f))) rmSync(path.join(dist, old));
const result = await build({
  entryPoints: { 'heapql-cli': path.join(dist, 'cli/entry.js') },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: `node${process.versions.node.split('.')[0]}`,
  outdir: dist,
  chunkNames: 'heapql-cli-[hash]',
  // Whitespace and syntax only: names stay as written, for readable stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __heapqlCreateRequire } from 'node:module'; const require = __heapqlCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
if (result.errors.length) process.exit(1);
