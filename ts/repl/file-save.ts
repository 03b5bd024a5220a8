/**
 * The terminal REPL's `ReplIO.saveFile`: the file `!save` names, written a block at a time as
 * `!save` makes the blocks. Each block is written (the write awaited) before the next is made,
 * so a result of any size holds one block of text at a time, the disk sets the pace, and
 * Ctrl-C (the statement's signal) is heard between two blocks.
 *
 * The blocks go to a temporary file beside the target (`.<name>.<random>.heapql-part`), renamed
 * over it once the last block is written, as DuckDB's `COPY … TO` does when it overwrites
 * (`use_tmp_file`) and rsync or git do: the name shows the old file or the whole new one, never
 * a half-written one; Ctrl-C or a failed write (a full disk) removes the temporary file and
 * leaves a file that was there as it was. A save over an existing file otherwise does what a
 * plain write into it did: a symbolic link stays and the file it points to gets the text; the
 * file keeps its mode, owner and group. Where a rename could not keep that, the file is written
 * in place, as before: a file with more than one (hard) link, one owned by another user that
 * we may write but not give back, one in a directory we may not create a file in, and what is
 * not a regular file (`/dev/stdout`, a FIFO). Such a file stopped part-way is removed (a
 * regular file) or left as it is (a device, a FIFO), and the message says which.
 *
 * An error names what went wrong and what to do (a missing directory, permission, a full disk),
 * in the words every writer of a named file uses (file-write-error.ts); `!save` puts `cannot write
 * <path as typed>:` before it. Node-only.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp, type Stats } from 'node:fs';
import path from 'node:path';

import { errorCode, fileWriteProblem } from '../file-write-error.js';
import { SaveInterrupted } from './errors.js';
import { expandHome } from './home.js';

type FileHandle = Awaited<ReturnType<typeof fsp.open>>;

/** How the file is written: beside it and renamed over it, or into it. */
interface Plan {
  /** The file to write: the target of a symbolic link, else the path. */
  target: string;
  /** What is there now (null: nothing). */
  existing: Stats | null;
  /** Written into the file itself (see the top of the file for when). */
  inPlace: boolean;
}

/**
 * Writes `blocks` to the file `typed` names (`~/` the home directory). Throws an Error whose
 * message says what went wrong and what to do, or a `SaveInterrupted` when `signal` fired
 * between two blocks (its message says what became of the file).
 */
export async function saveBlocks(typed: string, blocks: Iterable<string>, signal?: AbortSignal): Promise<void> {
  const file = expandHome(typed);
  let plan: Plan;
  try {
    plan = await planFor(file);
  } catch (err) {
    throw new Error(problem(err, typed, file), { cause: err });
  }
  if (!plan.inPlace) {
    const temp = await openTemp(plan, typed);
    if (temp) return replaceWith(temp, plan, typed, blocks, signal);
  }
  return writeInPlace(file, plan.existing, typed, blocks, signal);
}

