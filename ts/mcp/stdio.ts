/**
 * The MCP server's stdio transport: one JSON-RPC 2.0 message per line on stdin, answers on
 * stdout. Unlike the SDK's StdioServerTransport (which logs a bad line and answers nothing, and
 * stops reading for good after a line longer than its buffer), a line that is no message gets the
 * JSON-RPC error the specification asks for and the server reads on:
 *
 * - not JSON: -32700 Parse error, id null;
 * - JSON but no JSON-RPC 2.0 message (a batch array, a request without `method`, …): -32600
 *   Invalid Request, with the message's id when it has one, else null;
 * - longer than LINE_MAX bytes: -32600, its bytes skipped up to the next newline, with the id
 *   read from the line's start or end when it stands there (where the SDK's client writes it),
 *   so that the client's request fails at once instead of waiting for an answer.
 *
 * Blank lines are skipped. Each bad line is also reported to `onerror` (the server's stderr) in
 * one line.
 *
 * The end of the input (a client that wrote its requests and closed its end of the pipe) is no
 * reason to drop them: the transport reads the last line (also one without a newline), stops
 * reading and calls `oninputend`; `answered()` then tells when every request it passed on has
 * been answered and the answer flushed to the output, so that the server can finish before it
 * closes (server.ts serveStdio).
 */
import type { Readable, Writable } from 'node:stream';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CancelledNotificationSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/** Longest line read, in bytes (the SDK's stdio transport's buffer). */
export const LINE_MAX = 10 * 1024 * 1024;

/** Bytes kept of each end of an overlong line, to find its id. */
const END_KEPT = 256;

type Id = string | number | null;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The input ended (or was closed): its last line has been read, nothing more will come. */
  oninputend?: () => void;

  private parts: Buffer[] = [];
  private size = 0;
  /** Lines ended so far (the one being read is `lines + 1`). */
  private lines = 0;
  /** The line being read is longer than `lineMax`: its length so far, its first and last bytes. */
  private overlong: { length: number; head: Buffer; tail: Buffer } | null = null;
  private inputEnded = false;
  /**
   * Requests passed on and not answered yet, by id (a count: a client may reuse an id while the
   * first request with it runs). A request's entry goes once its answer is flushed to the output,
   * or when the client cancels it (the SDK then sends no answer).
   */
  private readonly unanswered = new Map<string | number, number>();
  private readonly answerWaiters: (() => void)[] = [];

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly lineMax = LINE_MAX,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.on('end', this.onInputEnd);
    this.input.on('close', this.onInputEnd);
  }

  /** Writes a message; resolves once it is flushed to the output (or the output failed). */
  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(`${JSON.stringify(message)}\n`);
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.settle(message.id);
  }

  /**
   * Resolves once every request passed on so far has been answered (or cancelled by the client)
   * and the answers are flushed to the output. With the input ended, no request comes after.
   */
  answered(): Promise<void> {
    if (this.unanswered.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.answerWaiters.push(resolve));
  }

  /** How many requests passed on are not answered yet. */
  get pending(): number {
    let n = 0;
    for (const count of this.unanswered.values()) n += count;
    return n;
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onInputEnd);
    this.input.off('close', this.onInputEnd);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.parts = [];
    this.size = 0;
    this.overlong = null;
    this.unanswered.clear();
    this.wakeAnswerWaiters();
    this.onclose?.();
  }

  /** Resolves once `text` is flushed to the output, or the output failed (its 'error' says why). */
  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      this.output.write(text, () => resolve());
    });
  }

  private readonly onInputError = (err: Error) => this.onerror?.(err);

  /** The input's 'end' (or its 'close' alone, when it failed): the last line, then no more. */
  private readonly onInputEnd = () => {
    if (this.inputEnded) return;
    this.inputEnded = true;
    this.input.off('data', this.onData);
    // A last line without its newline is a line all the same.
    if (this.size > 0 || this.overlong) this.endLine();
    this.oninputend?.();
  };

  /** A request is passed on: it waits for its answer. */
  private expect(id: string | number): void {
    this.unanswered.set(id, (this.unanswered.get(id) ?? 0) + 1);
  }

  /** A request's answer is flushed, or the client cancelled it. */
  private settle(id: string | number | undefined): void {
    if (id === undefined) return;
    const count = this.unanswered.get(id);
    if (count === undefined) return;
    if (count > 1) this.unanswered.set(id, count - 1);
    else this.unanswered.delete(id);
    if (this.unanswered.size === 0) this.wakeAnswerWaiters();
  }

  private wakeAnswerWaiters(): void {
    for (const wake of this.answerWaiters.splice(0)) wake();
  }

  private readonly onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (let nl = bytes.indexOf(10, start); nl >= 0; nl = bytes.indexOf(10, start)) {
      this.keep(bytes.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    this.keep(bytes.subarray(start));
  };

  /** Adds a piece of the line being read (or only counts it, once the line is too long). */
  private keep(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.overlong) {
      this.overlong.length += piece.length;
      this.overlong.tail = lastBytes(Buffer.concat([this.overlong.tail, piece]));
      return;
    }
    if (this.size + piece.length <= this.lineMax) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    const sofar = Buffer.concat([...this.parts, piece]);
    this.overlong = { length: sofar.length, head: sofar.subarray(0, END_KEPT), tail: lastBytes(sofar) };
    this.parts = [];
    this.size = 0;
  }

  private endLine(): void {
    const line = ++this.lines;
    const overlong = this.overlong;
    if (overlong) {
      this.overlong = null;
      const id = idAtStart(overlong.head.toString('utf8')) ?? idAtEnd(overlong.tail.toString('utf8'));
      this.reject(
        id,
        -32600,
        `Invalid Request: line ${line} of the input is ${overlong.length} bytes long; the server reads messages of at most ` +
          `${this.lineMax} bytes (one JSON-RPC message per line), so it was skipped`,
      );
      return;
    }
    const text = Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.reject(
        null,
        -32700,
        `Parse error: line ${line} of the input is not JSON (${(err as Error).message}); each line must hold one JSON-RPC 2.0 message`,
      );
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.reject(idOf(value), -32600, `Invalid Request: line ${line} of the input is JSON but no JSON-RPC 2.0 message: ${whyNot(value)}`);
      return;
    }
    const message = parsed.data;
    if (isJSONRPCRequest(message)) this.expect(message.id);
    else {
      // The SDK answers a cancelled request with nothing: it no longer waits for an answer.
      const cancelled = CancelledNotificationSchema.safeParse(message);
      if (cancelled.success) this.settle(cancelled.data.params.requestId);
    }
    this.onmessage?.(message);
  }

  /** Answers a line that is no message with a JSON-RPC error, and logs it. */
  private reject(id: Id, code: number, message: string): void {
    this.onerror?.(new Error(message));
    void this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }
}

