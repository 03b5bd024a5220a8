/**
 * SchedulerClient and ThreadControl beyond the contract cases: the status words it reads,
 * /plans times it refuses, arguments of the wrong type from JavaScript callers, plan warnings,
 * AbortSignals, timeout wording of state-changing calls, redirects, and ThreadControl's checks
 * of thread ids and of the scheduler itself. Real HTTP on loopback (the scheduler emulator).
 * ThreadControl is used from the TypeScript sources here, in the main thread only (workers need
 * the compiled build: thread-control.test.ts).
 */
import { describe, expect, it, vi } from 'vitest';

import {
  InvalidArgumentError,
  SchedulerClient,
  ServiceAbortedError,
  ServiceHttpError,
  ServiceProtocolError,
  ServiceTimeoutError,
  ServiceUnavailableError,
  ThreadControl,
  currentOsThreadId,
  planWarnings,
  parseId,
  parsePlan,
} from '../../ts/clients/scheduler/index.js';
import { DeviceEmulator } from './device-emulator.js';
import { SchedulerEmulator } from './scheduler-emulator.js';
import { emulatedScheduler } from './emulated.js';
import { rejection, requestsReceived } from './expect-errors.js';

let emu: SchedulerEmulator;
let client: SchedulerClient;
emulatedScheduler((e, c) => {
  emu = e;
  client = c;
});



describe('scheduler replies', () => {
  it('D1 the status words: running, stopping, not found (the server) and unknown (the specification\'s HTTP form); nothing else', async () => {
    for (const [body, status] of [
      ['running', 'RUNNING'],
      ['stopping', 'STOPPED'],
      ['not found', 'UNKNOWN'],
      ['unknown', 'UNKNOWN'],
    ] as const) {
      emu.override = () => ({ status: 200, body });
      expect(await client.readStatus({ task: 5 })).toEqual({ status, reply: body });
    }
    for (const body of ['UNKNOWN', 'stopped', 'Bad Request', 'running\n', '']) {
      emu.override = () => ({ status: 200, body });
      await rejection(() => client.status({ task: 5 }), ServiceProtocolError);
    }
  });

  it('S7 /plans: a startedAt that is not 0 or epoch milliseconds is a protocol error', async () => {
    const listing = (startedAt: unknown) => JSON.stringify({ task: { '7': { id: 7, plan: 'r10', startedAt } }, taskGroup: {} });
    for (const startedAt of [1e20, 1_700_000_000.5, 1_700_000_000, -5, 1.5]) {
      emu.override = () => ({ status: 200, body: listing(startedAt), contentType: 'application/json' });
      const err = await rejection(() => client.plans(), ServiceProtocolError);
      expect(err.message).toContain(`startedAt ${startedAt}, which is not 0 or a time in epoch milliseconds`);
    }
    emu.override = () => ({ status: 200, body: listing(0), contentType: 'application/json' });
    expect((await client.plans()).task[0]!.startedAt).toBeNull();
    emu.override = () => ({ status: 200, body: listing(1_700_000_000_123), contentType: 'application/json' });
    expect((await client.plans()).task[0]!.startedAt!.toISOString()).toBe('2023-11-14T22:13:20.123Z');
  });

  it('a URL with a path: errors name the request as sent, path included', async () => {
    const prefixed = new SchedulerClient({ url: `${emu.url}/proxy/` });
    const err = await rejection(() => prefixed.stop({ task: 5 }), ServiceHttpError);
    expect(emu.requests).toEqual(['GET /proxy/task/5?stopping=true']);
    expect(err.request).toBe('GET /proxy/task/5?stopping=true');
    expect(err.message).toContain('GET /proxy/task/5 answered HTTP 404: Endpoint GET /proxy/task/5 not found');
    emu.override = () => ({ status: 200, body: 'fine' });
    const odd = await rejection(() => prefixed.status({ task: 5 }), ServiceProtocolError);
    expect(odd.request).toBe('GET /proxy/task/5');
    expect(odd.message).toContain('unexpected reply to GET /proxy/task/5: "fine"');
  });

  it('full maps (10 000 ids each, never emptied while the scheduler runs): a new id is a 500, and the error says what it likely means', async () => {
    const small = await SchedulerEmulator.start({ capacity: 2 });
    try {
      const c = new SchedulerClient({ url: small.url });
      await c.stop({ task: 1 });
      await c.resume({ task: 2 });
      // Known ids still change; a third one does not fit.
      await c.resume({ task: 1 });
      const err = await rejection(() => c.stop({ task: 3 }), ServiceHttpError);
      expect(err.status).toBe(500);
      expect(err.message).toContain(
        'GET /task/3 answered HTTP 500: Server Error (for a stop or resume, most likely its map of threads is full: it holds 10000 ids and never drops one, so restart the scheduler to empty it)',
      );
      expect(await c.status({ task: 3 })).toBe('UNKNOWN');
      // The other map has room of its own.
      await c.stop({ group: 3 });
      const group = await rejection(() => c.resume({ group: 4 }).then(() => c.resume({ group: 5 })), ServiceHttpError);
      expect(group.message).toContain('its map of processes is full');
    } finally {
      await small.close();
    }
  });

  it('U6 a redirect names its Location', async () => {
    emu.override = () => ({ status: 302, body: '', headers: { location: 'http://192.0.2.7:8087/task/5' } });
    const err = await rejection(() => client.stop({ task: 5 }), ServiceHttpError);
    expect(err.message).toContain('HTTP 302 (a redirect to http://192.0.2.7:8087/task/5, not followed');
  });
});

