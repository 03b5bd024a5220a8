/**
 * The client of an external service (`heapql sched`, `heapql device`) at the URL the command
 * line gives (`--url`), else the one in the service's environment variable, else its default.
 * A bad URL from the environment is named as coming from there: the command line shows none.
 * An empty variable (`HEAPQL_SCHED_URL=`) is as good as unset: the default is used.
 */
import { InvalidArgumentError } from '../clients/errors.js';

export function serviceClient<T>(url: string | undefined, env: string, fallback: string, make: (url: string) => T): T {
  const fromEnv = url === undefined ? process.env[env] || undefined : undefined;
  try {
    return make(url ?? fromEnv ?? fallback);
  } catch (err) {
    if (fromEnv !== undefined && err instanceof InvalidArgumentError) throw new InvalidArgumentError(`${env}: ${err.message}`);
    throw err;
  }
}
