/**
 * Options that would be accepted and then ignored or misread are refused before the dump is
 * opened (exit 2), each with what to write instead: `--no-cache` beside `--cache-dir` or
 * `--cache-max`, a value given to a switch (`--reachable-only=no` read as on), a `--no-` form of
 * an option that takes a value, an option beside `--list-named`. A mistyped option names the
 * closest one.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { heapql, root } from '../tools/run.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');
const COUNT = 'SELECT COUNT(*) AS n FROM java.lang.String';

let tmp: string;
beforeAll(() => {
  expect(existsSync(demo), demo).toBe(true);
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-option-values-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('--no-cache with a cache option', () => {
  it.each([
    ['query', (dir: string) => ['query', demo, '--query', COUNT, '--no-cache', '--cache-dir', dir], 'cache-dir'],
    ['query --repl', (dir: string) => ['query', demo, '--repl', '--cache-dir', dir, '--no-cache'], 'cache-dir'],
    ['the report', (dir: string) => [demo, path.join(tmp, 'r.md'), '--no-cache', '--cache-max', '1G'], 'cache-max'],
    ['summary', (dir: string) => ['summary', demo, '--no-cache', '--cache-dir', dir], 'cache-dir'],
  ])('%s: refused, nothing read or written', async (_name, args, option) => {
    const dir = path.join(tmp, `cache-${option}-${Math.random().toString(36).slice(2)}`);
    const r = await heapql(args(dir));
    expect(r.stderr).toMatch(new RegExp(`^error: --no-cache turns the index cache off, so --${option} \\S+ would do nothing: give one or the other\n$`));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(path.join(tmp, 'r.md'))).toBe(false);
  });

  it('--no-cache alone, and HEAPQL_CACHE_DIR with --no-cache, still run', async () => {
    const dir = path.join(tmp, 'env-cache');
    const r = await heapql(['query', demo, '--query', COUNT, '--format', 'csv', '--no-cache'], { env: { HEAPQL_CACHE_DIR: dir } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('n\r\n3703\r\n');
    expect(existsSync(dir)).toBe(false);
  });
});

describe('a switch takes no value', () => {
  it.each(['no', '0', 'false', 'yes'])('--reachable-only=%s is refused (citty read any value but false as on)', async (value) => {
    const r = await heapql(['query', demo, '--query', COUNT, `--reachable-only=${value}`]);
    expect(r.stderr).toBe(
      `error: --reachable-only is a switch and takes no value (--reachable-only=${value}): write --reachable-only (--no-reachable-only for off)\n`,
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('--no-cache=1 and --quiet=1 are refused too', async () => {
    const a = await heapql(['query', demo, '--query', COUNT, '--no-cache=1']);
    expect(a.stderr).toBe('error: --no-cache is a switch and takes no value (--no-cache=1): write --no-cache\n');
    expect(a.code).toBe(2);
    const b = await heapql(['query', demo, '--query', COUNT, '--quiet=1']);
    expect(b.stderr).toBe('error: --quiet takes no value (--quiet=1): write --quiet\n');
    expect(b.code).toBe(2);
  });

  it('the switches as written still work', async () => {
    const on = await heapql(['query', demo, '--query', COUNT, '--format', 'csv', '--reachable-only', '--no-cache']);
    const off = await heapql(['query', demo, '--query', COUNT, '--format', 'csv', '--no-reachable-only', '--no-cache']);
    expect([on.code, off.code]).toEqual([0, 0]);
    expect(on.stdout).toBe('n\r\n3645\r\n');
    expect(off.stdout).toBe('n\r\n3703\r\n');
  });

  it('the --no- form of an option that takes a value is unknown', async () => {
    const r = await heapql(['query', demo, '--query', COUNT, '--no-format', 'json']);
    expect(r.stderr).toBe('error: unknown option --no-format for query; did you mean --format? see heapql query --help\n');
    expect(r.code).toBe(2);
  });
});

describe('a mistyped option names the closest', () => {
  it.each([
    [['query', demo, '--qurey', COUNT], 'unknown option --qurey for query; did you mean --query? see heapql query --help'],
    [['query', demo, '--query', COUNT, '--reachabel-only'], 'unknown option --reachabel-only for query; did you mean --reachable-only? see heapql query --help'],
    [['summary', demo, '--form', 'json'], 'unknown option --form for summary; did you mean --format? see heapql summary --help'],
    [['query', demo, '--bogus'], 'unknown option --bogus for query; see heapql query --help'],
    [['query', demo, '--queryfile', 'q.oql'], 'unknown option --queryfile for query; did you mean --query-file? see heapql query --help'],
    [['summary', demo, '--quite'], 'unknown option --quite for summary; did you mean --quiet? see heapql summary --help'],
  ])('heapql %j', async (args, message) => {
    const r = await heapql(args);
    expect(r.stderr).toBe(`error: ${message}\n`);
    expect(r.code).toBe(2);
  });
});

describe('--list-named', () => {
  it('lists, with or without a dump', async () => {
    for (const args of [['query', '--list-named'], ['query', demo, '--list-named']]) {
      const r = await heapql(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^top-classes-by-count {2,}instances per class/);
    }
  });

  it.each([
    [['--format', 'json'], '--format'],
    [['--repl'], '--repl'],
    [['--run', 'duplicate-strings'], '--run'],
    [['--no-cache'], '--no-cache'],
  ])('refuses another option beside it: %j', async (more, named) => {
    const r = await heapql(['query', demo, '--list-named', ...more]);
    expect(r.stderr).toBe(`error: --list-named only lists the named queries and takes no other option: leave out ${named}, or leave out --list-named\n`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('a mistyped option beside it is unknown, not ignored', async () => {
    const r = await heapql(['query', '--list-named', '--fromat', 'json']);
    expect(r.stderr).toBe('error: unknown option --fromat for query; did you mean --format? see heapql query --help\n');
    expect(r.code).toBe(2);
  });
});

describe('an empty --query-file', () => {
  it.each(['query', 'analyze'])('%s: names the file that holds no query, not "no query given"', async (command) => {
    const file = path.join(tmp, `empty-${command}.oql`);
    writeFileSync(file, '# nothing to run yet\n\n');
    const r = await heapql([command, demo, '--query-file', file]);
    expect(r.stderr).toBe(`error: --query-file ${file} holds no query (only blank lines and comments): write one query a line in it, or give --query "<oql>" or --run <name>\n`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('--run without a name', () => {
  it.each([[['--run=']], [['--run', '']], [['--run', ' ']]])('%j is refused as no name, with no suggestions', async (run) => {
    const r = await heapql(['query', demo, ...run]);
    expect(r.stderr).toBe('error: --run needs the name of a named query (heapql query --list-named lists them)\n');
    expect(r.code).toBe(2);
  });
});
