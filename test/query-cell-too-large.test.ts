/**
 * A result cell longer than one JavaScript string (a 600 000 000-character String; a list of
 * hundreds of millions of elements) is an ERR_TOO_LARGE error naming it and what to do, raised
 * before the text is read: the CLI prints an `error:` line and exits 1, the library's `query`
 * and `queryStream` reject (the process goes on), the server answers an error status and keeps
 * serving. The dump is a sparse file (its 600 MB string is a hole): no disk, no memory.
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { listen, type RunningServer } from '../ts/server/listen.js';
import { Bytes, HprofWriter, T } from './tools/hprof-writer.js';
import { heapql } from './tools/run.js';

/** More than 2^29 − 24 UTF-16 units, the most one V8 string holds. */
const BIG = 600_000_000;
const dir = mkdtempSync(path.join(tmpdir(), 'heapql-cell-'));
const dump = path.join(dir, 'big-string.hprof');

/** A Latin-1 String of BIG characters (zeros, a hole in the file) held by a `Holder`, and a short one. */
function writeDump(): void {
  const d = new HprofWriter();
  const object = d.defineClass('java/lang/Object', 0);
  d.defineClass('java/lang/Class', object);
  for (const p of ['Z', 'C', 'F', 'D', 'B', 'S', 'I', 'J']) d.defineClass(`[${p}`, object);
  const string = d.defineClass('java/lang/String', object, [['value', T.object], ['coder', T.byte], ['hash', T.int]]);
  const holder = d.defineClass('Holder', object, [['a', T.int], ['s', T.object]]);
  const bigValue = 0x3000;
  const big = d.instance(string, [bigValue, 0, 0]);
  const shortValue = d.primitiveArray(T.byte, 2, Buffer.from('ok', 'latin1'));
  const short = d.instance(string, [shortValue, 0, 0]);
  const h1 = d.instance(holder, [1, big]);
  const h2 = d.instance(holder, [2, short]);
  for (const h of [h1, h2]) d.roots.u1(0x01).u4(h).u4(0);
  const bytes = d.fileBytes();
  // Without its end record (9 bytes), then a second segment holding only the big byte[].
  const head = bytes.subarray(0, bytes.length - 9);
  const arrayHeader = new Bytes().u1(0x23).u4(bigValue).u4(1).u4(BIG).u1(T.byte).buffer;
  const segment = new Bytes().u1(0x1c).u4(0).u4(arrayHeader.length + BIG).buffer;
  const fd = openSync(dump, 'w');
  writeSync(fd, head);
  writeSync(fd, segment);
  writeSync(fd, arrayHeader);
  const end = new Bytes().u1(0x2c).u4(0).u4(0).buffer;
  writeSync(fd, end, 0, end.length, head.length + segment.length + arrayHeader.length + BIG);
  closeSync(fd);
}

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
    writeDump();
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
