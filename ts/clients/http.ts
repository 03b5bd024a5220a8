/**
 * One HTTP exchange with a local service: undici's request with a time limit and the caller's
 * AbortSignal, the whole body read as text (up to MAX_REPLY_BYTES; redirects not followed),
 * every transport failure turned into a typed ServiceError. Interpreting status and body is the
 * calling client's job. Only a call marked `retry` (an idempotent read) is tried again, and only
 * when the connection was refused or reset before any reply: state-changing calls are never
 * repeated behind the caller's back.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { Agent, request, type Dispatcher } from 'undici';

import {
  InvalidArgumentError,
  ServiceAbortedError,
  ServiceProtocolError,
  ServiceTimeoutError,
  ServiceUnavailableError,
  ServiceError,
  type RequestInfo,
} from './errors.js';

/**
 * undici's default agent gives up after 300 s without headers or body data, which would cut
 * an on-device inference (up to 6 min) or a blocking model download short: the call's own time
 * limit is the only one here. One connection per request (pipelining 0 disables keep-alive): a
 * pooled socket left over from a service that has since died would fail as "connection lost"
 * instead of the clear "connection refused", and the calls are far too few for reuse to matter.
 */
const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, pipelining: 0 });

/**
 * The largest reply read: both services answer a status word or a JSON document (a camera
 * capture, the biggest, is a few MB of base64). Anything longer is not one of them — a wrong
 * port that streams, say — and would otherwise be read until the process runs out of memory.
 */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** Waits before the 2nd and 3rd try of a retried read (3 tries in all). */
export const RETRY_DELAYS_MS: readonly number[] = [200, 1000];

export interface Reply {
  status: number;
  contentType: string;
  text: string;
  /** The Location header of a redirect (which is never followed). */
  location?: string;
}

export interface SendOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  query?: Record<string, string>;
  json?: unknown;
  headers?: Record<string, string>;
  /** Counted from when the request is sent; it covers every try of a retried read. */
  timeoutMs: number;
  /** What sets timeoutMs, named in a time-out's message, e.g. `timeouts.text (heapql device: --timeout <seconds>)`. */
  limitOption?: string;
  /** The caller's signal: aborting it ends the call at once with ServiceAbortedError. */
  signal?: AbortSignal;
  /** An idempotent read: tried again (RETRY_DELAYS_MS) after a refused or reset connection with no reply. */
  retry?: boolean;
  /**
   * For a state-changing call: appended to a timeout or a lost connection, where the call may
   * have taken effect, e.g. "read the status back to see whether it did".
   */
  unsure?: string;
  /** How long the call waited in the client's own queue before it was sent (for the timeout message). */
  queuedMs?: number;
}

/** What to tell the user when the service cannot be reached; differs per service. */
export interface UnavailableWording {
  /** Nothing listened and this client never reached the service. */
  refused: (base: string) => string;
  /** Nothing listened, but this client had replies from the service earlier. */
  refusedAfterContact: (base: string) => string;
}

/** A failure of one try, with what is known about how far it got. */
interface TryFailure {
  err: unknown;
  /** The status line and headers had arrived. */
  responded: boolean;
  status?: number;
  bodyBytes: number;
}

const RETRYABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** Node's codes for a TLS certificate it does not accept (besides ERR_TLS_… and ERR_SSL_…). */
const TLS_CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
]);

export class Transport {
  readonly base: URL;
  /** True once a reply (a status line, whatever the status) came back from the service. */
  reachedBefore = false;
  /** Waits between tries of a retried read; tests may shorten or hook them. */
  retryDelaysMs: readonly number[] = RETRY_DELAYS_MS;
  /** How a retry waits; replaceable in tests (e.g. to start a listener in between). */
  wait: (ms: number, signal: AbortSignal) => Promise<void> = (ms, signal) => sleep(ms, undefined, { signal });

  constructor(
    readonly service: string,
    url: string,
    private readonly wording: UnavailableWording,
    private readonly maxReplyBytes = MAX_REPLY_BYTES,
    /** A URL of this service for messages about a bad one. */
    example = 'http://127.0.0.1:8087',
  ) {
    this.base = parseBaseUrl(url, service, example);
  }

