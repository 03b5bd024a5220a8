/**
 * One turn of the event loop: what is already queued (progress reports sent before a result or
 * a cancel, a Ctrl-C, a timer, another request) is heard before the caller goes on.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
