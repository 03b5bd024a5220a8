/**
 * Where options may stand: the report's (the command `heapql` itself) before the dump too, as
 * its usage line `heapql [OPTIONS] <FILE>` shows; a subcommand's only after the subcommand.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { heapql, root } from '../tools/run.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-option-order-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('options before the dump', () => {
  it('the report takes them before the dump as after it, with the same output', async () => {
    const before = path.join(tmp, 'before.json');
    const after = path.join(tmp, 'after.json');
    const a = await heapql(['--no-cache', '--format=json', '--reachable-only', demo, before]);
    expect(a.stderr).not.toMatch(/error/);
    expect(a.code).toBe(0);
    const b = await heapql([demo, after, '--no-cache', '--format=json', '--reachable-only']);
    expect(b.code).toBe(0);
    // The same document but for when it was made.
    const body = (f: string) => JSON.parse(readFileSync(f, 'utf8'), (k, v: unknown) => (k === 'generatedAt' || k === 'elapsedMs' ? undefined : v)) as unknown;
    expect(body(before)).toEqual(body(after));
  });

  it('an option the report does not have is named as unknown for heapql (exit 2)', async () => {
    const r = await heapql(['--bogus', demo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown option --bogus for heapql; see heapql --help/);
  });

  it('options before a subcommand are refused with where they go (exit 2)', async () => {
    const r = await heapql(['--no-cache', 'query', demo, '--query', 'SELECT COUNT(*) FROM java.lang.String']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: options go after the command: heapql query … --no-cache; see heapql query --help/);
  });
});
