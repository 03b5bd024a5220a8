/**
 * Requests a careless or hostile client sends, over real loopback HTTP on the demo dump: each is
 * a 400 `query` that names what is wrong and where, never a 500 or an answer for other text than
 * the one sent; and a HEAD does nothing a GET would.
 * - JSON nested 30 000 deep where a number belongs (a 64 KiB body holds that);
 * - half of a surrogate pair in the query (`"\ud800"` in JSON);
 * - a body that is not UTF-8 (it was decoded with U+FFFD in place of the bad bytes);
 * - a body sent compressed (`Content-Encoding: gzip`: said to be bad UTF-8; `br` on plain text: run);
 * - a URL parameter that is not percent-encoded UTF-8 (`?name=%ff` was looked up as `%ff`);
 * - a URL parameter the endpoint does not read (`?limt=3` answered the whole list), or one given twice;
 * - HEAD of a paged result's next page or count (it handed the rows out, or started the count).
 */
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { STOPPED_REASON } from '../ts/server/held-scans.js';
import { listen, type RunningServer } from '../ts/server/listen.js';

const demo = path.join(path.resolve(__dirname, '..'), 'fixtures/demo/demo.hprof');

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** The error of a 400 `query` answer (fails the test on any other). */
function queryError(a: Answer): { kind: string; message: string; line?: number; column?: number; reason?: string; hint?: string } {
  expect(a.status, a.body).toBe(400);
  expect(a.headers['content-type']).toMatch(/^application\/json/);
  const parsed = JSON.parse(a.body) as { ok: boolean; error: { kind: string; message: string } };
  expect(parsed.ok).toBe(false);
  expect(parsed.error.kind).toBe('query');
  return parsed.error;
}

