/**
 * `heapql query` writes each result while the executor produces its rows: the output is the
 * text a whole result always printed (CSV the same, JSON the same QueryResult, a long one with
 * `rows` before `columns`; a table of up to 1 000 rows the same), it begins before the scan
 * ends, the scan waits for a stdout that does not drain, memory stays bounded, `| head` stops
 * the scan, and an error or Ctrl-C after the output began says that the output is cut short.
 *
 * The in-process tests run `runJobs` (what `heapql query` runs) on a fixture session, with the
 * executor's stream watched; the others run the real CLI.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { collectJobs, runJobs } from '../../ts/cli/queries.js';
import { openHeap, type HeapSession } from '../../ts/index.js';
import { formatCsv, formatTable } from '../../ts/query/format.js';
import { parseJsonExact, stringifyJson } from '../../ts/query/json.js';
import type { QueryResult } from '../../ts/query/schema.js';
import { root, run } from '../tools/run.js';
import { shellWord } from './pty-harness.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');
/** The biggest fixture dump: 168 473 objects. */
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const bin = path.join(root, 'bin/heapql.js');
/** A result of more rows than this is streamed; up to it, it prints whole (README). */
const WHOLE = 1000;
const sh = shellWord;

/**
 * Fails after its first 262 000 rows, on known: the rows of the third side of the UNION (n from
 * 2 000 000) read `count` of a String, which rule 12 refuses when the row is evaluated; the
 * executor streams a scan in blocks of 2^18 rows, so the first block's rows come out first.
 */
const LATE_ERROR =
  'SELECT y.n, CASE WHEN y.n >= 2000000 THEN y.o.count ELSE 0 END AS c FROM (SELECT x AS o, x.@objectId AS n FROM INSTANCEOF java.lang.Object x UNION SELECT x, x.@objectId + 1000000 FROM INSTANCEOF java.lang.Object x UNION SELECT x, x.@objectId + 2000000 FROM INSTANCEOF java.lang.Object x) y';

/** The executor's streams of a session as they run: batches produced, and whether each ended. */
interface Probe {
  streams: { produced: number; ended: boolean }[];
}

function watchStreams(session: HeapSession): Probe {
  const probe: Probe = { streams: [] };
  const handle = session.handle as unknown as { executeStream: (plan: unknown, rows: unknown, onBatch: (b: unknown) => void, ...rest: unknown[]) => Promise<unknown> };
  const real = handle.executeStream.bind(handle);
  handle.executeStream = (plan: unknown, rows: unknown, onBatch: (b: unknown) => void, ...rest: unknown[]) => {
    const s = { produced: 0, ended: false };
    probe.streams.push(s);
    const counted = (b: unknown) => {
      s.produced++;
      onBatch(b);
    };
    const done = real(plan, rows, counted, ...rest);
    done.then(
      () => (s.ended = true),
      () => (s.ended = true),
    );
    return done;
  };
  return probe;
}

/** One write to stdout: its text, and the executor's stream of that moment. */
interface Write {
  text: string;
  stream: number;
  produced: number;
  ended: boolean;
}

/** Runs `queries` as `heapql query --query … --format <format>` does, stdout and stderr recorded. */
async function recorded(session: HeapSession, probe: Probe, queries: string[], format: 'csv' | 'json' | 'table') {
  const { jobs } = collectJobs({ rawArgs: queries.flatMap((q) => ['--query', q]), fullPath: false, reachableOnly: false });
  const writes: Write[] = [];
  const stdout = new Writable({
    decodeStrings: false,
    write(chunk, _encoding, done) {
      const s = probe.streams.at(-1);
      writes.push({ text: String(chunk), stream: probe.streams.length - 1, produced: s?.produced ?? 0, ended: s?.ended ?? true });
      done();
    },
  });
  let stderr = '';
  const before = process.exitCode;
  try {
    await runJobs(session, jobs, format, { stdout, stderr: { write: (t: string) => (stderr += t) } });
  } finally {
    process.exitCode = before;
  }
  return { writes, stdout: writes.map((w) => w.text).join(''), stderr };
}

