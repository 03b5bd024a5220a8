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
  process.stdout.on('error', endOnClosedPipe);
  process.stderr.on('error', endOnClosedPipe);
  const { main } = await import('./main.js');
  await main();
}

/**
 * EPIPE: the other end of stdout or stderr was closed (head, a pager quit early). Nothing more
 * can be shown, so stop at once, without a stack trace; the exit code is the one already set
 * (0 when nothing failed), as the reader chose to stop reading.
 */
function endOnClosedPipe(err: NodeJS.ErrnoException): void {
  // EIO, ENXIO: the terminal itself is gone (closed window, dropped ssh): end as a hang-up does.
  if (isTerminalGone(err)) return endByHangUp();
  if (err.code !== 'EPIPE') throw err;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
}