describe('server: hostile and careless requests', () => {
  let session: HeapSession;
  let server: RunningServer;
  let counts = 0;

  beforeAll(async () => {
    session = await openHeap(demo);
    const real = session.queryCount.bind(session);
    session.queryCount = (...args: Parameters<HeapSession['queryCount']>) => {
      counts++;
      return real(...args);
    };
    server = await listen(session, 0);
  });
  afterAll(async () => {
    await server?.close();
    session?.close();
  });

  test('JSON nested 30 000 deep as "limit" or "pageRows" is a 400 naming an array, not a 500', async () => {
    const deep = `${'['.repeat(30000)}${']'.repeat(30000)}`;
    for (const [route, field] of [['/query', 'limit'], ['/stream', 'limit'], ['/pages', 'limit'], ['/pages', 'pageRows']] as const) {
      const body = `{"query": "SELECT COUNT(*) FROM java.lang.String", "${field}": ${deep}}`;
      expect(body.length).toBeLessThan(65536);
      const e = queryError(await request(server.port, { method: 'POST', path: route, headers: JSON_TYPE, body }));
      expect(e.message).toMatch(new RegExp(`^"${field}" must be a whole number from .* not an array$`));
    }
    // An object is named too, and a long string is cut.
    const obj = queryError(await request(server.port, { method: 'POST', path: '/query', headers: JSON_TYPE, body: '{"query": "SELECT 1 FROM java.lang.String", "limit": {"a": {"b": 1}}}' }));
    expect(obj.message).toMatch(/not an object$/);
  });

  test('half of a surrogate pair in the query is a 400 at its line and column, before anything runs', async () => {
    // Line 2, after `WHERE toString(s) = "ab` (an emoji before it counts one character).
    const query = 'SELECT s FROM java.lang.String s\nWHERE toString(s) = "😀ab\\ud800"';
    for (const route of ['/query', '/stream', '/pages', '/']) {
      const e = queryError(await request(server.port, { method: 'POST', path: route, headers: JSON_TYPE, body: `{"query": ${JSON.stringify(query).replace('\\\\ud800', '\\ud800')}}` }));
      expect(e.line).toBe(2);
      expect(e.column).toBe(25);
      expect(e.reason).toMatch(/^unpaired surrogate U\+D800: /);
      expect(e.message).toMatch(/^query:2:25: unpaired surrogate U\+D800/);
      expect(e.message).not.toMatch(/plan/);
      expect(e.hint).toMatch(/both halves of its pair/);
    }
    // A low half alone, at the start.
    const low = queryError(await request(server.port, { method: 'POST', path: '/query', headers: JSON_TYPE, body: '{"query": "SELECT \\"\\udc00\\" FROM java.lang.String"}' }));
    expect([low.line, low.column]).toEqual([1, 9]);
    expect(low.reason).toMatch(/U\+DC00/);
    // Both halves are one character: the query runs.
    const pair = await request(server.port, { method: 'POST', path: '/query', headers: JSON_TYPE, body: '{"query": "SELECT COUNT(*) FROM java.lang.String s WHERE toString(s) = \\"\\ud83d\\ude00\\""}' });
    expect(pair.status, pair.body).toBe(200);
    expect(JSON.parse(pair.body).rows).toEqual([[0]]);
  });

  test('a body that is not UTF-8 is a 400 naming the byte offset, never run with U+FFFD in its place', async () => {
    const text = (s: string) => Buffer.from(s, 'utf8');
    const where = 'SELECT COUNT(*) FROM java.lang.String s WHERE toString(s) = ';
    // [the text before the bad bytes, the bad bytes, the message of the raw text body]
    const cases: [string, number[], RegExp][] = [
      // A byte that is never UTF-8, inside a string literal (it matched any U+FFFD before).
      [`${where}"é`, [0xff], /the bytes 0xff at byte offset 63 are no UTF-8 character/],
      // A sequence cut short by an ASCII byte: named from its lead byte.
      [`${where}"`, [0xe2, 0x28], /the bytes 0xe2 0x28 at byte offset 61 /],
      // A surrogate written as UTF-8 bytes (CESU-8).
      [`${where}"`, [0xed, 0xa0, 0x80], /the bytes 0xed 0xa0 at byte offset 61 /],
    ];
    for (const [before, bad, message] of cases) {
      const raw = Buffer.concat([text(before), Buffer.from(bad), text('"')]);
      const json = Buffer.concat([text(`{"query": ${JSON.stringify(before).slice(0, -1)}`), Buffer.from(bad), text('\\""}')]);
      for (const [route, headers, body] of [['/query', {}, raw], ['/stream', {}, raw], ['/pages', JSON_TYPE, json], ['/query', JSON_TYPE, json]] as const) {
        const e = queryError(await request(server.port, { method: 'POST', path: route, headers, body }));
        expect(e.message).toMatch(/^the body is not valid UTF-8: the bytes 0x.* at byte offset [0-9]+ are no UTF-8 character; send the query as UTF-8 text$/);
        if (body === raw) expect(e.message).toMatch(message);
      }
    }
    // The body ends inside a sequence.
    const cut = queryError(await request(server.port, { method: 'POST', path: '/query', body: Buffer.concat([text(`${where}"x" OR "`), Buffer.from([0xe2, 0x82])]) }));
    expect(cut.message).toBe('the body is not valid UTF-8: the bytes 0xe2 0x82 at byte offset 68 begin a character the body ends inside of; send the query as UTF-8 text');
    // UTF-8 text of every length of sequence runs, a byte-order mark before it too.
    const fine = await request(server.port, { method: 'POST', path: '/query', body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text('SELECT COUNT(*) FROM java.lang.String s WHERE toString(s) = "é€😀"')]) });
    expect(fine.status, fine.body).toBe(200);
    expect(JSON.parse(fine.body).rows).toEqual([[0]]);
  });

  test('a compressed body (Content-Encoding) is a 400 saying so, neither read as bad UTF-8 nor run as if uncompressed', async () => {
    const query = 'SELECT COUNT(*) FROM java.lang.String s';
    for (const route of ['/', '/query', '/stream', '/pages']) {
      const json = route === '/pages';
      const body = json ? JSON.stringify({ query }) : query;
      for (const [encoding, sent] of [
        ['gzip', zlib.gzipSync(body)],
        ['deflate', zlib.deflateSync(body)],
        ['br', Buffer.from(body)],
        ['identity, gzip', zlib.gzipSync(body)],
      ] as const) {
        const e = queryError(await request(server.port, { method: 'POST', path: route, headers: { ...(json ? JSON_TYPE : {}), 'content-encoding': encoding }, body: sent }));
        expect(e.message, `${route} ${encoding}`).toBe(
          `the body is sent with Content-Encoding: ${JSON.stringify(encoding)}, which this server does not decode; send the body uncompressed (no Content-Encoding): the OQL as text, or JSON {"query": "..."}`,
        );
      }
    }
    // `identity` is no encoding: the query runs.
    const fine = await request(server.port, { method: 'POST', path: '/query', headers: { 'content-encoding': 'identity' }, body: query });
    expect(fine.status, fine.body).toBe(200);
  });

  test('a URL parameter the endpoint does not read, or one given twice, is a 400 naming it; those it reads work', async () => {
    const cases: [method: string, path: string, message: string][] = [
      // A misspelt ?limit= answered every row of the list as if it were not there.
      ['GET', '/report/leaks?limt=3', 'unknown URL parameter "limt" for GET /report/leaks: it takes ?format=, ?limit='],
      ['HEAD', '/report?format=md&verbose', 'unknown URL parameter "verbose" for GET /report: it takes ?format=, ?limit='],
      ['GET', '/status?x=1', 'unknown URL parameter "x" for GET /status: it takes no parameters'],
      ['POST', '/query?limit=5', 'unknown URL parameter "limit" for POST /query: it takes no parameters'],
      ['GET', '/objects/1/referents?limit=1&maxSteps=2', 'unknown URL parameter "maxSteps" for GET /objects/:id/referents: it takes ?dump=, ?limit='],
      ['GET', '/pages/abc?form=1', 'unknown URL parameter "form" for GET /pages/:id: it takes ?from=, ?rows='],
      ['GET', '/classes/describe?name=java.lang.String&name=java.lang.Object', 'the URL parameter "name" is given twice for GET /classes/describe: give it once'],
      ['GET', '/report/top?limit=2&limit=3', 'the URL parameter "limit" is given twice for GET /report/top: give it once'],
    ];
    for (const [method, url, message] of cases) {
      const a = await request(server.port, { method, path: url, body: method === 'POST' ? 'SELECT COUNT(*) FROM java.lang.String s' : undefined });
      expect(a.status, url).toBe(400);
      if (method !== 'HEAD') expect(JSON.parse(a.body).error, url).toEqual({ kind: 'query', message });
    }
    // The parameters each endpoint reads.
    for (const url of ['/classes?pattern=String', '/classes/describe?name=java.lang.String', '/objects/resolve?spec=%230', '/objects/0?fieldOffset=0&fieldLimit=5', '/objects/0/referents?limit=1', '/repl?pageRows=10', '/status']) {
      const a = await request(server.port, { path: url });
      expect(a.status, `${url}: ${a.body.slice(0, 200)}`).toBe(200);
    }
    // No endpoint: still the 404 (and a 405 for another method), not a parameter's 400.
    expect((await request(server.port, { path: '/nope?x=1' })).status).toBe(404);
    expect((await request(server.port, { method: 'PUT', path: '/status?x=1' })).status).toBe(405);
  });

  test('a URL parameter that is not percent-encoded UTF-8 is a 400 naming it, not looked up as written', async () => {
    for (const [url, name] of [
      ['/classes/describe?name=%ff', 'name'],
      ['/classes/describe?name=%ED%A0%80', 'name'],
      ['/classes?pattern=abc%zz', 'pattern'],
      ['/objects/resolve?spec=%c3', 'spec'],
      ['/report/leaks?format=md&limit=%e2%82', 'limit'],
      ['/pages/x?from=%80', 'from'],
    ]) {
      const e = queryError(await request(server.port, { path: url! }));
      expect(e.message).toMatch(new RegExp(`^the URL's parameter "${name}" is not percent-encoded UTF-8 \\(".*"\\): write each byte`));
    }
    // Percent-encoded UTF-8 is decoded, `+` as a space.
    const described = await request(server.port, { path: '/classes/describe?name=java%2Elang%2EString' });
    expect(described.status, described.body).toBe(200);
    const nothing = await request(server.port, { path: '/classes/describe?name=caf%C3%A9+x' });
    expect(nothing.status).toBe(404);
    expect(JSON.parse(nothing.body).error.message).toMatch(/^no class named 'café x'/);
  });

  test('HEAD of a paged result hands out no rows and starts no count', async () => {
    const opened = await request(server.port, { method: 'POST', path: '/pages', headers: JSON_TYPE, body: '{"query": "SELECT s FROM java.lang.String s", "pageRows": 3}' });
    expect(opened.status, opened.body).toBe(200);
    const { cursor, result } = JSON.parse(opened.body) as { cursor: string; result: { rows: unknown[][] } };
    expect(result.rows).toHaveLength(3);
    const whole = await session.query('SELECT s FROM java.lang.String s', { limit: 9 });
    const before = counts;
    for (const p of [`/pages/${cursor}`, `/pages/${cursor}?rows=5`, `/pages/${cursor}/count`]) {
      const head = await request(server.port, { method: 'HEAD', path: p });
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toMatch(/^application\/json/);
      expect(head.body).toBe('');
    }
    expect(counts).toBe(before);
    // The next rows are still those after the first page.
    const next = await request(server.port, { path: `/pages/${cursor}` });
    expect(next.status, next.body).toBe(200);
    const page = JSON.parse(next.body) as { from: number; rows: unknown[][] };
    expect(page.from).toBe(3);
    expect(page.rows).toEqual(whole.rows.slice(3, 6));
    // A HEAD says what a GET would: a bad parameter, a cursor that is gone.
    expect((await request(server.port, { method: 'HEAD', path: `/pages/${cursor}?rows=0` })).status).toBe(400);
    expect((await request(server.port, { method: 'DELETE', path: `/pages/${cursor}` })).status).toBe(200);
    expect((await request(server.port, { method: 'HEAD', path: `/pages/${cursor}` })).status).toBe(404);
    expect((await request(server.port, { method: 'HEAD', path: `/pages/${cursor}/count` })).status).toBe(404);
  });
});

