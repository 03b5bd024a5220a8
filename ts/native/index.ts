/**
 * The TypeScript door to the Rust addon: the only module that loads it. It finds the binary,
 * refuses a missing or stale one with a message that says how to rebuild, and turns the
 * addon's coded error messages (`ERR_X: text`, a name error's data after a NUL) into
 * `HeapqlError`s with a stable `code` (and `unknownName`).
 * No logic beyond that.
 */
import { rmSync } from 'node:fs';

import { HeapqlError, type UnknownName } from '../errors.js';
import { inSingleExecutable } from '../package-files.js';
import { locateAddon, type AddonLocation } from './locate.js';

/** Must equal NATIVE_API_VERSION in crates/node/src/lib.rs. */
export const EXPECTED_NATIVE_API_VERSION = 21;

// The generated declarations (native/heapql.d.ts) describe the addon; they exist after a build.
type Addon = typeof import('../../native/heapql.js');

let cached: { addon: Addon; location: AddonLocation } | undefined;

/** The loaded addon; throws ERR_NATIVE_MISSING / ERR_NATIVE_LOAD / ERR_NATIVE_STALE saying what to do. */
export function native(): Addon {
  return loaded().addon;
}

/** Where the loaded addon came from (for `heapql --version`). */
export function nativeLocation(): AddonLocation {
  return loaded().location;
}

function loaded(): { addon: Addon; location: AddonLocation } {
  if (cached) return cached;
  const location = locateAddon();
  const module = { exports: {} as Addon };
  try {
    process.dlopen(module, location.file);
  } catch (err) {
    throw new HeapqlError('ERR_NATIVE_LOAD', `the native addon ${location.file} failed to load (${(err as Error).message}): ${location.fix}`);
  }
  const addon = module.exports;
  const version = typeof addon.nativeApiVersion === 'function' ? addon.nativeApiVersion() : -1;
  if (version !== EXPECTED_NATIVE_API_VERSION) {
    if (inSingleExecutable()) rmSync(location.file, { force: true });
    throw new HeapqlError(
      'ERR_NATIVE_STALE',
      `the native addon ${location.file} is stale (API ${version}, this code needs ${EXPECTED_NATIVE_API_VERSION}): ${location.fix}`,
    );
  }
  if (inSingleExecutable()) {
    // The cache's stamp of this build hashes the extracted file: made before it goes. The copy
    // is mapped now; removing it leaves nothing behind even if heapql is killed.
    addon.fixCacheStamp();
    rmSync(location.file, { force: true });
  }
  cached = { addon, location };
  return cached;
}

const CODED = /^(ERR_[A-Z_]+): ([\s\S]*)$/;

/** The codes whose errors carry data: its JSON after the message, past the text's last NUL. */
const WITH_DATA = new Set(['ERR_UNKNOWN_CLASS', 'ERR_UNKNOWN_FIELD', 'ERR_DUMP_CHANGED']);

/** Re-throws an addon error as a HeapqlError carrying its stable code (and its data). */
export function translateError(err: unknown): never {
  if (err instanceof HeapqlError) throw err;
  const message = err instanceof Error ? err.message : String(err);
  const m = CODED.exec(message);
  if (!m) throw new HeapqlError('ERR_INTERNAL', message);
  const [code, text] = [m[1]!, m[2]!];
  const cut = WITH_DATA.has(code) ? text.lastIndexOf('\0') : -1;
  if (cut < 0) throw new HeapqlError(code, text);
  const data: unknown = JSON.parse(text.slice(cut + 1));
  if (code === 'ERR_DUMP_CHANGED') throw new HeapqlError(code, text.slice(0, cut), { dumpPath: (data as { path: string }).path });
  throw new HeapqlError(code, text.slice(0, cut), { unknownName: data as UnknownName });
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
