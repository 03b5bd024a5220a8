/**
 * The progress bar and the ways a process ends. A drawn bar hides the cursor and turns line
 * wrapping off; whatever ends the process while it is drawn (SIGTERM, SIGHUP, process.exit)
 * must turn both back on and clear the bar's line, and a SIGTERM or SIGHUP still ends the
 * process by that signal. Driven in a real pseudo-terminal: a small program draws a bar with
 * the CLI's own module (dist/cli/progress.js, built by tsc) and waits to be ended.
 *
 * And Ctrl-C with nested long calls (`heapql diff` opens and analyzes each dump inside its own
 * long call): one Ctrl-C says `interrupted: stopping…` once and fires every signal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn, type IPty } from '@lydell/node-pty';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { interruptSignal } from '../../ts/cli/progress.js';
import { setQuiet } from '../../ts/cli/stderr.js';
import { ptysKilledAfterEach } from './pty-harness.js';

const progressModule = pathToFileURL(path.resolve(__dirname, '../../dist/cli/progress.js')).href;

const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const WRAP_OFF = '\x1b[?7l';
const WRAP_ON = '\x1b[?7h';
const CLEAR_LINE = '\x1b[2K';

/** A program that draws a bar at 40 % (after the bar's delay), says `drawn`, and waits. */
const PROGRAM = `
import { terminalProgress } from ${JSON.stringify(progressModule)};
const progress = terminalProgress();
progress.onProgress({ phase: 'index', done: 40, total: 100 });
const drawn = setInterval(() => {}, 1000);
// The bar is drawn on its first render; a line on stdin ends the process with process.exit.
process.stdin.on('data', () => process.exit(3));
`;

interface Ended {
  raw: string;
  exitCode: number;
  signal: number | undefined;
}

const open = ptysKilledAfterEach();

/** Runs PROGRAM in a terminal, waits for the bar, then ends it with `end`. */
async function drawThenEnd(end: (pty: IPty) => void): Promise<Ended> {
  const pty = spawn(process.execPath, ['--input-type=module', '-e', PROGRAM], {
    cols: 100,
    rows: 20,
    env: { ...process.env, CI: '', NO_COLOR: '1' } as Record<string, string>,
  });
  open.push(pty);
  let raw = '';
  let wake: (() => void) | null = null;
  pty.onData((d) => {
    raw += d;
    wake?.();
  });
  const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => pty.onExit(resolve));
  let gone = false;
  void exited.then(() => {
    gone = true;
    wake?.();
  });
  while (!raw.includes('40%')) {
    if (gone) throw new Error(`the program ended before drawing its bar: ${JSON.stringify(raw)}`);
    await new Promise<void>((r) => (wake = r));
  }
  end(pty);
  const { exitCode, signal } = await exited;
  return { raw, exitCode, signal };
}

/** The terminal is as the bar found it: cursor shown and wrapping on after they were turned off, the bar's line cleared. */
function expectRestored(raw: string): void {
  const hidden = raw.lastIndexOf(HIDE_CURSOR);
  const off = raw.lastIndexOf(WRAP_OFF);
  expect(hidden, 'the bar hid the cursor').toBeGreaterThanOrEqual(0);
  expect(off, 'the bar turned wrapping off').toBeGreaterThanOrEqual(0);
  expect(raw.indexOf(SHOW_CURSOR, hidden), JSON.stringify(raw)).toBeGreaterThan(hidden);
  expect(raw.indexOf(WRAP_ON, off), JSON.stringify(raw)).toBeGreaterThan(off);
  // The line is cleared after the bar's last drawing: nothing of it is left on the screen.
  expect(raw.indexOf(CLEAR_LINE, raw.lastIndexOf('40%')), JSON.stringify(raw)).toBeGreaterThan(raw.lastIndexOf('40%'));
}