async function planFor(file: string): Promise<Plan> {
  let link: Stats;
  try {
    link = await fsp.lstat(file);
  } catch (err) {
    // Nothing there yet (or no such directory: creating the temporary file says so).
    if (errorCode(err) === 'ENOENT') return { target: file, existing: null, inPlace: false };
    throw err;
  }
  let target = file;
  let existing = link;
  if (link.isSymbolicLink()) {
    try {
      target = await fsp.realpath(file);
      existing = await fsp.stat(target);
    } catch {
      // A link to nothing (or to where we may not look): written through, as a plain write does.
      return { target: file, existing: null, inPlace: true };
    }
  }
  if (existing.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  return { target, existing, inPlace: !existing.isFile() || existing.nlink > 1 };
}

/** The temporary file beside the target, with the existing file's owner and mode; null: write in place. */
async function openTemp(plan: Plan, typed: string): Promise<{ handle: FileHandle; path: string } | null> {
  const dir = path.dirname(plan.target);
  const base = path.basename(plan.target);
  for (let attempt = 0; ; attempt++) {
    // A name within the file system's 255 bytes whatever the target's.
    const stem = Buffer.byteLength(base) > 200 ? 'heapql-save' : base;
    const temp = path.join(dir, `.${stem}.${randomBytes(4).toString('hex')}.heapql-part`);
    let handle: FileHandle;
    try {
      handle = await fsp.open(temp, 'wx', 0o666);
    } catch (err) {
      if (errorCode(err) === 'EEXIST' && attempt < 8) continue;
      // A directory we may not add to, holding a file we may write: into the file, as before.
      if (plan.existing && ['EACCES', 'EPERM', 'EROFS'].includes(errorCode(err))) return null;
      throw new Error(problem(err, typed, plan.target, temp), { cause: err });
    }
    if (!plan.existing) return { handle, path: temp };
    try {
      const made = await handle.stat();
      const { uid, gid, mode } = plan.existing;
      if (made.uid !== uid || made.gid !== gid) await handle.chown(uid, gid);
      // After chown, which may clear the set-id bits.
      await handle.chmod(mode & 0o7777);
      return { handle, path: temp };
    } catch {
      // Another user's file, which only root may give back: into the file, as before.
      await discard(handle, temp);
      return null;
    }
  }
}

async function replaceWith(
  temp: { handle: FileHandle; path: string },
  plan: Plan,
  typed: string,
  blocks: Iterable<string>,
  signal?: AbortSignal,
): Promise<void> {
  const untouched = plan.existing ? `${typed} is as it was` : `${typed} was not written`;
  let written: boolean;
  try {
    written = await writeBlocks(temp.handle, blocks, signal);
    await temp.handle.close();
  } catch (err) {
    await discard(temp.handle, temp.path);
    throw new Error(`${problem(err, typed, plan.target, temp.path)} (${untouched})`, { cause: err });
  }
  if (!written) {
    await discard(null, temp.path);
    throw new SaveInterrupted(untouched);
  }
  try {
    await fsp.rename(temp.path, plan.target);
  } catch (err) {
    await discard(null, temp.path);
    throw new Error(`${problem(err, typed, plan.target, temp.path)} (${untouched})`, { cause: err });
  }
}

async function writeInPlace(file: string, existing: Stats | null, typed: string, blocks: Iterable<string>, signal?: AbortSignal): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await fsp.open(file, 'w');
  } catch (err) {
    throw new Error(problem(err, typed, file), { cause: err });
  }
  let written: boolean;
  try {
    written = await writeBlocks(handle, blocks, signal);
    await handle.close();
  } catch (err) {
    await handle.close().catch(() => {});
    throw new Error(`${problem(err, typed, file)} (${await removePartial(file, existing, typed)})`, { cause: err });
  }
  if (!written) throw new SaveInterrupted(await removePartial(file, existing, typed));
}

/** A file written in part, in place: removed when it is a file; what became of it. */
async function removePartial(file: string, existing: Stats | null, typed: string): Promise<string> {
  if (existing && !existing.isFile()) return `what was written to ${typed} stays there (it is not a regular file)`;
  try {
    await fsp.unlink(file);
    return `the partly written ${typed} was removed`;
  } catch (err) {
    return `${typed} holds only part of the result: remove it (it could not be: ${errorCode(err) || (err as Error).message})`;
  }
}

/**
 * Writes each block, made when the one before it is written; false when `signal` fired before a
 * block (the rest is not made). Throws the write's error.
 */
async function writeBlocks(handle: FileHandle, blocks: Iterable<string>, signal?: AbortSignal): Promise<boolean> {
  const it = blocks[Symbol.iterator]();
  try {
    for (;;) {
      if (signal?.aborted) return false;
      const next = it.next();
      if (next.done) return true;
      const bytes = Buffer.from(next.value, 'utf8');
      // A write may take part of the bytes (a disk filling up): the rest, or its error, follows.
      for (let at = 0; at < bytes.length; ) at += (await handle.write(bytes, at, bytes.length - at)).bytesWritten;
    }
  } finally {
    it.return?.();
  }
}

async function discard(handle: FileHandle | null, temp: string): Promise<void> {
  await handle?.close().catch(() => {});
  await fsp.unlink(temp).catch(() => {});
}

/**
 * What went wrong, in words, with what to do (the wording every writer of a named file uses,
 * file-write-error.ts); the path as typed, `file` the one written (`~` expanded).
 */
export function problem(err: unknown, typed: string, file = expandHome(typed), temporary?: string): string {
  return fileWriteProblem(err, file, { shown: typed, suggestedName: `result${path.extname(typed) || '.csv'}`, temporary });
}
