/**
 * Names looked up in a table are the table's own: `constructor` or `toString` (an object's
 * properties, not a verb or a format) is refused like any unknown name. citty ran Object's
 * `constructor` as a verb (`heapql cache constructor` printed nothing, exit 0), and the report's
 * `--format constructor` failed inside the writer (exit 1).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { heapql, root } from '../tools/run.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');

describe('a verb that is an object property', () => {
  it.each([
    ['cache', 'list, clear'],
    ['sched', 'status, stop, resume, plan, plans, help'],
  ])('heapql %s constructor is an unknown command', async (command, verbs) => {
    for (const word of ['constructor', 'toString']) {
      const r = await heapql([command, word]);
      expect(r.stderr).toBe(`error: unknown command '${word}' for heapql ${command}; commands: ${verbs}; see heapql ${command} --help\n`);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    }
  });

  it('device constructor too', async () => {
    const r = await heapql(['device', 'constructor']);
    expect(r.stderr).toMatch(/^error: unknown command 'constructor' for heapql device; commands: status, /);
    expect(r.code).toBe(2);
  });
});

describe('a report format that is an object property', () => {
  it.each([
    [['demo', '--format', 'constructor']],
    [[demo, '--format', 'toString']],
  ])('%j is an unknown format (exit 2)', async (args) => {
    const r = await heapql(args[0] === 'demo' ? args : [...args, '--no-cache']);
    const format = args[args.indexOf('--format') + 1];
    expect(r.stderr).toBe(`error: unknown report format "${format}"; use --format md, html or json\n`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});