/**
 * HEAD /report (hono answers HEAD with the GET route and drops the body): the status and
 * headers of the GET, without its work: before the analysis the GET starts it, a HEAD does not;
 * once ready the GET builds the report, a HEAD does not. A fixture dump of its own: the
 * analysis state is this test's.
 */
describe('server: HEAD /report', () => {
  let session: HeapSession;
  let server: RunningServer;
  let reports = 0;

  beforeAll(async () => {
    session = await openHeap(path.join(path.resolve(__dirname, '..'), 'fixtures/dumps/KnownHeap-jdk17-coops.hprof'));
    const real = session.report.bind(session);
    session.report = (...args: Parameters<HeapSession['report']>) => {
      reports++;
      return real(...args);
    };
    server = await listen(session, 0);
  });
  afterAll(async () => {
    await server?.close();
    session?.close();
  });

  test('starts neither the analysis nor the report, and says what a GET would', async () => {
    expect(session.status.state).toBe('query-only');
    for (const p of ['/report', '/report?format=md', '/report/leaks']) {
      const head = await request(server.port, { method: 'HEAD', path: p });
      expect(head.status).toBe(202);
      expect(head.headers['retry-after']).toMatch(/^\d+$/);
      expect(head.headers['content-type']).toMatch(/^application\/json/);
      expect(head.body).toBe('');
    }
    // Nothing started: the state is as before, and no analysis is running.
    expect(session.status.state).toBe('query-only');
    expect((await request(server.port, { method: 'HEAD', path: '/report?format=xml' })).status).toBe(400);
    // A GET starts it (202), then answers the report once ready.
    const get = await request(server.port, { path: '/report' });
    expect(get.status).toBe(202);
    await session.analyze({ forReport: true });
    const before = reports;
    const head = await request(server.port, { method: 'HEAD', path: '/report?format=md&limit=3' });
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(head.body).toBe('');
    expect(reports).toBe(before);
    const md = await request(server.port, { path: '/report?format=md&limit=3' });
    expect(md.status).toBe(200);
    expect(md.headers['content-type']).toBe(head.headers['content-type']);
    expect(reports).toBe(before + 1);
  });
});