function lastBytes(b: Buffer): Buffer {
  return b.length <= END_KEPT ? b : b.subarray(b.length - END_KEPT);
}

/** The id of an object that has a usable one (a string or an integer), else null. */
function idOf(value: unknown): Id {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")`;

/** An id written first (or right after `"jsonrpc":"2.0"`) in a message's text. */
function idAtStart(text: string): Id {
  const m = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${ID}\s*,`).exec(text);
  return m ? (JSON.parse(m[1]!) as string | number) : null;
}

/** An id written last in a message's text (the SDK's client puts it there). */
function idAtEnd(text: string): Id {
  const m = new RegExp(String.raw`[,{]\s*${ID}\s*\}\s*$`).exec(text);
  return m ? (JSON.parse(m[1]!) as string | number) : null;
}

/** Why a JSON value is no JSON-RPC 2.0 message, in a few words. */
function whyNot(value: unknown): string {
  if (Array.isArray(value)) return 'a batch (an array) is not supported: send each message on its own line';
  if (value === null || typeof value !== 'object') return `it is ${value === null ? 'null' : typeof value}, not an object`;
  const v = value as Record<string, unknown>;
  if (v.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('method' in v && typeof v.method !== 'string') return '"method" must be a string';
  if ('id' in v && idOf(v) === null) return '"id" must be a string or an integer';
  if (!('method' in v) && !('result' in v) && !('error' in v)) return 'it has no "method" (a request or notification) nor "result" or "error" (a response)';
  return fieldProblem(v) ?? 'its fields do not match a request, a notification or a response';
}

/** What some fields of the protocol must be, where zod says only "Invalid input". */
const MUST_BE: Record<string, string> = {
  progressToken: 'must be a string or an integer (the token progress notifications name)',
  requestId: 'must be a string or an integer (the id of the request)',
  id: 'must be a string or an integer',
};

/**
 * The first field that does not match the kind of message `v` is (a request: a `method` and an
 * `id`; a notification: a `method`; a response: a `result` or an `error`), named by its path
 * (`"params._meta.progressToken" must be a string or an integer …`), or null.
 */
function fieldProblem(v: Record<string, unknown>): string | null {
  const schema =
    'method' in v
      ? 'id' in v
        ? JSONRPCRequestSchema
        : JSONRPCNotificationSchema
      : 'result' in v
        ? JSONRPCResultResponseSchema
        : JSONRPCErrorResponseSchema;
  const parsed = schema.safeParse(v);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  if (!issue || issue.path.length === 0) return null;
  const last = String(issue.path[issue.path.length - 1]);
  const message = MUST_BE[last] ?? issue.message.replace(/^Invalid input: expected (\w+), received (\w+)$/, 'must be $1, not $2');
  return `"${issue.path.map(String).join('.')}" ${message}`;
}
