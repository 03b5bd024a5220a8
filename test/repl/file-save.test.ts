/**
 * The terminal's `!save` writer (file-save.ts) on real files: blocks made one at a time, each
 * after the one before it is written; a temporary file beside the target, renamed over it at
 * the end; an existing file keeps its mode, owner, symbolic link and hard links, as a plain
 * write kept them; Ctrl-C (the signal) stops it and leaves the target as it was; and the error
 * path: a missing directory, a directory as the target, permission, a full device, a file-size
 * limit reached part-way, each with the path, the cause and what to do, nothing left behind.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';

import { SaveInterrupted } from '../../ts/repl/errors.js';
import { problem, saveBlocks } from '../../ts/repl/file-save.js';

const root = path.resolve(__dirname, '../..');
const savePart = /\.heapql-part$/;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-save-'));
});

/** `n` blocks of `size` bytes, `<k>:` then dots and a newline; `made` gets each block's number as it is made. */
function* blocks(n: number, size = 1000, made: (k: number) => void = () => {}): Generator<string> {
  for (let k = 0; k < n; k++) {
    made(k);
    const head = `${k}:`;
    yield `${head}${'.'.repeat(size - head.length - 1)}\n`;
  }
}

const whole = (n: number, size = 1000) => [...blocks(n, size)].join('');

/** The temporary files left in `dir`. */
const leftovers = (at = dir) => readdirSync(at).filter((n) => savePart.test(n));

describe('saveBlocks', () => {
  it('makes each block once the one before it is in the file, in a temporary file renamed over the target at the end', async () => {
    const file = path.join(dir, 'out.csv');
    const seen: { k: number; temp: number; target: boolean }[] = [];
    await saveBlocks(file, blocks(5, 1000, (k) => {
      const temp = leftovers();
      expect(temp).toHaveLength(1);
      seen.push({ k, temp: statSync(path.join(dir, temp[0]!)).size, target: existsSync(file) });
    }));
    // Block k is made when the k before it (k × 1000 bytes) are written, and the target appears at the end.
    expect(seen).toEqual([0, 1, 2, 3, 4].map((k) => ({ k, temp: k * 1000, target: false })));
    expect(readFileSync(file, 'utf8')).toBe(whole(5));
    expect(leftovers()).toEqual([]);
  });

  it('writes text beyond ASCII as UTF-8, and an empty result as an empty file', async () => {
    const file = path.join(dir, 'wide.tsv');
    await saveBlocks(file, ['名前\t😀\n', 'e\u0301\u202e\n']);
    expect(readFileSync(file, 'utf8')).toBe('名前\t😀\ne\u0301\u202e\n');
    await saveBlocks(path.join(dir, 'empty.csv'), []);
    expect(readFileSync(path.join(dir, 'empty.csv'), 'utf8')).toBe('');
  });

  it('over an existing file: its mode stays, a symbolic link stays a link to it, a hard link stays shared', async () => {
    const file = path.join(dir, 'kept.csv');
    writeFileSync(file, 'old');
    chmodSync(file, 0o640);
    await saveBlocks(file, blocks(2));
    expect(readFileSync(file, 'utf8')).toBe(whole(2));
    expect(statSync(file).mode & 0o7777).toBe(0o640);

    mkdirSync(path.join(dir, 'real'));
    const real = path.join(dir, 'real', 'target.csv');
    writeFileSync(real, 'old');
    const link = path.join(dir, 'link.csv');
    symlinkSync(real, link);
    await saveBlocks(link, blocks(3));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(real);
    expect(readFileSync(real, 'utf8')).toBe(whole(3));
    expect(leftovers(path.join(dir, 'real'))).toEqual([]);

    const first = path.join(dir, 'first.csv');
    const second = path.join(dir, 'second.csv');
    writeFileSync(first, 'old');
    linkSync(first, second);
    await saveBlocks(first, blocks(2));
    expect(readFileSync(second, 'utf8')).toBe(whole(2));
    expect(statSync(first).ino).toBe(statSync(second).ino);
    expect(leftovers()).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)("over another user's file (as root): the file keeps its owner and group", async () => {
    const file = path.join(dir, 'theirs.csv');
    writeFileSync(file, 'old');
    chownSync(file, 65534, 65534);
    await saveBlocks(file, blocks(2));
    expect(readFileSync(file, 'utf8')).toBe(whole(2));
    expect([statSync(file).uid, statSync(file).gid]).toEqual([65534, 65534]);
  });

  it('a signal between blocks stops it: no block more is made, the target is not written (or is as it was), nothing left behind', async () => {
    for (const existing of [false, true]) {
      const file = path.join(dir, existing ? 'there.json' : 'new.json');
      if (existing) writeFileSync(file, 'old');
      const stop = new AbortController();
      const made: number[] = [];
      const err = await saveBlocks(file, blocks(10, 1000, (k) => {
        made.push(k);
        if (k === 2) stop.abort();
      }), stop.signal).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SaveInterrupted);
      expect((err as Error).message).toBe(existing ? `${file} is as it was` : `${file} was not written`);
      expect(made).toEqual([0, 1, 2]);
      expect(existsSync(file) ? readFileSync(file, 'utf8') : null).toBe(existing ? 'old' : null);
      expect(leftovers()).toEqual([]);
    }
  });

  it('a missing directory, a directory as the target, a path through a file: the path, the cause, what to do; nothing made', async () => {
    const missing = path.join(dir, 'no-such-dir', 'x.csv');
    await expect(saveBlocks(missing, blocks(2))).rejects.toThrow(
      `the directory ${path.join(dir, 'no-such-dir')} does not exist (ENOENT): create it, or choose another path`,
    );
    mkdirSync(path.join(dir, 'out.csv'));
    await expect(saveBlocks(path.join(dir, 'out.csv'), blocks(2))).rejects.toThrow(
      `${path.join(dir, 'out.csv')} is a directory (EISDIR): name a file, such as ${path.join(dir, 'out.csv', 'result.csv')}`,
    );
    writeFileSync(path.join(dir, 'plain'), 'x');
    await expect(saveBlocks(path.join(dir, 'plain', 'x.csv'), blocks(2))).rejects.toThrow(`${path.join(dir, 'plain')} is not a directory (ENOTDIR): check the path, or choose another`);
    expect(readdirSync(dir).sort()).toEqual(['out.csv', 'plain']);
    // `~user` is refused, as before.
    await expect(saveBlocks('~nobody/x.csv', blocks(1))).rejects.toThrow('only ~ and ~/ are expanded');
  });

  it('a full device (/dev/full, not a regular file: written in place) is a write error that says so and what to do', async () => {
    const err = await saveBlocks('/dev/full', blocks(3)).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(SaveInterrupted);
    expect((err as Error).message).toBe(
      'no space left on the device (ENOSPC): free some space, or choose a path on another device (what was written to /dev/full stays there (it is not a regular file))',
    );
  });

  it('names each cause with what to do, in the words of every writer of a named file (file-write-error.ts)', () => {
    const at = (code: string) => problem(Object.assign(new Error(`${code}: raw`), { code }), '~/out/x.csv');
    expect(at('EACCES')).toBe('permission denied (EACCES): choose a path in a directory you may write to, or change the permissions');
    expect(at('EROFS')).toBe('~/out is on a read-only file system (EROFS): choose a path on another file system');
    expect(at('EDQUOT')).toBe('the disk quota is used up (EDQUOT): free some space, or choose a path on another device');
    expect(at('ENAMETOOLONG')).toBe('the name is too long for the file system (ENAMETOOLONG): choose a shorter one');
    expect(at('EIO')).toBe('EIO: raw: check the path, or choose another');
  });
});

