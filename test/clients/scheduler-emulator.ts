/**
 * Emulator of the taskcontrol SchedulerServer (Javalin 6, FIFO scheduler) for contract tests, on
 * a real loopback port. It reproduces the behaviour in docs/clients-spec.md A.3–A.9, quirks
 * included: status texts, `ok` bodies, Java parseInt ids, parseBoolean stopping values,
 * lotteryPriority 500s (text or Javalin's JSON error object), the plan grammar and its letter-
 * inverted, fraction-truncated read-back, one-shot plan runners, the plan-replacement race,
 * 404 (never 405) for unknown routes and methods, HEAD without running the handler.
 *
 * Time is virtual: plans advance only through advance(ms). In watchdog mode, a task marked
 * runnable that stays stopped for more than 30 s of virtual time kills the server: the
 * listener and every open connection close, as when the real process exits.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Setting {
  stop: boolean;
  priority: number;
}

interface Item {
  stop: boolean;
  ns: bigint;
}

interface Entry {
  id: number;
  plan: string;
  startedAt: number;
}

interface Runner {
  kind: Kind;
  id: number;
  items: Item[];
  index: number;
  endsAt: number;
  stopRequested: boolean;
  /** Not started yet (lateRunnerStart): no step written, startedAt still 0. */
  pending: boolean;
}

type Kind = 'task' | 'taskGroup';

export interface SchedulerEmulatorOptions {
  /** Kill the server when a runnable task stays stopped for more than 30 s (virtual time). */
  watchdog?: boolean;
  /**
   * Entries per map (taskSettings, taskGroupSettings): 10 000 in the BPF programs. Entries are
   * never deleted, so a write of a new id into a full map fails, and the request is a 500.
   */
  capacity?: number;
  /**
   * A plan's runner thread starts only at the next advance(): until then /plans shows its
   * startedAt as 0 and its first step is not written yet, as on the server for an instant (its
   * thread sets startedAt and writes the first step when it runs).
   */
  lateRunnerStart?: boolean;
}

export interface Reply {
  status: number;
  body: string;
  contentType?: string;
  /** Extra headers (e.g. a redirect's Location). */
  headers?: Record<string, string>;
}

const WATCHDOG_MS = 30_000;
const MAP_CAPACITY = 10_000;
/** The server's whole-string pattern: digits, an optional dot, more digits, then s or r (so `10.s` passes). */
const SYNTAX = /^(\d+\.?\d*[sr],)*\d+\.?\d*[sr]$/;

export class SchedulerEmulator {
  readonly settings: Record<Kind, Map<number, Setting>> = { task: new Map(), taskGroup: new Map() };
  readonly registry: Record<Kind, Map<number, Entry>> = { task: new Map(), taskGroup: new Map() };
  /** Every request received, as `METHOD /path?query`. */
  readonly requests: string[] = [];
  /** When set, a request matching it gets this reply instead (to test client reactions to odd servers). */
  override: ((method: string, url: URL) => Reply | undefined) | undefined;
  /** When true, requests are received but never answered (until close). */
  hold = false;
  dead = false;

  private runners: Runner[] = [];
  private now = 0;
  private readonly epochBase = Date.now();
  private readonly runnable = new Map<number, number | undefined>();
  private readonly stoppedSince = new Map<number, number>();
  private readonly server: http.Server;
  private closed: Promise<void> | undefined;

  private constructor(private readonly options: SchedulerEmulatorOptions) {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  static async start(options: SchedulerEmulatorOptions = {}): Promise<SchedulerEmulator> {
    const emu = new SchedulerEmulator(options);
    await new Promise<void>((resolve, reject) => {
      emu.server.once('error', reject);
      emu.server.listen(0, '127.0.0.1', () => resolve());
    });
    emu.port = (emu.server.address() as AddressInfo).port;
    return emu;
  }

  /** Kept after the listener closes, so a dead emulator's URL still names its old port. */
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Resets to a fresh server's state (empty maps, no plans, no log). */
  reset(): void {
    for (const kind of ['task', 'taskGroup'] as const) {
      this.settings[kind].clear();
      this.registry[kind].clear();
    }
    this.runners = [];
    this.requests.length = 0;
    this.override = undefined;
    this.hold = false;
    this.runnable.clear();
    this.stoppedSince.clear();
  }

  /** Marks a thread (of process `pid`, for group stops) as runnable: stopping it too long trips the watchdog. */
  markRunnable(tid: number, pid?: number): void {
    this.runnable.set(tid, pid);
    this.checkWatchdog();
  }

  /** Advances virtual time, running plan steps and the watchdog in order. */
  async advance(ms: number): Promise<void> {
    for (const r of this.runners) if (r.pending) this.startRunner(r);
    const target = this.now + ms;
    for (;;) {
      const next = this.nextEvent();
      if (next === undefined || next > target || this.dead) break;
      this.now = next;
      this.stepRunners();
      this.checkWatchdog();
    }
    if (this.dead) return this.close();
    this.now = target;
    this.checkWatchdog();
    if (this.dead) return this.close();
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.closed;
  }

  // ---- HTTP ---------------------------------------------------------------------------------

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://emulator');
    this.requests.push(`${method} ${url.pathname}${url.search}`);
    req.resume();
    if (this.hold) return;
    const wantsJson = (req.headers.accept ?? '').includes('application/json');
    const reply = this.override?.(method, url) ?? this.route(method, url, wantsJson);
    res.writeHead(reply.status, { ...reply.headers, 'content-type': reply.contentType ?? 'text/plain' });
    res.end(method === 'HEAD' ? undefined : reply.body);
  }

