/**
 * Client of the taskcontrol scheduler's HTTP interface (default http://127.0.0.1:8087). Every
 * endpoint is a GET answering plain text (JSON for /plans). Ids and plans are checked before any
 * request; replies other than the few texts the server is known to send are protocol errors
 * (the reference Java client silently maps them to UNKNOWN, which hides failures). Only the
 * reads (help, status, getPlan, plans) are retried, and only after a refused or reset connection
 * with no reply: stops and plan sets change state, and re-sending a plan restarts it.
 */
import { InvalidArgumentError, ServiceHttpError, ServiceProtocolError, type RequestInfo } from '../errors.js';
import { checkCallOptions, checkFields, checkTimeout, describeValue, isObject, Transport, type Reply } from '../http.js';
import { checkPlanSteps, decodeServerPlan, parsePlan, planWarnings, toServerPlan, type PlanStep, type ReadPlan } from './plan.js';

export const DEFAULT_SCHEDULER_URL = 'http://127.0.0.1:8087';
export const DEFAULT_SCHEDULER_TIMEOUT_MS = 5_000;

export type TaskStatus = 'RUNNING' | 'STOPPED' | 'UNKNOWN';

/** A single thread (Linux thread id) or a whole process (its process id). */
export type Target = { task: number } | { group: number };

export interface SchedulerClientOptions {
  url?: string;
  /** Per request; the server's handlers answer at once, so a few seconds is plenty. */
  timeoutMs?: number;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborting it ends the call at once with ServiceAbortedError. */
  signal?: AbortSignal;
}

export interface ResumeOptions extends CallOptions {
  /**
   * The lottery scheduler's weight of the target (1…2^31-1; the FIFO scheduler ignores it). The
   * server sets it only together with a stop or resume, and every stop or resume without it sets
   * the weight back to 1; plan steps do too.
   */
  lotteryPriority?: number;
}

export interface SetPlanOptions extends CallOptions {
  /**
   * Called with each warning about the plan (stops in a row adding up to 25 s or more, close to
   * the 30 s at which the kernel watchdog kills the scheduler), before it is sent. Without it
   * the warning goes to process.emitWarning (code HEAPQL_PLAN_STOPS).
   */
  onWarning?: (message: string) => void;
}

/** A status read: the mapped status and the server's reply verbatim. */
export interface StatusReading {
  status: TaskStatus;
  reply: string;
}

export interface PlanEntry {
  id: number;
  plan: ReadPlan;
  /** When the plan's runner started; null while the server still reports 0. */
  startedAt: Date | null;
}

export interface PlanListing {
  task: PlanEntry[];
  taskGroup: PlanEntry[];
}

/**
 * The status words. The server (SchedulerServer) answers `running`, `stopping` or `not found`
 * (an id it has no entry for); the specification's table lists `unknown` as the HTTP form of
 * the third, so that is read as UNKNOWN too. Any other text is a protocol error.
 */
const STATUS: Record<string, TaskStatus> = { running: 'RUNNING', stopping: 'STOPPED', 'not found': 'UNKNOWN', unknown: 'UNKNOWN' };
const INT32_MAX = 2_147_483_647;
/** Entries in each of the scheduler's BPF maps (threads, processes). */
const MAP_CAPACITY = 10_000;
/** Epoch milliseconds of 2001-09-09: a smaller positive startedAt is not milliseconds (seconds, say). */
const MIN_EPOCH_MS = 1e12;
/** The largest time a Date holds. */
const MAX_EPOCH_MS = 8.64e15;

const READ_BACK = 'read the status back (status() / getPlan(), or heapql sched status / plan) to see whether it did';

export class SchedulerClient {
  readonly url: string;
  private readonly transport: Transport;
  private readonly timeoutMs: number;

