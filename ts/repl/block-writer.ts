/**
 * The terminal REPL's `ReplIO.write`: one block of a long listing to a Node stream, resolving
 * when the next may follow. A stream that asks to wait (`write` false) is waited for ('drain'),
 * so a slow reader holds the listing back instead of its text piling up in memory. Otherwise the
 * event loop still gets a turn before the next block: writes to a terminal or a pipe are
 * synchronous on Linux, and without one a long listing would never read the Ctrl-C typed
 * meanwhile (a key on stdin) nor hear that the reader went away. Node-only (the terminal's).
 */

/** Whether nothing more can be written to `stream` (a reader gone: `| head`, a closed pty). */
export function outputClosed(stream: NodeJS.WritableStream): boolean {
  const s = stream as { destroyed?: boolean; writableEnded?: boolean };
  return s.destroyed === true || s.writableEnded === true;
}

/**
 * Writes `text`; true once the stream can take more, false when it cannot (closed, or failed
 * while waiting) or `signal` fired while waiting (the text is the stream's already).
 */
export async function writeBlock(stream: NodeJS.WritableStream, text: string, signal?: AbortSignal): Promise<boolean> {
  if (outputClosed(stream)) return false;
  if (stream.write(text)) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return !outputClosed(stream);
  }
  if (outputClosed(stream)) return false;
  return new Promise<boolean>((resolve) => {
    const settle = (ok: boolean) => {
      stream.off('drain', onDrain);
      stream.off('error', onFailure);
      stream.off('close', onFailure);
      signal?.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onDrain = () => settle(true);
    const onFailure = () => settle(false);
    const onAbort = () => settle(false);
    stream.on('drain', onDrain);
    stream.on('error', onFailure);
    stream.on('close', onFailure);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