describe('ids typed by a user', () => {
  it('an id beyond what a number holds exactly is named as typed, not as the number it rounds to', () => {
    const message = (text: string): string => {
      try {
        parseId(text, 'task');
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidArgumentError);
        return (err as Error).message;
      }
      throw new Error(`parseId(${JSON.stringify(text)}) passed`);
    };
    expect(message('9007199254740993')).toBe('task id 9007199254740993 is invalid: use a positive thread id (1…2147483647)');
    expect(message('99999999999999999999999')).toBe('task id 99999999999999999999999 is invalid: use a positive thread id (1…2147483647)');
    expect(message('2147483648')).toBe('task id 2147483648 is invalid: use a positive thread id (1…2147483647)');
    expect(message('0')).toBe('task id 0 is invalid: use a positive thread id (1…2147483647)');
    expect(parseId('2147483647', 'task')).toBe(2147483647);
    expect(parseId('007', 'group')).toBe(7);
  });
});

describe('a 404 from the scheduler', () => {
  it('says the URL does not seem to be the scheduler: the real one answers every route the client uses', async () => {
    const prefixed = new SchedulerClient({ url: `${emu.url}/sched/` });
    const err = await rejection(() => prefixed.status({ task: 5 }), ServiceHttpError);
    expect(err.status).toBe(404);
    expect(err.message).toBe(
      `scheduler at ${emu.url}: GET /sched/task/5 answered HTTP 404: Endpoint GET /sched/task/5 not found (the taskcontrol scheduler answers every request this client sends: is ${emu.url}/sched/ its URL?)`,
    );
  });
});

describe('scheduler lottery weight', () => {
  it('resume takes lotteryPriority, sent with stopping=false; a resume or stop without it sets the weight back to 1', async () => {
    await client.resume({ task: 5 }, { lotteryPriority: 3 });
    expect(emu.requests.at(-1)).toBe('GET /task/5?stopping=false&lotteryPriority=3');
    expect(emu.settings.task.get(5)).toEqual({ stop: false, priority: 3 });
    await client.resume({ group: 6 }, { lotteryPriority: 2_147_483_647 });
    expect(emu.settings.taskGroup.get(6)).toEqual({ stop: false, priority: 2_147_483_647 });
    await client.stop({ task: 5 });
    expect(emu.settings.task.get(5)).toEqual({ stop: true, priority: 1 });
    const before = emu.requests.length;
    for (const [value, message] of [
      [0, 'lotteryPriority 0 is invalid: use a whole number from 1 to 2147483647 (the lottery weight)'],
      [2 ** 31, 'lotteryPriority 2147483648 is invalid: use a whole number from 1 to 2147483647 (the lottery weight)'],
      [1.5, 'lotteryPriority 1.5 is invalid: use a whole number from 1 to 2147483647 (the lottery weight)'],
      ['3', 'lotteryPriority must be a number, got a string ("3")'],
    ] as const) {
      const err = await rejection(() => client.resume({ task: 5 }, { lotteryPriority: value as number }), InvalidArgumentError);
      expect(err.message).toBe(message);
    }
    expect(emu.requests.length).toBe(before);
  });
});

