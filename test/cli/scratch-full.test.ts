/**
 * A scratch directory that fills up part way through the analysis: the arrays that do not fit
 * stay in memory, the answers are those of a run without scratch files, and a warning says so
 * (before, only a directory full from the start was warned of: one with room for the index and
 * a few arrays went on in memory without a word). Needs root to mount a small tmpfs; fails,
 * not skips, where it cannot.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { heapql, root } from '../tools/run.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');
const QUERY = 'SELECT classof(x) AS class, COUNT(*) AS n, SUM(@retainedHeapSize) AS retained FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY retained DESC, class LIMIT 10';
const WARNING = /^warning: could not make every scratch file of the analysis in (\S+) \(no space left, or not writable\); the arrays that did not fit are kept in memory$/m;

const mounts: string[] = [];

/** A tmpfs of `size` on a fresh directory (needs root: fails, not skips, without). */
function tmpfs(size: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'heapql-scratch-full-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  expect(mounted.status, `mounting a ${size} tmpfs on ${dir} (needs root): ${mounted.stderr}`).toBe(0);
  mounts.push(dir);
  return dir;
}

let mnt: string;
let tiny: string;

beforeAll(() => {
  // Room for the object index of the demo dump (about 60 000 objects) and little more: the
  // analysis needs about 56 bytes per object at its peak.
  mnt = tmpfs('300k');
  // Not even room for the object index.
  tiny = tmpfs('64k');
});

afterAll(() => {
  for (const dir of mounts) {
    spawnSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('a scratch directory that fills up during the analysis', () => {
  it('keeps what does not fit in memory, answers the same, and says so once', async () => {
    const args = ['analyze', demo, '--no-cache', '--query', QUERY, '--format', 'json'];
    const [full, plain] = [await heapql([...args, '--scratch-dir', mnt]), await heapql(args)];
    expect(plain.code, plain.stderr).toBe(0);
    expect(full.code, full.stderr).toBe(0);
    const rows = (out: string) => JSON.parse(out).map((r: { rows: unknown }) => r.rows);
    expect(rows(full.stdout)).toEqual(rows(plain.stdout));
    // The index fitted: no warning at the open; the analysis's.
    expect(full.stderr).not.toMatch(/could not make scratch files in/);
    expect(full.stderr.match(new RegExp(WARNING.source, 'gm'))?.length, full.stderr).toBe(1);
    expect(WARNING.exec(full.stderr)?.[1]).toBe(mnt);
    expect(plain.stderr).not.toMatch(/scratch/);
    // Unlinked files: nothing is left on the tmpfs.
    expect(readdirSync(mnt)).toEqual([]);
  });

  it('full from the start: the open says so, and the analysis says nothing more', async () => {
    const args = ['analyze', demo, '--no-cache', '--query', QUERY, '--format', 'json'];
    const [full, plain] = [await heapql([...args, '--scratch-dir', tiny]), await heapql(args)];
    expect(full.code, full.stderr).toBe(0);
    const rows = (out: string) => JSON.parse(out).map((r: { rows: unknown }) => r.rows);
    expect(rows(full.stdout)).toEqual(rows(plain.stdout));
    expect(full.stderr).toBe(`warning: ${demo}: could not make scratch files in ${tiny} (no space left, or not writable); the analysis keeps its arrays in memory\n`);
  });
});
