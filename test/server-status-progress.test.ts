/**
 * `GET /status`'s `progress` over real loopback HTTP: a client can always divide `done` by
 * `total` (total ≥ 1, 0 ≤ done ≤ total). Before the analysis's first report it is
 * `{phase: "starting", done: 0, total: 1}` (it was `total: 0`: NaN for every client computing a
 * fraction), a phase that reports no total counts 0 of 1, and a real phase's report is passed on
 * as it is; a report request's 202 carries the same progress. The analysis of demo.hprof runs
 * for real; the test holds its start, slips in one report without a total (the executor's
 * `Control::tick` can make one for a phase over nothing) and holds its end, so that each state
 * is seen, however fast the machine.
 */
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import type { ProgressEvent } from '../ts/session/index.js';
import { listen, type RunningServer } from '../ts/server/listen.js';

const demo = path.resolve(__dirname, '../fixtures/demo/demo.hprof');

function get(port: number, p: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: p === '/analyze' ? 'POST' : 'GET', path: p }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A gate the test opens. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

/** Waits (bounded by count, not time) until `ok()`. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100_000; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`never: ${what}`);
}

/** A progress body a client can divide: total ≥ 1, 0 ≤ done ≤ total. */
function expectDivisible(p: { phase: string; done: number; total: number }): void {
  expect(typeof p.phase).toBe('string');
  expect(p.total).toBeGreaterThanOrEqual(1);
  expect(p.done).toBeGreaterThanOrEqual(0);
  expect(p.done).toBeLessThanOrEqual(p.total);
  expect(Number.isFinite(p.done / p.total)).toBe(true);
}

describe('GET /status progress over loopback HTTP', () => {
  let session: HeapSession;
  let server: RunningServer;
  const start = gate();
  const phase = gate();
  const end = gate();
  let realEnded = false;
  let lastReal: ProgressEvent | undefined;

  beforeAll(async () => {
    session = await openHeap(demo, { noCache: true });
    const handle = session.handle as unknown as { analyze: (o: unknown, p: (e: ProgressEvent) => void, t: unknown) => Promise<unknown> };
    const real = handle.analyze.bind(handle);
    handle.analyze = async (options, onProgress, token) => {
      await start.wait;
      onProgress({ phase: 'graph', done: 0, total: 0 });
      await phase.wait;
      const summary = await real(options, (e) => {
        lastReal = e;
        onProgress(e);
      }, token);
      realEnded = true;
      await end.wait;
      return summary;
    };
    server = await listen(session, 0);
  });
  afterAll(async () => {
    start.open();
    phase.open();
    end.open();
    await server?.close();
    session?.close();
  });

  test('starting, a phase without a total, a real phase: always divisible', async () => {
    expect((await get(server.port, '/status')).json).not.toHaveProperty('progress');
    expect((await get(server.port, '/analyze')).json).toEqual({ ok: true, status: 'started' });

    // Before the first report.
    const starting = (await get(server.port, '/status')).json;
    expect(starting.status).toBe('analyzing');
    expect(starting.progress).toEqual({ phase: 'starting', done: 0, total: 1 });
    const report = await get(server.port, '/report');
    expect(report.status).toBe(202);
    expect(report.json.progress).toEqual({ phase: 'starting', done: 0, total: 1 });

    // A report of a phase without a total.
    start.open();
    await until(() => session.status.progress?.phase === 'graph', 'the first report');
    expect((await get(server.port, '/status')).json.progress).toEqual({ phase: 'graph', done: 0, total: 1 });
    expect((await get(server.port, '/report')).json.progress).toEqual({ phase: 'graph', done: 0, total: 1 });

    // The real analysis's last report, as it came (its end held: still analyzing).
    phase.open();
    await until(() => realEnded, 'the end of the real analysis');
    const last = (await get(server.port, '/status')).json;
    expect(last.status).toBe('analyzing');
    expect(lastReal).toBeDefined();
    expect(lastReal!.total).toBeGreaterThanOrEqual(1);
    expect(last.progress).toEqual({ phase: lastReal!.phase, done: lastReal!.done, total: lastReal!.total });
    for (const p of [starting.progress, last.progress]) expectDivisible(p);

    end.open();
    await until(() => session.status.state !== 'analyzing', 'the analysis to finish');
    const ready = (await get(server.port, '/status')).json;
    expect(ready.status).toBe('ready');
    expect(ready).not.toHaveProperty('progress');
  });
});