describe('a drawn progress bar and the end of the process', () => {
  for (const [name, number] of [['SIGTERM', 15], ['SIGHUP', 1]] as const) {
    it(`${name}: cursor and line wrapping restored, the line cleared, and the process still ends by ${name}`, async () => {
      const ended = await drawThenEnd((pty) => pty.kill(name));
      expectRestored(ended.raw);
      expect(ended.signal).toBe(number);
    });
  }

  it('process.exit while the bar is drawn: restored too, the exit code kept', async () => {
    const ended = await drawThenEnd((pty) => pty.write('x\r'));
    expectRestored(ended.raw);
    expect(ended.exitCode).toBe(3);
  });
});

describe('Ctrl-C with nested long calls', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    setQuiet(false);
  });

  it('one Ctrl-C: one "interrupted" notice, every signal fired; the handler goes with the last dispose', () => {
    const before = process.listeners('SIGINT');
    const outer = interruptSignal();
    const inner = interruptSignal();
    const added = process.listeners('SIGINT').filter((l) => !before.includes(l));
    expect(added.length).toBeGreaterThan(0);
    const said: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => said.push(String(chunk)) > 0);
    // The Ctrl-C, as the process delivers it: to every listener heapql added.
    for (const l of added) (l as (signal: string) => void)('SIGINT');
    vi.restoreAllMocks();
    expect(said).toEqual(['interrupted: stopping… (Ctrl-C again to quit at once)\n']);
    expect(outer.signal.aborted).toBe(true);
    expect(inner.signal.aborted).toBe(true);
    // A long call that starts after the Ctrl-C (the next step of the interrupted command) is stopped already.
    const late = interruptSignal();
    expect(late.signal.aborted).toBe(true);
    late.dispose();
    inner.dispose();
    outer.dispose();
    expect(process.listeners('SIGINT')).toEqual(before);
    // The next command's long call starts afresh.
    const next = interruptSignal();
    expect(next.signal.aborted).toBe(false);
    next.dispose();
    expect(process.listeners('SIGINT')).toEqual(before);
  });
});

/**
 * A command of two long calls (open, then analyze), with a Ctrl-C that lands as the first ends:
 * the process is busy (the Ctrl-C waits to be handled) until a file the test writes after
 * sending it appears. With a handler per call the Ctrl-C was dropped with the first call's
 * handler and the second ran as if nothing had happened; the command holds one handler throughout.
 */
const TWO_STEPS = `
import { existsSync } from 'node:fs';
import { asOneCommand, withProgress } from ${JSON.stringify(progressModule)};
const go = process.argv[1];
await asOneCommand(async () => {
  await withProgress(async () => {
    await new Promise((r) => setImmediate(r));
    process.stdout.write('ending\\n');
    while (!existsSync(go)) {}
  });
  process.stdout.write('between\\n');
  try {
    await withProgress(async ({ signal }) => {
      // A native call's work runs while the event loop turns (and takes the Ctrl-C on its way).
      await new Promise((r) => setImmediate(r));
      process.stdout.write(signal.aborted ? 'second: stopped\\n' : 'second: ran\\n');
    });
  } catch (err) {
    process.stdout.write('second: ' + err.code + '\\n');
  }
});
`;

describe('Ctrl-C between two long calls of one command', () => {
  it('is not lost: "interrupted" is said and the second call does not run', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-two-steps-'));
    const go = path.join(dir, 'go');
    try {
      const pty = spawn(process.execPath, ['--input-type=module', '-e', TWO_STEPS, go], {
        cols: 100,
        rows: 20,
        env: { ...process.env, CI: '', NO_COLOR: '1' } as Record<string, string>,
      });
      open.push(pty);
      let raw = '';
      let wake: (() => void) | null = null;
      pty.onData((d) => {
        raw += d;
        wake?.();
      });
      const exited = new Promise<{ exitCode: number }>((resolve) => pty.onExit(resolve));
      let gone = false;
      void exited.then(() => {
        gone = true;
        wake?.();
      });
      while (!raw.includes('ending')) {
        if (gone) throw new Error(`the program ended early: ${JSON.stringify(raw)}`);
        await new Promise<void>((r) => (wake = r));
      }
      pty.write('\x03');
      writeFileSync(go, '');
      const { exitCode } = await exited;
      expect(raw).toContain('interrupted: stopping');
      expect(raw).toMatch(/second: (stopped|ERR_CANCELLED)/);
      expect(exitCode).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