  /** What a request is called in messages and errors, e.g. `GET /task/5?stopping=true`. */
  describe(path: string, options: Pick<SendOptions, 'method' | 'query'> = {}): RequestInfo {
    const url = this.url(path, options.query);
    return { service: this.service, request: `${options.method ?? 'GET'} ${url.pathname}${url.search}` };
  }

  /** The typed error for a call whose signal fired before anything was sent. */
  abortedBeforeSending(info: RequestInfo, signal: AbortSignal, waited = ''): ServiceAbortedError {
    return new ServiceAbortedError(info, false, `${this.service} at ${this.base.origin}: ${info.request} was aborted by the caller${waited}; nothing was sent`, signal.reason);
  }

  async send(path: string, options: SendOptions): Promise<Reply> {
    const method = options.method ?? 'GET';
    const url = this.url(path, options.query);
    const info = this.describe(path, options);
    const signal = options.signal;
    if (signal?.aborted) throw this.abortedBeforeSending(info, signal);
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    }
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const combined = signal ? AbortSignal.any([deadline, signal]) : deadline;
    const started = performance.now();
    const delays = options.retry ? this.retryDelaysMs : [];
    for (let attempt = 0; ; attempt++) {
      const result = await this.try(url, method, headers, body, combined);
      if (!('failure' in result)) {
        if (result.text === null) {
          throw new ServiceProtocolError(
            info,
            '',
            `${this.service} at ${this.base.origin}: the reply to ${info.request} is longer than ${this.maxReplyBytes} bytes, which no reply of this service is; check the URL`,
          );
        }
        return { status: result.status, contentType: result.contentType, text: result.text, location: result.location };
      }
      const failure = result.failure;
      const code = errorCode(failure.err);
      const delay = delays[attempt];
      const retryable = !failure.responded && !combined.aborted && code !== undefined && RETRYABLE.has(code);
      if (retryable && delay !== undefined && performance.now() - started + delay < options.timeoutMs) {
        try {
          await this.wait(delay, combined);
          continue;
        } catch {
          // The caller aborted or the time ran out while waiting: report that below.
        }
      }
      throw this.translate(failure, info, options, signal, deadline, attempt + 1);
    }
  }

  private url(path: string, query?: Record<string, string>): URL {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    return url;
  }

  /** One try; failures are returned (with how far the try got), not thrown. */
  private async try(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<{ status: number; contentType: string; text: string | null; location?: string } | { failure: TryFailure }> {
    let responded = false;
    let status: number | undefined;
    const counter = { bytes: 0 };
    try {
      // undici's `request`, not `fetch`: fetch refuses the ports browsers block (6000, 6665–6669,
      // 10080 …) with only "bad port", and a service may listen on any port its user picks.
      // `request` never follows a redirect either: neither service redirects, so a redirect
      // means the URL names something else, and following it would send a state-changing call
      // (and its body) where the user did not point. A 3xx is answered like any other non-2xx.
      const res = await request(url, { method: method as 'GET' | 'POST' | 'DELETE', headers, body, signal, dispatcher: agent });
      responded = true;
      status = res.statusCode;
      this.reachedBefore = true;
      const type = res.headers['content-type'];
      const contentType = (Array.isArray(type) ? type[0] : type) ?? '';
      const loc = res.headers.location;
      const location = Array.isArray(loc) ? loc[0] : loc;
      const text = await this.readText(res.body, counter);
      return { status: res.statusCode, contentType, text, location };
    } catch (err) {
      return { failure: { err, responded, status, bodyBytes: counter.bytes } };
    }
  }

  /** The body as text, or null (the rest left unread) once it passes `maxReplyBytes`. */
  private async readText(body: Dispatcher.ResponseData['body'], counter: { bytes: number }): Promise<string | null> {
    const chunks: Buffer[] = [];
    for await (const chunk of body) {
      const piece = chunk as Buffer;
      counter.bytes += piece.byteLength;
      if (counter.bytes > this.maxReplyBytes) {
        body.destroy();
        return null;
      }
      chunks.push(piece);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private translate(failure: TryFailure, info: RequestInfo, options: SendOptions, signal: AbortSignal | undefined, deadline: AbortSignal, tries: number): ServiceError {
    const { err } = failure;
    const where = this.base.origin;
    const unsure = options.unsure ? `; ${options.unsure}` : '';
    const afterTries = tries > 1 ? ` (tried ${tries} times)` : '';
    if (signal?.aborted) {
      // Aborted while a read waited to be tried again after refused connections: nothing reached the service.
      if (!failure.responded && errorCode(err) === 'ECONNREFUSED') {
        return new ServiceAbortedError(
          info,
          false,
          `${this.service} at ${where}: ${info.request} was aborted by the caller while it waited to be tried again (the connection was refused${tries > 1 ? ` ${tries} times` : ''}); nothing was sent`,
          signal.reason,
        );
      }
      return new ServiceAbortedError(
        info,
        true,
        `${this.service} at ${where}: ${info.request} was aborted by the caller after it was sent${options.unsure ? `; it may have taken effect${unsure}` : ''}`,
        signal.reason,
      );
    }
    if (deadline.aborted) {
      const queued = options.queuedMs !== undefined && options.queuedMs >= 1 ? ` (it had first waited ${Math.round(options.queuedMs)} ms behind earlier calls of this client)` : '';
      const limit = `${formatMs(options.timeoutMs)} of sending it${queued}`;
      // A reply that had begun (a slow or stalled body): the service got the request and ran it.
      // What to do when the service is merely slow: the option that gives it longer.
      const longer = options.limitOption ? `; to wait longer, raise ${options.limitOption}` : '';
      const text = failure.responded
        ? `${this.service} at ${where}: the reply to ${info.request} (HTTP ${failure.status}) began but did not finish within ${limit} (${failure.bodyBytes} bytes of the body received)${options.unsure ? `; it has probably taken effect${unsure}` : ''}${longer}`
        : `${this.service} at ${where}: no reply to ${info.request} within ${limit}${options.unsure ? `; it may already have taken effect${unsure}` : ''}${longer}`;
      return new ServiceTimeoutError(info, options.timeoutMs, text, err);
    }
    const code = errorCode(err);
    if (failure.responded) {
      return new ServiceUnavailableError(
        info,
        'lost',
        this.reachedBefore,
        `${this.service} at ${where} closed the connection in the middle of its reply to ${info.request} (HTTP ${failure.status}, ${failure.bodyBytes} bytes of the body received${code ? `, ${code}` : ''}); the reply is incomplete${options.unsure ? ` and the request has probably taken effect${unsure}` : ''}`,
        err,
      );
    }
    switch (code) {
      case 'ECONNREFUSED': {
        const text = this.reachedBefore ? this.wording.refusedAfterContact(where) : this.wording.refused(where);
        return new ServiceUnavailableError(info, 'refused', this.reachedBefore, `${text}${afterTries}`, err);
      }
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
      case 'EHOSTDOWN':
      case 'UND_ERR_CONNECT_TIMEOUT':
        return new ServiceUnavailableError(info, 'unreachable', this.reachedBefore, `${this.service} at ${where} is unreachable (${code}); check the address`, err);
      case 'ECONNRESET':
      case 'EPIPE':
      case 'UND_ERR_SOCKET':
      case 'UND_ERR_CLOSED':
        return new ServiceUnavailableError(
          info,
          'lost',
          this.reachedBefore,
          `${this.service} at ${where} closed the connection before replying to ${info.request} (${code})${afterTries}; it may have stopped${options.unsure ? `, and the request may or may not have taken effect${unsure}` : ''}`,
          err,
        );
      default: {
        const detail = oneLine(err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err));
        // Whatever answered on the port does not speak HTTP (undici's parser: HPE_…), or sent headers beyond any HTTP server's.
        if (code !== undefined && (code.startsWith('HPE_') || code === 'UND_ERR_HEADERS_OVERFLOW')) {
          return new ServiceProtocolError(info, '', `${this.service} at ${where}: the answer to ${info.request} is not HTTP (${code}: ${detail}); is this the ${this.service}'s port?`);
        }
        if (code !== undefined && this.base.protocol === 'https:' && (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || TLS_CERT_CODES.has(code))) {
          const plain = new URL(this.base.href);
          plain.protocol = 'http:';
          const advice =
            code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG'
              ? `the service answers plain HTTP there; use ${plain.href.replace(/\/$/, '')}`
              : `${detail}; neither service serves HTTPS itself: use ${plain.href.replace(/\/$/, '')}, or give the proxy in front a certificate this machine trusts`;
          return new ServiceError('ERR_SERVICE_REQUEST', info, `${this.service} at ${where}: the TLS handshake of ${info.request} failed (${code}): ${advice}`, err);
        }
        return new ServiceError('ERR_SERVICE_REQUEST', info, `${this.service} at ${where}: ${info.request} failed${code ? ` (${code})` : ''}: ${detail}`, err);
      }
    }
  }
}

/** The first errno-like code in an undici error or its causes (AggregateError from happy eyeballs included). */
function errorCode(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    queue.push((e as { cause?: unknown }).cause);
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner)) queue.push(...inner);
  }
  return undefined;
}

