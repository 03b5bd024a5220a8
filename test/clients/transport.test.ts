/**
 * What the clients' transport refuses on the wire, against real loopback servers: a redirect is
 * not followed (a state-changing call and its body never go where the user did not point), and
 * a reply longer than any reply of the services is cut off rather than read until memory runs out,
 * and a service on a port that browsers (and so `fetch`) block is reached like any other.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DeviceClient } from '../../ts/clients/device/client.js';
import { ServiceHttpError, ServiceProtocolError } from '../../ts/clients/errors.js';
import { MAX_REPLY_BYTES, Transport } from '../../ts/clients/http.js';
import { SchedulerClient } from '../../ts/clients/scheduler/client.js';

function listen(handler: http.RequestListener, port = 0): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

/** Ports of the WHATWG fetch "bad ports" list that a test may bind (unprivileged). */
const FETCH_BLOCKED_PORTS = [6000, 6665, 6666, 6667, 6668, 6669, 6697, 10080];

/** A server on the first free fetch-blocked port (fails when all are taken). */
async function listenOnBlockedPort(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const errors: string[] = [];
  for (const port of FETCH_BLOCKED_PORTS) {
    try {
      return await listen(handler, port);
    } catch (e) {
      errors.push(`${port}: ${(e as Error).message}`);
    }
  }
  throw new Error(`no fetch-blocked port was free to listen on (${errors.join('; ')})`);
}

const wording = { refused: (b: string) => `nothing at ${b}`, refusedAfterContact: (b: string) => `gone from ${b}` };

describe('client transport', () => {
  let other: { server: http.Server; url: string };
  let redirecting: { server: http.Server; url: string };
  let endless: { server: http.Server; url: string };
  const reachedOther: string[] = [];
  let endlessSent = 0;
  let endlessFinished = false;

  beforeAll(async () => {
    other = await listen((req, res) => {
      reachedOther.push(`${req.method} ${req.url}`);
      res.end('{"success":true,"text":"hello from elsewhere"}');
    });
    redirecting = await listen((req, res) => {
      res.writeHead(307, { location: `${other.url}${req.url}` });
      res.end();
    });
    // 1 MiB pieces while the client reads; bounded by count, not time.
    endless = await listen((_req, res) => {
      const piece = Buffer.alloc(1 << 20, 0x61);
      const more = () => {
        while (endlessSent < 512) {
          endlessSent++;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        endlessFinished = true;
        res.end();
      };
      more();
    });
  });
  afterAll(() => {
    for (const s of [other, redirecting, endless]) s.server.close();
  });

  it('a redirect is an HTTP error naming its status; nothing reaches where it points', async () => {
    const sched = new SchedulerClient({ url: redirecting.url, timeoutMs: 10_000 });
    const stop = await sched.stop({ task: 4242 }).then(() => null, (e: unknown) => e);
    expect(stop).toBeInstanceOf(ServiceHttpError);
    expect((stop as ServiceHttpError).message).toMatch(/answered HTTP 307/);
    const device = new DeviceClient({ url: redirecting.url });
    const text = await device.text({ text: 'secret prompt', model: 'TINYLLAMA_1_1B_CHAT' }).then(() => null, (e: unknown) => e);
    expect(text).toBeInstanceOf(ServiceHttpError);
    expect(reachedOther).toEqual([]);
  });

  it('a service on a port fetch blocks answers as on any other port', async () => {
    const blocked = await listenOnBlockedPort((req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end(req.url?.startsWith('/task/7') ? 'running' : 'not found');
    });
    try {
      // fetch itself refuses the port: what the transport used before said only "bad port".
      const viaFetch = await fetch(`${blocked.url}/task/7`).then(() => null, (e: unknown) => e);
      expect(String((viaFetch as Error)?.cause ?? viaFetch)).toMatch(/bad port/);
      const t = new Transport('scheduler', blocked.url, wording);
      const reply = await t.send('task/7', { timeoutMs: 10_000 });
      expect(reply).toEqual({ status: 200, contentType: 'text/plain', text: 'running' });
      const sched = new SchedulerClient({ url: blocked.url, timeoutMs: 10_000 });
      expect(await sched.status({ task: 7 })).toBe('RUNNING');
    } finally {
      blocked.server.close();
    }
  });

  it('a reply longer than the cap is a protocol error, read no further', async () => {
    const t = new Transport('device service', endless.url, wording, 4 << 20);
    const err = await t.send('capture', { timeoutMs: 60_000 }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceProtocolError);
    expect((err as Error).message).toMatch(/the reply to GET \/capture is longer than 4194304 bytes, which no reply of this service is; check the URL/);
    // The client stopped reading: the server was cut off before its 512 MiB.
    expect(endlessFinished).toBe(false);
    expect(endlessSent).toBeLessThan(512);
    expect(MAX_REPLY_BYTES).toBeGreaterThanOrEqual(32 << 20);
  });
});

describe('URLs refused at construction', () => {
  const message = (make: () => unknown): string => {
    try {
      make();
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('no error');
  };

  it('a host:port without http:// gets the URL it most likely means; each service its own example', () => {
    expect(message(() => new SchedulerClient({ url: '127.0.0.1:8087' }))).toBe('scheduler URL "127.0.0.1:8087" has no http:// in front: did you mean http://127.0.0.1:8087?');
    expect(message(() => new SchedulerClient({ url: 'localhost:8087' }))).toBe('scheduler URL "localhost:8087" has no http:// in front: did you mean http://localhost:8087?');
    expect(message(() => new DeviceClient({ url: '192.168.1.20:8005/' }))).toBe('device service URL "192.168.1.20:8005/" has no http:// in front: did you mean http://192.168.1.20:8005/?');
    expect(message(() => new SchedulerClient({ url: 'nope' }))).toBe('scheduler URL "nope" is not a URL; expected e.g. http://127.0.0.1:8087');
    expect(message(() => new DeviceClient({ url: 'nope' }))).toBe('device service URL "nope" is not a URL; expected e.g. http://192.168.1.20:8005');
    expect(message(() => new DeviceClient({ url: 'ftp://phone' }))).toBe('device service URL ftp://phone must start with http:// or https://');
  });
});
