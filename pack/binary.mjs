// `npm run build:binary [-- <output>]`: heapql as one executable, heapql-<os>-<arch> (default in
// the checkout's root), that needs neither Node nor Rust where it runs: Node's single executable
// application. esbuild bundles the compiled CLI (dist/, whatever ts/ holds) into one CommonJS
// script; the addon (stripped), package.json and the demo dump travel as assets, which
// ts/package-files.ts reads (the addon is written to a private temporary file and dlopen'ed).
import { spawnSync } from 'node:child_process';
import { copyFileSync, chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { build } from 'esbuild';

import { fail, requireDist, root, sh, shipAddon } from './addon.mjs';

const require = createRequire(import.meta.url);
const output = path.resolve(process.argv[2] ?? path.join(root, `heapql-${process.platform}-${process.arch}`));
const work = path.join(root, 'target/pack/binary');
requireDist();
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

// The one script. import.meta.url has no meaning in CommonJS; the code never needs it inside
// the binary (ts/package-files.ts asks node:sea first), but it must still evaluate.
const script = path.join(work, 'heapql.cjs');
const result = await build({
  stdin: { contents: "import { start } from './dist/cli/entry.js';\nstart();\n", resolveDir: root, sourcefile: 'sea-main.js' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: `node${process.versions.node.split('.')[0]}`,
  outfile: script,
  define: { 'import.meta.url': '__heapqlModuleUrl' },
  banner: { js: "var __heapqlModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
if (result.errors.length) fail('esbuild failed');

// Same names as in a checkout: ts/native/locate.ts looks for native/heapql.<platform>.node.
const platform = `${process.platform}-${process.arch}${process.platform === 'linux' ? '-gnu' : ''}`;
const addon = path.join(work, `heapql.${platform}.node`);
shipAddon(`heapql.${platform}.node`, addon);
const assets = {
  'package.json': path.join(root, 'package.json'),
  'fixtures/demo/demo.hprof': path.join(root, 'fixtures/demo/demo.hprof'),
  // The browser REPL's script, served by `heapql server` at /repl.js.
  'dist/web/repl.js': path.join(root, 'dist/web/repl.js'),
  // The published schemas' validators, compiled by the build (ts/validators.ts).
  ...Object.fromEntries(
    readdirSync(path.join(root, 'dist/validators')).map((f) => [`dist/validators/${f}`, path.join(root, 'dist/validators', f)]),
  ),
  [`native/heapql.${platform}.node`]: addon,
};

const blob = path.join(work, 'sea.blob');
const config = path.join(work, 'sea-config.json');
writeFileSync(config, JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets }, null, 2));
sh(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });

// A copy of this node with the blob injected where its fuse says.
mkdirSync(path.dirname(output), { recursive: true });
rmSync(output, { force: true });
copyFileSync(process.execPath, output);
chmodSync(output, 0o755);
// postject's ELF library warns about every note section it cannot name; those lines are noise.
const postject = spawnSync(
  process.execPath,
  [require.resolve('postject/dist/cli.js'), output, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'],
  { encoding: 'utf8' },
);
process.stderr.write(postject.stderr.split('\n').filter((l) => l && !/^warning: Can't find string offset for section name/.test(l)).map((l) => `${l}\n`).join(''));
if (postject.status !== 0) fail(`postject failed (exit ${postject.status})`);
process.stdout.write(`${output}\n`);
