/**
 * The one file that binds a port: the app of app.ts on 127.0.0.1 (never another interface),
 * with a clean stop that lets requests in flight finish for a moment, then cancels the rest
 * (a stream's scan stops when its connection closes) and releases the heap (its scratch files
 * are unlinked files and go with it).
 */
import type { AddressInfo } from 'node:net';

import { serve, type ServerType } from '@hono/node-server';

import { HeapqlError } from '../errors.js';
import type { HeapSession } from '../session/index.js';
import { createApp, type ServerOptions } from './app.js';

export const HOST = '127.0.0.1';

export interface RunningServer {
  /** The bound port (the real one after `--port 0`). */
  port: number;
  url: string;
  /** Stops accepting, waits up to `graceMs` for requests in flight, then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

export async function listen(session: HeapSession, port: number, options: Omit<ServerOptions, 'port'> = {}): Promise<RunningServer> {
  let bound = port;
  const app = createApp(session, { ...options, port: () => bound });
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: HOST, port }, () => resolve(s));
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
  return {
    port: bound,
    url: `http://${HOST}:${bound}`,
    close(graceMs = 2000) {
      closing ??= new Promise<void>((resolve) => {
        const http = server as import('node:http').Server;
        const timer = setTimeout(() => http.closeAllConnections?.(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        http.closeIdleConnections?.();
      });
      return closing;
    },
  };
}
