/** What the CLI's pseudo-terminal tests share: their terminals' clean-up, a program run to its end in one, and the 1 GB dump. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { IPty } from '@lydell/node-pty';
import { afterEach } from 'vitest';

import { closeTerminals, Terminal } from '../repl/pty-terminal.js';

/**
 * Kills, after every test, the terminals `runInTerminal` opened (closeTerminals) and those put in
 * the list returned (node-pty's own, opened by the test): a failed test may leave its child running.
 */
export function ptysKilledAfterEach(): IPty[] {
  const open: IPty[] = [];
  afterEach(() => {
    closeTerminals();
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

/** The checkout's CLI (`node bin/heapql.js …`) with `args`, as a program and its arguments. */
export function heapqlCommand(args: string[]): string[] {
  return [process.execPath, path.resolve(__dirname, '../../bin/heapql.js'), ...args];
}

/** The command line that runs the checkout's CLI (`node bin/heapql.js …`) with `args`. */
export function heapqlLine(args: string[]): string {
  return heapqlCommand(args).map(shellWord).join(' ');
}

export interface TerminalRun {
  /** Everything the program wrote to the terminal, to its end. */
  raw: string;
  /** The program's exit code (0 when a signal ended it). */
  exitCode: number;
  /** The signal that ended the program, if one did. */
  signal: number | undefined;
}

/**
 * A bash command line (`set -o pipefail`) as a program and its arguments, for a test that sends
 * stdout or stderr elsewhere (`>`, `|`, `2>`). The program is then bash: begin a line of one
 * command with `exec` (`exec heapql … > file`), so that the program whose end is told is that
 * command, not bash, which says a signal as an exit code of 128 + its number. A pipeline's end
 * is bash's: its exit code its last failing command's, a signal that ended one of them 128 + its number.
 */
export function bashLine(line: string): string[] {
  return ['/bin/bash', '-c', `set -o pipefail\n${line}`];
}

/**
 * Runs `command` (a program and its arguments) in a new terminal (`options`: its size, directory
 * and environment; XDG_STATE_HOME the directory too) under the REPL tests' wrapper (Terminal,
 * test/repl/pty-terminal.ts), and returns what it wrote to its end and how it ended: its exit
 * code, or the signal that ended it. The end is the one the wrapper writes after everything the
 * program wrote, not node-pty's exit event, which comes up to 200 ms late and takes the terminal
 * down then, dropping what the test had not read yet (on a loaded machine, the last rows). The
 * program is in the terminal's foreground process group: a Ctrl-C written to the terminal reaches
 * it (and not the wrapper). `onData` sees the output so far as it comes, until the program's end
 * (for input written during the run). The terminal is closed by `ptysKilledAfterEach`'s clean-up
 * (closeTerminals) if the test leaves it open.
 */
export async function runInTerminal(
  command: string[],
  options: { cols: number; rows: number; cwd: string; env: Record<string, string> },
  onData?: (raw: string, pty: IPty) => void,
): Promise<TerminalRun> {
  const [program, ...args] = command;
  if (program === undefined) throw new Error('runInTerminal: no program to run (the command is empty)');
  const t = new Terminal(args, options.cwd, { program, cwd: options.cwd, env: options.env, cols: options.cols, rows: options.rows });
  if (onData) t.onOutput(() => onData(t.raw, t.pty));
  const exitCode = await t.exited;
  return { raw: t.raw, exitCode, signal: t.signal };
}
