/**
 * What the progress line says in a real pseudo-terminal, phase by phase, for the report command
 * with a query: opening, writing the index cache (a spinner and the bytes so far: its size is
 * not known beforehand, so no bar at 100 %), the full analysis and its cache, the query under
 * its name, the report's sections, and the rendering; from the cache, the verification of each
 * cache file opened (a bar of the bytes verified). HEAPQL_PROGRESS_AFTER_MS=0 draws the bar
 * at once (a fixture dump is opened faster than the bar's usual delay). Labels only, no timings.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IPty } from '@lydell/node-pty';
import { afterAll, describe, expect, it } from 'vitest';

import { benchDump1g, heapqlCommand, ptysKilledAfterEach, runInTerminal, type TerminalRun } from './pty-harness.js';

const root = path.resolve(__dirname, '../..');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
// A scan of every object (a plain COUNT(*) of a class is answered from the histogram, no scan).
const SCAN = 'SELECT COUNT(*) AS n FROM java.lang.Object o WHERE o.@usedHeapSize > 16';

// The 1 GB benchmark dump (npm run bench makes it): its index takes long enough to write that a
// Ctrl-C lands while it is written.
const { big, haveBig } = benchDump1g('the Ctrl-C-while-writing-the-cache test');

const tmp = mkdtempSync(path.join(tmpdir(), 'heapql-phases-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

ptysKilledAfterEach();

/**
 * Runs heapql in a terminal to its end (as the terminal's wrapper says it: runInTerminal, which
 * does not lose the last output to node-pty's exit event on a loaded machine); what it drew, its
 * exit code and the signal that ended it, if one did.
 */
async function inTerminal(args: string[], onData?: (raw: string, pty: IPty) => void): Promise<TerminalRun> {
  expect(existsSync(known), `${known} is missing: run fixtures/make-fixtures.sh`).toBe(true);
  const env = { ...process.env, CI: '', NO_COLOR: '1', HEAPQL_DEBUG: '', HEAPQL_PROGRESS_AFTER_MS: '0' } as Record<string, string>;
  return runInTerminal(heapqlCommand(args), { cols: 160, rows: 30, cwd: tmp, env }, onData);
}

/** Each drawing of the progress line: its label, and whether it was a bar (a percentage) or a spinner. */
function drawings(raw: string): { label: string; bar: boolean }[] {
  const out: { label: string; bar: boolean }[] = [];
  for (const m of raw.matchAll(/\x1b\[1G([^\x1b]*)\x1b\[0K/g)) {
    const line = m[1]!;
    const bar = /^(.*?) +\|.*\| \d+% \|/.exec(line);
    const spinner = /^(.*?) [|/\\-](?: |$)/.exec(line);
    if (bar) out.push({ label: bar[1]!.trim(), bar: true });
    else if (spinner) out.push({ label: spinner[1]!.trim(), bar: false });
  }
  return out;
}

/** The labels drawn, each once, in the order they first were. */
function phases(raw: string): string[] {
  return [...new Set(drawings(raw).map((d) => d.label))];
}

describe('the progress line of `heapql <dump> <report> --query`, in a terminal', () => {
  it('names every phase: the cache writes, the query, the rendering', async () => {
    const cache = path.join(tmp, 'cache');
    const report = path.join(tmp, 'report.html');
    const { raw, exitCode, signal } = await inTerminal([known, report, '--query', SCAN, '--cache-dir', cache]);
    expect(exitCode, raw).toBe(0);
    expect(signal, raw).toBeUndefined();
    expect(readFileSync(report, 'utf8')).toContain('<html');
    const seen = phases(raw);
    // Writing the index and the analysis to the cache: a spinner, never a bar.
    expect(seen, JSON.stringify(raw)).toContain('writing cache');
    expect(drawings(raw).filter((d) => d.label === 'writing cache' && d.bar)).toEqual([]);
    expect(drawings(raw).filter((d) => d.label === 'rendering html' && d.bar)).toEqual([]);
    expect(seen).toContain('query q1');
    expect(seen).toContain('report');
    expect(seen).toContain('rendering html');
    expect(seen.indexOf('writing cache')).toBeLessThan(seen.indexOf('query q1'));
    expect(seen.indexOf('query q1')).toBeLessThan(seen.indexOf('rendering html'));
    expect(readdirSync(cache).length).toBe(1);

    // Nothing was verified: no file was there to open.
    expect(seen).not.toContain('verifying cache');

    // From the cache: nothing is written, so no such phase; the query and the rendering still show.
    const again = await inTerminal([known, report, '--query', SCAN, '--cache-dir', cache]);
    expect(again.exitCode, again.raw).toBe(0);
    expect(again.signal, again.raw).toBeUndefined();
    const cached = phases(again.raw);
    expect(cached).not.toContain('writing cache');
    // Each cache file's checksums are verified as it is opened: a bar of the bytes verified (the
    // total is known), drawn first, before the query.
    expect(cached[0], JSON.stringify(again.raw)).toBe('verifying cache');
    expect(cached.indexOf('verifying cache')).toBeLessThan(cached.indexOf('query q1'));
    const verifying = drawings(again.raw).filter((d) => d.label === 'verifying cache');
    expect(verifying.length).toBeGreaterThan(0);
    expect(verifying.every((d) => d.bar)).toBe(true);
    expect(cached).toContain('query q1');
    expect(cached).toContain('rendering html');
  });

  it('a --reachable-only query before the full analysis first names the search for the reachable objects', async () => {
    const { raw, exitCode, signal } = await inTerminal(['query', known, '--reachable-only', '--no-cache', '--query', SCAN]);
    expect(exitCode, raw).toBe(0);
    expect(signal, raw).toBeUndefined();
    const seen = phases(raw);
    expect(seen, JSON.stringify(raw)).toContain('reachability q1');
    expect(seen.indexOf('reachability q1')).toBeLessThan(seen.indexOf('query q1'));
  });

  // A fixture's index is written too fast to be interrupted; the cancel check itself is also
  // tested on small files in crates/cache/tests/store.rs.
  it.skipIf(!haveBig)('Ctrl-C while the index cache is written stops the writing: exit 130, nothing cached, nothing left behind', async () => {
    const cache = path.join(tmp, 'big-cache');
    let sent = false;
    const { raw, exitCode, signal } = await inTerminal(['query', big, '--query', SCAN, '--cache-dir', cache], (drawn, pty) => {
      if (!sent && drawn.includes('writing cache')) {
        sent = true;
        pty.write('\x03');
      }
    });
    expect(sent, JSON.stringify(raw.slice(-400))).toBe(true);
    expect(exitCode, raw.slice(-400)).toBe(130);
    expect(signal, raw.slice(-400)).toBeUndefined();
    expect(raw).toContain('interrupted');
    const files = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
    expect(files.filter((f) => f.endsWith('.hqc') || f.includes('.tmp.'))).toEqual([]);
  });
});