  constructor(options: SchedulerClientOptions = {}) {
    if (!isObject(options as unknown)) throw new InvalidArgumentError(`SchedulerClient options must be an object such as {url, timeoutMs}, got ${describeValue(options)}`);
    checkFields(options as Record<string, unknown>, ['url', 'timeoutMs'], 'SchedulerClient options have');
    if (options.url !== undefined && typeof options.url !== 'string') {
      throw new InvalidArgumentError(`the scheduler URL must be a string such as ${DEFAULT_SCHEDULER_URL}, got ${describeValue(options.url)}`);
    }
    this.transport = new Transport('scheduler', options.url ?? DEFAULT_SCHEDULER_URL, {
      refused: (base) =>
        // Said to every client that never reached it, a fresh CLI run included, which cannot tell
        // "never started" from "died since the last run": the latter voids every stop.
        `the scheduler at ${base} is not running (connection refused); if it was running, it has exited (the kernel watchdog ends it when a stopped task waits 30 s) and every stop and plan it held is void; start it (taskcontrol ./scheduler.sh, as root, Linux >= 6.13) or pass its URL`,
      refusedAfterContact: (base) =>
        `the scheduler at ${base} answered before but now refuses connections: it has probably died (the kernel watchdog aborts it when a stopped task waits 30 s), so every stop and plan is void and all tasks run normally; restart it (taskcontrol ./scheduler.sh, as root) and stop again what must stay stopped`,
    });
    this.url = this.transport.base.href;
    this.timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_SCHEDULER_TIMEOUT_MS, 'timeoutMs');
  }

  /** True once this client has had any reply: a later "connection refused" then means the scheduler died. */
  get reachedBefore(): boolean {
    return this.transport.reachedBefore;
  }

  /** The server's usage text (also a cheap liveness probe). */
  async help(options: CallOptions = {}): Promise<string> {
    return (await this.get('help', undefined, checkCallOptions(options), { retry: true })).text;
  }

  /**
   * The target's own setting. Threads and processes are separate maps at the server, which holds
   * a thread when either says stop: a thread of a stopped process still reads RUNNING (or
   * UNKNOWN) here; read its group too.
   */
  async status(target: Target, options: CallOptions = {}): Promise<TaskStatus> {
    return (await this.readStatus(target, options)).status;
  }

  /** Like status(), with the server's reply verbatim. */
  async readStatus(target: Target, options: CallOptions = {}): Promise<StatusReading> {
    const path = statePath(target);
    const reply = await this.get(path, undefined, checkCallOptions(options), { retry: true });
    const status = STATUS[reply.text];
    if (status === undefined) throw this.protocol(reply, path, `expected running, stopping or not found`);
    return { status, reply: reply.text };
  }

  /**
   * Stops the thread or every thread of the process. The server does not check that it exists.
   * While a plan of the target runs, its next step writes over this (as over a resume).
   */
  async stop(target: Target, options: CallOptions = {}): Promise<void> {
    const path = statePath(target);
    await this.expectOk(path, { stopping: 'true' }, checkCallOptions(options), mapFullHint(target));
  }

  /** Resumes the target; `lotteryPriority` sets its lottery weight at the same time (else it becomes 1). */
  async resume(target: Target, options: ResumeOptions = {}): Promise<void> {
    const path = statePath(target);
    const signal = checkCallOptions(options, ['lotteryPriority']);
    const query: Record<string, string> = { stopping: 'false' };
    if (options.lotteryPriority !== undefined) query.lotteryPriority = String(checkLotteryPriority(options.lotteryPriority));
    await this.expectOk(path, query, signal, mapFullHint(target));
  }

  /**
   * Starts a plan (either form, or steps), replacing any running one. The server runs the steps
   * once, then leaves the target running. Returns the validated steps that were sent. Stops in
   * a row adding up to 25 s or more are warned about (options.onWarning), 30 s or more refused.
   */
  async setPlan(target: Target, plan: string | readonly PlanStep[], options: SetPlanOptions = {}): Promise<PlanStep[]> {
    const path = planPath(target);
    const signal = checkCallOptions(options, ['onWarning']);
    if (options.onWarning !== undefined && typeof options.onWarning !== 'function') {
      throw new InvalidArgumentError(`onWarning must be a function, got ${describeValue(options.onWarning)}`);
    }
    let steps: PlanStep[];
    if (typeof plan === 'string') steps = parsePlan(plan);
    else if (Array.isArray(plan)) steps = checkPlanSteps(plan);
    else throw new InvalidArgumentError(`a plan is a string such as "s10,r5" or a list of {action, seconds} steps, got ${describeValue(plan)}`);
    for (const warning of planWarnings(steps)) {
      if (options.onWarning) options.onWarning(warning);
      else process.emitWarning(warning, { code: 'HEAPQL_PLAN_STOPS' });
    }
    await this.expectOk(path, { plan: toServerPlan(steps) }, signal);
    return steps;
  }

  /** The running plan, or null. */
  async getPlan(target: Target, options: CallOptions = {}): Promise<ReadPlan | null> {
    const path = planPath(target);
    const reply = await this.get(path, undefined, checkCallOptions(options), { retry: true });
    if (reply.text === 'no plan') return null;
    const plan = decodeServerPlan(reply.text);
    if (!plan) throw this.protocol(reply, path, 'expected a plan like r10,s5 or "no plan"');
    return plan;
  }

  /** Asks the running plan to end; the current step finishes first. Succeeds when there is none. */
  async cancelPlan(target: Target, options: CallOptions = {}): Promise<void> {
    const path = planPath(target);
    await this.expectOk(path, { stoppingPlan: 'true' }, checkCallOptions(options));
  }

  /** Every running plan, tasks and task groups. */
  async plans(options: CallOptions = {}): Promise<PlanListing> {
    const reply = await this.get('plans', undefined, checkCallOptions(options), { retry: true });
    let body: unknown;
    try {
      body = JSON.parse(reply.text);
    } catch {
      throw this.protocol(reply, 'plans', 'expected JSON');
    }
    if (!isObject(body) || !isObject(body.task) || !isObject(body.taskGroup)) {
      throw this.protocol(reply, 'plans', 'expected {"task":{…},"taskGroup":{…}}');
    }
    const entries = (map: Record<string, unknown>): PlanEntry[] =>
      Object.entries(map)
        .map(([key, value]) => {
          const ok =
            isObject(value) && Number.isInteger(value.id) && String(value.id) === key && typeof value.plan === 'string' && typeof value.startedAt === 'number';
          const plan = ok ? decodeServerPlan(value.plan as string) : undefined;
          if (!ok || !plan) throw this.protocol(reply, 'plans', `entry ${JSON.stringify(key)} is not {id, plan, startedAt}`);
          const startedAt = value.startedAt as number;
          // 0 until the plan's runner thread has started; otherwise epoch milliseconds.
          if (startedAt !== 0 && !(Number.isInteger(startedAt) && startedAt >= MIN_EPOCH_MS && startedAt <= MAX_EPOCH_MS)) {
            throw this.protocol(reply, 'plans', `entry ${JSON.stringify(key)} has startedAt ${startedAt}, which is not 0 or a time in epoch milliseconds`);
          }
          return { id: value.id as number, plan, startedAt: startedAt > 0 ? new Date(startedAt) : null };
        })
        .sort((a, b) => a.id - b.id);
    return { task: entries(body.task), taskGroup: entries(body.taskGroup) };
  }

  private async get(
    path: string,
    query: Record<string, string> | undefined,
    signal: AbortSignal | undefined,
    how: { retry?: boolean; unsure?: string; hint500?: string } = {},
  ): Promise<Reply> {
    const reply = await this.transport.send(path, {
      query,
      timeoutMs: this.timeoutMs,
      limitOption: 'timeoutMs (heapql sched: --timeout <seconds>)',
      signal,
      retry: how.retry,
      unsure: how.unsure,
    });
    if (reply.status < 200 || reply.status > 299) {
      const text = reply.text.trim();
      const redirect = reply.status >= 300 && reply.status < 400 ? ` (a redirect to ${reply.location ?? 'nowhere: no Location header'}, not followed: point the URL at the scheduler itself)` : '';
      // The real scheduler answers every request this client sends; a 404 means the URL is something else.
      const hint =
        reply.status === 500 && how.hint500
          ? ` (${how.hint500})`
          : reply.status === 404
            ? ` (the taskcontrol scheduler answers every request this client sends: is ${this.transport.base.href} its URL?)`
            : '';
      throw new ServiceHttpError(
        this.info(path, query),
        reply.status,
        reply.text,
        undefined,
        undefined,
        `scheduler at ${this.transport.base.origin}: ${this.transport.describe(path).request} answered HTTP ${reply.status}${text ? `: ${oneLine(text)}` : ''}${redirect}${hint}`,
      );
    }
    return reply;
  }

  private async expectOk(path: string, query: Record<string, string>, signal: AbortSignal | undefined, hint500?: string): Promise<void> {
    const reply = await this.get(path, query, signal, { unsure: READ_BACK, hint500 });
    if (reply.text !== 'ok') throw this.protocol(reply, path, 'expected "ok"', query);
  }

  private protocol(reply: Reply, path: string, expected: string, query?: Record<string, string>): ServiceProtocolError {
    return new ServiceProtocolError(
      this.info(path, query),
      reply.text,
      `scheduler at ${this.transport.base.origin}: unexpected reply to ${this.transport.describe(path).request}: ${JSON.stringify(reply.text.slice(0, 200))} (${expected})`,
    );
  }

  /** The request as sent: the URL's own path (a URL may point below a proxy's prefix) and the query. */
  private info(path: string, query?: Record<string, string>): RequestInfo {
    return this.transport.describe(path, { query });
  }
}

