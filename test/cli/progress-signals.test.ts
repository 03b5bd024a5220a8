/**
 * The progress bar and the ways a process ends. A drawn bar hides the cursor and turns line
 * wrapping off; whatever ends the process while it is drawn (SIGTERM, SIGHUP, process.exit)
 * must turn both back on and clear the bar's line, and a SIGTERM or SIGHUP still ends the
 * process by that signal. Driven in a real pseudo-terminal: a small program draws a bar with
 * the CLI's own module (dist/cli/progress.js, built by tsc) and waits to be ended. The program
 * runs under the REPL tests' Terminal (test/repl/pty-terminal.ts): its output is read to the end
 * its wrapper says after it, with its exit code or signal, not to node-pty's exit event, after
 * which the last bytes (the terminal's restoring) could be missing on a loaded machine; signals
 * go to the program's own pid.
 *
 * And Ctrl-C with nested long calls (`heapql diff` opens and analyzes each dump inside its own
 * long call): one Ctrl-C says `interrupted: stopping…` once and fires every signal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import { interruptSignal } from '../../ts/cli/progress.js';
import { setQuiet } from '../../ts/cli/stderr.js';
import { closeTerminals, Terminal } from '../repl/pty-terminal.js';

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

const state = mkdtempSync(path.join(tmpdir(), 'heapql-progress-signals-'));
afterAll(() => rmSync(state, { recursive: true, force: true }));
afterEach(() => closeTerminals());

/** `node --input-type=module -e <program> …args` in a terminal of 100 columns. */
function nodeProgram(program: string, ...args: string[]): Terminal {
  return new Terminal(['--input-type=module', '-e', program, ...args], state, { program: process.execPath, cols: 100 });
}

/** Runs PROGRAM in a terminal, waits for the bar, then ends it with `end`; what it wrote to its end, and how it ended. */
async function drawThenEnd(end: (t: Terminal) => void): Promise<Ended> {
  const t = nodeProgram(PROGRAM);
  await t.waitFor('40%');
  end(t);
  const exitCode = await t.exited;
  return { raw: t.raw, exitCode, signal: t.signal };
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
      const ended = await drawThenEnd((t) => process.kill(t.pid, name));
      expectRestored(ended.raw);
      expect(ended.signal, JSON.stringify(ended)).toBe(number);
      expect(ended.exitCode).toBe(0);
    });
  }

  it('process.exit while the bar is drawn: restored too, the exit code kept', async () => {
    const ended = await drawThenEnd((t) => t.type('x\r'));
    expectRestored(ended.raw);
    expect(ended.exitCode).toBe(3);
    expect(ended.signal).toBeUndefined();
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
      const t = nodeProgram(TWO_STEPS, go);
      const at = await t.waitFor('ending');
      t.type('\x03');
      // The terminal has taken the Ctrl-C (its echo: the SIGINT is sent) before the program may go
      // on. Let go sooner, it could finish first, and the terminal, taking the Ctrl-C then, would
      // throw away what it wrote that the test had not read yet (a Ctrl-C flushes the output).
      await t.waitFor('^C', at);
      writeFileSync(go, '');
      const exitCode = await t.exited;
      const raw = t.raw;
      expect(raw, JSON.stringify({ exitCode, signal: t.signal, raw })).toContain('interrupted: stopping');
      expect(raw).toMatch(/second: (stopped|ERR_CANCELLED)/);
      expect(exitCode, JSON.stringify(raw)).toBe(0);
      expect(t.signal).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
