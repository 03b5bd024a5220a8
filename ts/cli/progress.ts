/**
 * Progress on a terminal and Ctrl-C handling for long native calls. The bar is drawn on stderr
 * only when stderr is a TTY (never in pipes, files or CI logs), not with --quiet, and only once
 * the work has run for SHOW_AFTER_MS: a quick step leaves no flicker behind.
 */
import cliProgress from 'cli-progress';

import type { ProgressEvent } from '../heap.js';
import { formatBytes } from '../report/summary.js';
import { isQuiet, notice } from './stderr.js';

export interface TerminalProgress {
  onProgress: (event: ProgressEvent) => void;
  stop: () => void;
}

const PHASE_WIDTH = 12;
/** Work shorter than this shows no bar. */
export const SHOW_AFTER_MS = 500;

export function terminalProgress(signal?: AbortSignal, stream: NodeJS.WriteStream = process.stderr): TerminalProgress {
  if (!stream.isTTY || process.env.CI || isQuiet()) return { onProgress: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{phase} |{bar}| {percentage}% | {doneText} / {totalText}',
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
  const payload = (event: ProgressEvent) => ({
    phase: event.phase.padEnd(PHASE_WIDTH),
    doneText: formatAmount(event.done, event.phase),
    totalText: formatAmount(event.total, event.phase),
  });
  const show = (event: ProgressEvent) => {
    if (!started) {
      bar.start(event.total || 1, event.done, payload(event));
      started = true;
    } else if (event.phase !== phase) {
      bar.setTotal(event.total || 1);
    }
    phase = event.phase;
    bar.update(event.done, payload(event));
  };
  const stop = () => {
    clearTimeout(timer);
    if (started && !stopped) bar.stop();
    stopped = true;
  };
  // Ctrl-C: take the bar down at once so the interruption message is the last thing shown.
  signal?.addEventListener('abort', stop, { once: true });
  return {
    onProgress(event) {
      if (stopped) return;
      latest = event;
      if (started) return show(event);
      // The first event starts the clock; the bar appears only if the work is still running.
      timer ??= setTimeout(() => {
        if (!stopped && latest) show(latest);
      }, SHOW_AFTER_MS).unref();
    },
    stop,
  };
}

/** Byte counts for reading phases, plain counts for object phases. */
function formatAmount(n: number, phase: string): string {
  return /read|index|scan|pass|record/i.test(phase) ? formatBytes(n) : n.toLocaleString('en-US');
}

/**
 * An AbortSignal fired by the first Ctrl-C; a second Ctrl-C exits at once.
 * `dispose` removes the handler once the long call is over.
 */
export function interruptSignal(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  let count = 0;
  const handler = () => {
    count++;
    if (count === 1) {
      controller.abort();
      notice('interrupted: stopping… (Ctrl-C again to quit at once)');
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', handler);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', handler) };
}

/** What a long call gets from `withProgress`: the bar's callback and the Ctrl-C signal. */
export interface ProgressAndInterrupt {
  onProgress: (event: ProgressEvent) => void;
  signal: AbortSignal;
}

/**
 * Runs one long native call with the terminal's progress bar and Ctrl-C, and takes both down
 * when it ends (however it ends), so that what the command prints next is not drawn over.
 */
export async function withProgress<T>(work: (p: ProgressAndInterrupt) => Promise<T>): Promise<T> {
  const interrupt = interruptSignal();
  const progress = terminalProgress(interrupt.signal);
  try {
    return await work({ onProgress: progress.onProgress, signal: interrupt.signal });
  } finally {
    progress.stop();
    interrupt.dispose();
  }
}
