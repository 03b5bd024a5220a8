/**
 * Answers that are not what a service sends, from real loopback servers of this file's own: a
 * reply that starts but does not finish in time, something that does not speak HTTP on the
 * port, a plain-HTTP service addressed with https://. Each error must say what happened, where
 * (the URL and the request) and what to do, on one line.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

import { DeviceClient } from '../../ts/clients/device/client.js';
import { ServiceError, ServiceProtocolError, ServiceTimeoutError } from '../../ts/clients/errors.js';
import { SchedulerClient } from '../../ts/clients/scheduler/client.js';
import { rejection } from './expect-errors.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function serve(server: net.Server): Promise<string> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a reply that starts but does not finish within the time limit', () => {
  it('is a time-out that says the reply had begun (status, bytes), not that there was none', async () => {
    // Headers and the first bytes at once, the rest never (until the test closes the server).
    const url = await serve(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('runn');
      }),
    );
    const sched = new SchedulerClient({ url, timeoutMs: 300 });
    const read = await rejection(() => sched.status({ task: 7 }), ServiceTimeoutError);
    expect(read.message).toBe(`scheduler at ${url}: the reply to GET /task/7 (HTTP 200) began but did not finish within 300 ms of sending it (4 bytes of the body received); to wait longer, raise timeoutMs (heapql sched: --timeout <seconds>)`);
    const stop = await rejection(() => sched.stop({ task: 7 }), ServiceTimeoutError);
    expect(stop.message).toContain('the reply to GET /task/7?stopping=true (HTTP 200) began but did not finish within 300 ms');
    // The server had answered, so it ran the request.
    expect(stop.message).toContain('it has probably taken effect; read the status back');
  });
});

describe('something that does not speak HTTP', () => {
  it('is a protocol error that says so and asks whether the port is the service\'s', async () => {
    const url = await serve(
      net.createServer((socket) => {
        socket.on('error', () => undefined);
        socket.end('SSH-2.0-OpenSSH_9.2\r\n');
      }),
    );
    const sched = new SchedulerClient({ url });
    const err = await rejection(() => sched.status({ task: 7 }), ServiceProtocolError);
    expect(err.message).toBe(
      `scheduler at ${url}: the answer to GET /task/7 is not HTTP (HPE_INVALID_CONSTANT: Response does not match the HTTP/1.1 protocol (Expected HTTP/)); is this the scheduler's port?`,
    );
    const device = new DeviceClient({ url });
    const dev = await rejection(() => device.status(), ServiceProtocolError);
    expect(dev.message).toContain("the answer to GET /status is not HTTP (HPE_INVALID_CONSTANT");
    expect(dev.message).toContain("is this the device service's port?");
  });
});

describe('https:// to a service that speaks plain HTTP', () => {
  it('says to use http://, on one line, instead of the TLS library\'s text', async () => {
    let requests = 0;
    const url = await serve(
      http.createServer((_req, res) => {
        requests++;
        res.end('running');
      }),
    );
    const https = url.replace('http://', 'https://');
    const sched = new SchedulerClient({ url: https });
    const err = await rejection(() => sched.stop({ task: 7 }), ServiceError);
    expect(err.message).toBe(
      `scheduler at ${https}: the TLS handshake of GET /task/7?stopping=true failed (ERR_SSL_WRONG_VERSION_NUMBER): the service answers plain HTTP there; use ${url}`,
    );
    expect(requests).toBe(0);
    const device = new DeviceClient({ url: https });
    const dev = await rejection(() => device.status(), ServiceError);
    expect(dev.message).toContain(`use ${url}`);
    expect(dev.message).not.toContain('\n');
  });
});

describe('an HTTPS service whose certificate is not trusted', () => {
  it('says which certificate problem, that neither service serves HTTPS itself, and the http:// URL', async () => {
    // A self-signed certificate for 127.0.0.1 made for this test (openssl req -x509, 100 years).
    const fixtures = path.join(__dirname, 'fixtures');
    const url = await serve(
      https.createServer({ key: readFileSync(path.join(fixtures, 'self-signed-key.pem')), cert: readFileSync(path.join(fixtures, 'self-signed-cert.pem')) }, (_req, res) => res.end('running')),
    );
    const secure = url.replace('http://', 'https://');
    const err = await rejection(() => new SchedulerClient({ url: secure }).status({ task: 7 }), ServiceError);
    expect(err.message).toBe(
      `scheduler at ${secure}: the TLS handshake of GET /task/7 failed (DEPTH_ZERO_SELF_SIGNED_CERT): self-signed certificate; neither service serves HTTPS itself: use ${url}, or give the proxy in front a certificate this machine trusts`,
    );
  });
});

describe('unicode', () => {
  it('a reply whose multi-byte characters arrive split across reads is decoded whole', async () => {
    const reply = JSON.stringify({ response: 'Grüße, 世界 😀 — ok', model: 'TINYLLAMA_1_1B_CHAT' }, null, 2);
    const bytes = Buffer.from(reply, 'utf8');
    const url = await serve(
      http.createServer((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(bytes.length) });
        // One byte per write, each on its own turn of the event loop: the 4-byte emoji spans four.
        let i = 0;
        const next = (): void => {
          if (i < bytes.length) {
            res.write(bytes.subarray(i, i + 1));
            i++;
            setImmediate(next);
          } else res.end();
        };
        next();
      }),
    );
    const device = new DeviceClient({ url });
    const answer = await device.text({ text: 'Grüße 😀', model: 'TINYLLAMA_1_1B_CHAT' });
    expect(answer.response).toBe('Grüße, 世界 😀 — ok');
  });
});
