// The addon as shipped (npm platform package, single-file binary): the release build of
// native/ with its debug sections removed (37 MB → 6.5 MB on linux-x64 in November 2026; symbol
// names stay for backtraces).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Writes native/<file> to `to` without debug sections; fails with what to run when it is not built. */
export function shipAddon(file, to) {
  const from = path.join(root, 'native', file);
  if (!existsSync(from)) {
    fail(`${from} is missing: build it on its platform first (npm run build:native), or copy a build of it there`);
  }
  const strip = spawnSync('strip', ['--strip-debug', '-o', to, from], { stdio: 'inherit' });
  if (strip.error || strip.status !== 0) {
    process.stderr.write(`note: could not run strip (${strip.error?.message ?? `exit ${strip.status}`}); shipping ${file} with its debug sections\n`);
    copyFileSync(from, to);
  }
}

/** Runs a command in the foreground; its failure ends this script with its message. */
export function sh(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...options });
  if (r.error || r.status !== 0) fail(`${command} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  return r.stdout;
}

export function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

/** The compiled CLI must be there (npm run build:ts): its modules, the bundle bin/heapql.js
 * starts and the prebuilt schema validators. */
export function requireDist() {
  for (const built of ['dist/cli/entry.js', 'dist/heapql-cli.js', 'dist/validators']) {
    if (!existsSync(path.join(root, built))) fail(`dist/ is not built (${built} is missing): run npm run build:ts`);
  }
}
