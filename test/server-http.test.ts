/**
 * The server over real loopback HTTP (listen.ts binds 127.0.0.1): NDJSON rows arrive before the
 * scan ends and a client that disconnects cancels it, a 1 GB chunked upload is refused after
 * 64 KiB, the Host and Origin checks on raw requests, 50 parallel queries, and the CLI: banner,
 * `--port 0`, a port in use, SIGTERM.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { bindPort, listen, type RunningServer } from '../ts/server/listen.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

/** One raw HTTP request; `body` may be a generator of chunks (sent chunked, as fast as the socket takes them). */
function request(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Iterable<Buffer> },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    const b = options.body;
    if (b === undefined) req.end();
    else if (typeof b === 'string') req.end(b);
    else {
      const it = b[Symbol.iterator]();
      const pump = () => {
        for (;;) {
          const { done, value } = it.next();
          if (done) return req.end();
          if (!req.write(value)) return req.once('drain', pump);
        }
      };
      req.on('error', () => {});
      pump();
    }
  });
}

describe('server over loopback HTTP', () => {
  let session: HeapSession;
  let server: RunningServer;
  /** Native stream calls: their cancel tokens, and a gate that holds back each call's end. */
  const streams: { token: { cancelled: boolean } }[] = [];
  let openGate: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    session = await openHeap(demo);
    const handle = session.handle as unknown as { executeStream: (...a: any[]) => Promise<unknown> };
    const real = handle.executeStream.bind(handle);
    // The scan itself runs for real; its end (the native promise) is held until the gate opens,
    // so a row that reaches the client while the gate is shut was sent before the scan ended.
    handle.executeStream = (plan: string, rows: number, onBatch: unknown, token: { cancelled: boolean }, ...rest: unknown[]) => {
      streams.push({ token });
      const current = gate;
      return real(plan, rows, onBatch, token, ...rest).then(async (end) => {
        await current;
        return end;
      });
    };
    server = await listen(session, 0);
  });
  afterAll(async () => {
    openGate();
    await server?.close();
    session?.close();
  });

  test('POST /stream: NDJSON rows keyed by column name arrive before the scan ends', async () => {
    gate = new Promise((r) => (openGate = r));
    const controller = new AbortController();
    const res = await fetch(`${server.url}/stream`, { method: 'POST', body: 'SELECT s, s.@usedHeapSize FROM java.lang.String s', signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    const first = JSON.parse(new TextDecoder().decode(value).split('\n')[0]!) as Record<string, any>;
    expect(Object.keys(first)).toEqual(['s', 's.@usedHeapSize']);
    expect(first.s).toMatchObject({ className: 'java.lang.String', address: expect.stringMatching(/^0x/) });
    // The native scan has not been allowed to end: these rows were streamed, not buffered.
    const call = streams.at(-1)!;
    expect(call.token.cancelled).toBe(false);
    openGate();
    let text = new TextDecoder().decode(value);
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      text += new TextDecoder().decode(r.value);
    }
    const lines = text.trim().split('\n');
    const count = (await session.query('SELECT COUNT(*) FROM java.lang.String')).rows[0]![0];
    expect(lines.length).toBe(count);
    for (const l of lines) expect(Object.keys(JSON.parse(l))).toEqual(['s', 's.@usedHeapSize']);
  });

  test('a client that disconnects cancels the scan', async () => {
    gate = new Promise((r) => (openGate = r));
    const controller = new AbortController();
    const res = await fetch(`${server.url}/stream`, { method: 'POST', body: 'SELECT x FROM INSTANCEOF java.lang.Object x', signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    const call = streams.at(-1)!;
    expect(call.token.cancelled).toBe(false);
    controller.abort();
    // Bounded by count, not time: the server notices the closed connection and cancels.
    for (let i = 0; i < 500 && !call.token.cancelled; i++) await new Promise((r) => setTimeout(r, 10));
    expect(call.token.cancelled).toBe(true);
    openGate();
    // The server is still fine.
    expect((await fetch(`${server.url}/status`)).status).toBe(200);
  });

  test('a 1 GB chunked upload is refused with 413 after 64 KiB, never read whole', async () => {
    let sent = 0;
    function* gigabyte(): Iterable<Buffer> {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      while (sent < 1 << 30) {
        sent += chunk.length;
        yield chunk;
      }
    }
    const res = await request(server.port, { method: 'POST', path: '/query', headers: { 'transfer-encoding': 'chunked' }, body: gigabyte() });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: { kind: 'body_too_large', message: expect.stringContaining('65536') } });
    expect(sent).toBeLessThan(64 << 20);
  });

  test('Host and Origin are checked on real requests; no CORS grant', async () => {
    const p = server.port;
    expect((await request(p, { path: '/status', headers: { host: `localhost:${p}` } })).status).toBe(200);
    const rebound = await request(p, { path: '/status', headers: { host: `attacker.example:${p}` } });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.kind).toBe('forbidden');
    const cross = await request(p, { method: 'POST', path: '/query', headers: { origin: 'https://attacker.example' }, body: 'SELECT COUNT(*) FROM java.lang.String' });
    expect(cross.status).toBe(403);
    expect(cross.headers['access-control-allow-origin']).toBeUndefined();
    const analyze = await request(p, { method: 'POST', path: '/analyze', headers: { origin: 'null' } });
    expect(analyze.status).toBe(403);
    const same = await request(p, { method: 'POST', path: '/query', headers: { origin: `http://127.0.0.1:${p}` }, body: 'SELECT COUNT(*) FROM java.lang.String' });
    expect(same.status).toBe(200);
    expect(same.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('a Host the adapter cannot parse, none at all, or another host in the request line: the JSON error too', async () => {
    const raw = (head: string, target = '/status') =>
      new Promise<string>((resolve, reject) => {
        const s = net.connect(server.port, '127.0.0.1', () => s.end(`GET ${target} HTTP/1.1\r\n${head}Connection: close\r\n\r\n`));
        let text = '';
        s.on('data', (d) => (text += d));
        s.on('close', () => resolve(text));
        s.on('error', reject);
      });
    // A request line that names another host (the absolute form): HTTP says that host is the
    // request's, not the Host header's; it is refused as a Host of that name is.
    for (const target of ['http://evil.example/status', `http://evil.example:${server.port}/report`, `http://127.0.0.1:${server.port + 1}/status`]) {
      const answer = await raw(`Host: 127.0.0.1:${server.port}\r\n`, target);
      expect(answer, target).toMatch(/^HTTP\/1\.1 403 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.message, target).toMatch(/^Host '(evil\.example|127\.0\.0\.1:[0-9]+)(:[0-9]+)?' refused: /);
    }
    const own = await raw(`Host: 127.0.0.1:${server.port}\r\n`, `http://localhost:${server.port}/status`);
    expect(own).toMatch(/^HTTP\/1\.1 200 /);
    for (const head of [`Host: 127.0.0.1:${server.port}.evil.example\r\n`, 'Host: a b\r\n', '']) {
      const answer = await raw(head);
      expect(answer, JSON.stringify(head)).toMatch(/^HTTP\/1\.1 (400|403) /);
      const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      expect(JSON.parse(body), JSON.stringify(head)).toMatchObject({ ok: false, error: { kind: expect.any(String), message: expect.any(String) } });
    }
  });

  test('50 parallel queries (point, aggregate, stream) without an error', async () => {
    const queries = Array.from({ length: 50 }, (_, i) => {
      if (i % 3 === 0) return fetch(`${server.url}/stream`, { method: 'POST', body: 'SELECT s FROM java.lang.String s LIMIT 200' }).then(async (r) => ({ status: r.status, rows: (await r.text()).trim().split('\n').length }));
      const q = i % 3 === 1 ? `SELECT x FROM INSTANCEOF java.lang.Object x WHERE x.@objectId = ${i * 7}` : 'SELECT classof(x), COUNT(*) FROM INSTANCEOF java.lang.Object x GROUP BY classof(x)';
      return fetch(`${server.url}/query`, { method: 'POST', body: q }).then(async (r) => ({ status: r.status, rows: ((await r.json()) as { rowCount: number }).rowCount }));
    });
    const results = await Promise.all(queries);
    for (const [i, r] of results.entries()) {
      expect(r.status).toBe(200);
      if (i % 3 === 0) expect(r.rows).toBe(200);
      else if (i % 3 === 1) expect(r.rows).toBe(1);
      else expect(r.rows).toBeGreaterThan(10);
    }
  });
});

function runCli(args: string[]) {
  const child = spawn(process.execPath, [path.join(root, 'bin/heapql.js'), ...args], { cwd: root, env: { ...process.env, HEAPQL_DEBUG: '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

describe('heapql server (the CLI)', () => {
  test('--port 0 prints the real port and the banner; SIGTERM stops it cleanly', async () => {
    const run = runCli(['server', demo, '--port', '0']);
    for (let i = 0; i < 3000 && !/examples:[\s\S]*curl[\s\S]*curl/.test(run.out()); i++) await new Promise((r) => setTimeout(r, 10));
    const out = run.out();
    const url = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
    expect(url).not.toBeNull();
    expect(Number(url![2])).toBeGreaterThan(0);
    expect(out).toContain(`${url![1]}/repl`);
    for (const e of ['GET /status', 'POST /analyze', 'POST /stream', 'GET /report/threads', 'GET /help', 'GET /schema']) expect(out).toContain(e);
    expect(out.match(/curl /g)!.length).toBe(2);
    expect((await fetch(`${url![1]}/status`)).status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.err()).toMatch(/stopping/);
  });

  test('a file name with a line break and a right-to-left override is printed escaped in the banner', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-server-name-'));
    const file = path.join(dir, 'fake\nline \u202egpj.hprof');
    fs.copyFileSync(demo, file);
    try {
      const run = runCli(['server', file, '--port', '0', '--no-cache']);
      for (let i = 0; i < 3000 && !/examples:[\s\S]*curl[\s\S]*curl/.test(run.out()); i++) await new Promise((r) => setTimeout(r, 10));
      const out = run.out();
      expect(out).toContain(`heap dump ${dir}/fake\\nline \\u202egpj.hprof\n`);
      expect(out).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a port in use is one clear line and exit 2, said before the dump is read', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-server-port-'));
    try {
      const run = runCli(['server', demo, '--port', String(port), '--cache-dir', cache]);
      expect(await run.exited).toBe(2);
      const lines = run.err().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`port ${port} .*in use.*--port 0`));
      // The dump was not indexed first (minutes for a big one): its index cache was not written.
      expect(fs.readdirSync(cache)).toEqual([]);
      // The same with a free port: the cache is written, so the check above can see one.
      const served = runCli(['server', demo, '--port', '0', '--cache-dir', cache]);
      for (let i = 0; i < 3000 && !/listening on/.test(served.out()); i++) await new Promise((r) => setTimeout(r, 10));
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(0);
      expect(fs.readdirSync(cache).length).toBeGreaterThan(0);
    } finally {
      blocker.close();
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  test('the port is bound before the dump is open: meanwhile a request is a 503 not_ready, after the Host check', async () => {
    const bound = await bindPort(0);
    let served: RunningServer | null = null;
    try {
      const early = await request(bound.port, { path: '/status' });
      expect(early.status).toBe(503);
      expect(early.headers['retry-after']).toBe('2');
      expect(JSON.parse(early.body)).toEqual({ ok: false, error: { kind: 'not_ready', message: expect.stringMatching(/still opening the heap dump/) } });
      const rebound = await request(bound.port, { path: '/status', headers: { host: 'evil.example:80' } });
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body).error.kind).toBe('forbidden');
      expect((await request(bound.port, { method: 'POST', path: '/query', body: 'SELECT COUNT(*) FROM java.lang.String' })).status).toBe(503);
      const session = await openHeap(demo);
      served = bound.serve(session);
      const status = await request(bound.port, { path: '/status' });
      expect(status.status).toBe(200);
      expect(JSON.parse(status.body).objects).toBe(session.info().objectCount);
      await served.close();
      session.close();
    } finally {
      await (served ?? bound).close();
    }
  });
});

// A real scan, big enough that its first rows reach the client long before it ends: the 1 GB
// benchmark dump (`npm run bench` makes it). No gate here: the native stream call's own end is
// watched, and a disconnect must stop the scan short of the heap's object count.
const big = path.join(root, 'bench-out/bench-1g.hprof');
const haveBig = fs.existsSync(big);
if (!haveBig) console.warn(`skipping the real-scan streaming test: ${big} is absent (npm run bench creates it)`);

describe.skipIf(!haveBig)('streaming a real scan of the 1 GB benchmark dump', () => {
  let session: HeapSession;
  let server: RunningServer;
  const ends: { settled: boolean; rows: number | null; stopped: boolean | null; error: string | null }[] = [];

  beforeAll(async () => {
    session = await openHeap(big);
    const handle = session.handle as unknown as { executeStream: (...a: any[]) => Promise<{ rows: number; stopped: boolean }> };
    const real = handle.executeStream.bind(handle);
    handle.executeStream = (...a: any[]) => {
      const end = { settled: false, rows: null as number | null, stopped: null as boolean | null, error: null as string | null };
      ends.push(end);
      return real(...a).then(
        (r) => {
          Object.assign(end, { settled: true, rows: r.rows, stopped: r.stopped });
          return r;
        },
        (err: Error) => {
          Object.assign(end, { settled: true, error: err.message });
          throw err;
        },
      );
    };
    server = await listen(session, 0);
  });
  afterAll(async () => {
    await server?.close();
    session?.close();
  });

  test('rows arrive while the scan runs; a disconnect stops it before the end', async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/stream`, { method: 'POST', body: 'SELECT x FROM INSTANCEOF java.lang.Object x', signal: controller.signal });
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value).split('\n')[0]).toMatch(/^\{"x":\{"objectId":/);
    const end = ends.at(-1)!;
    expect(end.settled).toBe(false);
    controller.abort();
    for (let i = 0; i < 3000 && !end.settled; i++) await new Promise((r) => setTimeout(r, 10));
    expect(end.settled).toBe(true);
    // Stopped early: either reported as stopped with fewer rows than the heap has, or cancelled.
    if (end.error === null) {
      expect(end.stopped).toBe(true);
      expect(end.rows!).toBeLessThan(session.status.objects);
    } else expect(end.error).toMatch(/cancel/i);
  });
});
