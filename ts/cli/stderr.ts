/**
 * What the CLI says on stderr besides errors: warnings, notices and progress. `--quiet` silences
 * all of it, so stderr carries only `error:` lines; stdout is the same either way.
 */
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

/** `warning: <message>`: something the user may want to know; the command still succeeds. */
export function warn(message: string): void {
  if (!quiet) process.stderr.write(`warning: ${message}\n`);
}

/** A line of information about what was done (`report written to …`). */
export function notice(message: string): void {
  if (!quiet) process.stderr.write(`${message}\n`);
}
