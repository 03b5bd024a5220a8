/**
 * A result cell longer than one JavaScript string (a 600 000 000-character String; a list of
 * hundreds of millions of elements) is an ERR_TOO_LARGE error naming it and what to do, raised
 * before the text is read: the CLI prints an `error:` line and exits 1, the library's `query`
 * and `queryStream` reject (the process goes on), the server answers an error status and keeps
 * serving. The dump is a sparse file (its 600 MB string is a hole): no disk, no memory.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { listen, type RunningServer } from '../ts/server/listen.js';
import { BIG_STRING_UNITS, writeBigStringDump } from './tools/big-string-dump.js';
import { heapql } from './tools/run.js';

const BIG = BIG_STRING_UNITS;
const dir = mkdtempSync(path.join(tmpdir(), 'heapql-cell-'));
const dump = path.join(dir, 'big-string.hprof');

const QUERY = 'SELECT h.a, toString(h.s) AS t FROM Holder h';

function post(port: number, p: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: p, headers: { connection: 'close', 'content-type': 'text/plain' }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a cell longer than a JavaScript string', () => {
  let heap: HeapSession;
  let server: RunningServer;

  beforeAll(async () => {
    writeBigStringDump(dump);
    heap = await openHeap(dump, { noCache: true });
    server = await listen(heap, 0);
  });
  afterAll(async () => {
    await server?.close();
    heap?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the dump is what the test needs: a sparse file with a String of 600 000 000 characters', async () => {
    expect(statSync(dump).size).toBeGreaterThan(BIG);
    expect(statSync(dump).blocks * 512).toBeLessThan(BIG / 10);
    const r = await heap.query('SELECT h.a, h.s.@length AS n FROM Holder h ORDER BY h.a');
    expect(r.rows).toEqual([[1, BIG], [2, 2]]);
  });

  test('the library: query rejects with ERR_TOO_LARGE naming the string and what to do', async () => {
    const e = await heap.query(QUERY).then(() => null, (x: unknown) => x as { code: string; message: string });
    expect(e?.code).toBe('ERR_TOO_LARGE');
    expect(e?.message).toContain('600000000 characters');
    expect(e?.message).toContain('@length');
    // The short one alone is fine.
    const ok = await heap.query('SELECT toString(h.s) AS t FROM Holder h WHERE h.a = 2');
    expect(ok.rows).toEqual([['ok']]);
  });

  test('the library: queryStream ends with the error, which the caller catches', async () => {
    const seen: unknown[] = [];
    let caught: { code?: string } | null = null;
    try {
      for await (const row of heap.queryStream(QUERY, { batchRows: 1 })) seen.push(row);
    } catch (e) {
      caught = e as { code?: string };
    }
    expect(caught?.code).toBe('ERR_TOO_LARGE');
    expect(seen.length).toBeLessThanOrEqual(1);
  });

  test('the server answers an error status and keeps serving', async () => {
    const bad = await post(server.port, '/query', QUERY);
    expect(bad.status).toBe(400);
    const body = JSON.parse(bad.text) as { ok: boolean; error: { kind: string; message: string } };
    expect(body.ok).toBe(false);
    expect(body.error.kind).toBe('query');
    expect(body.error.message).toContain('600000000 characters');
    const good = await post(server.port, '/query', 'SELECT h.a FROM Holder h WHERE h.a = 2');
    expect(good.status).toBe(200);
    expect(good.text).toContain('"rows"');
  });

  test('the CLI prints an error line and exits 1, whatever the format', async () => {
    for (const format of ['table', 'csv', 'json']) {
      const r = await heapql(['query', dump, '--no-cache', '--format', format, '--query', QUERY]);
      expect(r.code, `${format}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/^error: .*600000000 characters, more than one result cell can hold .*s\.@length/m);
      expect(r.stderr).not.toContain('napi');
    }
  });
});