/**
 * Clients that stop reading a streamed answer: each paused scan holds one of the addon's 4
 * worker threads, and four of them held every query, look-up and analysis of every client for
 * ever. The server keeps at most HELD_MAX scans waiting for their clients and stops the ones
 * waiting longest (`stallMs: 0` here: a scan waiting at all counts).
 */
describe('server: clients that stop reading', () => {
  let session: HeapSession;
  let server: RunningServer;
  /** Each native stream call: its batches delivered and taken (the gate's releases), its end. */
  const streams: { delivered: number; released: number; settled: boolean; cancelled: () => boolean }[] = [];
  const sockets: net.Socket[] = [];

  beforeAll(async () => {
    session = await openHeap(demo);
    const handle = session.handle as unknown as { executeStream: (...a: any[]) => Promise<unknown> };
    const real = handle.executeStream.bind(handle);
    handle.executeStream = (plan: string, rows: number, onBatch: (b: unknown) => void, token: { cancelled: boolean }, gate: { release(): void }, ...rest: unknown[]) => {
      const s = { delivered: 0, released: 0, settled: false, cancelled: () => token.cancelled };
      streams.push(s);
      const release = gate.release.bind(gate);
      gate.release = () => {
        s.released++;
        release();
      };
      return real(plan, rows, (b: unknown) => {
        s.delivered++;
        onBatch(b);
      }, token, gate, ...rest).finally(() => (s.settled = true));
    };
    server = await listen(session, 0, { stallMs: 0 });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await server?.close();
    session?.close();
  });

  /** A POST /stream whose answer is never read (the socket paused): its scan stops at the gate. */
  function stalledStream(): net.Socket {
    // Fat rows: far more than the sockets' buffers hold, so that the scan waits for the reader.
    const body = `SELECT ${Array(12).fill('x').join(', ')} FROM INSTANCEOF java.lang.Object x`;
    const socket = net.connect(server.port, '127.0.0.1');
    socket.write(`POST /stream HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    socket.pause();
    sockets.push(socket);
    return socket;
  }

  test('four stalled streams: the two waiting longest are stopped, and other queries still run', async () => {
    for (let i = 0; i < 4; i++) stalledStream();
    // Until each scan waits at its gate (8 batches ahead of its reader), or was stopped.
    for (let i = 0; i < 2000 && !(streams.length === 4 && streams.every((s) => s.cancelled() || s.delivered - s.released >= 8)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(streams.length).toBe(4);
    const answer = await request(server.port, { method: 'POST', path: '/query', body: 'SELECT COUNT(*) FROM java.lang.String' });
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body).rows).toEqual([[3703]]);
    // Two of them are stopped (the second may be once it, too, waits for its client).
    const four = streams.slice(0, 4);
    await expect.poll(() => four.filter((s) => s.cancelled()).length, { timeout: 60_000 }).toBe(2);
    const stopped = four.filter((s) => s.cancelled());
    for (let i = 0; i < 2000 && !stopped.every((s) => s!.settled); i++) await new Promise((r) => setTimeout(r, 10));
    expect(stopped.every((s) => s!.settled)).toBe(true);
    // Reading again, the clients of the stopped streams read the reason as their last line (all
    // they get is in their sockets already: they end first; the others read on until closed).
    // The server may have taken the four requests in another order than they were sent.
    const ended: string[] = [];
    for (const socket of sockets) {
      let got = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => {
        got += d;
        if (got.endsWith('\r\n0\r\n\r\n')) ended.push(got);
      });
      socket.resume();
    }
    await expect.poll(() => ended.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
    for (const s of sockets.splice(0)) s.destroy();
    for (const text of ended.slice(0, 2)) {
      const refusals = text.split('\n').filter((l) => l.startsWith('{"ok":false'));
      expect(refusals).toHaveLength(1);
      expect(JSON.parse(refusals[0]!.replace(/\r$/, ''))).toEqual({ ok: false, error: { kind: 'cancelled', message: STOPPED_REASON } });
    }
  });

  test('paged results count too: a stalled stream beside two cursors closes the one unused longest', async () => {
    for (const s of sockets.splice(0)) s.destroy();
    const open = async () => {
      const a = await request(server.port, { method: 'POST', path: '/pages', headers: JSON_TYPE, body: '{"query": "SELECT x FROM INSTANCEOF java.lang.Object x", "pageRows": 1}' });
      expect(a.status, a.body).toBe(200);
      return JSON.parse(a.body).cursor as string;
    };
    const older = await open();
    const newer = await open();
    expect((await request(server.port, { path: `/pages/${older}` })).status).toBe(200);
    expect((await request(server.port, { path: `/pages/${newer}` })).status).toBe(200);
    const before = streams.length;
    stalledStream();
    // Until the stream's scan waits at its gate, or was stopped.
    for (let i = 0; i < 2000 && !(streams.length > before && (streams[before]!.cancelled() || streams[before]!.delivered - streams[before]!.released >= 8)); i++) await new Promise((r) => setTimeout(r, 10));
    // (HEAD uses no cursor: it cannot make the older one the newer.)
    for (let i = 0; i < 200 && (await request(server.port, { method: 'HEAD', path: `/pages/${older}` })).status === 200; i++) await new Promise((r) => setTimeout(r, 10));
    const gone = await request(server.port, { path: `/pages/${older}` });
    expect(gone.status, gone.body).toBe(404);
    expect(JSON.parse(gone.body).error.message).toMatch(/or the oldest of more than 2 scans waiting for their clients\); run the query again$/);
    expect((await request(server.port, { path: `/pages/${newer}` })).status).toBe(200);
  });
});
