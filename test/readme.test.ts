/**
 * README.md against the CLI as built, where the two drift apart unnoticed: every option of every
 * command and verb (the command table `--help` and the completion scripts are made from) is
 * named in the README, every command's verbs are in its line of the "Command line" synopsis, and
 * the REPL session the README shows on the demo dump prints what it shows there (run through the
 * piped REPL, the same dispatcher without the prompt and banner; the `(N ms)` timing lines left
 * out, and the errors, which piped input sends to stderr, compared there).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { mainCommand, subCommands } from '../ts/cli/commands.js';
import { commandPaths } from '../ts/cli/completion.js';

const root = path.resolve(__dirname, '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const dir = mkdtempSync(path.join(tmpdir(), 'heapql-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The first fenced block after `marker` (which must be in the README). */
function blockAfter(marker: string): string {
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no ${JSON.stringify(marker)}`);
  const open = readme.indexOf('```text\n', at);
  const start = open + '```text\n'.length;
  return readme.slice(start, readme.indexOf('\n```\n', start));
}

describe('README.md documents the command table', async () => {
  const paths = await commandPaths(await mainCommand(), subCommands);
  const synopsis = blockAfter('## Command line');

  it('reads the whole table (every command, the verbs of sched, device and cache)', () => {
    const names = paths.map((p) => p.path);
    for (const p of ['heapql', 'heapql/query', 'heapql/mcp', 'heapql/cache/list', 'heapql/sched/plan', 'heapql/device/text']) {
      expect(names).toContain(p);
    }
    expect(paths.find((p) => p.path === 'heapql/query')!.options.map((o) => o.flag)).toContain('--list-named');
  });

  it('names every option of every command and verb', () => {
    const missing: string[] = [];
    for (const p of paths) {
      for (const o of p.options) {
        const named = new RegExp(`${o.flag.replace(/[-]/g, '\\-')}(?![a-z-])`).test(readme);
        if (!named) missing.push(`${p.path.replaceAll('/', ' ')} ${o.flag}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('lists every command, with its verbs, in the "Command line" synopsis', () => {
    const lines = synopsis.split('\n');
    const missing: string[] = [];
    for (const p of paths.filter((p) => p.path.split('/').length === 2)) {
      const name = p.path.split('/')[1]!;
      const own = lines.filter((l) => l.startsWith(`heapql ${name} `));
      if (own.length === 0) {
        missing.push(`heapql ${name}`);
        continue;
      }
      const listed = new Set(own.flatMap((l) => l.slice(`heapql ${name} `.length).split(' ')[0]!.split('|')));
      for (const w of p.words) if (!listed.has(w.name)) missing.push(`heapql ${name} ${w.name}`);
    }
    expect(missing).toEqual([]);
  });
});

describe("README.md's REPL session on the demo dump", () => {
  const transcript = blockAfter('A session on the demo dump (`heapql query fixtures/demo/demo.hprof --repl`):').split('\n');
  const input: string[] = [];
  const output: string[] = [];
  const errors: string[] = [];
  let inError = false;
  for (const line of transcript.slice(3)) {
    // The first three lines are the terminal's banner, which piped input does not print.
    if (line.startsWith('oql> ') || line.startsWith('...> ')) {
      input.push(line.slice(5));
      inError = false;
    } else if (line.startsWith('error: ') || (inError && line.startsWith('  '))) {
      inError = true;
      errors.push(line);
    } else if (!/^\([\d.]+ ms\)$/.test(line)) {
      output.push(line);
    }
  }

  it('prints what the README shows', () => {
    expect(transcript[0]).toBe('heapql 0.1.0 — fixtures/demo/demo.hprof');
    expect(input.length).toBeGreaterThan(15);
    expect(errors.length).toBeGreaterThan(2);
    const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', demo, '--repl'], {
      cwd: dir,
      input: `${input.join('\n')}\n`,
      encoding: 'utf8',
      // A home of its own: no history written, no collections.toml of the user's read.
      env: { ...process.env, HOME: dir, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir, HEAPQL_DEBUG: '', NO_COLOR: '1' },
    });
    expect(r.stdout.replace(/^\([\d.]+ ms\)\n/gm, '')).toBe(`${output.join('\n')}\n`);
    // Piped input names the input's line where the terminal's REPL names the query's (query:1:10).
    const stderr = r.stderr
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('warning: cache:'))
      .map((l) => l.replace(/^error: stdin:\d+(:\d+)?: /, (_, col) => (col ? `error: query:1${col}: ` : 'error: ')));
    expect(stderr).toEqual(errors);
    expect(existsSync(path.join(dir, 'sessions.csv'))).toBe(true);
    expect(r.status).toBe(1);
  });
});