function parseBaseUrl(url: string, service: string, example: string): URL {
  // host:port typed without the scheme: `127.0.0.1:8087` is no URL, `localhost:8087` one of scheme localhost:.
  if (/^[\w.-]+:\d+(\/.*)?$/.test(url)) {
    throw new InvalidArgumentError(`${service} URL ${JSON.stringify(url)} has no http:// in front: did you mean http://${url}?`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidArgumentError(`${service} URL ${JSON.stringify(url)} is not a URL; expected e.g. ${example}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidArgumentError(`${service} URL ${url} must start with http:// or https://`);
  }
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  parsed.search = '';
  parsed.hash = '';
  return parsed;
}

/** Text on one line (a TLS library's message ends in a newline), at most 300 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Checks a caller-supplied AbortSignal (undefined is fine). */
export function checkSignal(signal: unknown): AbortSignal | undefined {
  if (signal === undefined) return undefined;
  if (!(signal instanceof AbortSignal)) throw new InvalidArgumentError(`signal must be an AbortSignal, got ${describeValue(signal)}`);
  return signal;
}

/**
 * A call's last argument, `{ signal }` (and the call's `extra` fields), checked: its signal
 * (undefined when none). A field it does not have is refused rather than ignored: a misspelt
 * `lotteryPriorty` would otherwise quietly leave the default in force.
 */
export function checkCallOptions(options: unknown, extra: readonly string[] = []): AbortSignal | undefined {
  if (!isObject(options)) throw new InvalidArgumentError(`options must be an object such as {signal}, got ${describeValue(options)}`);
  checkFields(options, ['signal', ...extra], 'options have');
  return checkSignal(options.signal);
}

/** Refuses a field of `value` not among `known`: `<what> no field "x": use a, b`. */
export function checkFields(value: Record<string, unknown>, known: readonly string[], what: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new InvalidArgumentError(`${what} no field ${JSON.stringify(key)}: use ${known.join(', ')}`);
  }
}

/** A plain object (not null, not an array): a JSON object as both services send them. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a wrong argument is, for messages: `a string ("42")`, `null`, `an array`. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing (undefined)';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return `a string (${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)})`;
    case 'number':
      return `the number ${v}`;
    case 'bigint':
      return `a bigint (${v}n)`;
    case 'boolean':
      return `a boolean (${v})`;
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return 'an object';
  }
}

/**
 * The longest time limit of a request, in milliseconds: a Node timer waits at most 2^31 - 1 ms
 * (about 24.8 days); a longer one would fire at once.
 */
export const TIMEOUT_MAX_MS = 2 ** 31 - 1;

/** Checks a caller-supplied timeout: a whole number of milliseconds from 1 to TIMEOUT_MAX_MS. */
export function checkTimeout(ms: number, what: string): number {
  if (typeof ms !== 'number') throw new InvalidArgumentError(`${what} must be a number of milliseconds, got ${describeValue(ms)}`);
  if (!Number.isInteger(ms) || ms < 1 || ms > TIMEOUT_MAX_MS) {
    throw new InvalidArgumentError(`${what} must be a whole number of milliseconds from 1 to ${TIMEOUT_MAX_MS} (the longest a timer waits), got ${ms}`);
  }
  return ms;
}