/**
 * Runs saveBlocks (the built module) in a child process: as user nobody when this runs as root
 * (whom no permission stops), and under `prlimit` when `fsize` is given (a file-size limit, a
 * disk that fills up part-way). Prints the error's message, or `saved`.
 */
function child(file: string, nBlocks: number, options: { fsize?: number; unprivileged?: boolean } = {}): string {
  const module = path.join(root, 'dist/repl/file-save.js');
  const script = `import { saveBlocks } from ${JSON.stringify(module)};
const blocks = function* () { for (let k = 0; k < ${nBlocks}; k++) yield String(k % 10).repeat(999) + '\\n'; };
saveBlocks(${JSON.stringify(file)}, blocks()).then(() => console.log('saved'), (e) => console.log(e.name + ': ' + e.message));`;
  const argv = [process.execPath, '--input-type=module', '-e', script];
  const command = options.fsize === undefined ? argv : ['prlimit', `--fsize=${options.fsize}`, ...argv];
  const asNobody = options.unprivileged && process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const r = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', cwd: root, ...asNobody });
  if (r.status !== 0 || r.stderr !== '') throw new Error(`the child failed: ${r.status} ${r.error?.message ?? ''} ${r.stderr}`);
  return r.stdout.trim();
}

describe('saveBlocks, errors of the file system in a child process', () => {
  it('a file-size limit reached part-way (EFBIG): says so and what to do; the temporary file is removed, the file there is as it was', () => {
    const file = path.join(dir, 'big.csv');
    writeFileSync(file, 'old');
    // 250 blocks of 1000 bytes; the limit stops the third block part-way.
    expect(child(file, 250, { fsize: 2500 })).toBe(
      `Error: the file grew past the largest this file system or the process's file size limit (ulimit -f) allows (EFBIG): choose a path on another file system, or raise the limit (${file} is as it was)`,
    );
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(leftovers()).toEqual([]);
    // Without the limit it is written whole.
    expect(child(file, 250)).toBe('saved');
    expect(statSync(file).size).toBe(250_000);
  });

  it('permission: a directory one may not write to is refused (EACCES); a file one may write in it is written in place, as before', () => {
    const locked = path.join(dir, 'locked');
    mkdirSync(locked);
    const writable = path.join(locked, 'open.csv');
    writeFileSync(writable, 'old');
    chmodSync(writable, 0o666);
    chmodSync(locked, 0o555);
    chmodSync(dir, 0o755);
    // The run's temporary directories may be closed to others: nobody may pass through them, no more.
    const opened: [string, number][] = [];
    for (let at = path.dirname(dir); at !== path.dirname(at); at = path.dirname(at)) {
      const mode = statSync(at).mode & 0o7777;
      if ((mode & 0o001) !== 0) continue;
      opened.push([at, mode]);
      chmodSync(at, mode | 0o001);
    }
    try {
      expect(child(path.join(locked, 'new.csv'), 3, { unprivileged: true })).toBe(
        'Error: permission denied (EACCES): choose a path in a directory you may write to, or change the permissions',
      );
      expect(readdirSync(locked)).toEqual(['open.csv']);
      expect(child(writable, 3, { unprivileged: true })).toBe('saved');
      expect(statSync(writable).size).toBe(3000);
      expect(statSync(writable).mode & 0o777).toBe(0o666);
    } finally {
      chmodSync(locked, 0o755);
      for (const [at, mode] of opened) chmodSync(at, mode);
    }
  });
});
