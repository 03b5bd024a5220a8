/**
 * `heapql schema <which>` takes one of its four names and nothing else: a name the schema table
 * has as an object's (constructor, toString) printed `{}` with exit 0, and an extra argument or
 * an unknown option was accepted and ignored.
 */
import { describe, expect, it } from 'vitest';

import { heapql } from '../tools/run.js';

describe('heapql schema', () => {
  it.each(['report', 'waste', 'query', 'diff'])('%s prints a JSON Schema', async (which) => {
    const r = await heapql(['schema', which]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'bogus'])('%s is no schema', async (which) => {
    const r = await heapql(['schema', which]);
    expect(r.stderr).toBe(`error: unknown schema "${which}"; use heapql schema report, waste, query or diff\n`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it.each([
    [['schema', 'query', 'extra'], 'error: unexpected argument extra for schema; see heapql schema --help\n'],
    [['schema', 'query', '--bogus'], 'error: unknown option --bogus for schema; see heapql schema --help\n'],
  ])('%j is refused', async (args, stderr) => {
    const r = await heapql(args);
    expect(r.stderr).toBe(stderr);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});
