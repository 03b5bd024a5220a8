/** `heapql help <command> [<verb>]` shows that command's help, as `heapql <command> [<verb>] --help` does. */
import { describe, expect, it } from 'vitest';

import { heapql } from '../tools/run.js';

describe('heapql help <command>', () => {
  it.each([
    [['help', 'query'], ['query', '--help']],
    [['help', 'cache', 'list'], ['cache', 'list', '--help']],
    [['help'], ['--help']],
  ])('%j prints what %j prints', async (asked, same) => {
    const [a, b] = [await heapql(asked), await heapql(same)];
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout.length).toBeGreaterThan(0);
    expect([a.code, b.code]).toEqual([0, 0]);
  });

  it('a command that does not exist is a usage error with the closest one', async () => {
    const r = await heapql(['help', 'qury']);
    expect(r.stderr).toMatch(/^error: unknown command 'qury'; did you mean query\? commands: query, analyze, .*; heapql help <command> shows a command's help\n$/);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});