describe('scheduler arguments from JavaScript callers', () => {
  it('C2 wrong types are InvalidArgumentErrors that say so, and nothing is sent', async () => {
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => client.setPlan({ task: 7 }, [{ action: 'stop', seconds: '5' }] as never), /step 1: seconds must be a number, got a string \("5"\)/],
      [() => client.setPlan({ task: 7 }, null as never), /a plan is a string such as "s10,r5" or a list of \{action, seconds\} steps, got null/],
      [() => client.setPlan({ task: 7 }, [null] as never), /plan step 1 must be an object/],
      [() => client.setPlan({ task: 7 }, [{ action: 'pause', seconds: 1 }] as never), /plan step 1 has action "pause"; use 'stop' or 'run'/],
      [() => client.setPlan({ task: 7 }, 5 as never), /got the number 5/],
      [() => client.setPlan({ task: 7 }, 's1', { onWarning: 'log' } as never), /onWarning must be a function/],
      [() => client.status(null as never), /a target is either \{task: <thread id>\} or \{group: <process id>\}, got null/],
      [() => client.status(undefined as never), /got nothing \(undefined\)/],
      [() => client.status({ task: '42' } as never), /task id must be a number \(a thread id\), got a string \("42"\)/],
      [() => client.stop({ group: 5n } as never), /group id must be a number \(a process id\), got a bigint/],
      [() => client.status({ task: 5 }, { signal: {} } as never), /signal must be an AbortSignal, got an object/],
    ];
    for (const [call, message] of cases) {
      const err = await rejection(call, InvalidArgumentError).catch((e: unknown) => {
        throw new Error(`case ${message}: ${(e as Error).message}`);
      });
      expect(err.message).toMatch(message);
    }
    expect(() => new SchedulerClient({ timeoutMs: '5000' } as never)).toThrow(/timeoutMs must be a number of milliseconds, got a string/);
    // A Node timer waits at most 2^31 - 1 ms: a longer limit would fire at once, so it is refused.
    const range = 'timeoutMs must be a whole number of milliseconds from 1 to 2147483647 (the longest a timer waits)';
    for (const ms of [2 ** 31, 1e12, 0, 1.5]) {
      expect(() => new SchedulerClient({ url: emu.url, timeoutMs: ms })).toThrow(new InvalidArgumentError(`${range}, got ${ms}`));
    }
    expect(() => new SchedulerClient({ url: emu.url, timeoutMs: 2 ** 31 })).toThrow(InvalidArgumentError);
    expect(() => new SchedulerClient({ url: emu.url, timeoutMs: 2 ** 31 - 1 })).not.toThrow();
    expect(emu.requests).toEqual([]);
  });

  it('a misspelt option is refused, naming the ones there are: a resume must not quietly reset the weight to 1', async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [() => client.resume({ task: 7 }, { lotteryPriorty: 5 } as never), 'options have no field "lotteryPriorty": use signal, lotteryPriority'],
      [() => client.setPlan({ task: 7 }, 's1', { onwarning: () => undefined } as never), 'options have no field "onwarning": use signal, onWarning'],
      [() => client.stop({ task: 7 }, { timeoutMs: 5 } as never), 'options have no field "timeoutMs": use signal'],
      [() => client.status({ task: 7 }, { lotteryPriority: 5 } as never), 'options have no field "lotteryPriority": use signal'],
    ];
    for (const [call, message] of cases) {
      const err = await rejection(call, InvalidArgumentError);
      expect(err.message).toBe(message);
    }
    expect(() => new SchedulerClient({ url: emu.url, timeout: 100 } as never)).toThrow(new InvalidArgumentError('SchedulerClient options have no field "timeout": use url, timeoutMs'));
    expect(() => new SchedulerClient(null as never)).toThrow(new InvalidArgumentError('SchedulerClient options must be an object such as {url, timeoutMs}, got null'));
    expect(() => new SchedulerClient({ url: 8087 } as never)).toThrow(new InvalidArgumentError('the scheduler URL must be a string such as http://127.0.0.1:8087, got the number 8087'));
    expect(() => new ThreadControl(8087, { hots: 'x' } as never)).toThrow(new InvalidArgumentError('ThreadControl options have no field "hots": use host, timeoutMs, workerWaitMs'));
    expect(emu.requests).toEqual([]);
  });
});