/** Checks a thread or process id: a positive 32-bit integer (the server parses it as a Java int). */
export function checkId(id: number, what: 'task' | 'group'): number {
  if (typeof id !== 'number') {
    throw new InvalidArgumentError(`${what} id must be a number (a ${what === 'task' ? 'thread' : 'process'} id), got ${describeValue(id)}`);
  }
  if (!Number.isInteger(id) || id < 1 || id > INT32_MAX) {
    throw new InvalidArgumentError(`${what} id ${id} is invalid: use a positive ${what === 'task' ? 'thread' : 'process'} id (1…${INT32_MAX})`);
  }
  return id;
}

/** A lottery weight: the server parses it as a Java int and answers 500 to one below 1. */
export function checkLotteryPriority(value: number): number {
  if (typeof value !== 'number') throw new InvalidArgumentError(`lotteryPriority must be a number, got ${describeValue(value)}`);
  if (!Number.isInteger(value) || value < 1 || value > INT32_MAX) {
    throw new InvalidArgumentError(`lotteryPriority ${value} is invalid: use a whole number from 1 to ${INT32_MAX} (the lottery weight)`);
  }
  return value;
}

/** Parses an id typed by a user (decimal digits only). */
export function parseId(text: string, what: 'task' | 'group'): number {
  if (typeof text !== 'string') throw new InvalidArgumentError(`${what} id text must be a string, got ${describeValue(text)}`);
  const digits = text.trim();
  if (!/^\d+$/.test(digits)) {
    throw new InvalidArgumentError(`${what} id ${JSON.stringify(text)} is invalid: use a positive ${what === 'task' ? 'thread' : 'process'} id`);
  }
  // Checked as typed: beyond 2^53 a Number rounds (9007199254740993 would be named 9007199254740992).
  if (BigInt(digits) < 1n || BigInt(digits) > BigInt(INT32_MAX)) {
    throw new InvalidArgumentError(`${what} id ${digits} is invalid: use a positive ${what === 'task' ? 'thread' : 'process'} id (1…${INT32_MAX})`);
  }
  return checkId(Number(digits), what);
}

function targetParts(target: Target): [string, number] {
  if (!isObject(target)) throw new InvalidArgumentError(`a target is either {task: <thread id>} or {group: <process id>}, got ${describeValue(target)}`);
  if ('task' in target && !('group' in target)) return ['task', checkId(target.task, 'task')];
  if ('group' in target && !('task' in target)) return ['taskGroup', checkId(target.group, 'group')];
  throw new InvalidArgumentError('a target is either {task: <thread id>} or {group: <process id>}');
}

/**
 * What a 500 to a stop or resume most likely means: the client sends no lotteryPriority (the
 * other cause of a 500), so the BPF map is full. Each holds 10 000 ids and the server never
 * deletes an entry (a resume writes "running"), so only a restart empties it.
 */
function mapFullHint(target: Target): string {
  const kind = 'task' in target ? 'threads' : 'processes';
  return `for a stop or resume, most likely its map of ${kind} is full: it holds ${MAP_CAPACITY} ids and never drops one, so restart the scheduler to empty it`;
}

function statePath(target: Target): string {
  const [kind, id] = targetParts(target);
  return `${kind}/${id}`;
}

function planPath(target: Target): string {
  const [kind, id] = targetParts(target);
  return `${kind}/plan/${id}`;
}



function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
