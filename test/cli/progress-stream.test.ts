/**
 * The progress bar of the commands whose query results are written as the scan runs (`heapql
 * query`, `heapql analyze`), and of `heapql diff`'s own queries, in a real pseudo-terminal:
 * each query's scan is drawn on stderr as `query <name>`, stdout carries the rows alone, a
 * stderr that is not a terminal gets no bar, rows written to the bar's own terminal come after
 * the bar was taken down (never drawn again between them), and Ctrl-C during the scan of a big
 * dump stops it (exit 130). HEAPQL_PROGRESS_AFTER_MS=0 draws the bar at once. A bash line in
 * the terminal sends stdout or stderr elsewhere (`>`, `|`, `2>`), execing heapql where it is one
 * command, so that the end told is heapql's own: what the terminal showed is read to the end the
 * terminal's wrapper says after it, with the exit code or the signal (runInTerminal), not to
 * node-pty's exit event, after which the last rows could be missing on a loaded machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn, type IPty } from '@lydell/node-pty';
import { afterAll, describe, expect, it } from 'vitest';

import { bashLine, benchDump1g, heapqlLine, ptysKilledAfterEach, runInTerminal, shellWord, type TerminalRun } from './pty-harness.js';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
const other = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-nocoops.hprof');
/** The objects over 64 bytes: a scan of every object, 1 801 rows (streamed: more than 1 000). */
const ROWS = 'SELECT o.@objectId AS id, o.@usedHeapSize AS size FROM INSTANCEOF java.lang.Object o WHERE o.@usedHeapSize > 64';

// The 1 GB benchmark dump (npm run bench makes it): its scan of the Strings lasts long enough
// for a Ctrl-C to land in it.
const { big, haveBig } = benchDump1g('the Ctrl-C-during-the-streamed-scan test');

