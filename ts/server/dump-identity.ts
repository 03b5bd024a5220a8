/**
 * Which dump the server serves, taken once when the app is made (right after the dump was
 * opened): the file (its real path, device and inode, size, modification time), which heap dump
 * of the file (`--dump N`), and what the index found (objects, classes, the dump's own
 * timestamp). `id` is a digest of all of it. An object id is an index into one dump: a client
 * that keeps ids (the browser REPL's results) compares `id` to tell whether the server it talks
 * to still serves the dump its ids came from (`GET /status`, and the `x-heapql-dump` header of
 * every answer); a look-up given `?dump=<id>` of another dump answers 409 `dump_changed`.
 */
import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

import type { HeapSession } from '../session/index.js';

export interface DumpIdentity {
  /** A digest of everything below (16 hex digits). */
  id: string;
  /** The heap dump of the file the server serves, 1-based (`--dump N`), and how many the file holds. */
  number: number;
  count: number;
  objects: number;
  classes: number;
}

export function dumpIdentity(session: HeapSession): DumpIdentity {
  let file: Record<string, unknown>;
  try {
    const st = statSync(session.path, { bigint: true });
    let real = resolve(session.path);
    try {
      real = realpathSync(session.path);
    } catch {
      // Kept as resolved.
    }
    file = { path: real, dev: String(st.dev), ino: String(st.ino), size: String(st.size), mtimeNs: String(st.mtimeNs) };
  } catch {
    // The file is gone already (the mapping keeps the dump): the index alone tells it.
    file = { path: resolve(session.path) };
  }
  let info: { dump: number; dumpCount: number; objectCount: number; classCount: number; timestampMs: number; fileSize: number; idSize: number };
  try {
    info = session.info();
  } catch {
    info = { dump: 0, dumpCount: 0, objectCount: 0, classCount: 0, timestampMs: 0, fileSize: 0, idSize: 0 };
  }
  const parts = {
    ...file,
    dump: info.dump,
    dumpCount: info.dumpCount,
    objects: info.objectCount,
    classes: info.classCount,
    timestampMs: info.timestampMs,
    fileSize: info.fileSize,
    idSize: info.idSize,
  };
  const id = createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
  return { id, number: info.dump + 1, count: info.dumpCount, objects: info.objectCount, classes: info.classCount };
}
