/**
 * The client of an external service (`heapql sched`, `heapql device`) at the URL the command
 * line gives (`--url`), else the one in the service's environment variable, else its default.
 * A bad URL from the environment is named as coming from there: the command line shows none.
 * An empty variable (`HEAPQL_SCHED_URL=`) is as good as unset: the default is used.
 */
import { InvalidArgumentError } from '../clients/errors.js';
import { TIMEOUT_MAX_MS } from '../clients/http.js';
import { usageError } from '../errors.js';
import { terminalText } from '../terminal-text.js';

/**
 * A line (or lines) for the user on stdout. What a service sent (names, descriptions, a model's
 * answer, the scheduler's help) goes out through `terminalText`: a control character in a reply
 * shows as an escape instead of acting on the terminal; line breaks and backslashes stay.
 */
export function print(text: string): void {
  process.stdout.write(`${terminalText(text, { keepLineBreaks: true, keepBackslashes: true })}\n`);
}

/**
 * The most seconds `--timeout` takes: the clients' longest time limit (a timer of at most
 * 2^31 - 1 ms, about 24.8 days), in whole seconds.
 */
export const TIMEOUT_MAX_SECONDS = Math.floor(TIMEOUT_MAX_MS / 1000);

/**
 * `--timeout <seconds>` of `heapql sched` and `heapql device`: the time limit of each request, in
 * milliseconds for the client (undefined: not given, the client's own limits). A positive
 * decimal number of seconds (`30`, `0.5`), at least a millisecond, at most TIMEOUT_MAX_SECONDS;
 * anything else is a usage error.
 */
export function timeoutOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seconds = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  const ms = Math.round(seconds * 1000);
  if (!(ms >= 1 && seconds <= TIMEOUT_MAX_SECONDS)) {
    throw usageError(`--timeout ${JSON.stringify(text)} is invalid: give the time limit of each request in seconds, a number from 0.001 to ${TIMEOUT_MAX_SECONDS} (such as 30 or 0.5)`);
  }
  return ms;
}

export function serviceClient<T>(url: string | undefined, env: string, fallback: string, make: (url: string) => T, example = fallback): T {
  // `--url` typed without its value arrives as "".
  if (url === '') throw usageError(`--url needs the URL of the service, such as ${example}`);
  const fromEnv = url === undefined ? process.env[env] || undefined : undefined;
  try {
    return make(url ?? fromEnv ?? fallback);
  } catch (err) {
    if (fromEnv !== undefined && err instanceof InvalidArgumentError) throw new InvalidArgumentError(`${env}: ${err.message}`);
    throw err;
  }
}