describe('plan warnings', () => {
  it('D5 stops in a row adding up to 25 s or more are warned about, through onWarning, and still sent', async () => {
    expect(planWarnings(parsePlan('s12,r1,s12'))).toEqual([]);
    expect(planWarnings(parsePlan('s24.9'))).toEqual([]);
    expect(planWarnings(parsePlan('s12.5,s12.5'))).toHaveLength(1);
    // Counted as the server holds them: it reads 12.4999999 as the float 12.5, so these are 25 s in a row.
    expect(planWarnings(parsePlan('s12.5,s12.4999999'))).toEqual([
      'plan s12.5,s12.4999999: the stops of steps 1–2 add up to 25 s in a row, close to the 30 s at which the kernel watchdog kills the scheduler (voiding every stop); consider a run step between them',
    ]);
    const warnings: string[] = [];
    await client.setPlan({ task: 7 }, 's20,s6,r1', { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([
      'plan s20,s6,r1: the stops of steps 1–2 add up to 26 s in a row, close to the 30 s at which the kernel watchdog kills the scheduler (voiding every stop); consider a run step between them',
    ]);
    expect(emu.requests).toEqual(['GET /task/plan/7?plan=20s%2C6s%2C1r']);
  });

  it('D5 without onWarning the warning goes to process.emitWarning', async () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await client.setPlan({ task: 7 }, [
        { action: 'run', seconds: 1 },
        { action: 'stop', seconds: 15 },
        { action: 'stop', seconds: 10 },
      ]);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0]![0]).toContain('the stops of steps 2–3 add up to 25 s in a row');
      expect(spy.mock.calls[0]![1]).toEqual({ code: 'HEAPQL_PLAN_STOPS' });
    } finally {
      spy.mockRestore();
    }
  });
});

describe('scheduler AbortSignal and time limits', () => {
  it('C1 an aborted call ends at once with ServiceAbortedError; an already aborted signal sends nothing', async () => {
    await rejection(() => client.stop({ task: 5 }, { signal: AbortSignal.abort() }), ServiceAbortedError);
    expect(emu.requests).toEqual([]);
    emu.hold = true;
    // A time limit far beyond the test's: only the abort can end this call.
    const patient = new SchedulerClient({ url: emu.url, timeoutMs: 3_600_000 });
    const controller = new AbortController();
    const pending = patient.stop({ task: 5 }, { signal: controller.signal }).then(() => null, (e: unknown) => e);
    await requestsReceived(emu, 1);
    controller.abort();
    const err = (await pending) as ServiceAbortedError;
    expect(err).toBeInstanceOf(ServiceAbortedError);
    expect(err.sent).toBe(true);
    expect(err.message).toContain('it may have taken effect; read the status back');
  });

  it('U3 a timeout of stop, resume, setPlan or cancelPlan says it may have taken effect and to read the status back; a read does not', async () => {
    emu.hold = true;
    const slow = new SchedulerClient({ url: emu.url, timeoutMs: 100 });
    for (const call of [() => slow.stop({ task: 5 }), () => slow.resume({ group: 5 }), () => slow.setPlan({ task: 5 }, 's1'), () => slow.cancelPlan({ task: 5 })]) {
      const err = await rejection(call, ServiceTimeoutError);
      expect(err.message).toContain('within 100 ms of sending it; it may already have taken effect; read the status back');
    }
    const read = await rejection(() => slow.status({ task: 5 }), ServiceTimeoutError);
    expect(read.message).not.toContain('taken effect');
  });
});

