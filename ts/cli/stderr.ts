/**
 * What the CLI says on stderr besides errors: warnings, notices and progress. `--quiet` silences
 * all of it, so stderr carries only `error:` lines; stdout is the same either way.
 * A message can quote the dump (class and field names, the file name), so each line goes out
 * through `terminalText`: no control character from the dump reaches the terminal, and a
 * warning or notice stays one line.
 */
import { errorLines } from '../repl/errors.js';
import { terminalText } from '../terminal-text.js';

let quiet = false;

/** Options every command takes, wherever they stand before `--` (main.ts takes them out). */
export const globalArgs = {
  quiet: { type: 'boolean', description: 'print only errors on stderr: no progress bar, warnings or notices' },
} as const;

export function setQuiet(on: boolean): void {
  quiet = on;
}

export function isQuiet(): boolean {
  return quiet;
}

/** A message as one line for a terminal (its backslashes kept: a message is not data). */
function oneLine(message: string): string {
  return terminalText(message, { keepBackslashes: true });
}

/** `warning: <message>`: something the user may want to know; the command still succeeds. */
export function warn(message: string): void {
  if (!quiet) process.stderr.write(`warning: ${oneLine(message)}\n`);
}

/** A line of information about what was done (`report written to …`). */
export function notice(message: string): void {
  if (!quiet) process.stderr.write(`${oneLine(message)}\n`);
}

/**
 * The text of an `error: <message>` line (never silenced): the message's own indented lines kept,
 * any other line break and every control character escaped (`errorLines`, which the terminal
 * REPL's errors go through too).
 */
export function errorText(message: string): string {
  return `error: ${errorLines(message)}\n`;
}
