/**
 * Progress on a terminal and Ctrl-C handling for long native calls. The bar is drawn on stderr
 * only when stderr is a TTY (never in pipes, files or CI logs), not with --quiet, and only once
 * the work has run for HEAPQL_PROGRESS_AFTER_MS (500 ms by default): a quick step leaves no flicker behind.
 */
import { fstatSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import cliProgress from 'cli-progress';

import { HeapqlError } from '../errors.js';
import type { ProgressEvent } from '../heap.js';
import { formatBytes } from '../report/summary.js';
import { onTerminalGone } from './hangup.js';
import type { ScanProgress } from './query-output.js';
import { isQuiet, notice, warn } from './stderr.js';

export interface TerminalProgress {
  onProgress: (event: ProgressEvent) => void;
  /**
   * A step that blocks the event loop (rendering the report): its label is drawn at once (no
   * redraw can happen while it runs), when the bar is drawn already or the command has run
   * for the delay (showAfterMs).
   */
  blockingStep: (phase: string) => void;
  stop: () => void;
}

const PHASE_WIDTH = 12;
/**
 * Work shorter than this shows no bar; HEAPQL_PROGRESS_AFTER_MS sets another delay (0: the bar
 * at once, as the terminal tests use it). Read when the first bar is asked for (after --quiet is
 * known), so that a bad value is a warning --quiet silences; said once.
 */
let showAfter: number | undefined;
export function showAfterMs(): number {
  if (showAfter !== undefined) return showAfter;
  const text = process.env.HEAPQL_PROGRESS_AFTER_MS;
  const ms = text === undefined || text === '' ? 500 : Number(text);
  if (Number.isFinite(ms) && ms >= 0) return (showAfter = ms);
  // Said, not silently ignored: the setting is for people watching a terminal.
  warn(`HEAPQL_PROGRESS_AFTER_MS=${JSON.stringify(text)} is not a number of milliseconds ≥ 0; the bar appears after 500 ms`);
  return (showAfter = 500);
}

/** The spinner's frames, one per redraw tick, for a phase with no total (`total` 0). */
const SPINNER = ['|', '/', '-', '\\'];

interface BarPayload {
  phase: string;
  doneText: string;
  totalText: string;
  /** No total known: a spinner and the amount so far, no percentage. */
  open: boolean;
}

/** A phase with a total: its bar and percentage; without one (writing the cache): a spinner and the amount so far. */
function formatLine(options: cliProgress.Options, params: cliProgress.Params, payload: BarPayload): string {
  if (payload.open) {
    const frame = SPINNER[Math.floor(Date.now() / 100) % SPINNER.length];
    return `${payload.phase} ${frame}${payload.doneText ? ` ${payload.doneText}` : ''}`;
  }
  const percent = Math.floor(params.progress * 100);
  return `${payload.phase} |${cliProgress.Format.BarFormat(params.progress, options)}| ${percent}% | ${payload.doneText} / ${payload.totalText}`;
}

export function terminalProgress(signal?: AbortSignal, stream: NodeJS.WriteStream = process.stderr): TerminalProgress {
  const afterMs = showAfterMs();
  if (!stream.isTTY || process.env.CI || isQuiet()) return { onProgress: () => {}, blockingStep: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: formatLine as unknown as string, // cli-progress takes a format function too
      barsize: 30,
      hideCursor: true,
      clearOnComplete: true,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  let phase = '';
  let latest: ProgressEvent | undefined;
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let stopped = false;
  const payload = (event: ProgressEvent): BarPayload => ({
    phase: event.phase.padEnd(PHASE_WIDTH),
    doneText: event.total > 0 || event.done > 0 ? formatAmount(event.done, event.phase) : '',
    totalText: formatAmount(event.total, event.phase),
    open: !(event.total > 0),
  });
  const show = (event: ProgressEvent) => {
    if (!started) {
      // From here the terminal has its cursor hidden and line wrapping off: restored however
      // the process ends (see `drawn`), by handlers in place before the first byte is drawn.
      drawn.add(stop);
      watchExits();
      bar.start(event.total || 1, event.done, payload(event));
      started = true;
    } else {
      // A new phase, or a total that grew (a query's scans are announced as they start).
      bar.setTotal(event.total || 1);
    }
    bar.update(event.done, payload(event));
    // A new phase is drawn as it starts (the redraws are throttled: a short one would be
    // skipped, and the line would go on naming the phase before).
    if (event.phase !== phase) (bar as unknown as { render: () => void }).render();
    phase = event.phase;
  };
  const stop = () => {
    clearTimeout(timer);
    if (started && !stopped) bar.stop();
    stopped = true;
    abandoned.delete(abandon);
    if (drawn.delete(stop) && drawn.size === 0) unwatchExits();
  };
  // The terminal gone: the redraws end, and nothing more is written (it would fail again).
  const abandon = () => {
    clearTimeout(timer);
    const redraw = bar as unknown as { timer: NodeJS.Timeout | null };
    if (redraw.timer) clearTimeout(redraw.timer);
    redraw.timer = null;
    stopped = true;
    drawn.delete(stop);
  };
  abandoned.add(abandon);
  // Ctrl-C: take the bar down at once so the interruption message is the last thing shown.
  signal?.addEventListener('abort', stop, { once: true });
  return {
    onProgress(event) {
      if (stopped) return;
      latest = event;
      if (started || afterMs === 0) return show(event);
      // The first event starts the clock; the bar appears only if the work is still running.
      timer ??= setTimeout(() => {
        if (!stopped && latest) show(latest);
      }, afterMs).unref();
    },
    blockingStep(phase) {
      if (stopped) return;
      const event = { phase, done: 0, total: 0 };
      latest = event;
      if (!started && performance.now() < afterMs) {
        timer ??= setTimeout(() => {
          if (!stopped && latest) show(latest);
        }, afterMs).unref();
        return;
      }
      // Drawn now (a new phase): no timer of the bar's fires until the step is over.
      show(event);
    },
    stop,
  };
}

/**
 * The bar of one query's scan whose rows go to `stdout` as they come (`heapql query`, `heapql
 * analyze`; see query-output.ts), drawn on stderr as any other bar, Ctrl-C (`signal`) taking it
 * down. Rows written to the terminal the bar is drawn on would be mixed into its line (and the
 * bar redrawn between them): then the bar is taken down before the result's first text goes
 * out, and stays down for that query (rows on the terminal show the progress themselves).
 * Rows going elsewhere (a file, a pipe, another terminal) leave the bar up until the scan ends.
 */
export function scanProgress(signal: AbortSignal, stdout: NodeJS.WritableStream = process.stdout, stream: NodeJS.WriteStream = process.stderr): ScanProgress {
  const bar = terminalProgress(signal, stream);
  const shared = sameTerminal(stdout, stream);
  return {
    onProgress: bar.onProgress,
    beforeOutput: () => {
      if (shared) bar.stop();
    },
    stop: bar.stop,
  };
}

/** Whether `stdout` writes to the terminal `stderr` is (the same device; when that cannot be told, taken as the same). */
function sameTerminal(stdout: NodeJS.WritableStream, stderr: NodeJS.WriteStream): boolean {
  const out = stdout as { isTTY?: boolean; fd?: number };
  const err = stderr as { isTTY?: boolean; fd?: number };
  if (!out.isTTY || !err.isTTY || out.fd === undefined || err.fd === undefined) return out.isTTY === true && err.isTTY === true;
  try {
    return fstatSync(out.fd).rdev === fstatSync(err.fd).rdev;
  } catch {
    return true;
  }
}

/**
 * The bars on the screen, each by its `stop`. A drawn bar has hidden the cursor and turned line
 * wrapping off (`\x1b[?25l`, `\x1b[?7l`); its `stop` turns both back on and clears its line.
 * Ctrl-C stops it through the interrupt signal; SIGTERM and SIGHUP (`kill`, `timeout`, the
 * terminal closed) and any other way out of the process (`process.exit`) would leave the shell
 * without a cursor and with long lines cut at the edge, so while a bar is drawn those stop it too.
 */
const drawn = new Set<() => void>();
/** Each bar's way to stop without writing, for a terminal that is gone (see hangup.ts). */
const abandoned = new Set<() => void>();
onTerminalGone(() => {
  for (const abandon of [...abandoned]) abandon();
  unwatchExits();
});
const FATAL_SIGNALS = ['SIGTERM', 'SIGHUP'] as const;

function stopAll(): void {
  for (const stop of [...drawn]) stop();
}

/**
 * SIGTERM or SIGHUP while a bar is drawn: the bar comes down, then the signal does what it
 * would have done: with no other listener, the process ends by it (exit status 128 + signal, as
 * before); a command with its own handler (the server's SIGTERM) gets it as usual.
 */
function onFatalSignal(signal: NodeJS.Signals): void {
  stopAll();
  unwatchExits();
  if (process.listenerCount(signal) === 0) {
    restoreTerminal();
    process.kill(process.pid, signal);
  }
}

/**
 * Re-raised, the signal ends the process without Node's own reset of the terminal (which it
 * makes on its way out by SIGTERM or SIGINT when no listener is left to take them): the REPL's
 * raw mode and bracketed paste would stay on in the shell. Both off, and the cursor shown.
 */
function restoreTerminal(): void {
  const input = process.stdin as Partial<import('node:tty').ReadStream>;
  try {
    if (input.isTTY && input.isRaw) input.setRawMode?.(false);
    if (process.stdout.isTTY) process.stdout.write('\x1b[?2004l\x1b[?25h');
  } catch {
    // a terminal that is gone: nothing to restore
  }
}

let watching = false;

function watchExits(): void {
  if (watching) return;
  watching = true;
  for (const s of FATAL_SIGNALS) process.on(s, onFatalSignal);
  process.on('exit', stopAll);
}

function unwatchExits(): void {
  if (!watching) return;
  watching = false;
  for (const s of FATAL_SIGNALS) process.off(s, onFatalSignal);
  process.off('exit', stopAll);
}

/** Byte counts for reading phases, plain counts for object phases. */
function formatAmount(n: number, phase: string): string {
  return /read|index|scan|pass|record|cache/i.test(phase) ? formatBytes(n) : n.toLocaleString('en-US');
}

/**
 * The signals of the interrupt handlers in use (nested ones included), the commands holding the
 * handler (`holdInterrupts`), and the Ctrl-Cs so far.
 */
const interruptible = new Set<AbortController>();
let held = 0;
let interrupts = 0;

/** One Ctrl-C: every signal in use fires and the notice is said once; a second exits at once. */
function onInterrupt(): void {
  interrupts++;
  if (interrupts === 1) {
    for (const c of interruptible) c.abort();
    notice('interrupted: stopping… (Ctrl-C again to quit at once)');
  } else {
    process.exit(130);
  }
}

/** The handler in place for the first user; a fresh count when nothing held it before. */
function listen(): void {
  if (interruptible.size > 0 || held > 0) return;
  interrupts = 0;
  process.on('SIGINT', onInterrupt);
}

/** The handler gone with its last user. */
function unlisten(): void {
  if (interruptible.size === 0 && held === 0) process.off('SIGINT', onInterrupt);
}

/**
 * Keeps the Ctrl-C handler, and its count, for a whole command made of several long calls (open,
 * analyze, report): a Ctrl-C that lands between two of them is not lost (with one handler per
 * call, one that came while the first was ending was dropped as its handler went, and the next
 * call ran as if nothing had happened); the next call starts stopped. Returns the release.
 */
export function holdInterrupts(): () => void {
  listen();
  held++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held--;
    unlisten();
  };
}

/** Runs a command of several long calls with the Ctrl-C handler held throughout (`holdInterrupts`). */
export async function asOneCommand<T>(work: () => Promise<T>): Promise<T> {
  const release = holdInterrupts();
  try {
    return await work();
  } finally {
    release();
  }
}

/** A command holding the handler was interrupted: ERR_CANCELLED (`error: interrupted; nothing was written`, exit 130). */
export function throwIfInterrupted(): void {
  if (interrupts > 0) throw new HeapqlError('ERR_CANCELLED', 'interrupted');
}

/**
 * An AbortSignal fired by the first Ctrl-C; a second Ctrl-C exits at once.
 * `dispose` removes the handler once the long call is over (unless a command holds it, see
 * `holdInterrupts`). Calls may nest (`heapql diff` opens and analyzes each dump inside its own
 * long call): one process handler serves them all, so one Ctrl-C fires each signal and says
 * `interrupted: …` once; a signal asked for after that Ctrl-C is already fired.
 */
export function interruptSignal(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  listen();
  if (interrupts > 0) controller.abort();
  interruptible.add(controller);
  return {
    signal: controller.signal,
    dispose: () => {
      if (interruptible.delete(controller)) unlisten();
    },
  };
}

/** What a long call gets from `withProgress`: the bar's callback and the Ctrl-C signal. */
export interface ProgressAndInterrupt {
  onProgress: (event: ProgressEvent) => void;
  /** See `TerminalProgress.blockingStep`. */
  blockingStep: (phase: string) => void;
  signal: AbortSignal;
}

/**
 * Runs one long native call with the terminal's progress bar and Ctrl-C, and takes both down
 * when it ends (however it ends), so that what the command prints next is not drawn over.
 */
export async function withProgress<T>(work: (p: ProgressAndInterrupt) => Promise<T>): Promise<T> {
  const interrupt = interruptSignal();
  if (interrupt.signal.aborted) {
    // The command was interrupted before this step: it does not start.
    interrupt.dispose();
    throw new HeapqlError('ERR_CANCELLED', 'interrupted');
  }
  const progress = terminalProgress(interrupt.signal);
  try {
    return await work({ onProgress: progress.onProgress, blockingStep: progress.blockingStep, signal: interrupt.signal });
  } finally {
    progress.stop();
    interrupt.dispose();
  }
}
