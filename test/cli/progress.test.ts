/** The progress bar: only on a terminal, never with --quiet, and only for work longer than the delay (showAfterMs, 500 ms by default). */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { showAfterMs, terminalProgress } from '../../ts/cli/progress.js';
import { setQuiet } from '../../ts/cli/stderr.js';

const SHOW_AFTER_MS = showAfterMs();

/** A stand-in for a terminal stream that records what is drawn. */
function fakeTerminal(isTTY = true) {
  const drawn: string[] = [];
  const stream = {
    isTTY,
    columns: 100,
    write: (s: string) => drawn.push(s) > 0,
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
    clearScreenDown: () => true,
    on: () => stream,
    removeListener: () => stream,
  };
  return { stream: stream as unknown as NodeJS.WriteStream, drawn };
}

const event = (done: number) => ({ phase: 'index', done, total: 100 });

describe('terminalProgress', () => {
  const ci = process.env.CI;
  beforeEach(() => {
    vi.useFakeTimers();
    delete process.env.CI;
  });
  afterEach(() => {
    vi.useRealTimers();
    setQuiet(false);
    if (ci !== undefined) process.env.CI = ci;
  });

  it('draws nothing for work that ends sooner than SHOW_AFTER_MS', () => {
    const { stream, drawn } = fakeTerminal();
    const progress = terminalProgress(undefined, stream);
    progress.onProgress(event(10));
    vi.advanceTimersByTime(SHOW_AFTER_MS - 100);
    progress.onProgress(event(90));
    progress.stop();
    vi.advanceTimersByTime(10 * SHOW_AFTER_MS);
    expect(drawn.join('')).toBe('');
  });

  it('draws the bar once the work has run for SHOW_AFTER_MS, with the latest progress', () => {
    const { stream, drawn } = fakeTerminal();
    const progress = terminalProgress(undefined, stream);
    progress.onProgress(event(10));
    progress.onProgress(event(40));
    vi.advanceTimersByTime(SHOW_AFTER_MS + 1);
    expect(drawn.join('')).toContain('40%');
    progress.onProgress(event(70));
    vi.advanceTimersByTime(1000);
    expect(drawn.join('')).toContain('70%');
    progress.stop();
  });

  it('a phase with no total (writing the cache): a spinner and the bytes so far, no bar or percentage', () => {
    const { stream, drawn } = fakeTerminal();
    const progress = terminalProgress(undefined, stream);
    progress.onProgress(event(100));
    vi.advanceTimersByTime(SHOW_AFTER_MS + 1);
    expect(drawn.join('')).toContain('100%');
    drawn.length = 0;
    progress.onProgress({ phase: 'writing cache', done: 3 * 2 ** 20, total: 0 });
    vi.advanceTimersByTime(1000);
    const lines = drawn.join('').split(/\x1b\[\d*G/).filter((l) => l.includes('writing cache'));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(l).toMatch(/^writing cache [|/\\-] 3\.0 MiB/);
      expect(l).not.toContain('%');
    }
    progress.stop();
  });

  it('draws nothing when the stream is not a terminal, or with --quiet', () => {
    for (const [isTTY, quiet] of [[false, false], [true, true]]) {
      setQuiet(quiet);
      const { stream, drawn } = fakeTerminal(isTTY);
      const progress = terminalProgress(undefined, stream);
      progress.onProgress(event(10));
      vi.advanceTimersByTime(10 * SHOW_AFTER_MS);
      progress.stop();
      expect(drawn.join('')).toBe('');
    }
  });
});

describe('HEAPQL_PROGRESS_AFTER_MS', () => {
  it('a bad value is a warning in the words of every other, said once, and --quiet silences it', () => {
    const root = path.resolve(__dirname, '../..');
    const run = (...extra: string[]) =>
      spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', path.join(root, 'fixtures/demo/demo.hprof'), '--query', 'SELECT COUNT(*) AS n FROM Demo$Session s', '--no-cache', ...extra], {
        encoding: 'utf8',
        env: { ...process.env, HEAPQL_PROGRESS_AFTER_MS: 'soon', HEAPQL_DEBUG: '', NO_COLOR: '1' },
      });
    const loud = run();
    expect(loud.status).toBe(0);
    expect(loud.stderr).toBe('warning: HEAPQL_PROGRESS_AFTER_MS="soon" is not a number of milliseconds ≥ 0; the bar appears after 500 ms\n');
    expect(loud.stdout).toContain('400');
    const quiet = run('--quiet');
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(loud.stdout);
  });
});
