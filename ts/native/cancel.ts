/** Bridges an AbortSignal to a native cancel token for the duration of one call. */
import { native, type Addon } from './index.js';

export function cancelTokenFor(signal: AbortSignal | undefined): {
  token: InstanceType<Addon['CancelToken']>;
  dispose: () => void;
} {
  const token = new (native().CancelToken)();
  if (!signal) return { token, dispose: () => {} };
  if (signal.aborted) token.cancel();
  const onAbort = () => token.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  return { token, dispose: () => signal.removeEventListener('abort', onAbort) };
}
