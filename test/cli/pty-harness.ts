/** What the CLI's pseudo-terminal tests share: their terminals' clean-up, a shell line run to its end, and the 1 GB dump. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { spawn, type IPty } from '@lydell/node-pty';
import { afterEach } from 'vitest';

/** A list to put each opened terminal in: killed after every test (a failed test may leave its child running). */
export function ptysKilledAfterEach(): IPty[] {
  const open: IPty[] = [];
  afterEach(() => {
    for (const p of open.splice(0)) {
      try {
        p.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  return open;
}

/**
 * The 1 GB benchmark dump (`npm run bench` makes it; HEAPQL_BENCH_1G names another), whose work
 * lasts long enough for a Ctrl-C to land in it; where it is absent, the test named `what` is
 * skipped with the reason printed.
 */
export function benchDump1g(what: string): { big: string; haveBig: boolean } {
  const big = process.env.HEAPQL_BENCH_1G ?? path.resolve(__dirname, '../../bench-out/bench-1g.hprof');
  const haveBig = existsSync(big);
  if (!haveBig) console.warn(`skipping ${what}: ${big} is absent (npm run bench creates it, or set HEAPQL_BENCH_1G)`);
  return { big, haveBig };
}

/** A word of a shell command line, quoted so that the shell takes it as it is. */
export function shellWord(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command line that runs the checkout's CLI (`node bin/heapql.js …`) with `args`. */
export function heapqlLine(args: string[]): string {
  return [process.execPath, path.resolve(__dirname, '../../bin/heapql.js'), ...args].map(shellWord).join(' ');
}

/** What the shell prints after the command line ended, with its exit status: `\x01pty-harness exit 130\x01`. */
const END = /\x01pty-harness exit (\d+)\x01/;

export interface TerminalRun {
  /** Everything the terminal showed while the command line ran, to its end. */
  raw: string;
  /** The command line's exit status (a pipeline's: its last failing command's, `pipefail`). */
  exitCode: number;
}

/**
 * Runs a bash command line in a new terminal (`options`: its size, directory and environment) and
 * returns what the terminal showed to the line's end and its exit status. Not node-pty's exit
 * event: node-pty reports the exit of the process it started at most 200 ms after it, taking the
 * terminal down then, and drops what the test process had not read yet — on a loaded machine the
 * last rows, which a test then found missing. Here the shell outlives the command line: it says
 * the line ended (its status after everything the line wrote, in the terminal's order) and waits
 * for a line of input; the test reads up to that, then lets the shell end. Bash, not sh: a Ctrl-C
 * written to the terminal reaches the command line and the shell both (one process group); bash
 * waits for the command (which may handle it, as heapql does: exit 130), where dash would die.
 * `onData` sees the terminal's output so far as it comes (for input written during the run).
 */
export async function runInTerminal(
  line: string,
  options: { cols: number; rows: number; cwd: string; env: Record<string, string> },
  open: IPty[],
  onData?: (raw: string, pty: IPty) => void,
): Promise<TerminalRun> {
  const script = `set -o pipefail\n${line}\nprintf '\\001pty-harness exit %d\\001' "$?"\nread -r _\n`;
  const pty = spawn('/bin/bash', ['-c', script], options);
  open.push(pty);
  let raw = '';
  let ended: TerminalRun | null = null;
  const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => pty.onExit(resolve));
  const run = await new Promise<TerminalRun>((resolve, reject) => {
    pty.onData((d) => {
      if (ended) return;
      raw += d;
      const end = END.exec(raw);
      if (end) {
        ended = { raw: raw.slice(0, end.index), exitCode: Number(end[1]) };
        return resolve(ended);
      }
      onData?.(raw, pty);
    });
    // The shell gone before it said the line ended: it was killed, or bash failed to start.
    void exited.then(({ exitCode, signal }) => {
      if (!ended) reject(new Error(`the terminal's shell ended (exit ${exitCode}, signal ${signal ?? 0}) before the command line did; it showed: ${JSON.stringify(raw.slice(-600))}`));
    });
  });
  pty.write('\n');
  await exited;
  return run;
}
