/**
 * Typed failures of the scheduler and device clients. Every one is a HeapqlError, so the CLI
 * prints it as one line and exits with its exitCode (2 for arguments refused before any request,
 * 1 for everything that went wrong on the way or at the service). Raw fetch errors never escape.
 */
import { HeapqlError } from '../errors.js';

/** Which service and which request a failure belongs to, e.g. `scheduler`, `GET /task/5`. */
export interface RequestInfo {
  service: string;
  request: string;
}

/** Base of the failures that happened while talking to a service. */
export class ServiceError extends HeapqlError {
  readonly service: string;
  readonly request: string;

  constructor(code: string, info: RequestInfo, message: string, cause?: unknown) {
    super(code, message, { exitCode: 1, cause });
    this.name = new.target.name;
    this.service = info.service;
    this.request = info.request;
  }
}

/**
 * No connection. `reason` says how: `refused` (nothing listens on the port), `unreachable`
 * (name or host not found), `lost` (the connection broke before a complete reply, so a
 * state-changing call may or may not have taken effect). `reachedBefore` is true when this
 * client had received a reply from the service earlier: for the scheduler that means it died.
 */
export class ServiceUnavailableError extends ServiceError {
  readonly reason: 'refused' | 'unreachable' | 'lost';
  readonly reachedBefore: boolean;

  constructor(info: RequestInfo, reason: 'refused' | 'unreachable' | 'lost', reachedBefore: boolean, message: string, cause?: unknown) {
    super('ERR_SERVICE_UNAVAILABLE', info, message, cause);
    this.reason = reason;
    this.reachedBefore = reachedBefore;
  }
}

/** No complete reply within the request's time limit. */
export class ServiceTimeoutError extends ServiceError {
  readonly timeoutMs: number;

  constructor(info: RequestInfo, timeoutMs: number, message: string, cause?: unknown) {
    super('ERR_SERVICE_TIMEOUT', info, message, cause);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The service answered with a non-2xx status. `bodyText` is its reply verbatim, `body` the parsed
 * JSON when the reply was JSON, `errorCode` the service's own error code when it sent one.
 */
export class ServiceHttpError extends ServiceError {
  readonly status: number;
  readonly bodyText: string;
  readonly body: unknown;
  readonly errorCode: string | undefined;

  constructor(info: RequestInfo, status: number, bodyText: string, body: unknown, errorCode: string | undefined, message: string) {
    super('ERR_SERVICE_HTTP', info, message);
    this.status = status;
    this.bodyText = bodyText;
    this.body = body;
    this.errorCode = errorCode;
  }
}

/**
 * A 2xx reply this client cannot understand (unexpected text, malformed JSON, wrong shape), or
 * an answer that is not HTTP at all (something else listens on the port; `bodyText` is then empty).
 */
export class ServiceProtocolError extends ServiceError {
  readonly bodyText: string;

  constructor(info: RequestInfo, bodyText: string, message: string) {
    super('ERR_SERVICE_PROTOCOL', info, message);
    this.bodyText = bodyText;
  }
}

/**
 * The reply came from a different model than the one asked for. The AI Phone Server answers a
 * model name it does not know with its default model (GEMMA_3_1B_IT) instead of refusing it,
 * so an app version that lacks a model would otherwise answer with another one unnoticed.
 */
export class ModelMismatchError extends ServiceProtocolError {
  /** The model id the client sent. */
  readonly requested: string;
  /** The model the reply names. */
  readonly answered: string;

  constructor(info: RequestInfo, bodyText: string, requested: string, answered: string, message: string) {
    super(info, bodyText, message);
    this.requested = requested;
    this.answered = answered;
  }
}

/**
 * The caller's AbortSignal fired. If it fired before the request left (or while a text
 * generation waited for earlier ones), nothing was sent (`sent` false); otherwise the
 * connection was closed, and a state-changing call may or may not have taken effect.
 * `cause` is the signal's reason.
 */
export class ServiceAbortedError extends ServiceError {
  readonly sent: boolean;

  constructor(info: RequestInfo, sent: boolean, message: string, cause?: unknown) {
    super('ERR_SERVICE_ABORTED', info, message, cause);
    this.sent = sent;
  }
}

/** A 2xx reply that says the operation failed (`success: false`). `body` is the parsed reply. */
export class ServiceFailureError extends ServiceError {
  readonly body: Record<string, unknown>;

  constructor(info: RequestInfo, body: Record<string, unknown>, message: string) {
    super('ERR_SERVICE_FAILURE', info, message);
    this.body = body;
  }
}

/** An argument refused before any request was sent (bad id, plan, model, URL, option). */
export class InvalidArgumentError extends HeapqlError {
  constructor(message: string) {
    super('ERR_INVALID_ARGUMENT', message, { exitCode: 2 });
    this.name = 'InvalidArgumentError';
  }
}
