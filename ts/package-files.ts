/**
 * Files that ship with heapql (package.json, the demo dump, the addon), wherever heapql runs
 * from: the package directory (npm install, a source checkout) or the assets of the single-file
 * binary. An asset that must be a file (the demo dump, the addon) is written once to a private
 * temporary directory that is removed when the process exits.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getAsset, getRawAsset, isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';

/** True in the single-file binary (Node's single executable application). */
export function inSingleExecutable(): boolean {
  return isSea();
}

/** The package directory (this file is ts/ or dist/ one level below it). */
function packageRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
}

/** The text of a shipped file, by its path in the package (`package.json`). */
export function readPackageFile(relative: string): string {
  return inSingleExecutable() ? getAsset(relative, 'utf8') : readFileSync(path.join(packageRoot(), relative), 'utf8');
}

/** A path to a shipped file, or undefined when this installation does not have it. */
export function packageFile(relative: string): string | undefined {
  if (!inSingleExecutable()) {
    const file = path.join(packageRoot(), relative);
    return existsSync(file) ? file : undefined;
  }
  let bytes: ArrayBuffer;
  try {
    bytes = getRawAsset(relative) as ArrayBuffer;
  } catch {
    return undefined;
  }
  const file = path.join(privateDir(), path.basename(relative));
  if (!existsSync(file)) writeFileSync(file, new Uint8Array(bytes), { mode: 0o600 });
  return file;
}

let dir: string | undefined;

function privateDir(): string {
  if (dir) return dir;
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-')); // mode 0700
  const made = dir;
  process.on('exit', () => rmSync(made, { recursive: true, force: true }));
  return made;
}
