/**
 * Client of the taskcontrol scheduler's HTTP interface (default http://127.0.0.1:8087). Every
 * endpoint is a GET answering plain text (JSON for /plans). Ids and plans are checked before any
 * request; replies other than the few texts the server is known to send are protocol errors
 * (the reference Java client silently maps them to UNKNOWN, which hides failures). Nothing is
 * retried: stops and plan sets change state, and re-sending a plan restarts it.
 */
import { InvalidArgumentError, ServiceHttpError, ServiceProtocolError, type RequestInfo } from '../errors.js';
import { checkTimeout, Transport, type Reply } from '../http.js';
import { decodeServerPlan, parsePlan, toServerPlan, validatePlan, type PlanStep, type ReadPlan } from './plan.js';

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

const STATUS: Record<string, TaskStatus> = { running: 'RUNNING', stopping: 'STOPPED', 'not found': 'UNKNOWN' };
const INT32_MAX = 2_147_483_647;

export class SchedulerClient {
  readonly url: string;
  private readonly transport: Transport;
  private readonly timeoutMs: number;

  constructor(options: SchedulerClientOptions = {}) {
    this.transport = new Transport('scheduler', options.url ?? DEFAULT_SCHEDULER_URL, {
      refused: (base) =>
        `the scheduler at ${base} is not running (connection refused); start it (taskcontrol ./scheduler.sh, as root, Linux >= 6.13) or pass its URL`,
      refusedAfterContact: (base) =>
        `the scheduler at ${base} answered before but now refuses connections: it has probably died (the kernel watchdog aborts it when a stopped task waits 30 s), so every stop and plan is void and all tasks run normally`,
    });
    this.url = this.transport.base.href;
    this.timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_SCHEDULER_TIMEOUT_MS, 'timeoutMs');
  }

  /** True once this client has had any reply: a later "connection refused" then means the scheduler died. */
  get reachedBefore(): boolean {
    return this.transport.reachedBefore;
  }

  /** The server's usage text (also a cheap liveness probe). */
  async help(): Promise<string> {
    return (await this.get('help')).text;
  }

  async status(target: Target): Promise<TaskStatus> {
    const reply = await this.get(statePath(target));
    const status = STATUS[reply.text];
    if (status === undefined) throw this.protocol(reply, statePath(target), `expected running, stopping or not found`);
    return status;
  }

  /** Stops the thread or every thread of the process. The server does not check that it exists. */
  async stop(target: Target): Promise<void> {
    await this.expectOk(statePath(target), { stopping: 'true' });
  }

  async resume(target: Target): Promise<void> {
    await this.expectOk(statePath(target), { stopping: 'false' });
  }

  /**
   * Starts a plan (either form, or steps), replacing any running one. The server runs the steps
   * once, then leaves the target running. Returns the validated steps that were sent.
   */
  async setPlan(target: Target, plan: string | readonly PlanStep[]): Promise<PlanStep[]> {
    const steps = typeof plan === 'string' ? parsePlan(plan) : [...plan];
    if (typeof plan !== 'string') validatePlan(steps);
    await this.expectOk(planPath(target), { plan: toServerPlan(steps) });
    return steps;
  }

  /** The running plan, or null. */
  async getPlan(target: Target): Promise<ReadPlan | null> {
    const path = planPath(target);
    const reply = await this.get(path);
    if (reply.text === 'no plan') return null;
    const plan = decodeServerPlan(reply.text);
    if (!plan) throw this.protocol(reply, path, 'expected a plan like r10,s5 or "no plan"');
    return plan;
  }

  /** Asks the running plan to end; the current step finishes first. Succeeds when there is none. */
  async cancelPlan(target: Target): Promise<void> {
    await this.expectOk(planPath(target), { stoppingPlan: 'true' });
  }

  /** Every running plan, tasks and task groups. */
  async plans(): Promise<PlanListing> {
    const reply = await this.get('plans');
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
          return { id: value.id as number, plan, startedAt: startedAt > 0 ? new Date(startedAt) : null };
        })
        .sort((a, b) => a.id - b.id);
    return { task: entries(body.task), taskGroup: entries(body.taskGroup) };
  }

  private async get(path: string, query?: Record<string, string>): Promise<Reply> {
    const reply = await this.transport.send(path, { query, timeoutMs: this.timeoutMs });
    if (reply.status < 200 || reply.status > 299) {
      const text = reply.text.trim();
      throw new ServiceHttpError(
        this.info(path, query),
        reply.status,
        reply.text,
        undefined,
        undefined,
        `scheduler at ${this.transport.base.origin}: GET /${path} answered HTTP ${reply.status}${text ? `: ${oneLine(text)}` : ''}`,
      );
    }
    return reply;
  }

  private async expectOk(path: string, query: Record<string, string>): Promise<void> {
    const reply = await this.get(path, query);
    if (reply.text !== 'ok') throw this.protocol(reply, path, 'expected "ok"', query);
  }

  private protocol(reply: Reply, path: string, expected: string, query?: Record<string, string>): ServiceProtocolError {
    return new ServiceProtocolError(
      this.info(path, query),
      reply.text,
      `scheduler at ${this.transport.base.origin}: unexpected reply to GET /${path}: ${JSON.stringify(reply.text.slice(0, 200))} (${expected})`,
    );
  }

  private info(path: string, query?: Record<string, string>): RequestInfo {
    const search = query ? `?${new URLSearchParams(query)}` : '';
    return { service: 'scheduler', request: `GET /${path}${search}` };
  }
}

/** Checks a thread or process id: a positive 32-bit integer (the server parses it as a Java int). */
export function checkId(id: number, what: 'task' | 'group'): number {
  if (!Number.isInteger(id) || id < 1 || id > INT32_MAX) {
    throw new InvalidArgumentError(`${what} id ${id} is invalid: use a positive ${what === 'task' ? 'thread' : 'process'} id (1…${INT32_MAX})`);
  }
  return id;
}

/** Parses an id typed by a user (decimal digits only). */
export function parseId(text: string, what: 'task' | 'group'): number {
  if (!/^\d+$/.test(text.trim())) {
    throw new InvalidArgumentError(`${what} id ${JSON.stringify(text)} is invalid: use a positive ${what === 'task' ? 'thread' : 'process'} id`);
  }
  return checkId(Number(text.trim()), what);
}

function targetParts(target: Target): [string, number] {
  if ('task' in target && !('group' in target)) return ['task', checkId(target.task, 'task')];
  if ('group' in target && !('task' in target)) return ['taskGroup', checkId(target.group, 'group')];
  throw new InvalidArgumentError('a target is either {task: <thread id>} or {group: <process id>}');
}

function statePath(target: Target): string {
  const [kind, id] = targetParts(target);
  return `${kind}/${id}`;
}

function planPath(target: Target): string {
  const [kind, id] = targetParts(target);
  return `${kind}/plan/${id}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
