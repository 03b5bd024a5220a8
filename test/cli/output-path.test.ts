/**
 * `heapql waste` and `heapql diff` refuse an output path they cannot write before any analysis
 * (before the dump is even opened), as the report does, with an error that names what they
 * write: "cannot write the waste report to …", "cannot write the comparison to …" (ERR_IO, exit 2).
 * HEAPQL_TIMING=1 would print the index build's and the analysis's steps (`[heapql-…]` lines).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { heapql } from '../tools/run.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const dir = mkdtempSync(path.join(tmpdir(), 'heapql-output-path-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TIMING = { HEAPQL_TIMING: '1' };

describe('an output path that cannot be written is refused before the analysis', () => {
  it('heapql waste <dump> /nonexistent/w.md', async () => {
    const out = path.join(dir, 'nonexistent', 'w.md');
    const r = await heapql(['waste', demo, out, '--no-cache'], { env: TIMING });
    expect(r.stderr).toBe(`error: cannot write the waste report to ${out}: the directory ${path.dirname(out)} does not exist (ENOENT): create it, or choose another path\n`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('heapql waste <dump> <a directory>.md', async () => {
    const out = path.join(dir, 'wdir.md');
    mkdirSync(out);
    const r = await heapql(['waste', demo, out, '--no-cache'], { env: TIMING });
    expect(r.stderr).toBe(`error: cannot write the waste report to ${out}: ${out} is a directory (EISDIR): name a file, such as ${path.join(out, 'waste.md')}\n`);
    expect(r.code).toBe(2);
  });

  it('heapql diff <a> <b> <a directory>.md', async () => {
    const out = path.join(dir, 'adir.md');
    mkdirSync(out);
    const r = await heapql(['diff', known, demo, out, '--no-cache'], { env: TIMING });
    expect(r.stderr).toBe(`error: cannot write the comparison to ${out}: ${out} is a directory (EISDIR): name a file, such as ${path.join(out, 'diff.md')}\n`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('a directory without an extension and no --format: said to be a directory (not a path without an extension), for the report, waste, diff and demo', async () => {
    const out = path.join(dir, 'outdir');
    mkdirSync(out);
    const tail = '(its extension, .md, .html or .json, gives the format)';
    for (const [args, what, stem] of [
      [[demo, out, '--no-cache'], 'the report', 'report'],
      [['demo', out], 'the report', 'report'],
      [['waste', demo, out, '--no-cache'], 'the waste report', 'waste'],
      [['diff', known, demo, out, '--no-cache'], 'the comparison', 'diff'],
    ] as const) {
      const r = await heapql([...args], { env: TIMING });
      expect(r.stderr, args.join(' ')).toBe(`error: cannot write ${what} to ${out}: ${out} is a directory (EISDIR): name a file, such as ${path.join(out, `${stem}.md`)} ${tail}\n`);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    }
    // With --format, the directory is said as it was (a file of that format in it).
    const html = await heapql([demo, out, '--format', 'html', '--no-cache'], { env: TIMING });
    expect(html.stderr).toBe(`error: cannot write the report to ${out}: ${out} is a directory (EISDIR): name a file, such as ${path.join(out, 'report.html')}\n`);
    // A path without an extension that is no directory: the format cannot be told.
    const plain = await heapql([demo, path.join(dir, 'noext'), '--no-cache'], { env: TIMING });
    expect(plain.stderr).toMatch(/^error: cannot tell the report format from a path without an extension of /);
    expect(plain.code).toBe(2);
    expect(readdirSync(out)).toEqual([]);
  });

  it.skipIf(!readdirSync('/').includes('proc'))('heapql diff <a> <b> /proc/d.html: the reason, never the temporary file', async () => {
    const r = await heapql(['diff', known, demo, '/proc/d.html', '--no-cache'], { env: TIMING });
    expect(r.stderr).toBe('error: cannot write the comparison to /proc/d.html: /proc takes no new files (ENOENT): choose a path in a directory you may write to\n');
    expect(r.code).toBe(2);
  });

  it('a FIFO: the message names what would be written and how to print it instead', async () => {
    const r = await heapql(['waste', demo, '/dev/null', '--format', 'md', '--no-cache'], { env: TIMING });
    expect(r.stderr).toMatch(/^error: cannot write the waste report to \/dev\/null: it is a character device, and the waste report is written whole to a file or not at all; .* to print the waste report on standard output\n$/);
    expect(r.code).toBe(2);
  });

  it('a path that can be written still gets the output', async () => {
    const out = path.join(dir, 'w.json');
    const r = await heapql(['waste', demo, out, '--limit', '1']);
    expect(r.stderr).toBe(`waste report written to ${out}\n`);
    expect(r.code).toBe(0);
    expect(readdirSync(dir)).toContain('w.json');
  });
});
