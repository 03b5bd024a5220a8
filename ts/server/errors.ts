/**
 * Every error the server sends is `{ok: false, error: {kind, message}}` with the status of the
 * specification (an OQL error's also with its place and name: `QueryErrorDetails`). `ApiError`
 * carries one; `toApiError` maps what the session throws.
 */
import { HeapqlError, type UnknownName } from '../errors.js';
import { formatOqlError, isOqlError, oqlErrorPlace, OqlNameError } from '../oql/errors.js';
import type { SessionStatus } from '../session/index.js';
import { needsFullPathMessage } from './full-path.js';

export type ErrorKind =
  | 'query'
  | 'analysis_failed'
  | 'not_ready'
  | 'body_too_large'
  | 'not_found'
  | 'method_not_allowed'
  | 'forbidden'
  | 'cancelled'
  | 'dump_unreadable'
  | 'dump_changed'
  | 'internal';

export type ErrorStatus = 400 | 403 | 404 | 405 | 409 | 413 | 500 | 503;

/**
 * What a 400 `query` adds to `{kind, message}` for an OQL error (a syntax error, one of
 * planning, a class or field the dump lacks), so that no client reads them out of the message:
 * where in the query (`line`, `column`: 1-based, the column in characters, as the message's
 * `query:L:C:` says), what is wrong there without the place (`reason`, and `hint` when there is
 * one), and for a name the dump lacks that name and what the message lists beside it
 * (`unknownName`, the executor's data: ts/errors.ts `UnknownName`).
 */
export interface QueryErrorDetails {
  line?: number;
  column?: number;
  reason?: string;
  hint?: string;
  unknownName?: UnknownName;
}

export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly kind: ErrorKind,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly details: QueryErrorDetails = {},
  ) {
    super(message);
  }
}

export function errorBody(
  kind: ErrorKind,
  message: string,
  details: QueryErrorDetails = {},
): { ok: false; error: { kind: ErrorKind; message: string } & QueryErrorDetails } {
  return { ok: false, error: { kind, message, ...details } };
}

/** Codes of problems with what the client asked (400 `query`); ERR_TOO_LARGE: a result cell or
 * section longer than one JavaScript string, which asking for less mends. */
const QUERY_CODES = new Set([
  'ERR_QUERY', 'ERR_QUERY_SYNTAX', 'ERR_OQL_SYNTAX', 'ERR_OQL_PLAN', 'ERR_PLAN', 'ERR_UNKNOWN_FIELD', 'ERR_UNKNOWN_CLASS',
  'ERR_ARGUMENT', 'ERR_INVALID_ARGUMENT', 'ERR_TOO_LARGE',
]);

/**
 * Codes of a dump the server cannot read as it was (cut short on disk since it was opened, or
 * corrupt where a request first read it): not heapql's fault, and it will not mend itself.
 */
const DUMP_CODES = new Set(['ERR_DUMP_CHANGED', 'ERR_CORRUPT']);

/** What to do about a dump that cannot be read any more (said once, in the server's words). */
const RESTART = 'start the server again on a complete copy of the dump';

/**
 * The message of a dump the server cannot read, with what to do said once: the reader's own
 * advice (`open it again (…)`, for a program that can) becomes the server's.
 */
function unreadableMessage(message: string): string {
  return message.includes('open it again') ? message.replace('open it again', RESTART) : `${message} (${RESTART})`;
}

/** The session whose analysis state says what to do about ERR_NEEDS_ANALYSIS (read only then). */
export interface AnalysisStateOf {
  readonly status: SessionStatus;
}

/**
 * Maps a thrown error; `session` gives the analysis state for ERR_NEEDS_ANALYSIS's advice,
 * `source` is the OQL text, for a caret under the bad token.
 */
export function toApiError(err: unknown, session: AnalysisStateOf, source?: string): ApiError {
  if (err instanceof ApiError) return err;
  if (isOqlError(err)) {
    const named = err.unknownName !== undefined ? { unknownName: err.unknownName } : {};
    if (source === undefined) return new ApiError(400, 'query', err.message, {}, named);
    const at = oqlErrorPlace(err, source);
    const hint = err instanceof OqlNameError || err.hint === null ? {} : { hint: err.hint };
    const placed = at ? { line: at.line, column: at.column, reason: err.reason, ...hint } : {};
    return new ApiError(400, 'query', formatOqlError(err, source, 'query'), {}, { ...placed, ...named });
  }
  if (err instanceof HeapqlError) {
    if (QUERY_CODES.has(err.code)) return new ApiError(400, 'query', err.message, {}, err.unknownName !== undefined ? { unknownName: err.unknownName } : {});
    if (err.code === 'ERR_NEEDS_ANALYSIS') return new ApiError(400, 'query', needsFullPathMessage(err.message, session.status));
    if (err.code === 'ERR_NO_SUCH_OBJECT') return new ApiError(404, 'not_found', err.message);
    if (err.code === 'ERR_CANCELLED' || err.code === 'ERR_CLOSED') return new ApiError(503, 'cancelled', `${err.message} (the server is stopping)`);
    if (DUMP_CODES.has(err.code)) return new ApiError(500, 'dump_unreadable', unreadableMessage(err.message));
    return new ApiError(500, 'internal', err.message);
  }
  return new ApiError(500, 'internal', `internal error: ${err instanceof Error ? err.message : String(err)}`);
}
