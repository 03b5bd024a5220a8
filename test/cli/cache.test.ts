/**
 * The index cache end to end: the CLI in child processes and the library, on fixture dumps.
 * Hits and misses, each reason to rebuild (changed dump, damaged or truncated files, a killed
 * writer), two processes at once, a full disk, an unwritable directory, the size cap,
 * `--no-cache`, and `heapql cache list|clear`. A cached answer must equal the uncached one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { openHeap } from '../../ts/index.js';
import { heapql as run } from '../tools/run.js';

const root = path.resolve(__dirname, '../..');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const other = path.join(root, 'fixtures/dumps/KnownHeap-jdk25-coops.hprof');

const RETAINED = 'SELECT classof(x) AS class, COUNT(*) AS n, SUM(@retainedHeapSize) AS retained FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY retained DESC, class LIMIT 15';
const STRINGS = 'SELECT COUNT(*) AS n, SUM(s.@usedHeapSize) AS bytes FROM java.lang.String s';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[]): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [path.join(root, 'bin/heapql.js'), ...args], { cwd: root, env: { ...process.env, HEAPQL_DEBUG: '', NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

const heapql = (args: string[]) => start(args).done;

/** The JSON output's results without their timings. */
function answer(stdout: string): unknown {
  return JSON.parse(stdout, (k, v) => (k === 'elapsedMs' ? undefined : v));
}

let tmp: string;
/** Answers without any cache: what every cached run must print. */
let expectedAnalyze: string;
let expectedQuery: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-cache-test-'));
  const a = await heapql(['analyze', known, '--query', RETAINED, '--format', 'json', '--no-cache']);
  const q = await heapql(['query', known, '--query', STRINGS, '--format', 'json', '--no-cache']);
  expect(a.code).toBe(0);
  expect(q.code).toBe(0);
  expectedAnalyze = a.stdout;
  expectedQuery = q.stdout;
  expect(JSON.parse(expectedAnalyze).rows?.length ?? JSON.parse(expectedAnalyze)[0]?.rows?.length).toBeGreaterThan(0);
});

let dirs = 0;
function freshDir(): string {
  return path.join(tmp, `cache-${++dirs}`);
}

const analyze = (dump: string, dir: string, ...more: string[]) => heapql(['analyze', dump, '--query', RETAINED, '--format', 'json', '--cache-dir', dir, ...more]);

function cacheFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

function cacheWarnings(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('warning: cache'));
}

async function statusAfterOpen(dump: string, dir: string, analyzeToo: boolean) {
  const heap = await openHeap(dump, { cacheDir: dir });
  try {
    if (analyzeToo) await heap.analyze();
    return heap.cacheStatus();
  } finally {
    heap.close();
  }
}

const uses = (s: { uses: { step: string; used: string }[] }) => Object.fromEntries(s.uses.map((u) => [u.step, u.used]));

