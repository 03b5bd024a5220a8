/**
 * What a cancelled `openHeap()` or `analyze()` says: what was cancelled and how far it had got,
 * from the last progress report the work sent (the addon itself says only "cancelled"). Every
 * front shows these words (the server's errors, MCP's analyze_heap, a library caller's catch).
 */
import { HeapqlError, type CancelledProgress } from '../errors.js';

/**
 * `during the records phase (42% done)`; for a phase with no total, `(12345678 done)` (`writing
 * cache`: `(12345678 bytes written)`); `at its end, every phase done` after the last report
 * (`done`); `before its first progress report` when none had come.
 */
export function howFar(last: CancelledProgress | null | undefined): string {
  if (!last) return 'before its first progress report';
  if (last.phase === 'done') return 'at its end, every phase done';
  let at: string;
  if (last.total > 0) at = `${Math.min(100, Math.floor((100 * last.done) / last.total))}% done`;
  else if (last.phase === 'writing cache') at = `${last.done} bytes written`;
  else at = `${last.done} done`;
  return `during the ${last.phase} phase (${at})`;
}

/**
 * ERR_CANCELLED for `what` (`opening app.hprof`, `the analysis of app.hprof`) with how far it
 * got, and that progress as the error's `progress`. `before` marks a call whose signal had
 * aborted before it began: nothing ran.
 */
export function cancelledError(what: string, last: CancelledProgress | null, options: { before?: boolean; cause?: unknown } = {}): HeapqlError {
  const when = options.before ? 'before it started (its signal had aborted already)' : howFar(last);
  return new HeapqlError('ERR_CANCELLED', `${what} was cancelled ${when}`, {
    ...(options.cause !== undefined ? { cause: options.cause } : {}),
    ...(last && !options.before ? { progress: { phase: last.phase, done: last.done, total: last.total } } : {}),
  });
}

/** Is `err` the addon's or a session's ERR_CANCELLED? */
export function isCancelled(err: unknown): err is HeapqlError {
  return err instanceof HeapqlError && err.code === 'ERR_CANCELLED';
}
