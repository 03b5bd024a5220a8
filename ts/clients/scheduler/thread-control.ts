/**
 * ThreadControl: stop and resume JavaScript threads (the calling thread or a worker_threads
 * Worker) through the scheduler, by their Linux thread ids. Mirrors the Java library's class of
 * the same name, which finds ids with jstack; here /proc/thread-self and a registration by the
 * worker itself (registerThreadId) do that job.
 */
import type { Worker } from 'node:worker_threads';

import { InvalidArgumentError } from '../errors.js';
import { SchedulerClient, type TaskStatus } from './client.js';
import { currentOsThreadId, listenForThreadIds, workerOsThreadId } from './thread-ids.js';

export const DEFAULT_SCHEDULER_PORT = 8087;

export interface ThreadControlOptions {
  /** Host of the scheduler; default 127.0.0.1. */
  host?: string;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** How long osId(worker) waits for an unregistered worker to report its id; default 5000. */
  workerWaitMs?: number;
}

/** The calling thread (omitted), a Worker, or a Linux thread id given directly. */
export type ThreadRef = Worker | number | undefined;

export class ThreadControl {
  readonly client: SchedulerClient;
  private readonly workerWaitMs: number;

  /** `port` defaults to 8087; the scheduler must already be running. */
  constructor(port: number = DEFAULT_SCHEDULER_PORT, options: ThreadControlOptions = {}) {
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new InvalidArgumentError(`scheduler port ${port} is invalid: use 1…65535`);
    this.client = new SchedulerClient({ url: `http://${options.host ?? '127.0.0.1'}:${port}`, timeoutMs: options.timeoutMs });
    this.workerWaitMs = options.workerWaitMs ?? 5_000;
    listenForThreadIds();
  }

  /** The Linux thread id of the calling thread, or of `thread` (a Worker that called registerThreadId()). */
  async osId(thread?: Worker): Promise<number> {
    if (thread === undefined) return currentOsThreadId();
    return workerOsThreadId(thread, this.workerWaitMs);
  }

  async getThreadStatus(thread?: ThreadRef): Promise<TaskStatus> {
    return this.client.status({ task: await this.resolve(thread) });
  }

  /** Stops the thread. Stopping the calling thread freezes it until another thread resumes it. */
  async stopThread(thread?: ThreadRef): Promise<void> {
    await this.client.stop({ task: await this.resolve(thread) });
  }

  async resumeThread(thread?: ThreadRef): Promise<void> {
    await this.client.resume({ task: await this.resolve(thread) });
  }

  private async resolve(thread: ThreadRef): Promise<number> {
    return typeof thread === 'number' ? thread : this.osId(thread);
  }
}
