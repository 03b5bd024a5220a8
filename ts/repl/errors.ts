import { HeapqlError } from '../errors.js';
import { terminalText } from '../terminal-text.js';

/** A REPL command that cannot do what was asked: one line for the user, nothing else lost. */
export class ReplError extends Error {
  override name = 'ReplError';
  constructor(
    message: string,
    /** The message names the statement's place already (an OQL error's `stdin:12:5:`). */
    readonly located = false,
  ) {
    super(message);
  }
}

/** What an error says to the user: its message, or `internal error: …` for one heapql did not raise. */
export function errorMessage(err: unknown): string {
  if (err instanceof ReplError || err instanceof HeapqlError) return err.message;
  return `internal error: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * A front's `saveFile` (`ReplIO`) stopped by the statement's signal (Ctrl-C) between two blocks;
 * its message says what became of the file (`out.csv was not written`), and `!save` says how
 * many rows had gone out.
 */
export class SaveInterrupted extends Error {
  override name = 'SaveInterrupted';
}

/**
 * An error message as a terminal shows it (the CLI's `error:` line and the terminal REPL's
 * errors). A message's own lines after its first are indented by two spaces (an OQL error's
 * query, caret and hint lines) and are kept; any other line break came from text in the
 * message (a class or field name from the dump, a native error) and is shown escaped with
 * every other control character, so no name can start a line of its own. Backslashes are kept:
 * a message is not data.
 */
export function errorLines(message: string): string {
  return message
    .split(/\n(?= {2})/)
    .map((line) => terminalText(line, { keepBackslashes: true }))
    .join('\n');
}
