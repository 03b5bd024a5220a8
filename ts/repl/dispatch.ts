/**
 * The dispatcher both fronts use: a complete statement in, output through `ReplIO`. Errors
 * become one message each (`error: …`; `cancelled` after Ctrl-C) and never end the session;
 * nothing of the last result is lost.
 */
import { HeapqlError } from '../errors.js';
import type { ReplBackend, ReplIO } from './backend.js';
import { initialState, runCommand, runQuery, type ReplState, type StatementSource } from './commands.js';
import type { StoredQuery } from '../report/config.js';
import { errorMessage, ReplError } from './errors.js';
import { isCommand, stripTerminator } from './statement.js';

export class Repl {
  readonly state: ReplState;

  constructor(
    readonly backend: ReplBackend,
    readonly io: ReplIO,
    /** The config file's named `[[query]]` entries, for `!run`. */
    stored: StoredQuery[] = [],
  ) {
    this.state = initialState(stored);
  }

  /** Stops the scan a paged result keeps open (rest.ts): at the end of the session. */
  close(): void {
    this.state.open?.close();
    this.state.open = null;
  }

  /**
   * Runs one statement; false when it failed (the message has been written). `source`: where
   * it starts in a script, named by its errors.
   */
  async execute(statement: string, signal?: AbortSignal, source?: StatementSource): Promise<boolean> {
    // Leading white space stays: an error's columns are those of the line as typed (or piped).
    const text = statement.trimEnd();
    if (stripTerminator(text) === '') return true;
    const ctx = { backend: this.backend, io: this.io, state: this.state, ...(signal ? { signal } : {}), ...(source ? { source } : {}) };
    try {
      if (isCommand(text)) await runCommand(ctx, text);
      else await runQuery(ctx, text);
      return true;
    } catch (err) {
      this.io.error(errorText(err, source));
      return false;
    }
  }
}

function errorText(err: unknown, source?: StatementSource): string {
  if (err instanceof HeapqlError && err.code === 'ERR_CANCELLED') return 'cancelled';
  const at = source && !(err instanceof ReplError && err.located) ? `${source.name}:${source.line}: ` : '';
  return `error: ${at}${errorMessage(err)}`;
}
