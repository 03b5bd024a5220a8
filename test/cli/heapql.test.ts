/**
 * The heapql command end to end (the compiled CLI in a child process): demo, query, analyze,
 * their output formats, and the errors a user sees for bad input and bad queries.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { heapql as runHeapql } from '../tools/run.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');

const heapql = (args: string[], cwd = root) => runHeapql(args, { cwd });

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-cli-'));
});

describe('help and version', () => {
  it('prints the version and the command list', async () => {
    const version = await heapql(['--version']);
    expect(version.stdout.split('\n')[0]).toBe(`heapql ${JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version}`);
    const help = await heapql(['--help']);
    expect(help.code).toBe(0);
    for (const cmd of ['query', 'analyze', 'demo', 'schema', 'sched', 'device']) expect(help.stdout).toContain(cmd);
    const queryHelp = await heapql(['query', '--help']);
    expect(queryHelp.stdout).toContain('--query-file');
    expect(queryHelp.stdout).toContain('--reachable-only');
  });
});

describe('heapql query', () => {
  it('prints a table with a footer per query, in turn', async () => {
    const r = await heapql(['query', known, '--query', 'SELECT COUNT(*) FROM KnownHeap$Point', '--query', 'SELECT p.x AS x FROM KnownHeap$Point p ORDER BY x LIMIT 2']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/q1: SELECT COUNT\(\*\) FROM KnownHeap\$Point\nCOUNT\(\*\)\n-+\n *\d+\n\(1 row\)\n/);
    expect(r.stdout).toMatch(/q2: .*\nx\n-+\n *\d+\n *\d+\n\(2 rows\)\n/);
  });

  it('prints JSON QueryResults and CSV', async () => {
    const json = await heapql(['query', known, '--format', 'json', '--query', 'SELECT toString(t.name) AS name FROM INSTANCEOF java.lang.Thread t WHERE toString(t.name) = "fixture-worker"']);
    const results = JSON.parse(json.stdout);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ name: 'q1', columns: [{ name: 'name', type: 'string' }], rows: [['fixture-worker']], rowCount: 1, truncated: false });
    const csv = await heapql(['query', known, '--format', 'csv', '--query', 'SELECT c.id AS id, c.next.id AS next FROM KnownHeap$CycleNode c ORDER BY id']);
    expect(csv.stdout).toBe('id,next\r\n1,2\r\n2,3\r\n3,1\r\n');
  });

  it('refuses a separated --query that begins with --, and full-path features', async () => {
    const viz = await heapql(['query', known, '--query', '-- @viz histogram']);
    expect(viz.code).toBe(2);
    expect(viz.stderr).toContain("must be attached: --query='-- @viz histogram");
    const retained = await heapql(['query', known, '--query', 'SELECT @retainedHeapSize FROM java.lang.String']);
    expect(retained.code).toBe(2);
    expect(retained.stderr).toContain('requires the full analysis pipeline');
    expect(retained.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('reports a query file error as file:line:col with the line, a caret and a hint', async () => {
    const file = path.join(tmp, 'queries.oql');
    writeFileSync(file, '# counts\nSELECT COUNT(*) FROM java.lang.String\n\nSELECT s FROM java.lang.String s WHERE s.value = \n');
    const r = await heapql(['query', known, '--query-file', file]);
    expect(r.code).toBe(2);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:\\d+: `));
    expect(lines[1]).toContain('SELECT s FROM java.lang.String s WHERE s.value =');
    expect(lines[2]).toMatch(/^\s+\^+$/);
    expect(r.stderr).toContain('hint:');
  });

  it('runs a query file with -- @viz directives and named queries', async () => {
    const file = path.join(tmp, 'ok.oql');
    writeFileSync(file, '-- @viz histogram name=points\nSELECT p.x AS x, p.y AS y FROM KnownHeap$Point p ORDER BY x LIMIT 3\n');
    const r = await heapql(['query', known, '--query-file', file, '--format', 'json']);
    expect(r.code).toBe(0);
    const [result] = JSON.parse(r.stdout);
    expect(result.name).toBe('points');
    expect(result.viz).toMatchObject({ kind: 'histogram', name: 'points' });
    const named = await heapql(['query', known, '--run', 'duplicate-strings', '--format', 'json']);
    const [dup] = JSON.parse(named.stdout);
    expect(dup.columns.map((c: { name: string }) => c.name)).toEqual(['value', 'count']);
    expect(dup.rows.length).toBeGreaterThan(0);
    expect(dup.rows.length).toBeLessThanOrEqual(30);
    expect(dup.rows.some((row: unknown[]) => row[0] === 'duplicate-me' && row[1] === 100)).toBe(true);
    const list = await heapql(['query', '--list-named']);
    expect(list.stdout).toContain('top-classes-by-count');
  });

  it('warns when a -- @viz line names a column the result does not have', async () => {
    const oql = '-- @viz piechart label=nope value=n\nSELECT p.x AS x, COUNT(*) AS n FROM KnownHeap$Point p GROUP BY p.x LIMIT 3';
    const r = await heapql(['query', known, `--query=${oql}`, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: q1: @viz label=nope: no such column (columns: x, n)');
    const good = await heapql(['query', known, `--query=${oql.replace('label=nope', 'label=x')}`, '--format', 'json']);
    expect(good.stderr).not.toContain('@viz');
  });

  it('runs every --run given, in order, like --query (not only the last)', async () => {
    const r = await heapql(['query', known, '--run', 'duplicate-strings', '--run=top-classes-by-count', '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((q: { name: string }) => q.name)).toEqual(['duplicate-strings', 'top-classes-by-count']);
    const bare = await heapql(['query', known, '--run']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--run needs the name of a named query');
  });

  it('prints a did-you-mean for an unknown class and exits 1', async () => {
    const r = await heapql(['query', known, '--query', 'SELECT * FROM java.lang.Strin']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('did you mean java.lang.String');
  });
});

describe('heapql analyze', () => {
  it('answers full-path queries', async () => {
    const r = await heapql(['analyze', known, '--format', 'json', '--query', 'SELECT l.@retainedHeapSize AS retained FROM KnownHeap$LeakyCache l']);
    expect(r.code).toBe(0);
    const [result] = JSON.parse(r.stdout);
    expect(result.rows).toHaveLength(1);
    expect(result.rows[0][0]).toBeGreaterThan(1024 * 1024); // the cache retains its 1 MiB of buffers
  });

  it('takes the scratch directory from --scratch-dir and refuses one that is not there', async () => {
    const scratch = path.join(tmp, 'scratch');
    mkdirSync(scratch, { recursive: true });
    const q = ['--format', 'json', '--query', 'SELECT l.@retainedHeapSize AS retained FROM KnownHeap$LeakyCache l'];
    const [given, chosen] = await Promise.all([heapql(['analyze', known, '--scratch-dir', scratch, ...q]), heapql(['analyze', known, ...q])]);
    expect(given.code).toBe(0);
    expect(JSON.parse(given.stdout)[0].rows).toEqual(JSON.parse(chosen.stdout)[0].rows);
    const missing = await heapql(['analyze', known, '--scratch-dir', path.join(tmp, 'no-such-dir'), ...q]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toMatch(/^error: --scratch-dir .*no-such-dir: not a writable directory/);
    const report = await heapql([known, '--scratch-dir', path.join(tmp, 'no-such-dir')]);
    expect(report.code).toBe(2);
  });
});

describe('bad input', () => {
  const cases: [string, (dir: string) => string, RegExp][] = [
    ['an empty file', (d) => write(d, 'empty.hprof', Buffer.alloc(0)), /is not an HPROF heap dump \(.*empty/],
    ['a text file', (d) => write(d, 'notes.txt', Buffer.from('hello, this is not a heap dump\n')), /is not an HPROF heap dump/],
    ['random bytes', (d) => write(d, 'random.hprof', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))), /is not an HPROF heap dump/],
    ['a header cut short', (d) => write(d, 'cut.hprof', Buffer.from('JAVA PROFILE 1.0.2\0\0\0')), /is not an HPROF heap dump/],
    ['a directory', (d) => { const p = path.join(d, 'adir'); mkdirSync(p); return p; }, /adir.*directory/],
    ['a missing file', (d) => path.join(d, 'missing.hprof'), /missing\.hprof/],
    // Opening a FIFO blocks until a writer comes: refused before it is opened.
    ['a named pipe', (d) => { const p = path.join(d, 'pipe.hprof'); execFileSync('mkfifo', [p]); return p; }, /pipe\.hprof: is not a regular file/],
    ['a device', () => '/dev/zero', /\/dev\/zero: is not a regular file/],
  ];
  it.each(cases)('%s exits 2 with one clear line', async (_what, make, message) => {
    const file = make(tmp);
    const r = await heapql([file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stderr).toMatch(message);
  });

  it('answers from a truncated dump with a warning naming the byte offset', async () => {
    const bytes = readFileSync(demo);
    const cut = write(tmp, 'truncated.hprof', bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const r = await heapql(['query', cut, '--query', 'SELECT COUNT(*) FROM INSTANCEOF java.lang.Object']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*offset \d+/);
    expect(r.stdout).toContain('(1 row)');
  });
});

function write(dir: string, name: string, bytes: Buffer): string {
  const p = path.join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

describe('heapql summary', () => {
  it('prints text or JSON and refuses another --format', async () => {
    const text = await heapql(['summary', known]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Heap dump /);
    const json = await heapql(['summary', known, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(typeof JSON.parse(json.stdout)).toBe('object');
    const bad = await heapql(['summary', known, '--format', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe("error: --format must be text or json, not 'xml'\n");
  });
});

describe('several heap dumps in one file (third-party corpus)', () => {
  const agent = path.resolve(root, '../shared/corpus/oracle_jdk7_21_hprofagent.hprof');
  const present = existsSync(agent);
  if (!present) console.log(`skipped: ${agent} is absent (the shared corpus is not beside the project)`);
  it.skipIf(!present)('--dump N picks a dump, counting from 1, and names a dump that does not exist', async () => {
    expect((await heapql(['summary', agent])).stdout).toContain('heap dump        1 of 2 (choose with --dump N)');
    expect((await heapql(['summary', agent, '--dump', '2'])).stdout).toContain('heap dump        2 of 2');
    const missing = await heapql(['summary', agent, '--dump', '3']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('the file has 2 heap dump(s); there is no heap dump number 3 (counting from 1)');
    const zero = await heapql(['summary', agent, '--dump', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--dump takes a whole number from 1 (the first heap dump)');
    // Beyond what the library counts in 32 bits: the CLI's own words, in its 1-based terms.
    const huge = await heapql(['summary', agent, '--dump', '99999999999']);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain("--dump takes a whole number from 1 (the first heap dump) to 4294967296, not '99999999999'");
    expect(huge.stderr).not.toContain('99999999998');
  });
  it.skipIf(!present)('says the sizes of a JVMTI agent dump (no object addresses) are estimated, in the summary and the report', async () => {
    const said = 'estimated, from an assumed layout: 32-bit VM layout (ids are not addresses)';
    expect((await heapql(['summary', agent])).stdout).toContain(`  sizes            ${said}`);
    const json = JSON.parse((await heapql(['summary', agent, '--format', 'json'])).stdout);
    expect(json.sizeModel).toMatchObject({ estimated: true, source: 'assumed: 32-bit VM layout (ids are not addresses)' });
    const report = await heapql([agent, '--format', 'json']);
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).overview.sizeModel).toMatchObject({ estimated: true });
    expect((await heapql([agent])).stdout).toContain(`| **Sizes** | ${said}`);
    // A HotSpot dump's layout is read from its object addresses: nothing to flag.
    expect((await heapql(['summary', known])).stdout).not.toContain('estimated');
    expect(JSON.parse((await heapql(['summary', known, '--format', 'json'])).stdout).sizeModel.estimated).toBe(false);
  });
});
