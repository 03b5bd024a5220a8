import { fileWriteProblem } from '../file-write-error.js';
import { endByHangUp, isTerminalGone } from './hangup.js';

/**
 * The process around the CLI, set up before anything else loads: colour only on a terminal and
 * never with NO_COLOR, and a reader that goes away (`heapql … | head`) ends heapql quietly.
 * Shared by bin/heapql.js and the single-file binary.
 */
export async function start(): Promise<void> {
  // NO_COLOR (no-color.org): any non-empty value turns colour off. citty reads only '1', and
  // decides when it loads, hence here and before main.js is imported.
  if (process.env.NO_COLOR || !process.stdout.isTTY) process.env.NO_COLOR = '1';
  else delete process.env.NO_COLOR;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => endOnFailedOutput(err, 'standard output'));
  process.stderr.on('error', (err: NodeJS.ErrnoException) => endOnFailedOutput(err, 'standard error'));
  const { main } = await import('./main.js');
  await main();
}

/**
 * A write to stdout or stderr failed.
 * - EPIPE: the other end was closed (head, a pager quit early). Nothing more can be shown, so
 *   stop at once, without a stack trace; the exit code is the one already set (0 when nothing
 *   failed), as the reader chose to stop reading.
 * - EIO, ENXIO: the terminal itself is gone (closed window, dropped ssh): end as a hang-up does.
 * - Anything else (stdout redirected to a full disk, a file over its size limit): the output is
 *   incomplete, so say why on stderr (`error: cannot write to standard output: no space left on
 *   the device (ENOSPC): …`) and exit 1 — never a stack trace, never a silent success.
 */
function endOnFailedOutput(err: NodeJS.ErrnoException, stream: 'standard output' | 'standard error'): void {
  if (isTerminalGone(err)) return endByHangUp();
  if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  if (stream === 'standard output') {
    try {
      process.stderr.write(`error: cannot write to standard output: ${fileWriteProblem(err, '/dev/stdout', { shown: 'standard output' })}\n`);
    } catch {
      // stderr fails too: the exit code is all that is left
    }
  }
  process.exit(1);
}
