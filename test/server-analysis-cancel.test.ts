/**
 * Cancelling the full analysis over real loopback HTTP: `DELETE /analyze` stops a running
 * analysis (answered once it has stopped), `GET /status` is `not_started` again with a note
 * that it was cancelled, a later `POST /analyze` runs one to the end, and the DELETE is refused
 * like every request from another host, origin or site. The dump is written here
 * (test/mcp/slow-dump.ts: three million small objects, an analysis of a second or two) so that
 * the analysis is still running when the DELETE comes; the answer `cancelled` (not
 * `already_done`) shows that it was.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { listen, type RunningServer } from '../ts/server/listen.js';
import { writeSlowDump } from './mcp/slow-dump.js';

const NODES = 3_000_000;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any;
}

function request(port: number, method: string, p: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: p, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('DELETE /analyze over loopback HTTP', () => {
  let dir: string;
  let session: HeapSession;
  let server: RunningServer;
  const call = (method: string, p: string, headers: Record<string, string> = {}, body?: string) => request(server.port, method, p, headers, body);

  /** Polls GET /status (bounded by count, not time) until it leaves `analyzing`. */
  async function settled(): Promise<any> {
    for (let i = 0; i < 100_000; i++) {
      const s = (await call('GET', '/status')).json;
      if (s.status !== 'analyzing') return s;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the analysis did not end');
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'heapql-server-cancel-'));
    // No cache: every analysis here is a real one.
    session = await openHeap(writeSlowDump(dir, NODES), { noCache: true });
    server = await listen(session, 0);
  });
  afterAll(async () => {
    await server?.close();
    session?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a running analysis is cancelled; /status says so; a refused DELETE cancels nothing; POST /analyze then runs to the end', async () => {
    expect((await call('DELETE', '/analyze')).json).toEqual({ ok: true, status: 'not_running' });
    expect((await call('POST', '/analyze')).json).toEqual({ ok: true, status: 'started' });
    expect((await call('GET', '/status')).json.status).toBe('analyzing');

    // Another host, another origin, another site: 403, and the analysis runs on.
    const refused: Record<string, string>[] = [
      { host: `evil.example:${server.port}` },
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' },
    ];
    for (const headers of refused) {
      const res = await call('DELETE', '/analyze', headers);
      expect(res.status).toBe(403);
      expect(res.json.error.kind).toBe('forbidden');
    }
    expect((await call('GET', '/status')).json.status).toBe('analyzing');

    // From the page's own origin (the browser REPL's request).
    const cancel = await call('DELETE', '/analyze', { origin: server.url });
    expect(cancel.status).toBe(200);
    expect(cancel.json).toEqual({ ok: true, status: 'cancelled' });
    // Answered once it stopped: no wait for /status to change.
    const after = (await call('GET', '/status')).json;
    expect(after).toMatchObject({ status: 'not_started', note: 'the last analysis was cancelled (DELETE /analyze); POST /analyze starts it again' });
    expect(after).not.toHaveProperty('progress');
    expect(session.analyzed).toBe(false);
    // Still query-only: a full-path query says to POST /analyze.
    const early = await call('POST', '/query', {}, 'SELECT n.@retainedHeapSize FROM Node n');
    expect(early.status).toBe(400);
    expect(early.json.error.message).toMatch(/POST \/analyze/);
    expect((await call('DELETE', '/analyze')).json).toEqual({ ok: true, status: 'not_running' });

    expect((await call('POST', '/analyze')).json).toEqual({ ok: true, status: 'started' });
    // The note goes with the cancel it reported.
    expect((await call('GET', '/status')).json).not.toHaveProperty('note');
    const done = await settled();
    expect(done.status).toBe('ready');
    expect(done).not.toHaveProperty('note');
    const q = await call('POST', '/query', {}, 'SELECT COUNT(*) AS n FROM Node n WHERE n.@retainedHeapSize >= n.@usedHeapSize');
    expect(q.json.rows).toEqual([[NODES]]);
    // Done: nothing to cancel, and the analysis stays.
    expect((await call('DELETE', '/analyze')).json).toEqual({ ok: true, status: 'already_done' });
    expect((await call('GET', '/status')).json.status).toBe('ready');
  });

  test('/analyze answers POST and DELETE: another method is a 405 naming both', async () => {
    const res = await call('GET', '/analyze');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST, DELETE');
  });
});
