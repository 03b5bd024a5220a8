/**
 * One HTTP exchange with a local service: undici's request with a per-call AbortSignal.timeout,
 * the whole body read as text (up to MAX_REPLY_BYTES; redirects not followed), every transport failure turned into a typed ServiceError.
 * Interpreting status and body is the calling client's job. No retries here: state-changing
 * calls must never be repeated behind the caller's back.
 */
import { Agent, request, type Dispatcher } from 'undici';

import { InvalidArgumentError, ServiceProtocolError, ServiceTimeoutError, ServiceUnavailableError, ServiceError, type RequestInfo } from './errors.js';

/**
 * undici's default agent gives up after 300 s without headers or body data, which would cut
 * an on-device inference (up to 6 min) or a blocking model download short: the per-call
 * AbortSignal.timeout is the only time limit here. One connection per request (pipelining 0
 * disables keep-alive): a pooled socket left over from a service that has since died would
 * fail as "connection lost" instead of the clear "connection refused", and the calls are
 * far too few for reuse to matter.
 */
const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, pipelining: 0 });

/**
 * The largest reply read: both services answer a status word or a JSON document (a camera
 * capture, the biggest, is a few MB of base64). Anything longer is not one of them — a wrong
 * port that streams, say — and would otherwise be read until the process runs out of memory.
 */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

export interface Reply {
  status: number;
  contentType: string;
  text: string;
}

export interface SendOptions {
  method?: 'GET' | 'POST';
  query?: Record<string, string>;
  json?: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
}

/** What to tell the user when the service cannot be reached; differs per service. */
export interface UnavailableWording {
  /** Nothing listened and this client never reached the service. */
  refused: (base: string) => string;
  /** Nothing listened, but this client had replies from the service earlier. */
  refusedAfterContact: (base: string) => string;
}

export class Transport {
  readonly base: URL;
  /** True once any reply (whatever its status) came back from the service. */
  reachedBefore = false;

  constructor(
    readonly service: string,
    url: string,
    private readonly wording: UnavailableWording,
    private readonly maxReplyBytes = MAX_REPLY_BYTES,
  ) {
    this.base = parseBaseUrl(url, service);
  }

  async send(path: string, options: SendOptions): Promise<Reply> {
    const method = options.method ?? 'GET';
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
    const info: RequestInfo = { service: this.service, request: `${method} ${url.pathname}${url.search}` };
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    }
    let status: number;
    let contentType: string;
    let text: string | null;
    try {
      // undici's `request`, not `fetch`: fetch refuses the ports browsers block (6000, 6665–6669,
      // 10080 …) with only "bad port", and a service may listen on any port its user picks.
      // `request` never follows a redirect either: neither service redirects, so a redirect
      // means the URL names something else, and following it would send a state-changing call
      // (and its body) where the user did not point. A 3xx is answered like any other non-2xx.
      const res = await request(url, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
        dispatcher: agent,
      });
      status = res.statusCode;
      const type = res.headers['content-type'];
      contentType = (Array.isArray(type) ? type[0] : type) ?? '';
      text = await this.readText(res.body);
    } catch (err) {
      throw this.translate(err, info, options.timeoutMs);
    }
    this.reachedBefore = true;
    if (text === null) {
      throw new ServiceProtocolError(
        info,
        '',
        `${this.service} at ${this.base.origin}: the reply to ${info.request} is longer than ${this.maxReplyBytes} bytes, which no reply of this service is; check the URL`,
      );
    }
    return { status, contentType, text };
  }

  /** The body as text, or null (the rest left unread) once it passes `maxReplyBytes`. */
  private async readText(body: Dispatcher.ResponseData['body']): Promise<string | null> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of body) {
      const piece = chunk as Buffer;
      bytes += piece.byteLength;
      if (bytes > this.maxReplyBytes) {
        body.destroy();
        return null;
      }
      chunks.push(piece);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private translate(err: unknown, info: RequestInfo, timeoutMs: number): ServiceError {
    const where = this.base.origin;
    const name = (err as { name?: string } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      return new ServiceTimeoutError(info, timeoutMs, `${this.service} at ${where}: no reply to ${info.request} within ${formatMs(timeoutMs)}`, err);
    }
    const code = errorCode(err);
    switch (code) {
      case 'ECONNREFUSED': {
        const text = this.reachedBefore ? this.wording.refusedAfterContact(where) : this.wording.refused(where);
        return new ServiceUnavailableError(info, 'refused', this.reachedBefore, text, err);
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
          `${this.service} at ${where} closed the connection before replying to ${info.request} (${code}); it may have stopped, and the request may or may not have taken effect`,
          err,
        );
      case 'UND_ERR_HEADERS_TIMEOUT':
      case 'UND_ERR_BODY_TIMEOUT':
        return new ServiceTimeoutError(info, timeoutMs, `${this.service} at ${where}: no reply to ${info.request} (${code})`, err);
      default: {
        const detail = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
        return new ServiceError('ERR_SERVICE_REQUEST', info, `${this.service} at ${where}: ${info.request} failed: ${detail}`, err);
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

function parseBaseUrl(url: string, service: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidArgumentError(`${service} URL ${JSON.stringify(url)} is not a URL; expected e.g. http://127.0.0.1:8087`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidArgumentError(`${service} URL ${url} must start with http:// or https://`);
  }
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  parsed.search = '';
  parsed.hash = '';
  return parsed;
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Checks a caller-supplied timeout. */
export function checkTimeout(ms: number, what: string): number {
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new InvalidArgumentError(`${what} must be a positive whole number of milliseconds, got ${ms}`);
  return ms;
}
