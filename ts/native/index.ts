/**
 * The TypeScript door to the Rust addon: the only module that loads it. It finds the binary,
 * refuses a missing or stale one with a message that says how to rebuild, and turns the
 * addon's coded error messages (`ERR_X: text`) into `HeapqlError`s with a stable `code`.
 * No logic beyond that.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { HeapqlError } from '../errors.js';

/** Must equal NATIVE_API_VERSION in crates/node/src/lib.rs. */
export const EXPECTED_NATIVE_API_VERSION = 5;

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REBUILD_HINT = 'run `npm run build:native` (or `npm install`) in ' + packageRoot;

// The generated declarations (native/heapql.d.ts) describe the addon; they exist after a build.
type Addon = typeof import('../../native/heapql.js');

function binaryPath(): string {
  const triple =
    process.platform === 'linux'
      ? `linux-${process.arch}-${isMusl() ? 'musl' : 'gnu'}`
      : `${process.platform}-${process.arch}`;
  return path.join(packageRoot, 'native', `heapql.${triple}.node`);
}

function isMusl(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}

let cached: Addon | undefined;

/** The loaded addon; throws ERR_NATIVE_MISSING / ERR_NATIVE_STALE with a rebuild hint. */
export function native(): Addon {
  if (cached) return cached;
  const file = binaryPath();
  if (!existsSync(file)) {
    throw new HeapqlError('ERR_NATIVE_MISSING', `the native addon is not built (${file} is missing): ${REBUILD_HINT}`);
  }
  let addon: Addon;
  try {
    addon = createRequire(import.meta.url)(file) as Addon;
  } catch (err) {
    throw new HeapqlError('ERR_NATIVE_LOAD', `the native addon ${file} failed to load (${(err as Error).message}): ${REBUILD_HINT}`);
  }
  const version = typeof addon.nativeApiVersion === 'function' ? addon.nativeApiVersion() : -1;
  if (version !== EXPECTED_NATIVE_API_VERSION) {
    throw new HeapqlError(
      'ERR_NATIVE_STALE',
      `the native addon is stale (API ${version}, this code needs ${EXPECTED_NATIVE_API_VERSION}): ${REBUILD_HINT}`,
    );
  }
  cached = addon;
  return addon;
}

const CODED = /^(ERR_[A-Z_]+): ([\s\S]*)$/;

/** Re-throws an addon error as a HeapqlError carrying its stable code. */
export function translateError(err: unknown): never {
  if (err instanceof HeapqlError) throw err;
  const message = err instanceof Error ? err.message : String(err);
  const m = CODED.exec(message);
  if (m) throw new HeapqlError(m[1]!, m[2]!);
  throw new HeapqlError('ERR_INTERNAL', message);
}

/** Runs an addon call (sync or async) with its errors translated. */
export async function call<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    translateError(err);
  }
}

export function callSync<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    translateError(err);
  }
}

export type { Addon };
/** The look-up shapes of the door (ts/session converts them to its public types). */
export type { JsClassDescription, JsDominatorView, JsField, JsObjectDetail, JsObjectRef, JsPathStep, JsReferenceList } from '../../native/heapql.js';
export type NativeHeap = InstanceType<Addon['HeapHandle']>;