/** The QueryResult as a streamed JSON result orders it: rows before the columns and counts. */
function rowsFirst(r: QueryResult): Record<string, unknown> {
  const { name, oql, columns, rows, rowCount, truncated, elapsedMs, ...rest } = r;
  return { name, oql, rows, columns, rowCount, truncated, elapsedMs, ...rest };
}

const untimed = (text: string) => text.replace(/"elapsedMs": [0-9.e+-]+/g, '"elapsedMs": 0');
/** A table line with its padding gone: the cells alone. */
const cells = (line: string) => line.replace(/ +/g, ' ').trim();

describe('the output of heapql query, written while the rows are produced (demo dump)', () => {
  let session: HeapSession;
  let probe: Probe;
  const queries = [
    'SELECT x FROM INSTANCEOF java.lang.Object x',
    'SELECT x, x.@usedHeapSize, x.@displayName, x.@objectAddress FROM INSTANCEOF java.lang.Object x',
    'SELECT toString(x) AS text, x.@length FROM INSTANCEOF java.lang.Object x',
    'SELECT x.@objectId AS id, NULL AS nothing FROM INSTANCEOF java.lang.Object x',
    // NULL in the first batches, then numbers; strings, then numbers: the whole result's types
    // are number and list, as the executor types all the rows at once.
    'SELECT x.@objectId AS id, CASE WHEN x.@objectId >= 15000 THEN x.@usedHeapSize ELSE NULL END AS late, CASE WHEN x.@objectId >= 15000 THEN x.@usedHeapSize ELSE x.@displayName END AS mixed FROM INSTANCEOF java.lang.Object x',
    'SELECT s, s.value[0:3] AS head FROM java.lang.String s',
    'SELECT s, s.createdAt * 10001 AS p FROM Demo$Session s',
    'SELECT COUNT(*) AS n, SUM(s.@usedHeapSize) AS used, MAX(s.createdAt * 10001) AS mx FROM Demo$Session s',
    'SELECT classof(x) AS c, COUNT(*) AS n FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY n DESC',
    'SELECT x, x.@usedHeapSize FROM INSTANCEOF java.lang.Object x ORDER BY x.@usedHeapSize DESC',
    'SELECT s FROM java.lang.String s LIMIT 10',
    `SELECT x FROM INSTANCEOF java.lang.Object x LIMIT ${WHOLE}`,
    `SELECT x FROM INSTANCEOF java.lang.Object x LIMIT ${WHOLE + 1}`,
    'SELECT s FROM java.lang.String s WHERE s.@usedHeapSize > 100000000',
    'SELECT s, toString(s) FROM java.lang.String s WHERE s.@usedHeapSize > 100000000',
  ];
  let expected: QueryResult[];

  beforeAll(async () => {
    session = await openHeap(demo);
    expected = [];
    for (const [i, q] of queries.entries()) expected.push(await session.query(q, { name: `q${i + 1}` }));
    // Long and short results, objects, every kind of column, empty ones.
    expect(expected.filter((r) => r.rowCount > WHOLE).length).toBeGreaterThanOrEqual(6);
    expect(expected.filter((r) => r.rowCount === 0)).toHaveLength(2);
    probe = watchStreams(session);
  });
  afterAll(() => session?.close());

  /**
   * Each result of more than 20 batches of rows came out in several writes, the first while its
   * stream was still running (it was not collected first): the executor runs only a few
   * batches ahead of the writer, so it cannot have reached the end of such a result by then.
   */
  function expectStreamed(writes: Write[]) {
    const long = expected.map((r, i) => (r.rowCount > 20 * 1000 ? i : -1)).filter((i) => i >= 0);
    expect(long.length).toBeGreaterThanOrEqual(5);
    const first = probe.streams.length - queries.length;
    expect(first, 'every query ran as a stream').toBeGreaterThanOrEqual(0);
    for (const i of long) {
      const own = writes.filter((w) => w.stream === first + i);
      expect(own.length, `${queries[i]}: written in several pieces`).toBeGreaterThan(1);
      expect(own[0]!.ended, `${queries[i]}: output began before the scan ended`).toBe(false);
      expect(own[0]!.produced, `${queries[i]}: output began with the first batches`).toBeLessThan(Math.ceil(expected[i]!.rowCount / 1000));
    }
  }

  it('CSV: the same text as the whole results gave, streamed', async () => {
    const r = await recorded(session, probe, queries, 'csv');
    expect(r.stderr).toBe('');
    // Several results: each followed by an empty CSV line (CRLF, as its every line ends).
    expect(r.stdout).toBe(expected.map((e) => `${formatCsv(e)}\r\n`).join(''));
    expectStreamed(r.writes);
  });

  it('JSON: the same QueryResults with exact integers; a long one has its rows before its columns', async () => {
    const r = await recorded(session, probe, queries, 'json');
    expect(r.stderr).toBe('');
    // Up to WHOLE rows, the very text of the whole result; a longer one, the same fields and
    // values with `rows` moved before `columns` (its types are known after the last row).
    const documents = expected.map((e) => (e.rowCount > WHOLE ? rowsFirst(e) : e));
    expect(untimed(r.stdout)).toBe(untimed(`${stringifyJson(documents, 2)}\n`));
    const parsed = parseJsonExact(r.stdout) as QueryResult[];
    const timeless = ({ elapsedMs, ...rest }: QueryResult) => (expect(typeof elapsedMs).toBe('number'), rest);
    expect(parsed.map(timeless)).toEqual(expected.map(timeless));
    expectStreamed(r.writes);
  });

  it('table: whole up to 1 000 rows; longer, the first rows in their widths and every row with its cells', async () => {
    const r = await recorded(session, probe, queries, 'table');
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    let at = 0;
    for (const [i, e] of expected.entries()) {
      expect(lines[at++]).toBe(`q${i + 1}: ${queries[i]}`);
      const table = formatTable(e).split('\n');
      const got = lines.slice(at, at + table.length);
      at += table.length;
      expect(lines[at++], 'a blank line after each result').toBe('');
      if (e.rowCount <= WHOLE) {
        expect(got.join('\n'), queries[i]).toBe(table.join('\n'));
        continue;
      }
      // The same cells line by line and the same footer; the header and the first rows share
      // their columns' widths (the rule's `-+-` stand where the rows' ` | ` do).
      const withoutRule = (t: string[]) => [t[0], ...t.slice(2)].map((l) => cells(l!));
      expect(withoutRule(got), queries[i]).toEqual(withoutRule(table));
      const rule = got[1]!;
      const joints = [...rule.matchAll(/-\+-/g)].map((m) => m.index);
      expect(rule).toMatch(/^-+(-\+-+)*$/);
      expect(joints).toHaveLength(e.columns.length - 1);
      for (const line of got.slice(2, 2 + WHOLE)) {
        if (line.split(' | ').length !== joints.length + 1) continue; // a cell holding " | "
        expect([...line.matchAll(/ \| /g)].map((m) => m.index), `${queries[i]}: ${line}`).toEqual(joints);
      }
    }
    expect(lines.slice(at)).toEqual(['']);
    expectStreamed(r.writes);
  });
});

