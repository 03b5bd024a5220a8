/**
 * Retries (docs/clients-spec.md section C): only idempotent reads, only after a connection that
 * was refused or reset before any reply, 3 tries with waits of 200 ms and 1 s; never a
 * generation, a download or a state change. And a connection cut in the middle of a reply,
 * which is never retried. Real loopback servers: a TCP server that resets its first
 * connections, one that stops mid-reply, and a port nothing listens on until the retry.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

import { DeviceClient } from '../../ts/clients/device/client.js';
import { ServiceAbortedError, ServiceUnavailableError } from '../../ts/clients/errors.js';
import { RETRY_DELAYS_MS, Transport } from '../../ts/clients/http.js';
import { SchedulerClient } from '../../ts/clients/scheduler/client.js';
import { SchedulerEmulator } from './scheduler-emulator.js';
import { rejection } from './expect-errors.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/**
 * A TCP server that resets (RST) the first `resets` connections as soon as their request
 * arrives, then answers each later one with `reply` (a whole HTTP response).
 */
async function resetting(resets: number, reply: string): Promise<{ url: string; connections: () => number }> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    const n = count;
    socket.once('data', () => {
      if (n <= resets) socket.resetAndDestroy();
      else socket.end(reply);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => count };
}

function response(body: string, contentType = 'text/plain'): string {
  return `HTTP/1.1 200 OK\r\ncontent-type: ${contentType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const wording = { refused: (b: string) => `nothing at ${b}`, refusedAfterContact: (b: string) => `gone from ${b}` };

function transportOf(client: SchedulerClient | DeviceClient): Transport {
  return (client as unknown as { transport: Transport }).transport;
}

describe('retries', () => {
  it('D2 a read whose connection is reset before any reply is tried again, 3 tries in all, waiting 200 ms then 1 s', async () => {
    expect(RETRY_DELAYS_MS).toEqual([200, 1000]);
    const server = await resetting(2, response('running'));
    const sched = new SchedulerClient({ url: server.url });
    const waits: number[] = [];
    const t = transportOf(sched);
    const realWait = t.wait;
    t.wait = (ms, signal) => {
      waits.push(ms);
      return realWait(ms, signal);
    };
    expect(sched.reachedBefore).toBe(false);
    expect(await sched.status({ task: 5 })).toBe('RUNNING');
    expect(server.connections()).toBe(3);
    expect(waits).toEqual([200, 1000]);
    expect(sched.reachedBefore).toBe(true);
  });

  it('D2 a read that keeps being reset fails after 3 tries, as a lost connection', async () => {
    const server = await resetting(99, response('running'));
    const device = new DeviceClient({ url: server.url });
    transportOf(device).retryDelaysMs = [1, 1];
    const err = (await device.orientation().then(() => null, (e: unknown) => e)) as ServiceUnavailableError;
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.reason).toBe('lost');
    expect(err.message).toContain('closed the connection before replying to GET /orientation (ECONNRESET) (tried 3 times)');
    expect(server.connections()).toBe(3);
    expect(device['transport'].reachedBefore).toBe(false);
  });

  it('D2 state changes, plan sets, generations, downloads and detections are sent once only', async () => {
    const server = await resetting(99, response('ok'));
    const sched = new SchedulerClient({ url: server.url });
    const device = new DeviceClient({ url: server.url });
    for (const t of [transportOf(sched), transportOf(device)]) t.retryDelaysMs = [1, 1];
    const calls: (() => Promise<unknown>)[] = [
      () => sched.stop({ task: 5 }),
      () => sched.resume({ task: 5 }),
      () => sched.setPlan({ task: 5 }, 's1'),
      () => sched.cancelPlan({ task: 5 }),
      () => device.text({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT' }),
      () => device.downloadModel('TINYLLAMA_1_1B_CHAT'),
      () => device.detectObjects(),
    ];
    for (const [i, call] of calls.entries()) {
      const err = (await call().then(() => null, (e: unknown) => e)) as ServiceUnavailableError;
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err.reason).toBe('lost');
      // Detection changes nothing on the phone; the others may have taken effect.
      if (i < calls.length - 1) expect(err.message).toContain('the request may or may not have taken effect');
      expect(server.connections()).toBe(i + 1);
    }
  });

  it('D2 a read refused at first is tried again and answered once the service listens', async () => {
    const port = await freePort();
    const t = new Transport('scheduler', `http://127.0.0.1:${port}`, wording);
    let server: http.Server | undefined;
    const waits: number[] = [];
    // Starts the service during the first wait: the first try was refused, the second is answered.
    t.wait = async (ms) => {
      waits.push(ms);
      if (!server) {
        server = http.createServer((_req, res) => res.end('running'));
        await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
        closers.push(() => new Promise<void>((resolve) => server!.close(() => resolve())));
      }
    };
    const reply = await t.send('task/5', { timeoutMs: 10_000, retry: true });
    expect(reply.text).toBe('running');
    expect(waits).toEqual([200]);
    expect(t.reachedBefore).toBe(true);
  });

  it('C1 a read aborted while it waits to be tried again after a refused connection says nothing was sent (sent false)', async () => {
    const port = await freePort();
    const t = new Transport('scheduler', `http://127.0.0.1:${port}`, wording);
    const controller = new AbortController();
    // The caller gives up during the wait after the first refusal.
    t.wait = async () => {
      controller.abort();
      throw new Error('aborted');
    };
    const err = await rejection(() => t.send('task/5', { timeoutMs: 10_000, retry: true, signal: controller.signal }), ServiceAbortedError);
    expect(err.sent).toBe(false);
    expect(err.message).toBe(`scheduler at http://127.0.0.1:${port}: GET /task/5 was aborted by the caller while it waited to be tried again (the connection was refused); nothing was sent`);
  });

  it('D2 a scheduler that answered and then refuses three tries is reported dead (reachedBefore), one never reached is not', async () => {
    const emu = await SchedulerEmulator.start();
    const sched = new SchedulerClient({ url: emu.url });
    transportOf(sched).retryDelaysMs = [1, 1];
    expect(await sched.status({ task: 5 })).toBe('UNKNOWN');
    await emu.close();
    const died = (await sched.status({ task: 5 }).then(() => null, (e: unknown) => e)) as ServiceUnavailableError;
    expect(died).toBeInstanceOf(ServiceUnavailableError);
    expect([died.reason, died.reachedBefore]).toEqual(['refused', true]);
    expect(died.message).toContain('it has probably died');
    expect(died.message).toContain('(tried 3 times)');
    const fresh = new SchedulerClient({ url: emu.url });
    transportOf(fresh).retryDelaysMs = [1, 1];
    const never = (await fresh.status({ task: 5 }).then(() => null, (e: unknown) => e)) as ServiceUnavailableError;
    expect([never.reason, never.reachedBefore]).toEqual(['refused', false]);
    expect(never.message).toContain('is not running');
    // A refused stop is not retried: one try, no "tried" note.
    const stop = (await sched.stop({ task: 5 }).then(() => null, (e: unknown) => e)) as ServiceUnavailableError;
    expect(stop.reason).toBe('refused');
    expect(stop.message).not.toContain('tried');
  });
});

describe('a connection cut in the middle of a reply', () => {
  it('U4 is reported as cut mid-reply (status and bytes received), and a read is not retried after it', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=UTF-8\r\ncontent-length: 1000\r\n\r\n{\n  "azimuth": 12');
        setImmediate(() => socket.resetAndDestroy());
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const device = new DeviceClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    transportOf(device).retryDelaysMs = [1, 1];
    const err = (await device.orientation().then(() => null, (e: unknown) => e)) as ServiceUnavailableError;
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.reason).toBe('lost');
    expect(err.message).toMatch(/closed the connection in the middle of its reply to GET \/orientation \(HTTP 200, \d+ bytes of the body received/);
    expect(err.message).not.toContain('before replying');
    expect(err.reachedBefore).toBe(true);
    expect(connections).toBe(1);
  });
});
