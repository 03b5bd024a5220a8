/**
 * The dispatcher both fronts use: a complete statement in, output through `ReplIO`. Errors
 * become one message each and never end the session; nothing of the last result is lost.
 */
import { HeapqlError } from '../errors.js';
import type { ReplBackend, ReplIO } from './backend.js';
import { initialState, runCommand, runQuery, type ReplState } from './commands.js';
import { ReplError } from './errors.js';
import { isCommand, stripTerminator } from './statement.js';

export class Repl {
  readonly state: ReplState = initialState();

  constructor(
    readonly backend: ReplBackend,
    readonly io: ReplIO,
  ) {}

  /** Runs one statement; false when it failed (the message has been written). */
  async execute(statement: string, signal?: AbortSignal): Promise<boolean> {
    const text = statement.trim();
    if (stripTerminator(text) === '') return true;
    const ctx = { backend: this.backend, io: this.io, state: this.state, ...(signal ? { signal } : {}) };
    try {
      if (isCommand(text)) await runCommand(ctx, text);
      else await runQuery(ctx, text);
      return true;
    } catch (err) {
      this.io.error(errorText(err));
      return false;
    }
  }
}

function errorText(err: unknown): string {
  if (err instanceof ReplError) return err.message;
  if (err instanceof HeapqlError) return err.code === 'ERR_CANCELLED' ? 'cancelled' : `error: ${err.message}`;
  return `internal error: ${err instanceof Error ? err.message : String(err)}`;
}
