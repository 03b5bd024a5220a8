/**
 * ThreadControl: stop and resume JavaScript threads (the calling thread or a worker_threads
 * Worker) through the scheduler, by their Linux thread ids. Mirrors the Java library's class of
 * the same name, which finds ids with jstack; here /proc/thread-self and a registration by the
 * worker itself (registerThreadId) do that job.
 */
import { isIPv6 } from 'node:net';
import { Worker } from 'node:worker_threads';

import { InvalidArgumentError, ServiceHttpError, ServiceProtocolError } from '../errors.js';
import { checkCallOptions, checkFields, checkTimeout, describeValue, isObject } from '../http.js';
import { SchedulerClient, type CallOptions, type TaskStatus } from './client.js';
import { checkOwnThreadId, currentOsThreadId, listenForThreadIds, workerOsThreadId } from './thread-ids.js';

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

  /**
   * `port` defaults to 8087. The constructor sends nothing, so it cannot tell whether the
   * scheduler runs; ThreadControl.connect() checks that first (as the Java constructor does).
   */
  constructor(port: number = DEFAULT_SCHEDULER_PORT, options: ThreadControlOptions = {}) {
    if (typeof port !== 'number') throw new InvalidArgumentError(`scheduler port must be a number, got ${describeValue(port)}`);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new InvalidArgumentError(`scheduler port ${port} is invalid: use 1…65535`);
    if (!isObject(options as unknown)) throw new InvalidArgumentError(`ThreadControl options must be an object such as {host, timeoutMs, workerWaitMs}, got ${describeValue(options)}`);
    checkFields(options as Record<string, unknown>, ['host', 'timeoutMs', 'workerWaitMs'], 'ThreadControl options have');
    this.workerWaitMs = checkTimeout(options.workerWaitMs ?? 5_000, 'workerWaitMs');
    this.client = new SchedulerClient({ url: `http://${hostPart(options.host ?? '127.0.0.1')}:${port}`, timeoutMs: options.timeoutMs });
    listenForThreadIds();
  }

  /**
   * A ThreadControl whose scheduler has answered: reads /help first and checks that the reply
   * is the taskcontrol scheduler's usage text. Fails with ServiceUnavailableError when nothing
   * listens, ServiceProtocolError when something else answers.
   */
  static async connect(port: number = DEFAULT_SCHEDULER_PORT, options: ThreadControlOptions & CallOptions = {}): Promise<ThreadControl> {
    if (!isObject(options as unknown)) throw new InvalidArgumentError(`ThreadControl options must be an object such as {host, timeoutMs, workerWaitMs, signal}, got ${describeValue(options)}`);
    const { signal, ...rest } = options;
    checkCallOptions({ signal });
    const tc = new ThreadControl(port, rest);
    let help: string;
    try {
      help = await tc.client.help({ signal });
    } catch (err) {
      // The scheduler answers /help whenever it runs: an HTTP error status comes from something else.
      if (!(err instanceof ServiceHttpError)) throw err;
      throw new ServiceProtocolError(
        { service: 'scheduler', request: err.request },
        err.bodyText,
        `the service at ${tc.client.url} answered GET /help with HTTP ${err.status}, which the taskcontrol scheduler never does: is port ${port} the scheduler's?`,
      );
    }
    if (!/^GET localhost:\d+\/task\//m.test(help)) {
      throw new ServiceProtocolError(
        { service: 'scheduler', request: 'GET /help' },
        help,
        `the service at ${tc.client.url} answered GET /help, but not with the taskcontrol scheduler's usage text (${JSON.stringify(help.slice(0, 80))}): is port ${port} the scheduler's?`,
      );
    }
    return tc;
  }

  /** The Linux thread id of the calling thread, or of `thread` (a Worker that called registerThreadId()). */
  async osId(thread?: Worker): Promise<number> {
    if (thread === undefined) return currentOsThreadId();
    if (!(thread instanceof Worker)) throw new InvalidArgumentError(`osId() takes a worker_threads Worker or nothing, got ${describeValue(thread)}`);
    return workerOsThreadId(thread, this.workerWaitMs);
  }

  async getThreadStatus(thread?: ThreadRef, options: CallOptions = {}): Promise<TaskStatus> {
    return this.client.status({ task: await this.resolve(thread) }, options);
  }

  /** Stops the thread. Stopping the calling thread freezes it until another thread resumes it. */
  async stopThread(thread?: ThreadRef, options: CallOptions = {}): Promise<void> {
    await this.client.stop({ task: await this.resolve(thread) }, options);
  }

  async resumeThread(thread?: ThreadRef, options: CallOptions = {}): Promise<void> {
    await this.client.resume({ task: await this.resolve(thread) }, options);
  }

  /** A thread id given as a number must be a live thread of this process (/proc/self/task). */
  private async resolve(thread: ThreadRef): Promise<number> {
    if (typeof thread === 'number') return checkOwnThreadId(thread);
    if (thread !== undefined && !(thread instanceof Worker)) {
      throw new InvalidArgumentError(`a thread is a worker_threads Worker, a thread id of this process, or nothing (the calling thread), got ${describeValue(thread)}`);
    }
    return this.osId(thread);
  }
}

/** A host for the URL: a name or an IPv4 address as given, an IPv6 address in brackets. */
function hostPart(host: unknown): string {
  if (typeof host !== 'string') throw new InvalidArgumentError(`scheduler host must be a string, got ${describeValue(host)}`);
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const ipv6 = isIPv6(bare);
  if (!ipv6 && !/^[A-Za-z0-9.-]+$/.test(host)) {
    throw new InvalidArgumentError(`scheduler host ${JSON.stringify(host)} is invalid: give a host name or address only, such as 127.0.0.1 (the port is the first argument)`);
  }
  return ipv6 ? `[${bare}]` : host;
}
