/**
 * ThreadControl with real worker_threads: the ids it returns are checked against the kernel's
 * own view (/proc/thread-self inside each worker, /proc/self/task and its status files here),
 * then used against the scheduler emulator. Runs the compiled library (dist/), which workers
 * can import; the main thread uses the same build so both sides speak the same protocol.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { requireFreshDist, ROOT } from './dist-check.js';
import { SchedulerEmulator } from './scheduler-emulator.js';

type Lib = typeof import('../../ts/clients/scheduler/index.js');

const LIB = pathToFileURL(path.join(ROOT, 'dist/clients/scheduler/index.js')).href;
const WORKER = new URL('./fixtures/thread-worker.mjs', import.meta.url);

let lib: Lib;
let emu: SchedulerEmulator;
const workers: Worker[] = [];

beforeAll(async () => {
  requireFreshDist('clients', 'native');
  lib = (await import(LIB)) as Lib;
  emu = await SchedulerEmulator.start();
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});
afterAll(async () => {
  await emu.close();
});

interface Report {
  tid: number | undefined;
  kernelTid: number;
}

/** Starts a worker and waits for its first report. */
function startWorker(options: { register: boolean; spinFlag?: SharedArrayBuffer }): Promise<{ worker: Worker; report: Report }> {
  const worker = new Worker(WORKER, { workerData: { lib: LIB, ...options } });
  workers.push(worker);
  return new Promise((resolve, reject) => {
    worker.once('message', (report: Report) => resolve({ worker, report }));
    worker.once('error', reject);
  });
}

function tgidOf(tid: number): number {
  const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
  return Number(/^Tgid:\s+(\d+)$/m.exec(status)![1]);
}

describe('ThreadControl', () => {
  // First in the file on purpose: the worker registers before any ThreadControl listens, so
  // its announcement is lost and osId must ask it.
  it('maps a worker that registered before ThreadControl existed by asking it', async () => {
    const { worker, report } = await startWorker({ register: true });
    const tc = new lib.ThreadControl(emu.port);
    const tid = await tc.osId(worker);
    expect(tid).toBe(report.kernelTid);
    expect(tid).toBe(report.tid);
  });

  it('osId() of the calling thread is its kernel thread id (the main thread: the pid)', async () => {
    const tc = new lib.ThreadControl(emu.port);
    const tid = await tc.osId();
    expect(tid).toBe(ownKernelTid());
    expect(tid).toBe(process.pid);
    expect(readdirSync('/proc/self/task')).toContain(String(tid));
    expect(readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim().length).toBeGreaterThan(0);
  });

  it('maps several workers to distinct live threads of this process, matching /proc', async () => {
    const tc = new lib.ThreadControl(emu.port);
    const started = await Promise.all([1, 2, 3].map(() => startWorker({ register: true })));
    const tasks = readdirSync('/proc/self/task').map(Number);
    const ids: number[] = [];
    for (const { worker, report } of started) {
      const tid = await tc.osId(worker);
      expect(tid).toBe(report.kernelTid);
      expect(tasks).toContain(tid);
      expect(tgidOf(tid)).toBe(process.pid);
      ids.push(tid);
    }
    expect(new Set([...ids, process.pid]).size).toBe(4);
  });

  it('maps a worker whose event loop is blocked, from the announcement it made when registering', async () => {
    const tc = new lib.ThreadControl(emu.port);
    const flag = new SharedArrayBuffer(4);
    try {
      const { worker, report } = await startWorker({ register: true, spinFlag: flag });
      expect(await tc.osId(worker)).toBe(report.kernelTid);
    } finally {
      Atomics.store(new Int32Array(flag), 0, 1);
    }
  });

  it('stops, reads and resumes a worker thread by its id at the scheduler', async () => {
    emu.reset();
    const tc = new lib.ThreadControl(emu.port);
    const { worker, report } = await startWorker({ register: true });
    expect(await tc.getThreadStatus(worker)).toBe('UNKNOWN');
    await tc.stopThread(worker);
    expect(await tc.getThreadStatus(worker)).toBe('STOPPED');
    await tc.resumeThread(worker);
    expect(await tc.getThreadStatus(report.kernelTid)).toBe('RUNNING');
    expect(emu.requests).toEqual([
      `GET /task/${report.kernelTid}`,
      `GET /task/${report.kernelTid}?stopping=true`,
      `GET /task/${report.kernelTid}`,
      `GET /task/${report.kernelTid}?stopping=false`,
      `GET /task/${report.kernelTid}`,
    ]);
  });

  it('a worker that never registers is a clear error, not a hang', async () => {
    const tc = new lib.ThreadControl(emu.port, { workerWaitMs: 200 });
    const { worker } = await startWorker({ register: false });
    await expect(tc.osId(worker)).rejects.toMatchObject({ code: 'ERR_THREAD_UNREGISTERED', message: expect.stringContaining('registerThreadId()') });
  });

  it('an exited worker has no id', async () => {
    const tc = new lib.ThreadControl(emu.port);
    const { worker } = await startWorker({ register: true });
    await worker.terminate();
    await expect(tc.osId(worker)).rejects.toMatchObject({ code: 'ERR_THREAD_GONE' });
  });

  it('refuses an invalid port', () => {
    expect(() => new lib.ThreadControl(0)).toThrow(lib.InvalidArgumentError);
    expect(() => new lib.ThreadControl(70_000)).toThrow(/port 70000 is invalid/);
  });

  it('reports a scheduler that is not running as unavailable', async () => {
    const gone = await SchedulerEmulator.start();
    const port = gone.port;
    await gone.close();
    const tc = new lib.ThreadControl(port);
    await expect(tc.stopThread()).rejects.toBeInstanceOf(lib.ServiceUnavailableError);
  });
});

/** The kernel's id of the calling thread: /proc/thread-self links to <pid>/task/<tid>. */
function ownKernelTid(): number {
  return Number(readlinkSync('/proc/thread-self').split('/').pop());
}
