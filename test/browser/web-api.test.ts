/**
 * The browser REPL's HTTP client (ts/web/api.ts), with `fetch` replaced: an answer too large for
 * the page is refused with advice (a JavaScript string holds at most 2^29 − 24 units: the
 * 12.6 M-row answer failed as "internal error: Failed to fetch"), a body that breaks off says so
 * (not "internal error"), an aborted request is `cancelled` and does not mark the server lost.
 * (Node's fetch, Response and streams are the browser's APIs; no Chromium needed.)
 */
import { afterEach, describe, expect, test, vi } from 'vitest';

import { HeapqlError } from '../../ts/errors.js';
import { Repl } from '../../ts/repl/dispatch.js';
import type { ReplBackend, ReplIO } from '../../ts/repl/backend.js';
import { Api } from '../../ts/web/api.js';

/** A streamed body (no Content-Length, as the server streams a long result): `pieces`, then an error if `fail`. */
function streamed(pieces: string[], fail?: Error): Response {
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(encoder.encode(pieces[i++]!));
      else if (fail) controller.error(fail);
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Api: reading answers', () => {
  test('an answer longer than the page can hold is refused with advice, its rest unread', async () => {
    let pulled = 0;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(encoder.encode(`[${'1,'.repeat(50)}`));
      },
    });
    vi.stubGlobal('fetch', async () => new Response(body, { headers: { 'content-type': 'application/json' } }));
    const api = new Api();
    api.answerTextMax = 1000;
    const err = await api.request('/query').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HeapqlError);
    expect((err as Error).message).toMatch(/^the answer is too large for the browser .*add a LIMIT/);
    // It stopped reading (which cancels the query on the server).
    expect(pulled).toBeLessThan(20);
    expect(api.online).toBe(true);
  });

  test('a body that breaks off says so, through the REPL too (not "internal error")', async () => {
    vi.stubGlobal('fetch', async () => streamed(['{"name":"q1","oql":"x","rows":[[1],[2]'], new TypeError('network error')));
    const api = new Api();
    const err = await api.request('/query').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HeapqlError);
    expect((err as Error).message).toMatch(/^the server's answer broke off after 1 kB \(network error\): the connection was lost, or the server stopped .*add a LIMIT/);

    const errors: string[] = [];
    const io: ReplIO = { print: () => {}, error: (t) => errors.push(t), saveFile: () => {}, quit: () => {} };
    const backend = { status: { state: 'query-only' }, reachableOnly: false, query: () => api.request('/query') } as unknown as ReplBackend;
    await new Repl(backend, io).execute('SELECT x FROM java.lang.String x');
    expect(errors.at(-1)).toMatch(/^error: the server's answer broke off/);
    expect(errors.join('\n')).not.toMatch(/internal error/);
  });

  test('a streamed answer that fits is read whole, exact', async () => {
    vi.stubGlobal('fetch', async () => streamed(['{"a":[1,', '17001701742354218', ',9.007199254740992e+15]}']));
    expect(await new Api().request('/query')).toEqual({ a: [1, 17001701742354218n, 2 ** 53] });
  });

  test('an aborted request is cancelled, and the server is not marked lost', async () => {
    vi.stubGlobal('fetch', (_path: string, init: RequestInit) =>
      new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    );
    const api = new Api();
    const lost: boolean[] = [];
    api.onConnection = (online) => lost.push(online);
    const stop = new AbortController();
    const pending = api.post('/query', { query: 'x' }, stop.signal).catch((e: unknown) => e);
    stop.abort();
    const err = (await pending) as HeapqlError;
    expect(err).toBeInstanceOf(HeapqlError);
    expect(err.code).toBe('ERR_CANCELLED');
    expect(lost).toEqual([]);
    expect(api.online).toBe(true);
  });
});