const tmp = mkdtempSync(path.join(tmpdir(), 'heapql-stream-bar-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const open = ptysKilledAfterEach();

const sh = shellWord;
const heapql = heapqlLine;

/**
 * Runs a bash command line in a terminal to its end: what the terminal showed, the exit code and
 * the signal (heapql's own where the line execs it, bash's for a pipeline).
 */
async function inTerminal(line: string, onData?: (raw: string, pty: IPty) => void): Promise<TerminalRun> {
  expect(existsSync(known), `${known} is missing: run fixtures/make-fixtures.sh`).toBe(true);
  const env = { ...process.env, CI: '', NO_COLOR: '1', HEAPQL_DEBUG: '', HEAPQL_PROGRESS_AFTER_MS: '0' } as Record<string, string>;
  return runInTerminal(bashLine(line), { cols: 160, rows: 30, cwd: tmp, env }, onData);
}

/** Each drawing of the progress line (as progress-phases.test.ts reads them): where, its label, its percentage. */
function drawings(raw: string): { at: number; label: string; percent: number | null }[] {
  const out: { at: number; label: string; percent: number | null }[] = [];
  for (const m of raw.matchAll(/\x1b\[1G([^\x1b]*)\x1b\[0K/g)) {
    const bar = /^(.*?) +\|.*\| (\d+)% \|/.exec(m[1]!);
    const spinner = /^(.*?) [|/\\-](?: |$)/.exec(m[1]!);
    if (bar) out.push({ at: m.index!, label: bar[1]!.trim(), percent: Number(bar[2]) });
    else if (spinner) out.push({ at: m.index!, label: spinner[1]!.trim(), percent: null });
  }
  return out;
}

const labels = (raw: string) => [...new Set(drawings(raw).map((d) => d.label))];

/** The command's stdout with no terminal anywhere: what the rows must be. */
function plainStdout(args: string[]): string {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, HEAPQL_DEBUG: '' } });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('heapql query: the streamed scan on the progress bar', () => {
  const args = ['query', known, '--no-cache', '--query', ROWS, '--format', 'csv'];
  let expected = '';
  const rows = () => (expected ||= plainStdout(args));

  it('stdout to a file: the scan is drawn on stderr as `query q1`, the file holds the rows alone', async () => {
    const out = path.join(tmp, 'file.csv');
    const { raw, exitCode, signal } = await inTerminal(`exec ${heapql(args)} > ${sh(out)}`);
    expect(exitCode, raw).toBe(0);
    expect(signal, raw).toBeUndefined();
    expect(labels(raw), JSON.stringify(raw.slice(0, 2000))).toContain('query q1');
    expect(drawings(raw).some((d) => d.label === 'query q1' && d.percent !== null)).toBe(true);
    // Opening came first; the bar was taken down at the end (the line cleared, the cursor shown).
    expect(labels(raw).indexOf('index')).toBeLessThan(labels(raw).indexOf('query q1'));
    expect(raw.endsWith('\x1b[?25h') || raw.includes('\x1b[?25h\x1b[?7h')).toBe(true);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain('\x1b');
    expect(text).toBe(rows());
    expect(text.split('\n').length).toBeGreaterThan(1002);
  });

  it('stdout into a pipe: the same, the pipe gets the rows alone; a stderr that is no terminal gets no bar at all', async () => {
    const piped = path.join(tmp, 'piped.csv');
    // A pipeline: the end told is bash's (pipefail), where a signal that ended heapql is an exit code of 128 + its number.
    const { raw, exitCode, signal } = await inTerminal(`${heapql(args)} | cat > ${sh(piped)}`);
    expect(exitCode, raw).toBe(0);
    expect(signal, raw).toBeUndefined();
    expect(labels(raw)).toContain('query q1');
    expect(readFileSync(piped, 'utf8')).toBe(rows());

    // stderr into a file, stdout on the terminal: no bar anywhere, the rows as they are.
    const err = path.join(tmp, 'stderr.txt');
    const quiet = await inTerminal(`exec ${heapql(args)} 2> ${sh(err)}`);
    expect(quiet.exitCode, quiet.raw).toBe(0);
    expect(quiet.signal, quiet.raw).toBeUndefined();
    expect(readFileSync(err, 'utf8')).toBe('');
    expect(drawings(quiet.raw)).toEqual([]);
    expect(quiet.raw).not.toContain('\x1b[?25l');
    expect(quiet.raw.replaceAll('\r\n', '\n')).toBe(rows());
  });

  // The scan's progress reports and its rows reach the CLI through separate callbacks, in either
  // order: the bar of `query q1` is up when the first rows go out (reports first; on a loaded
  // machine the rows may come first), or it never comes up, the reports that reach the CLI after
  // the first rows not drawing it among them. Either way nothing is drawn after the first row.
  // (That this scan is drawn at all is the tests above: stdout to a file or a pipe.)
  it('stdout on the same terminal: the bar is taken down before the first row and not drawn again among the rows', async () => {
    const { raw, exitCode, signal } = await inTerminal(`exec ${heapql(args)}`);
    expect(exitCode, raw.slice(-400)).toBe(0);
    expect(signal, raw.slice(-400)).toBeUndefined();
    // Opening was drawn, so the terminal had a bar to take down before the rows.
    expect(labels(raw), JSON.stringify(raw.slice(0, 2000))).toContain('index');
    // CSV ends its lines with CRLF, which the terminal shows as CR CR LF.
    const header = raw.indexOf('id,size\r\r\n');
    expect(header).toBeGreaterThan(0);
    // Every drawing of any phase (`query q1`'s included) comes before the rows; between the last
    // one and the rows the line was cleared (`\x1b[2K`) and the cursor shown again.
    const last = Math.max(...drawings(raw).map((d) => d.at));
    expect(last).toBeLessThan(header);
    const between = raw.slice(last, header);
    expect(between).toContain('\x1b[2K');
    expect(between).toContain('\x1b[?25h');
    const after = raw.slice(header);
    expect(after).not.toContain('\x1b');
    expect(after.replaceAll('\r\n', '\n')).toBe(rows());
  });

  // Rows of a 1 GB dump's scan come out while it runs: the bar stays up if they go to another terminal.
  it.skipIf(!haveBig)('stdout on another terminal: the bar stays up through the scan while the rows go there', async () => {
    const elsewhere = spawn('/bin/sh', ['-c', 'sleep 600'], { cols: 160, rows: 30, cwd: tmp });
    open.push(elsewhere);
    let shown = '';
    elsewhere.onData((d) => (shown += d));
    const device = (elsewhere as unknown as { ptsName: string }).ptsName;
    expect(device).toMatch(/^\/dev\/pts\/\d+$/);
    const query = 'SELECT o.@objectId AS id, o.@usedHeapSize AS size FROM INSTANCEOF java.lang.Object o WHERE o.@usedHeapSize > 2000';
    const { raw, exitCode, signal } = await inTerminal(`exec ${heapql(['query', big, '--no-cache', '--query', query, '--format', 'csv'])} > ${sh(device)}`);
    expect(exitCode, raw.slice(-400)).toBe(0);
    expect(signal, raw.slice(-400)).toBeUndefined();
    const scan = drawings(raw).filter((d) => d.label === 'query q1');
    // Drawn to its end (the last redraw may come just short of 100 %), not taken down at the first rows.
    expect(Math.max(...scan.map((d) => d.percent ?? 0)), JSON.stringify(scan)).toBeGreaterThanOrEqual(90);
    expect(raw).not.toContain('id,size');
    // The rows reached the other terminal: its output is read as it comes, so the header shows
    // there sooner or later (waited for without a time limit: a header that never comes fails
    // the test by the test timeout).
    await new Promise<void>((resolve) => {
      const seen = () => shown.includes('id,size') && resolve();
      seen();
      elsewhere.onData(seen);
    });
    expect(shown).toContain('id,size');
  });

  it.skipIf(!haveBig)('Ctrl-C during the scan of the 1 GB dump stops it: exit 130, `interrupted`, nothing written, the scan short of its end', async () => {
    const out = path.join(tmp, 'big.csv');
    const query = 'SELECT s FROM java.lang.String s WHERE s.@length > 100000';
    let sent = false;
    const { raw, exitCode, signal } = await inTerminal(`exec ${heapql(['query', big, '--no-cache', '--query', query, '--format', 'csv'])} > ${sh(out)}`, (drawn, pty) => {
      if (!sent && drawings(drawn).some((d) => d.label === 'query q1')) {
        sent = true;
        pty.write('\x03');
      }
    });
    expect(sent, JSON.stringify(raw.slice(-600))).toBe(true);
    expect(exitCode, JSON.stringify(raw.slice(-600))).toBe(130);
    expect(signal, JSON.stringify(raw.slice(-600))).toBeUndefined();
    expect(raw).toContain('interrupted: stopping…');
    expect(raw).toContain('error: interrupted; nothing was written');
    // The scan did not run to its end: no drawing of it reached 100 %.
    const scan = drawings(raw).filter((d) => d.label === 'query q1');
    expect(scan.every((d) => d.percent !== null && d.percent < 100), JSON.stringify(scan)).toBe(true);
    // The bar came down before the interruption was said, and the cursor is back.
    expect(raw.lastIndexOf('\x1b[?25h')).toBeLessThan(raw.indexOf('interrupted: stopping…'));
    expect(readFileSync(out, 'utf8')).toBe('');
  });
});

describe('the other commands that run queries', () => {
  it('heapql analyze --query: after the analysis, the streamed scan as `query q1`; stdout holds the rows alone', async () => {
    const args = ['analyze', known, '--no-cache', '--query', ROWS, '--format', 'csv'];
    const out = path.join(tmp, 'analyze.csv');
    const { raw, exitCode, signal } = await inTerminal(`exec ${heapql(args)} > ${sh(out)}`);
    expect(exitCode, raw).toBe(0);
    expect(signal, raw).toBeUndefined();
    const seen = labels(raw);
    expect(seen, JSON.stringify(raw.slice(0, 2000))).toContain('query q1');
    expect(seen).toContain('graph');
    expect(seen.indexOf('graph')).toBeLessThan(seen.indexOf('query q1'));
    expect(readFileSync(out, 'utf8')).toBe(plainStdout(args));
  });

  // The top-level dominators by class (the current dump), the copies of the current dump's
  // duplicated strings (the baseline), the reachable int[]s (both).
  it("heapql diff: the dumps' own queries after their sections are drawn (`query top-level`, `query strings`, `query int[]`)", async () => {
    const out = path.join(tmp, 'diff.md');
    const { raw, exitCode, signal } = await inTerminal(`exec ${heapql(['diff', other, known, '--no-cache'])} > ${sh(out)}`);
    expect(exitCode, raw.slice(-600)).toBe(0);
    expect(signal, raw.slice(-600)).toBeUndefined();
    const seen = labels(raw);
    expect(seen, JSON.stringify(seen)).toContain('query top-level');
    expect(seen).toContain('query strings');
    expect(seen).toContain('query int[]');
    expect(seen.indexOf('report')).toBeLessThan(seen.indexOf('query top-level'));
    expect(readFileSync(out, 'utf8')).not.toContain('\x1b');
    expect(readFileSync(out, 'utf8')).toContain('#');
  });
});
