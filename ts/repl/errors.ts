/** A REPL command that cannot do what was asked: one line for the user, nothing else lost. */
export class ReplError extends Error {
  override name = 'ReplError';
}
