/**
 * The terminal gone (the window closed, ssh dropped) while heapql still writes to it: a write to
 * stdout or stderr fails with EIO (or ENXIO). The process then ends as a hang-up ends it: by
 * SIGHUP (exit status 129), quietly. Not by an error, and not by `process.exit`: Node's exit
 * puts the terminal's settings back, which on a terminal that is gone fails an assertion and
 * dumps core. What the process has drawn (progress bars) is abandoned first, without writing.
 */
const abandon = new Set<() => void>();
let ending = false;

/** `fn` runs (it must not write to the terminal) if the process ends because the terminal is gone; returns its removal. */
export function onTerminalGone(fn: () => void): () => void {
  abandon.add(fn);
  return () => abandon.delete(fn);
}

/** Whether `err` says that the terminal written to is gone. */
export function isTerminalGone(err: NodeJS.ErrnoException): boolean {
  return err.code === 'EIO' || err.code === 'ENXIO';
}

/** Ends the process by SIGHUP, as a hang-up does, after abandoning what was drawn. */
export function endByHangUp(): void {
  if (ending) return;
  ending = true;
  for (const fn of [...abandon]) {
    try {
      fn();
    } catch {
      // nothing can be shown anyway
    }
  }
  // With no listener left, SIGHUP has its default action: the process ends by it at once.
  process.removeAllListeners('SIGHUP');
  process.kill(process.pid, 'SIGHUP');
  // SIGHUP ignored (nohup): the status a hang-up would have given.
  process.exitCode = 129;
  process.exit(129);
}
