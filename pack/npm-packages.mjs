// `npm run pack:npm [-- <out dir>]`: the npm tarballs of a release (default in target/pack/):
//   heapql-<version>.tgz                  the JS, the CLI and the demo dump; no addon. Its
//                                         optionalDependencies name one package per platform,
//   heapql-<platform>-<version>.tgz       and each of those holds that platform's prebuilt addon
//                                         (npm installs only the one whose os/cpu/libc match).
// The platforms are package.json's napi.targets; napi-rs writes their package.json files. Each
// platform's addon must be in native/ (built there, on that platform). Prints the tarballs' paths.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { requireDist, root, sh, shipAddon } from './addon.mjs';

const out = path.resolve(process.argv[2] ?? path.join(root, 'target/pack'));
const stage = path.join(root, 'target/pack/stage');
requireDist();
rmSync(stage, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// One directory per platform package (napi-rs insists it lies inside the project).
const napi = path.join(root, 'node_modules/@napi-rs/cli/dist/cli.js');
sh(process.execPath, [napi, 'create-npm-dirs', '--npm-dir', path.relative(root, path.join(stage, 'npm'))]);
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const optional = {};
const tarballs = [];
for (const platform of readdirSync(path.join(stage, 'npm'))) {
  const dir = path.join(stage, 'npm', platform);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  shipAddon(manifest.main, path.join(dir, manifest.main));
  optional[manifest.name] = manifest.version;
  tarballs.push(pack(dir));
}

// The main package: what `files` lists, and a package.json for users (no build scripts, no
// devDependencies: nothing runs at install) that names the platform packages. The addon's
// declarations (native/heapql.d.ts, no addon) go with it: dist's .d.ts take DumpInfo, HeapCounts,
// HistogramRow and the other addon shapes from them, which are `any` (and a TS2307 error without
// skipLibCheck) for a user whose package lacks them.
const main = path.join(stage, 'heapql');
const files = ['bin', 'dist', 'native/heapql.d.ts', 'fixtures/demo/demo.hprof', 'README.md'];
for (const f of files) cpSync(path.join(root, f), path.join(main, f), { recursive: true });
const { scripts, devDependencies, ...published } = pkg;
writeFileSync(path.join(main, 'package.json'), JSON.stringify({ ...published, files, optionalDependencies: optional }, null, 2) + '\n');
tarballs.unshift(pack(main));
process.stdout.write(tarballs.join('\n') + '\n');

function pack(dir) {
  const name = sh('npm', ['pack', '--silent', '--pack-destination', out], { cwd: dir }).trim().split('\n').at(-1);
  return path.join(out, name);
}
