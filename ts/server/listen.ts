/**
 * The one file that binds a port: the app of app.ts on 127.0.0.1 (never another interface),
 * with a clean stop that lets requests in flight finish for a moment, then cancels the rest
 * (a stream's scan stops when its connection closes) and releases the heap (its scratch files
 * are unlinked files and go with it).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { getRequestListener, RequestError } from '@hono/node-server';

import { HeapqlError } from '../errors.js';
import type { HeapSession } from '../session/index.js';
import { createApp, errorResponse, type ServerOptions } from './app.js';
import { ApiError, errorBody } from './errors.js';
import { checkRequest } from './guard.js';

export const HOST = '127.0.0.1';

export interface RunningServer {
  /** The bound port (the real one after `--port 0`). */
  port: number;
  url: string;
  /** Stops accepting, waits up to `graceMs` for requests in flight, then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

/** A port bound before the dump is open: every request answers 503 `not_ready` until `serve`. */
export interface BoundPort {
  /** The bound port (the real one after port 0). */
  port: number;
  /** Serves the app over `session` on this port from now on. */
  serve(session: HeapSession, options?: Omit<ServerOptions, 'port'>): RunningServer;
  /** Gives the port up (the dump could not be opened). */
  close(): Promise<void>;
}

/**
 * Binds `port` on 127.0.0.1 before anything else: a port in use is said at once, not after the
 * dump was indexed (minutes for a big one). Until `serve`, a request is a 503 `not_ready` saying
 * the dump is being opened (after the Host and Origin checks every answer gets).
 */
export async function bindPort(port: number): Promise<BoundPort> {
  let bound = port;
  const opening = (req: IncomingMessage, res: ServerResponse) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    let err = new ApiError(503, 'not_ready', 'the server is still opening the heap dump (reading or indexing it); retry in a moment', { 'retry-after': '2' });
    try {
      // The request line's target: a path, or a URL naming its host (the absolute form).
      const target = req.url ?? '/';
      const url = target.startsWith('/') ? `http://${req.headers.host ?? ''}${target}` : target;
      checkRequest(headers, req.method ?? 'GET', target.split('?')[0]!, bound, url);
    } catch (refused) {
      if (refused instanceof ApiError) err = refused;
    }
    const body = JSON.stringify(errorBody(err.kind, err.message));
    // The request's body is not read: the connection closes after the answer.
    res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', connection: 'close', ...err.headers });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  let handler: (req: IncomingMessage, res: ServerResponse) => void = opening;
  const server: Server = await new Promise((resolve, reject) => {
    // No Host at all is the adapter's to refuse (Node's own refusal has no body).
    const s = createServer({ requireHostHeader: false }, (req, res) => handler(req, res));
    // What Node's HTTP parser refuses before any handler (no Host, a malformed request line).
    s.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return socket.destroy();
      const body = JSON.stringify(errorBody('query', `bad request: ${err.code === 'HPE_HEADER_OVERFLOW' ? 'headers too large' : err.message}`));
      socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    });
    s.listen(port, HOST, () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(new HeapqlError('ERR_USAGE', `port ${port} on ${HOST} is in use: choose another with --port N, or --port 0 for any free port`, { exitCode: 2 }));
      } else if (err.code === 'EACCES') {
        reject(new HeapqlError('ERR_USAGE', `no permission to listen on port ${port} of ${HOST}: choose a port above 1023 with --port N, or --port 0`, { exitCode: 2 }));
      } else reject(err);
    });
  });
  bound = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  const close = (graceMs = 2000) => {
    closing ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };
  return {
    port: bound,
    serve(session, options = {}) {
      const app = createApp(session, { ...options, port: bound });
      // A request the adapter cannot turn into a URL (a Host such as `a b` or `x:1.evil`) gets
      // the JSON error every other refusal gets, not an empty 400.
      handler = getRequestListener(app.fetch, {
        hostname: HOST,
        errorHandler: (e) =>
          errorResponse(e instanceof RequestError ? new ApiError(400, 'query', `bad request: ${e.message} (send Host: 127.0.0.1:${bound} or localhost:${bound} and a path starting with /)`) : new ApiError(500, 'internal', `internal error: ${e instanceof Error ? e.message : String(e)}`)),
      });
      return { port: bound, url: `http://${HOST}:${bound}`, close };
    },
    close: () => close(0),
  };
}

/** Binds `port` and serves `session` on it (`bindPort` then `serve`). */
export async function listen(session: HeapSession, port: number, options: Omit<ServerOptions, 'port'> = {}): Promise<RunningServer> {
  return (await bindPort(port)).serve(session, options);
}