describe('hits and misses', () => {
  it('writes on the first run, maps on the next, with the same answers', async () => {
    const dir = freshDir();
    const cold = await analyze(known, dir);
    expect(cold.stderr).toBe('');
    expect(answer(cold.stdout)).toEqual(answer(expectedAnalyze));
    expect(cacheFiles(dir).map((f) => path.basename(f)).filter((f) => f.endsWith('.hqc')).sort()).toEqual(
      expect.arrayContaining(['index.hqc', expect.stringMatching(/^analysis(\.[0-9a-f]+)?\.hqc$/)]),
    );
    const warm = await analyze(known, dir);
    expect(warm.stderr).toBe('');
    expect(answer(warm.stdout)).toEqual(answer(expectedAnalyze));
    expect(uses(await statusAfterOpen(known, dir, true))).toEqual({ index: 'hit', analysis: 'hit' });
    const q = await heapql(['query', known, '--query', STRINGS, '--format', 'json', '--cache-dir', dir]);
    expect(answer(q.stdout)).toEqual(answer(expectedQuery));
  });

  it('keeps the options that change the result apart: dump number and --reachable-only', async () => {
    const dir = freshDir();
    await analyze(known, dir);
    const heap = await openHeap(known, { cacheDir: dir });
    await heap.analyze({ reachableOnly: true });
    expect(uses(heap.cacheStatus())).toEqual({ index: 'hit', analysis: 'written' });
    const plain = await heap.query(RETAINED);
    heap.close();
    const fresh = await openHeap(known);
    await fresh.analyze({ reachableOnly: true });
    expect(plain.rows).toEqual((await fresh.query(RETAINED)).rows);
    fresh.close();
    const second = await heapql(['analyze', known, '--query', RETAINED, '--dump', '2', '--cache-dir', dir]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('no heap dump number 2');
  });

  it('serves the report data from the cache, identical but for its time stamp', async () => {
    const dir = freshDir();
    const out = (n: number) => path.join(tmp, `report-${dirs}-${n}.json`);
    const runs = [];
    for (const [n, extra] of [[0, ['--no-cache']], [1, []], [2, []]] as const) {
      // --no-cache goes alone: beside --cache-dir it is refused.
      const r = await heapql([known, out(n), ...(extra.length > 0 ? extra : ['--cache-dir', dir])]);
      expect(r.code).toBe(0);
      expect(cacheWarnings(r.stderr)).toEqual([]);
      runs.push(JSON.parse(readFileSync(out(n), 'utf8')));
    }
    for (const r of runs) delete r.generatedAt;
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
    expect(cacheFiles(dir).some((f) => path.basename(f).startsWith('report.'))).toBe(true);
  });
});

describe('never a wrong answer', () => {
  it('rebuilds a changed dump with one warning line', async () => {
    const dir = freshDir();
    const dump = path.join(tmp, `changing-${dirs}.hprof`);
    copyFileSync(other, dump);
    expect((await analyze(dump, dir)).code).toBe(0);
    copyFileSync(known, dump);
    const r = await analyze(dump, dir);
    expect(answer(r.stdout)).toEqual(answer(expectedAnalyze));
    const w = cacheWarnings(r.stderr);
    expect(w.length).toBe(2);
    expect(w.every((l) => l.includes('the dump changed'))).toBe(true);
    expect(uses(await statusAfterOpen(dump, dir, true))).toEqual({ index: 'hit', analysis: 'hit' });
  });

  it('rebuilds a dump rewritten in place with its modification time put back (its ctime moved), and answers from the new bytes', async () => {
    const dir = freshDir();
    const dump = path.join(tmp, `rewritten-${dirs}.hprof`);
    copyFileSync(known, dump);
    utimesSync(dump, 1_700_000_000, 1_700_000_000); // a whole second: put back exactly below
    const DUPLICATES = "SELECT toString(s) AS text, COUNT(*) AS n FROM java.lang.String s WHERE toString(s) LIKE \"^[dD]uplicate-me$\" GROUP BY toString(s) ORDER BY text";
    const count = async () => {
      const heap = await openHeap(dump, { cacheDir: dir });
      try {
        return { rows: (await heap.query(DUPLICATES)).rows, status: heap.cacheStatus() };
      } finally {
        heap.close();
      }
    };
    const first = await count();
    expect(first.rows).toEqual([['duplicate-me', 100]]);
    expect(uses(first.status)).toEqual({ index: 'written' });
    const second = await count();
    expect(uses(second.status)).toEqual({ index: 'hit' }); // untouched: a hit
    expect(second.rows).toEqual(first.rows);

    // One letter of one of those strings, between the blocks the identity samples (the first
    // 64 KiB, 14 evenly spaced 64 KiB blocks, the last 64 KiB), as `touch -r` or `rsync -t` leave it.
    const bytes = readFileSync(dump);
    const at = bytes.indexOf('duplicate-me');
    const span = bytes.length - 65536;
    const samples = [0, ...Array.from({ length: 14 }, (_, i) => Math.floor(span / 15) * (i + 1)), span];
    expect(samples.some((s) => at + 12 > s && at < s + 65536)).toBe(false);
    const before = statSync(dump, { bigint: true });
    await new Promise((r) => setTimeout(r, 30)); // the kernel's ctime clock moves in ticks
    const fd = openSync(dump, 'r+');
    writeSync(fd, Buffer.from('D'), 0, 1, at);
    closeSync(fd);
    utimesSync(dump, 1_700_000_000, 1_700_000_000);
    const after = statSync(dump, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    expect(after.ctimeNs).not.toBe(before.ctimeNs);

    // (A string's text is read from the dump itself, so these rows would be right even from the
    // stale index; what the index holds, a class or an object's place, would not: it is rebuilt.)
    const third = await count();
    expect(third.rows).toEqual([['Duplicate-me', 1], ['duplicate-me', 99]]);
    expect(uses(third.status)).toEqual({ index: 'written' });
    expect(third.status.warnings).toEqual([expect.stringMatching(/the dump changed since it was cached \(its status-change time, ctime, differs/)]);
  });

  for (const damage of ['flip bytes in the middle of', 'truncate'] as const) {
    it(`detects cache files that ${damage === 'truncate' ? 'were cut short' : 'have flipped bytes in the middle'}`, async () => {
      const dir = freshDir();
      await analyze(known, dir);
      for (const f of cacheFiles(dir).filter((f) => f.endsWith('.hqc'))) {
        const bytes = readFileSync(f);
        if (damage === 'truncate') writeFileSync(f, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
        else {
          const mid = Math.floor(bytes.length / 2);
          for (let i = 0; i < 3; i++) bytes[mid + i * 7] ^= 0x5a;
          writeFileSync(f, bytes);
        }
      }
      const r = await analyze(known, dir);
      expect(r.code).toBe(0);
      expect(answer(r.stdout)).toEqual(answer(expectedAnalyze));
      const w = cacheWarnings(r.stderr);
      expect(w.length).toBe(2);
      expect(w.join('\n')).toMatch(damage === 'truncate' ? /cut short/ : /damaged/);
      const again = await analyze(known, dir);
      expect(again.stderr).toBe('');
    });
  }

  it('survives a writer killed at any moment', async () => {
    const dir = freshDir();
    for (const delayMs of [150, 350, 600, 900]) {
      const run = start(['analyze', known, '--query', RETAINED, '--format', 'json', '--cache-dir', dir]);
      await new Promise((r) => setTimeout(r, delayMs));
      run.child.kill('SIGKILL');
      await run.done;
      const next = await analyze(known, dir);
      expect(next.code).toBe(0);
      expect(answer(next.stdout)).toEqual(answer(expectedAnalyze));
      expect(cacheWarnings(next.stderr).every((l) => /interrupted|rebuilding/.test(l))).toBe(true);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports the leftovers of a killed writer once', async () => {
    const dir = freshDir();
    await heapql(['query', known, '--query', STRINGS, '--cache-dir', dir]);
    const entry = path.dirname(cacheFiles(dir).find((f) => f.endsWith('index.hqc'))!);
    rmSync(path.join(entry, 'index.hqc'));
    writeFileSync(path.join(entry, 'index.hqc.tmp.424242'), Buffer.alloc(50_000, 1));
    const r = await heapql(['query', known, '--query', STRINGS, '--format', 'json', '--cache-dir', dir]);
    expect(answer(r.stdout)).toEqual(answer(expectedQuery));
    expect(cacheWarnings(r.stderr)).toEqual([expect.stringContaining('interrupted')]);
    expect(existsSync(path.join(entry, 'index.hqc.tmp.424242'))).toBe(false);
  });

  it('lets two processes on one dump at once both answer right, and leaves one good entry', async () => {
    const dir = freshDir();
    const [a, b] = await Promise.all([analyze(known, dir), analyze(known, dir)]);
    for (const r of [a, b]) {
      expect(r.code).toBe(0);
      expect(answer(r.stdout)).toEqual(answer(expectedAnalyze));
      expect(cacheWarnings(r.stderr)).toEqual([]);
    }
    expect(cacheFiles(dir).filter((f) => f.includes('.tmp.'))).toEqual([]);
    expect(uses(await statusAfterOpen(known, dir, true))).toEqual({ index: 'hit', analysis: 'hit' });
  });
});

describe('no cache, no room, no permission', () => {
  it('--no-cache neither reads nor writes', async () => {
    const dir = freshDir();
    // The directory comes from HEAPQL_CACHE_DIR: --cache-dir beside --no-cache is refused.
    const noCache = () => run(['analyze', known, '--query', RETAINED, '--format', 'json', '--no-cache'], { env: { HEAPQL_CACHE_DIR: dir } });
    const r = await noCache();
    expect(answer(r.stdout)).toEqual(answer(expectedAnalyze));
    expect(existsSync(dir)).toBe(false);
    await analyze(known, dir);
    for (const f of cacheFiles(dir).filter((f) => f.endsWith('.hqc'))) writeFileSync(f, 'garbage');
    const n = await noCache();
    expect(n.stderr).toBe('');
    expect(answer(n.stdout)).toEqual(answer(expectedAnalyze));
  });

  it('an unwritable cache directory is one warning, and the run completes', async () => {
    const blocker = path.join(tmp, `a-file-${dirs}`);
    writeFileSync(blocker, 'not a directory');
    const r = await analyze(known, path.join(blocker, 'cache'));
    expect(r.code).toBe(0);
    expect(answer(r.stdout)).toEqual(answer(expectedAnalyze));
    const w = cacheWarnings(r.stderr);
    expect(w.length).toBeGreaterThanOrEqual(1);
    expect(w.every((l) => l.includes('continues without caching'))).toBe(true);
  });

  it('a full disk is a warning, the run completes and leaves nothing half-written', async () => {
    const mnt = mkdtempSync(path.join(tmpdir(), 'heapql-tmpfs-'));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]).status === 0;
    if (!mounted) {
      console.log('skipped: cannot mount a 1 MiB tmpfs here (needs root and mount)');
      return;
    }
    try {
      const r = await analyze(known, path.join(mnt, 'cache'));
      expect(r.code).toBe(0);
      expect(answer(r.stdout)).toEqual(answer(expectedAnalyze));
      const w = cacheWarnings(r.stderr);
      expect(w.length).toBeGreaterThanOrEqual(1);
      expect(w.join('\n')).toContain('No space left');
      expect(cacheFiles(path.join(mnt, 'cache')).filter((f) => f.includes('.tmp.'))).toEqual([]);
    } finally {
      spawnSync('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });

  it('--cache-max: an entry over the cap is not kept', async () => {
    const dir = freshDir();
    const r = await analyze(known, dir, '--cache-max', '100K');
    expect(answer(r.stdout)).toEqual(answer(expectedAnalyze));
    expect(cacheWarnings(r.stderr).join('\n')).toContain('cap');
    expect(cacheFiles(dir).filter((f) => f.endsWith('.hqc'))).toEqual([]);
    const bad = await analyze(known, dir, '--cache-max', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--cache-max lots');
    // Sizes the library would refuse in its own terms (`cacheMax`, exit 1) are the CLI's usage errors.
    for (const [size, said] of [['0', 'give a size above 0'], ['99999999999999999999T', 'too large']]) {
      const r = await analyze(known, dir, '--cache-max', size!);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--cache-max ${size}: ${said}`);
      expect(r.stderr).not.toContain('cacheMax');
    }
  });
});

describe('every dump command takes the cache options', () => {
  // Each command once with --cache-dir (the entry must land there, not in HEAPQL_CACHE_DIR)
  // and once with --no-cache (nothing written anywhere). The --repl runs read an empty stdin.
  const commands: [string, (dump: string) => string[]][] = [
    ['query --repl', (dump) => ['query', dump, '--repl']],
    ['analyze --repl', (dump) => ['analyze', dump, '--repl']],
    ['waste', (dump) => ['waste', dump, path.join(tmp, `waste-${dirs}.json`)]],
  ];
  for (const [name, args] of commands) {
    it(`${name}: --cache-dir and --no-cache`, async () => {
      const [given, env] = [freshDir(), freshDir()];
      const r = await run(args(known).concat('--cache-dir', given), { env: { HEAPQL_CACHE_DIR: env } });
      expect(r.code, r.stderr).toBe(0);
      expect(cacheFiles(given).length).toBeGreaterThan(0);
      expect(cacheFiles(env)).toEqual([]);
      const n = await run(args(known).concat('--no-cache'), { env: { HEAPQL_CACHE_DIR: env } });
      expect(n.code, n.stderr).toBe(0);
      expect(cacheFiles(env)).toEqual([]);
    });
  }
});

describe('heapql cache list and clear', () => {
  it('lists dumps with size and age, clears one dump or all', async () => {
    const dir = freshDir();
    const copy = path.join(tmp, `second-${dirs}.hprof`);
    copyFileSync(other, copy);
    await analyze(known, dir);
    await heapql(['query', copy, '--query', STRINGS, '--cache-dir', dir]);
    const list = await heapql(['cache', 'list', '--cache-dir', dir]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`cache: ${dir}`);
    expect(list.stdout).toContain(known);
    expect(list.stdout).toContain(copy);
    expect(list.stdout).toMatch(/MiB {2}used \d+ s ago {2}\[analysis, index\]/);
    const json = JSON.parse((await heapql(['cache', 'list', '--cache-dir', dir, '--json'])).stdout);
    expect(json.entries.length).toBe(2);
    const total = json.entries.reduce((s: number, e: { bytes: number }) => s + e.bytes, 0);
    expect(total).toBe(cacheFiles(dir).reduce((s, f) => s + statSync(f).size, 0));
    const one = await heapql(['cache', 'clear', copy, '--cache-dir', dir]);
    expect(one.stdout).toMatch(/^removed 1 cache entry of /);
    expect((await heapql(['cache', 'list', '--cache-dir', dir])).stdout).not.toContain(copy);
    const all = await heapql(['cache', 'clear', '--cache-dir', dir]);
    expect(all.stdout).toMatch(/^removed 1 cache entry \(/);
    expect((await heapql(['cache', 'list', '--cache-dir', dir])).stdout).toContain('(empty)');
  });

  it('lists the leftovers of writers with their state; clear removes those whose writer is gone, never a live one\'s', async () => {
    const dir = freshDir();
    await heapql(['query', known, '--query', STRINGS, '--cache-dir', dir]);
    const entry = path.dirname(cacheFiles(dir).find((f) => f.endsWith('index.hqc'))!);
    // A process that has ended and been reaped: its pid is no process now.
    const ended = spawnSync(process.execPath, ['-e', '0']);
    expect(ended.status).toBe(0);
    const stale = path.join(entry, `index.hqc.tmp.${ended.pid}`);
    const live = path.join(entry, `analysis.0123456789abcdef.hqc.tmp.${process.pid}`);
    writeFileSync(stale, Buffer.alloc(50_000, 1));
    writeFileSync(live, Buffer.alloc(30_000, 2));

    const list = await heapql(['cache', 'list', '--cache-dir', dir]);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.split('\n');
    expect(lines).toContain(`  ${stale}  48.8 KiB  (left unfinished: process ${ended.pid} is gone)`);
    expect(lines).toContain(`  ${live}  29.3 KiB  (being written: process ${process.pid} is running)`);
    expect(list.stdout).toMatch(/1 dump\(s\), [\d.]+ MiB, of which 2 unfinished file\(s\), 78\.1 KiB\n\(heapql cache clear removes the 1 whose writer is gone\)\n$/);
    const json = JSON.parse((await heapql(['cache', 'list', '--cache-dir', dir, '--json'])).stdout);
    expect(json.entries[0].leftovers).toEqual([
      { path: live, bytes: 30_000, pid: process.pid, writerAlive: true },
      { path: stale, bytes: 50_000, pid: ended.pid, writerAlive: false },
    ]);
    expect(json.entries[0].bytes).toBe(cacheFiles(dir).reduce((s, f) => s + statSync(f).size, 0));

    const clear = await heapql(['cache', 'clear', '--cache-dir', dir]);
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stdout.split('\n')).toEqual([
      expect.stringMatching(/^removed 1 cache entry \([\d.]+ MiB\)$/),
      `  removed ${stale}  48.8 KiB  (left unfinished: process ${ended.pid} is gone)`,
      `  kept ${live}  29.3 KiB  (being written: process ${process.pid} is running)`,
      '',
    ]);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(path.join(entry, 'index.hqc'))).toBe(false);
    expect(readFileSync(live)).toEqual(Buffer.alloc(30_000, 2));
  });

  it('lists and clears an entry whose writer died before its meta.json was in place', async () => {
    const dir = freshDir();
    await heapql(['query', known, '--query', STRINGS, '--cache-dir', dir]);
    const entry = path.dirname(cacheFiles(dir).find((f) => f.endsWith('index.hqc'))!);
    expect((await heapql(['cache', 'clear', '--cache-dir', dir])).code).toBe(0);
    expect(existsSync(entry)).toBe(false);
    // What a writer killed between writing its metadata and renaming it into place leaves: the
    // lock of the file it was to write and the metadata's temporary file (here cut short).
    const ended = spawnSync(process.execPath, ['-e', '0']);
    expect(ended.status).toBe(0);
    const metaTmp = path.join(entry, `meta.json.tmp.${ended.pid}`);
    mkdirSync(entry, { recursive: true });
    writeFileSync(path.join(entry, 'index.hqc.lock'), '');
    writeFileSync(metaTmp, '{"dump":');

    const list = await heapql(['cache', 'list', '--cache-dir', dir]);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.split('\n');
    expect(lines[1]).toMatch(new RegExp(`^${entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(unfinished: no dump named; its writer died before writing meta\\.json\\)  8 B  used \\d+ s ago  \\[\\]$`));
    expect(lines).toContain(`  ${metaTmp}  8 B  (left unfinished: process ${ended.pid} is gone)`);
    const json = JSON.parse((await heapql(['cache', 'list', '--cache-dir', dir, '--json'])).stdout);
    expect(json.entries).toEqual([
      {
        dir: entry,
        dump: null,
        dumpNumber: null,
        dumpSize: null,
        bytes: 8,
        lastUsedMs: expect.any(Number),
        files: [],
        leftovers: [{ path: metaTmp, bytes: 8, pid: ended.pid, writerAlive: false }],
      },
    ]);

    const clear = await heapql(['cache', 'clear', '--cache-dir', dir]);
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stdout.split('\n')).toEqual(['removed 1 cache entry (8 B)', `  removed ${metaTmp}  8 B  (left unfinished: process ${ended.pid} is gone)`, '']);
    expect(existsSync(entry)).toBe(false);
    expect((await heapql(['cache', 'list', '--cache-dir', dir])).stdout).toContain('(empty)');
  });

  it('lists and clears an entry whose meta.json is lost and whose file is cut short', async () => {
    const dir = freshDir();
    await heapql(['query', known, '--query', STRINGS, '--cache-dir', dir]);
    const index = cacheFiles(dir).find((f) => f.endsWith('index.hqc'))!;
    const entry = path.dirname(index);
    rmSync(path.join(entry, 'meta.json'));
    writeFileSync(index, readFileSync(index).subarray(0, 100));

    const list = await heapql(['cache', 'list', '--cache-dir', dir]);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.split('\n');
    expect(lines[1]).toMatch(
      new RegExp(`^${entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(damaged: no dump named; its meta\\.json is lost and its files' headers are damaged\\)  100 B  used \\d+ s ago  \\[index\\]$`),
    );
    const clear = await heapql(['cache', 'clear', '--cache-dir', dir]);
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stdout.split('\n')[0]).toBe('removed 1 cache entry (100 B)');
    expect(existsSync(entry)).toBe(false);
  });

  it('refuses a cache directory that is a file rather than saying it is empty; a missing one is empty', async () => {
    const file = path.join(tmp, 'not-a-directory');
    writeFileSync(file, 'x');
    for (const verb of ['list', 'clear']) {
      const r = await heapql(['cache', verb, '--cache-dir', file]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`error: cannot read the cache directory ${file}: it is a file, not a directory (give --cache-dir a directory)`);
    }
    const missing = await heapql(['cache', 'list', '--cache-dir', freshDir()]);
    expect(missing.code, missing.stderr).toBe(0);
    expect(missing.stdout).toContain('(empty)');
  });

  it('uses HEAPQL_CACHE_DIR when no directory is given', async () => {
    const list = await heapql(['cache', 'list']);
    expect(list.stdout.split('\n')[0]).toBe(`cache: ${process.env.HEAPQL_CACHE_DIR}`);
  });
});
