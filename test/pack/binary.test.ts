/**
 * The single-file binary: `npm run build:binary` once, the executable copied alone into an empty
 * directory and run with a PATH that leads nowhere (no node, no cargo): --version, --help, the
 * demo report, a query, and the server (its catalog and the browser REPL's embedded script).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { subCommands } from '../../ts/cli/commands.js';
import { heapql, root, run } from '../tools/run.js';

const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk25-coops.hprof');
const version = (await import('../../package.json', { with: { type: 'json' } })).default.version;
let tmp: string;
let alone: string;
let exe: string;
const env = { PATH: '/nonexistent', HOME: process.env.HOME, NO_COLOR: '1' };
const binary = (args: string[]) => run(exe, args, { cwd: alone, env });

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-binary-'));
  const built = path.join(tmp, 'build', `heapql-${process.platform}-${process.arch}`);
  const r = await run(process.execPath, [path.join(root, 'pack/binary.mjs'), built]);
  expect(r.code, r.stderr).toBe(0);
  alone = path.join(tmp, 'alone');
  mkdirSync(alone);
  exe = path.join(alone, path.basename(built));
  copyFileSync(built, exe);
  rmSync(path.join(tmp, 'build'), { recursive: true });
  console.log(`single-file binary: ${(statSync(exe).size / 2 ** 20).toFixed(1)} MiB`);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the single-file binary, alone in a directory', () => {
  it('is the only file there, and names itself a single executable with the addon embedded', async () => {
    expect(readdirSync(alone)).toEqual([path.basename(exe)]);
    const r = await binary(['--version']);
    expect(r.stderr).toBe('');
    const [first, addon, node] = r.stdout.split('\n');
    expect(first).toBe(`heapql ${version}`);
    expect(addon).toMatch(/^addon \S+ for \S+ \(release build, native API \d+\), embedded in this executable$/);
    expect(node).toBe(`node ${process.version} ${process.platform}-${process.arch} (single executable)`);
  });

  it('--help lists every command of the table', async () => {
    const r = await binary(['--help']);
    expect(r.code).toBe(0);
    for (const name of Object.keys(subCommands)) expect(r.stdout).toContain(name);
  });

  it('writes the demo report and leaves no temporary files behind', async () => {
    const before = ownTempDirs();
    const r = await binary(['demo']);
    expect(r.code).toBe(0);
    for (const section of ['# Heap report: demo.hprof', '## Leak Suspects', '## Top Consumers']) expect(r.stdout).toContain(section);
    expect(ownTempDirs()).toEqual(before);
  });

  it('answers a query as the checkout does', async () => {
    const query = ['query', known, '--format', 'json', '--query', 'SELECT c.id AS id, c.next.id AS next FROM KnownHeap$CycleNode c ORDER BY id'];
    const [mine, theirs] = [await binary(query), await heapql(query)];
    expect(mine.code).toBe(0);
    expect(JSON.parse(mine.stdout)[0].rows).toEqual([[1, 2], [2, 3], [3, 1]]);
    expect(JSON.parse(mine.stdout)[0].rows).toEqual(JSON.parse(theirs.stdout)[0].rows);
  });

  it('stamps its cache files with a hash of its own build (it deletes the extracted addon it hashes)', async () => {
    const cacheDir = path.join(tmp, 'cache');
    const r = await binary(['query', known, '--cache-dir', cacheDir, '--query', 'SELECT COUNT(*) FROM java.lang.String']);
    expect(r.code, r.stderr).toBe(0);
    const [entry] = readdirSync(cacheDir);
    const head = readFileSync(path.join(cacheDir, entry!, 'index.hqc')).subarray(0, 200).toString('latin1');
    expect(head).toMatch(new RegExp(`${version.replace(/\./g, '\\.')}\\+heap\\d+\\+graph\\d+\\+[0-9a-f]{16}`));
    expect(head).not.toContain('unknown-build');
  });

  it('serves the server\'s catalog and the browser REPL\'s script', async () => {
    const port = await freePort();
    const child = spawn(exe, ['server', known, '--port', String(port)], { cwd: alone, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      // The banner names the URL once the server listens.
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes(`127.0.0.1:${port}`)) resolve();
        });
        child.on('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${out}`)));
      });
      const reply = await fetch(`http://127.0.0.1:${port}/version`);
      expect(reply.status).toBe(200);
      expect(((await reply.json()) as { version: string }).version).toBe(version);
      // The browser REPL's script travels as an asset of the binary.
      const script = await fetch(`http://127.0.0.1:${port}/repl.js`);
      expect(script.status).toBe(200);
      expect((await script.text()).length).toBeGreaterThan(1000);
    } finally {
      child.kill();
    }
  });
});

/** Our private directories (heapql-XXXXXX) in the temporary directory. */
function ownTempDirs(): string[] {
  return readdirSync(tmpdir()).filter((n) => /^heapql-[A-Za-z0-9]{6}$/.test(n)).sort();
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