  private route(method: string, url: URL, wantsJson: boolean): Reply {
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
    const parts = path.split('/').slice(1);
    const handler = this.match(parts);
    if (!handler || (method !== 'GET' && method !== 'HEAD')) {
      return javalinError(404, `Endpoint ${method} ${url.pathname} not found`, 'notfoundresponse', wantsJson);
    }
    // Javalin answers HEAD for GET routes without running the handler.
    if (method === 'HEAD') return { status: 200, body: '' };
    try {
      return handler(url.searchParams);
    } catch (err) {
      if (err instanceof BadRequest) return javalinError(400, err.message, 'badrequestresponse', wantsJson);
      return javalinError(500, 'Server Error', 'internalservererrorresponse', wantsJson);
    }
  }

  private match(parts: string[]): ((q: URLSearchParams) => Reply) | undefined {
    const [a, b, c] = parts;
    if (parts.length === 1 && a === 'help') return () => ok(this.help());
    if (parts.length === 1 && a === 'plans') return () => ({ status: 200, body: this.plansJson(), contentType: 'application/json' });
    if ((a === 'task' || a === 'taskGroup') && parts.length === 3 && b === 'plan') return (q) => this.plan(a, c!, q);
    if ((a === 'task' || a === 'taskGroup') && parts.length === 2) return (q) => this.state(a, b!, q);
    return undefined;
  }

  private help(): string {
    const p = this.port;
    return [
      `GET localhost:${p}/task/{id} – status of the task: running, stopping or not found`,
      `GET localhost:${p}/task/{id}?stopping=true|false – stop or resume the task`,
      `GET localhost:${p}/task/{id}?lotteryPriority=N – lottery weight of the task`,
      `GET localhost:${p}/task/plan/{id}?plan=s10,r10 – run a plan of stop and run periods`,
      `GET localhost:${p}/task/plan/{id} – the current plan of the task`,
      `GET localhost:${p}/plans – every running plan as JSON`,
      '',
      'The same routes exist under /taskGroup/ for whole processes.',
      '',
    ].join('\n');
  }

  private state(kind: Kind, idText: string, q: URLSearchParams): Reply {
    const id = javaParseInt(idText);
    if (id === undefined) throw new BadRequest('Bad Request');
    const stopping = q.get('stopping');
    if (stopping === null) {
      const s = this.settings[kind].get(id);
      return ok(s === undefined ? 'not found' : s.stop ? 'stopping' : 'running');
    }
    const lp = q.get('lotteryPriority');
    const priority = lp === null ? 1 : javaParseInt(lp);
    if (priority === undefined) throw new Error('NumberFormatException');
    if (priority <= 0) throw new Error('IllegalArgumentException: lotteryPriority must be positive');
    const map = this.settings[kind];
    if (!map.has(id) && map.size >= (this.options.capacity ?? MAP_CAPACITY)) throw new Error('BPF map update failed: E2BIG');
    this.write(kind, id, stopping.toLowerCase() === 'true', priority);
    return ok('ok');
  }

  private plan(kind: Kind, idText: string, q: URLSearchParams): Reply {
    const id = javaParseInt(idText);
    if (id === undefined) throw new BadRequest('Bad Request');
    const plan = q.get('plan');
    const stoppingPlan = q.get('stoppingPlan');
    if (plan !== null && stoppingPlan !== null) throw new BadRequest('Bad Request, only one of plan or stoppingPlan can be set');
    if (plan !== null) {
      this.startPlan(kind, id, parsePlan(plan));
      return ok('ok');
    }
    if (stoppingPlan !== null) {
      if (stoppingPlan.toLowerCase() !== 'true') return ok('');
      for (const r of this.runners) if (r.kind === kind && r.id === id) r.stopRequested = true;
      return ok('ok');
    }
    const entry = this.registry[kind].get(id);
    return ok(entry ? entry.plan : 'no plan');
  }

