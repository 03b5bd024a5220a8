/**
 * Linux thread ids of JavaScript threads. The calling thread's id is read from
 * /proc/thread-self (a link to `<pid>/task/<tid>` for whichever thread reads it), so the client
 * does not load the heap addon. A Worker's id can only be learned from inside it, so the worker calls
 * registerThreadId() once; that announces {Node threadId → Linux tid} on a BroadcastChannel,
 * which leaves the worker's own parentPort messages alone, and answers later queries while
 * its event loop is free. The parent keys the mapping by `worker.threadId` (unique per process,
 * never reused). Every id is checked against /proc/self/task before it is handed out, so a
 * stale or foreign id never reaches the scheduler.
 */
import { existsSync, readlinkSync } from 'node:fs';
import { BroadcastChannel, threadId as ownNodeThreadId, type Worker } from 'node:worker_threads';

import { HeapqlError } from '../../errors.js';
import { InvalidArgumentError } from '../errors.js';
import { describeValue } from '../http.js';

const CHANNEL = 'heapql:scheduler:thread-ids';

type Message = { kind: 'announce'; threadId: number; tid: number; pid: number } | { kind: 'query'; threadId: number };

/** The Linux thread id of the calling JavaScript thread (main thread or worker). */
export function currentOsThreadId(): number {
  let link: string;
  try {
    link = readlinkSync('/proc/thread-self');
  } catch (err) {
    throw new HeapqlError('ERR_THREAD_GONE', `cannot read /proc/thread-self (${(err as Error).message}): thread control needs Linux with /proc mounted`);
  }
  return checkOwnTask(Number(/\/task\/(\d+)$/.exec(link)?.[1] ?? NaN));
}

let announcer: BroadcastChannel | undefined;

/**
 * Call inside a worker (early, once is enough; later calls are no-ops) so that
 * ThreadControl.osId(worker) in another thread can find its Linux thread id. Returns that id.
 */
export function registerThreadId(): number {
  const tid = currentOsThreadId();
  const announce: Message = { kind: 'announce', threadId: ownNodeThreadId, tid, pid: process.pid };
  if (!announcer) {
    announcer = new BroadcastChannel(CHANNEL);
    // Must not keep the worker alive once its own work is done.
    announcer.unref();
    announcer.onmessage = (event) => {
      const data = (event as { data?: unknown }).data as Message | undefined;
      if (data?.kind === 'query' && data.threadId === ownNodeThreadId) announcer!.postMessage(announce);
    };
  }
  announcer.postMessage(announce);
  return tid;
}

const known = new Map<number, number>();
const waiting = new Map<number, Set<(tid: number) => void>>();
let listener: BroadcastChannel | undefined;
const tracked = new WeakSet<Worker>();

/**
 * Starts recording announcements. ThreadControl calls this when it is constructed, so workers
 * that register later are recorded even if they are busy when osId(worker) is asked.
 */
export function listenForThreadIds(): void {
  if (listener) return;
  listener = new BroadcastChannel(CHANNEL);
  listener.unref();
  listener.onmessage = (event) => {
    const data = (event as { data?: unknown }).data as Message | undefined;
    if (data?.kind !== 'announce' || data.pid !== process.pid) return;
    known.set(data.threadId, data.tid);
    const resolvers = waiting.get(data.threadId);
    waiting.delete(data.threadId);
    for (const resolve of resolvers ?? []) resolve(data.tid);
  };
}

/**
 * The Linux thread id of a running Worker that called registerThreadId(). Waits up to
 * `waitMs` for the worker to announce itself.
 */
export async function workerOsThreadId(worker: Worker, waitMs: number): Promise<number> {
  const nodeId = worker.threadId;
  if (nodeId < 0) throw new HeapqlError('ERR_THREAD_GONE', 'the worker has exited; it has no thread id any more');
  listenForThreadIds();
  if (!tracked.has(worker)) {
    tracked.add(worker);
    // Node thread ids are never reused; this only frees the entry.
    worker.once('exit', () => known.delete(nodeId));
  }
  const cached = known.get(nodeId);
  if (cached !== undefined) return checkOwnTask(cached);
  const tid = await new Promise<number>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      worker.off('exit', onExit);
      waiting.get(nodeId)?.delete(onTid);
    };
    const onTid = (t: number): void => {
      done();
      resolve(t);
    };
    const onExit = (): void => {
      done();
      reject(new HeapqlError('ERR_THREAD_GONE', `worker ${nodeId} exited before it reported its thread id`));
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new HeapqlError(
          'ERR_THREAD_UNREGISTERED',
          `worker ${nodeId} did not report its Linux thread id within ${waitMs} ms: call registerThreadId() from 'heapql/scheduler' inside the worker (its event loop must be free to answer if it registered before ThreadControl was created)`,
        ),
      );
    }, waitMs);
    timer.unref();
    worker.once('exit', onExit);
    let set = waiting.get(nodeId);
    if (!set) waiting.set(nodeId, (set = new Set()));
    set.add(onTid);
    listener!.postMessage({ kind: 'query', threadId: nodeId } satisfies Message);
  });
  return checkOwnTask(tid);
}

/**
 * Checks a thread id given directly by a caller: a live thread of this process (it has a
 * /proc/self/task entry). Anything else is refused before a request could stop a stranger
 * (1 is init).
 */
export function checkOwnThreadId(tid: unknown): number {
  if (typeof tid !== 'number') throw new InvalidArgumentError(`a thread id must be a number, got ${describeValue(tid)}`);
  if (!Number.isInteger(tid) || tid <= 0) throw new InvalidArgumentError(`thread id ${tid} is invalid: use a positive whole number`);
  if (!existsSync(`/proc/self/task/${tid}`)) {
    throw new InvalidArgumentError(
      `thread ${tid} is not a thread of this process (no /proc/self/task/${tid}): ThreadControl controls only this process's own threads; use SchedulerClient for any other task`,
    );
  }
  return tid;
}

function checkOwnTask(tid: number): number {
  if (!Number.isInteger(tid) || tid <= 0 || !existsSync(`/proc/self/task/${tid}`)) {
    throw new HeapqlError('ERR_THREAD_GONE', `thread ${tid} is not a live thread of this process (no /proc/self/task/${tid})`);
  }
  return tid;
}