describe('the scan and the output (the biggest fixture dump)', () => {
  let session: HeapSession;
  let probe: Probe;
  beforeAll(async () => {
    session = await openHeap(known);
    probe = watchStreams(session);
  });
  afterAll(() => session?.close());

  it('a stdout that does not drain holds the scan; the result comes out in many writes', async () => {
    const q = 'SELECT x, x.@usedHeapSize, x.@displayName FROM INSTANCEOF java.lang.Object x';
    const whole = await session.query(q);
    const batches = Math.ceil(whole.rowCount / 1000);
    expect(batches).toBeGreaterThan(100);
    /** Writes are taken one at a time, each only when the test lets it through. */
    const taken: string[] = [];
    let held: (() => void) | null = null;
    let flowing = false;
    const stdout = new Writable({
      highWaterMark: 16 * 1024,
      decodeStrings: false,
      write(chunk, _encoding, done) {
        taken.push(String(chunk));
        if (flowing) setImmediate(done);
        else held = done;
      },
    });
    const { jobs } = collectJobs({ rawArgs: ['--query', q], fullPath: false, reachableOnly: false });
    const running = runJobs(session, jobs, 'csv', { stdout, stderr: process.stderr });
    const stream = () => probe.streams.at(-1);
    // Polled a bounded number of times (by count, not by time).
    for (let i = 0; i < 2000 && !(held && (stream()?.produced ?? 0) >= 4); i++) await new Promise((r) => setTimeout(r, 5));
    expect(held, 'the first write is waiting').not.toBeNull();
    for (let i = 0; i < 100; i++) await new Promise((r) => setTimeout(r, 5));
    // The executor ran a few batches ahead of the writes and waits: far from the whole result.
    expect(taken).toHaveLength(1);
    expect(stream(), 'the query runs as a stream').toBeDefined();
    expect(stream()!.ended).toBe(false);
    expect(stream()!.produced).toBeLessThanOrEqual(20);
    flowing = true;
    (held as unknown as () => void)();
    await running;
    expect(taken.length).toBeGreaterThan(batches / 2);
    expect(taken.join('')).toBe(formatCsv(whole));
  });
});