describe('ThreadControl checks', () => {
  it('takes an IPv6 host as typed, and refuses a host that is not one or a wait that is no time', () => {
    expect(new ThreadControl(8087, { host: '::1' }).client.url).toBe('http://[::1]:8087/');
    expect(new ThreadControl(8087, { host: '[::1]' }).client.url).toBe('http://[::1]:8087/');
    expect(new ThreadControl(9000, { host: 'sched.local' }).client.url).toBe('http://sched.local:9000/');
    expect(() => new ThreadControl(8087, { host: 'http://10.0.0.2' })).toThrow(
      new InvalidArgumentError('scheduler host "http://10.0.0.2" is invalid: give a host name or address only, such as 127.0.0.1 (the port is the first argument)'),
    );
    expect(() => new ThreadControl(8087, { host: '10.0.0.2:9000' })).toThrow(/scheduler host "10\.0\.0\.2:9000" is invalid/);
    expect(() => new ThreadControl(8087, { host: 5 as never })).toThrow(/scheduler host must be a string, got the number 5/);
    for (const wait of [-1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => new ThreadControl(8087, { workerWaitMs: wait })).toThrow(/workerWaitMs must be a whole number of milliseconds from 1 to 2147483647/);
    }
    expect(() => new ThreadControl(8087, { workerWaitMs: '5000' as never })).toThrow(/workerWaitMs must be a number of milliseconds, got a string/);
  });

  it('D3 a thread id given as a number must be a thread of this process; nothing is sent otherwise', async () => {
    const tc = new ThreadControl(emu.port);
    const err = await rejection(() => tc.stopThread(1), InvalidArgumentError);
    expect(err.message).toContain('thread 1 is not a thread of this process (no /proc/self/task/1)');
    await rejection(() => tc.getThreadStatus(0), InvalidArgumentError);
    await rejection(() => tc.resumeThread('5' as never), InvalidArgumentError);
    await rejection(() => tc.stopThread({} as never), InvalidArgumentError);
    expect(emu.requests).toEqual([]);
    const own = currentOsThreadId();
    expect(await tc.getThreadStatus(own)).toBe('UNKNOWN');
    expect(emu.requests).toEqual([`GET /task/${own}`]);
  });

  it('D4 ThreadControl.connect checks that the scheduler answers /help, and that it is the scheduler', async () => {
    const tc = await ThreadControl.connect(emu.port);
    expect(emu.requests).toEqual(['GET /help']);
    expect(tc.client.url).toBe(`http://127.0.0.1:${emu.port}/`);

    const gone = await SchedulerEmulator.start();
    const port = gone.port;
    await gone.close();
    const down = await rejection(() => ThreadControl.connect(port), ServiceUnavailableError);
    expect(down.reason).toBe('refused');
    expect(down.message).toContain('is not running');

    const other = await DeviceEmulator.start();
    try {
      const err = await rejection(() => ThreadControl.connect(other.port), ServiceProtocolError);
      expect(err.message).toContain("not with the taskcontrol scheduler's usage text");
      // Something that refuses /help is not the scheduler either (which always answers it): the same error.
      other.override = () => ({ status: 404 });
      const refused = await rejection(() => ThreadControl.connect(other.port), ServiceProtocolError);
      expect(refused.message).toBe(`the service at http://127.0.0.1:${other.port}/ answered GET /help with HTTP 404, which the taskcontrol scheduler never does: is port ${other.port} the scheduler's?`);
    } finally {
      await other.close();
    }
  });
});