  private plansJson(): string {
    const obj = (kind: Kind) => Object.fromEntries([...this.registry[kind]].map(([id, e]) => [String(id), e]));
    // Map.of in the server: key order is not guaranteed; put taskGroup first to keep clients honest.
    return JSON.stringify({ taskGroup: obj('taskGroup'), task: obj('task') });
  }

  // ---- state --------------------------------------------------------------------------------

  private write(kind: Kind, id: number, stop: boolean, priority: number): void {
    this.settings[kind].set(id, { stop, priority });
    this.checkWatchdog();
  }

  private startPlan(kind: Kind, id: number, items: Item[]): void {
    for (const r of this.runners) if (r.kind === kind && r.id === id) r.stopRequested = true;
    this.registry[kind].set(id, { id, plan: formatPlan(items), startedAt: 0 });
    const runner: Runner = { kind, id, items, index: 0, endsAt: 0, stopRequested: false, pending: true };
    this.runners.push(runner);
    if (!this.options.lateRunnerStart) this.startRunner(runner);
  }

  /** The runner thread's start: startedAt set, the first step written. */
  private startRunner(r: Runner): void {
    r.pending = false;
    const entry = this.registry[r.kind].get(r.id);
    if (entry?.startedAt === 0) entry.startedAt = this.epochBase + this.now;
    r.endsAt = this.now + nsToMs(r.items[0]!.ns);
    this.write(r.kind, r.id, r.items[0]!.stop, 1);
  }

  private nextEvent(): number | undefined {
    let next: number | undefined;
    for (const r of this.runners) if (!r.pending) next = next === undefined ? r.endsAt : Math.min(next, r.endsAt);
    for (const since of this.stoppedSince.values()) {
      const deadline = since + WATCHDOG_MS + 1;
      next = next === undefined ? deadline : Math.min(next, deadline);
    }
    return next;
  }

  private stepRunners(): void {
    for (const r of [...this.runners]) {
      if (r.pending || r.endsAt > this.now) continue;
      if (r.stopRequested || r.index === r.items.length - 1) {
        this.write(r.kind, r.id, false, 1);
        // The server removes the id's entry, even when it already belongs to a newer plan.
        this.registry[r.kind].delete(r.id);
        this.runners.splice(this.runners.indexOf(r), 1);
        continue;
      }
      r.index += 1;
      const item = r.items[r.index]!;
      r.endsAt += nsToMs(item.ns);
      this.write(r.kind, r.id, item.stop, 1);
    }
  }

  private checkWatchdog(): void {
    if (!this.options.watchdog || this.dead) return;
    for (const [tid, pid] of this.runnable) {
      const stopped = this.settings.task.get(tid)?.stop || (pid !== undefined && this.settings.taskGroup.get(pid)?.stop);
      if (!stopped) {
        this.stoppedSince.delete(tid);
        continue;
      }
      const since = this.stoppedSince.get(tid);
      if (since === undefined) this.stoppedSince.set(tid, this.now);
      else if (this.now - since > WATCHDOG_MS) this.dead = true;
    }
  }
}

class BadRequest extends Error {}

function ok(body: string): Reply {
  return { status: 200, body };
}

function javalinError(status: number, title: string, type: string, wantsJson: boolean): Reply {
  if (!wantsJson) return { status, body: title };
  const body = JSON.stringify({ title, status, type: `https://javalin.io/documentation#${type}`, details: {} });
  return { status, body, contentType: 'application/json' };
}

/** Java's Integer.parseInt for ASCII input: optional sign, digits, int32 range. */
function javaParseInt(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= -2_147_483_648 && n <= 2_147_483_647 ? n : undefined;
}

function parsePlan(text: string): Item[] {
  if (!SYNTAX.test(text)) throw new BadRequest('Invalid plan, must be a comma separated list of items like s10,r10');
  const items = text.split(',').map((item) => {
    // Float.parseFloat, then Math.round(duration * 1.0 * 1_000_000_000L): a float's precision.
    const ns = BigInt(Math.round(Math.fround(Number.parseFloat(item.slice(0, -1))) * 1e9));
    return { stop: item.endsWith('s'), ns };
  });
  for (const item of items) {
    if (item.ns <= 0n || (item.stop && item.ns / 1_000_000_000n > 25n)) {
      throw new BadRequest('Invalid plan, duration must be positive and stopping durations less than 25s');
    }
  }
  return items;
}

/** The server's read-back format: letters inverted, fractions printed as `<whole>.0`. */
function formatPlan(items: Item[]): string {
  return items
    .map((i) => {
      const letter = i.stop ? 'r' : 's';
      const seconds = i.ns / 1_000_000_000n;
      return i.ns % 1_000_000_000n === 0n ? `${letter}${seconds}` : `${seconds}.0${letter}`;
    })
    .join(',');
}

function nsToMs(ns: bigint): number {
  return Number(ns) / 1e6;
}