/** `heapql …` in a shell, stdout through `| head -n <lines>`; stderr gets heapql's own exit status. */
function throughHead(args: string[], lines: number) {
  const line = `NO_COLOR=1 ${sh(process.execPath)} ${sh(bin)} ${args.map(sh).join(' ')} | head -n ${lines}; echo "status=\${PIPESTATUS[0]}" >&2`;
  return run('bash', ['-c', line]);
}

describe('the CLI on a long result', () => {
  it('| head stops the scan: heapql ends quietly before the query would have failed', async () => {
    for (const format of ['csv', 'json', 'table']) {
      const r = await throughHead(['query', known, '--format', format, '--query', LATE_ERROR], 2);
      expect(r.stderr, format).toBe('status=0\n');
      expect(r.stdout.split('\n'), format).toHaveLength(3);
    }
  });

  it('an error after the output began: an error line saying the output is cut short, exit 1, never a whole-looking document', async () => {
    const count = 'SELECT COUNT(*) FROM java.lang.String';
    const stringCount = (await run(process.execPath, [bin, 'query', known, '--format', 'csv', '--query', count])).stdout.split('\r\n')[1];
    expect(Number(stringCount)).toBeGreaterThan(0);

    const csv = await run(process.execPath, [bin, 'query', known, '--format', 'csv', '--query', LATE_ERROR, '--query', count]);
    expect(csv.code).toBe(1);
    // The unknown field is shown where the query names it (the query's line, a caret under
    // `count`), the cut-short output said on the error's first line.
    const caret = `\n  ${LATE_ERROR}\n  ${' '.repeat(LATE_ERROR.indexOf('.count') + 1)}^^^^^\n`;
    expect(csv.stderr.endsWith(caret), csv.stderr).toBe(true);
    const m = /^error: q1:1:47: java\.lang\.String has no field 'count' .*; its output above stops after (\d+) rows \(not the whole result\)\n/.exec(csv.stderr);
    expect(m, csv.stderr).not.toBeNull();
    const written = Number(m![1]);
    expect(written).toBeGreaterThan(WHOLE);
    // The rows written, then the next query, which still runs.
    const lines = csv.stdout.split('\r\n');
    expect(lines[0]).toBe('y.n,c');
    expect(lines.slice(1, written + 1).every((l) => /^\d+,0$/.test(l))).toBe(true);
    expect(lines.slice(written + 1)).toEqual(['', 'COUNT(*)', stringCount, '', '']);

    const table = await run(process.execPath, [bin, 'query', known, '--query', LATE_ERROR, '--query', count]);
    expect(table.code).toBe(1);
    expect(table.stderr).toMatch(new RegExp(`^error: q1:1:47: .*; its output above stops after ${written} rows \\(not the whole result\\)\\n`));
    expect(table.stderr.endsWith(caret)).toBe(true);
    expect(table.stdout).toMatch(/^q1: SELECT y\.n, .*\ny\.n +\| c\n-+\+-+\n/);
    expect(table.stdout).not.toMatch(/\(\d+ rows\)\n\nq2/);
    expect(table.stdout).toMatch(/\n\nq2: SELECT COUNT\(\*\) FROM java\.lang\.String\nCOUNT\(\*\)\n-+\n +\d+\n\(1 row\)\n\n$/);

    const json = await run(process.execPath, [bin, 'query', known, '--format', 'json', '--query', LATE_ERROR, '--query', count]);
    expect(json.code).toBe(1);
    expect(json.stderr).toMatch(
      new RegExp(`^error: q1:1:47: .*; the JSON output stops after ${written} rows of this result and is not a complete document \\(1 more query was not run\\)\\n`),
    );
    expect(json.stderr.endsWith(caret)).toBe(true);
    expect(json.stdout.startsWith('[\n  {\n    "name": "q1",\n    "oql": ')).toBe(true);
    expect(() => JSON.parse(json.stdout)).toThrow();
    expect(json.stdout).not.toContain('"rowCount"');
  });

  it('memory stays bounded: a result far bigger than the JavaScript heap is written whole', async () => {
    // 168 473 rows of an object, a number and a string: some 170 MB as QueryResult rows, in
    // a process whose JavaScript heap may not pass 40 MB.
    const q = 'SELECT x, x.@usedHeapSize, x.@displayName FROM INSTANCEOF java.lang.Object x';
    for (const format of ['csv', 'json', 'table']) {
      const r = await run(process.execPath, ['--max-old-space-size=40', bin, 'query', known, '--format', format, '--query', q]);
      expect(r.code, `${format}: ${r.stderr.slice(0, 300)}`).toBe(0);
      expect(r.stderr).toBe('');
      if (format === 'csv') expect(r.stdout.split('\r\n')).toHaveLength(168473 + 2);
      if (format === 'json') expect((parseJsonExact(r.stdout) as QueryResult[])[0]!.rowCount).toBe(168473);
      if (format === 'table') expect(r.stdout.endsWith('(168473 rows)\n')).toBe(true);
    }
  });

  it('Ctrl-C after the output began: the output stops, an error line says so, exit 130', async () => {
    const q = 'SELECT x, x.@usedHeapSize, x.@displayName FROM INSTANCEOF java.lang.Object x';
    const child = spawn(process.execPath, [bin, 'query', known, '--format', 'csv', '--query', q], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', HEAPQL_DEBUG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    // Once the first rows are read, stop reading (heapql waits for the pipe to drain) and
    // interrupt; read on once heapql said it stopped (or it is gone).
    child.stdout.once('data', (d) => {
      stdout += d;
      child.stdout.pause();
      child.stdout.on('data', (more) => (stdout += more));
      child.kill('SIGINT');
      interrupted = true;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      if (stderr.includes('error: interrupted')) child.stdout.resume();
    });
    child.on('exit', () => child.stdout.resume());
    const { code, signal } = await exited;
    expect(interrupted).toBe(true);
    expect({ code, signal }).toEqual({ code: 130, signal: null });
    const m = /^error: interrupted; the output stops after (\d+) rows of q1 \(not every result was written\)$/m.exec(stderr);
    expect(m, stderr).not.toBeNull();
    expect(stdout.split('\r\n').length - 2).toBeLessThanOrEqual(Number(m![1]));
    expect(Number(m![1])).toBeLessThan(168473);
  });
});
