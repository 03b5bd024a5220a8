/**
 * Contract cases A-01…A-24 of docs/clients-spec.md over loopback HTTP: each checks what the
 * emulator puts on the wire (as the real SchedulerServer does) and how SchedulerClient handles it.
 */
import { describe, expect, it } from 'vitest';

import {
  SchedulerClient,
  formatReadPlan,
  InvalidArgumentError,
  ServiceHttpError,
  ServiceProtocolError,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from '../../ts/clients/scheduler/index.js';
import { raw } from './raw-http.js';
import { SchedulerEmulator } from './scheduler-emulator.js';
import { emulatedScheduler } from './emulated.js';
import { rejection } from './expect-errors.js';

let emu: SchedulerEmulator;
let client: SchedulerClient;
emulatedScheduler((e, c) => {
  emu = e;
  client = c;
});

const get = (path: string, headers?: Record<string, string>) => raw(emu.url, path, { headers });

describe('scheduler contract', () => {
  it('A-01 /help: 8 lines, usage lines name the real port, plan routes mentioned', async () => {
    const r = await get('/help');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    const lines = r.body.split('\n');
    expect(lines).toHaveLength(9);
    expect(lines[8]).toBe('');
    for (const line of lines.slice(0, 6)) expect(line.startsWith(`GET localhost:${emu.port}/`)).toBe(true);
    expect(lines[6]).toBe('');
    expect(r.body).toContain('/task/plan/{id}');
    expect(r.body).toContain('/plans');
    expect(await client.help()).toBe(r.body);
  });

  it('A-02 fresh /task/4242 is "not found"; the client says UNKNOWN', async () => {
    expect((await get('/task/4242')).body).toBe('not found');
    expect(await client.status({ task: 4242 })).toBe('UNKNOWN');
  });

  it('A-03 stopping=true answers ok, then the task reads stopping (STOPPED)', async () => {
    expect((await get('/task/4242?stopping=true')).body).toBe('ok');
    expect((await get('/task/4242')).body).toBe('stopping');
    emu.reset();
    await client.stop({ task: 4242 });
    expect(emu.requests).toEqual(['GET /task/4242?stopping=true']);
    expect(await client.status({ task: 4242 })).toBe('STOPPED');
  });

  it('A-04 stopping=false answers ok, then the task reads running (RUNNING)', async () => {
    await client.stop({ task: 4242 });
    expect((await get('/task/4242?stopping=false')).body).toBe('ok');
    expect((await get('/task/4242')).body).toBe('running');
    await client.stop({ task: 4242 });
    await client.resume({ task: 4242 });
    expect(emu.requests.at(-1)).toBe('GET /task/4242?stopping=false');
    expect(await client.status({ task: 4242 })).toBe('RUNNING');
  });

  it('A-05 stopping=TRUE stops; yes and empty resume (Java parseBoolean); the client sends literal true/false', async () => {
    expect((await get('/task/4242?stopping=TRUE')).body).toBe('ok');
    expect((await get('/task/4242')).body).toBe('stopping');
    expect((await get('/task/4242?stopping=yes')).body).toBe('ok');
    expect((await get('/task/4242')).body).toBe('running');
    await get('/task/4242?stopping=true');
    expect((await get('/task/4242?stopping=')).body).toBe('ok');
    expect((await get('/task/4242')).body).toBe('running');
    emu.reset();
    await client.stop({ group: 31 });
    await client.resume({ group: 31 });
    expect(emu.requests).toEqual(['GET /taskGroup/31?stopping=true', 'GET /taskGroup/31?stopping=false']);
  });

  it('A-06 non-integer, out-of-range and missing ids are 400 Bad Request; the client refuses them unsent', async () => {
    for (const path of ['/task/abc', '/task/99999999999', '/task/plan']) {
      const r = await get(path);
      expect([path, r.status, r.body]).toEqual([path, 400, 'Bad Request']);
    }
    emu.reset();
    for (const id of [99_999_999_999, 0, -5, 1.5, Number.NaN]) {
      await rejection(() => client.status({ task: id }), InvalidArgumentError);
      await rejection(() => client.stop({ group: id }), InvalidArgumentError);
    }
    expect(emu.requests).toEqual([]);
    // A 400 that does reach the client carries the server's text.
    emu.override = () => ({ status: 400, body: 'Bad Request' });
    const err = await rejection(() => client.status({ task: 1 }), ServiceHttpError);
    expect([err.status, err.bodyText]).toEqual([400, 'Bad Request']);
    expect(err.message).toContain('HTTP 400: Bad Request');
    expect(err.exitCode).toBe(1);
  });

  it('A-07 lotteryPriority 0 or x with stopping is a 500 "Server Error" and changes nothing', async () => {
    for (const lp of ['0', 'x']) {
      const r = await get(`/task/5?stopping=true&lotteryPriority=${lp}`);
      expect([r.status, r.body]).toEqual([500, 'Server Error']);
      expect(r.headers['content-type']).toMatch(/^text\/plain/);
    }
    expect((await get('/task/5')).body).toBe('not found');
    // The client never sends lotteryPriority; a 500 reaching it is an HTTP error with the text.
    emu.override = (_m, url) => (url.searchParams.has('stopping') ? { status: 500, body: 'Server Error' } : undefined);
    const err = await rejection(() => client.stop({ task: 5 }), ServiceHttpError);
    expect([err.status, err.bodyText]).toEqual([500, 'Server Error']);
  });

  it('A-08 the same 500 with Accept: application/json is Javalin\'s JSON error object', async () => {
    const r = await get('/task/5?stopping=true&lotteryPriority=0', { accept: 'application/json' });
    expect(r.status).toBe(500);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ title: 'Server Error', status: 500, details: {} });
    expect(body.type).toMatch(/^https:\/\/javalin\.io\/documentation#/);
  });

  it('A-09 lotteryPriority alone is a plain status read: not found, nothing written', async () => {
    expect((await get('/task/5?lotteryPriority=7')).body).toBe('not found');
    expect(emu.settings.task.size).toBe(0);
  });

  it('A-10 task and task group are separate maps', async () => {
    expect((await get('/taskGroup/100?stopping=true')).body).toBe('ok');
    expect((await get('/task/100')).body).toBe('not found');
    emu.reset();
    await client.stop({ group: 100 });
    expect(await client.status({ group: 100 })).toBe('STOPPED');
    expect(await client.status({ task: 100 })).toBe('UNKNOWN');
  });

  it('A-11 fresh: no plan, empty /plans', async () => {
    expect((await get('/task/plan/7')).body).toBe('no plan');
    const plans = await get('/plans');
    expect(JSON.parse(plans.body)).toEqual({ task: {}, taskGroup: {} });
    expect(await client.getPlan({ task: 7 })).toBeNull();
    expect(await client.plans()).toEqual({ task: [], taskGroup: [] });
  });

  it('A-12 a plan set in the spec form is sent in the server form, starts stopped, reads back inverted', async () => {
    const steps = await client.setPlan({ task: 7 }, 's10,r5');
    expect(steps).toEqual([
      { action: 'stop', seconds: 10 },
      { action: 'run', seconds: 5 },
    ]);
    expect(emu.requests).toEqual(['GET /task/plan/7?plan=10s%2C5r']);
    expect((await get('/task/7')).body).toBe('stopping');
    expect((await get('/task/plan/7')).body).toBe('r10,s5');
    const listed = JSON.parse((await get('/plans')).body);
    expect(listed.task['7']).toMatchObject({ id: 7, plan: 'r10,s5' });
    expect(typeof listed.task['7'].startedAt).toBe('number');

    const plan = await client.getPlan({ task: 7 });
    expect(plan).toEqual({
      raw: 'r10,s5',
      steps: [
        { action: 'stop', seconds: 10, truncated: false },
        { action: 'run', seconds: 5, truncated: false },
      ],
    });
    expect(formatReadPlan(plan!)).toBe('s10,r5');
    const all = await client.plans();
    expect(all.taskGroup).toEqual([]);
    expect(all.task).toHaveLength(1);
    expect(all.task[0]!.id).toBe(7);
    expect(all.task[0]!.plan.raw).toBe('r10,s5');
    expect(all.task[0]!.startedAt).toEqual(new Date(listed.task['7'].startedAt));
    expect(await client.status({ task: 7 })).toBe('STOPPED');

    // The server form is accepted as input too, and sent unchanged.
    emu.reset();
    await client.setPlan({ task: 7 }, '10s,5r');
    expect(emu.requests).toEqual(['GET /task/plan/7?plan=10s%2C5r']);
  });

  it('A-12 until the plan\'s runner thread has started, startedAt is 0 (the client says null) and the first step is not written', async () => {
    const late = await SchedulerEmulator.start({ lateRunnerStart: true });
    try {
      const c = new SchedulerClient({ url: late.url });
      await c.setPlan({ task: 7 }, 's10,r5');
      expect(JSON.parse((await raw(late.url, '/plans')).body).task['7'].startedAt).toBe(0);
      expect((await c.plans()).task[0]!.startedAt).toBeNull();
      expect(await c.status({ task: 7 })).toBe('UNKNOWN');
      await late.advance(0);
      expect(await c.status({ task: 7 })).toBe('STOPPED');
      const started = JSON.parse((await raw(late.url, '/plans')).body).task['7'].startedAt;
      expect(started).toBeGreaterThan(1e12);
      expect((await c.plans()).task[0]!.startedAt).toEqual(new Date(started));
    } finally {
      await late.close();
    }
  });

  it('A-13 after the 10 s stop the task runs, the plan is still listed', async () => {
    await client.setPlan({ task: 7 }, 's10,r5');
    await emu.advance(9_999);
    expect(await client.status({ task: 7 })).toBe('STOPPED');
    await emu.advance(1);
    expect((await get('/task/7')).body).toBe('running');
    expect(await client.status({ task: 7 })).toBe('RUNNING');
    expect((await client.plans()).task.map((e) => e.id)).toEqual([7]);
  });

  it('A-14 after 15 s the plan has run once and is gone; the task stays running', async () => {
    await client.setPlan({ task: 7 }, 's10,r5');
    await emu.advance(15_000);
    expect((await get('/task/7')).body).toBe('running');
    expect((await get('/task/plan/7')).body).toBe('no plan');
    expect(JSON.parse((await get('/plans')).body).task).toEqual({});
    expect(await client.getPlan({ task: 7 })).toBeNull();
    expect((await client.plans()).task).toEqual([]);
  });

  it('A-15 the spec form letter-first is a 400 syntax error at the server (the client converts it)', async () => {
    const r = await get('/task/plan/7?plan=s10,r5');
    expect([r.status, r.body]).toEqual([400, 'Invalid plan, must be a comma separated list of items like s10,r10']);
    for (const bad of ['10S', '.5s', '10s,', '10 s', '']) {
      const b = await get(`/task/plan/7?plan=${encodeURIComponent(bad)}`);
      expect([bad, b.status]).toEqual([bad, 400]);
    }
    emu.reset();
    for (const bad of ['10S', '.5s', 's10,', 'x5', 's10;r5', '', 's-1']) {
      await rejection(() => client.setPlan({ task: 7 }, bad), InvalidArgumentError);
    }
    expect(emu.requests).toEqual([]);
  });

  it('A-16 a stop over 25 whole seconds or a zero duration is a 400 duration error; the client refuses both unsent', async () => {
    for (const plan of ['26s', '0s']) {
      const r = await get(`/task/plan/7?plan=${plan}`);
      expect([r.status, r.body]).toEqual([400, 'Invalid plan, duration must be positive and stopping durations less than 25s']);
    }
    emu.reset();
    for (const plan of ['26s', 's26', '0s', 'r0', 's0.0']) {
      const err = await rejection(() => client.setPlan({ task: 7 }, plan), InvalidArgumentError);
      expect(err.exitCode).toBe(2);
    }
    expect(emu.requests).toEqual([]);
  });

  it('A-17 25.9s, 100r and 2.5s pass the server; 2.5s reads back 2.0r; the client keeps stops under 25 s', async () => {
    for (const plan of ['25.9s', '100r', '2.5s']) expect((await get(`/task/plan/7?plan=${plan}`)).body).toBe('ok');
    expect((await get('/task/plan/7')).body).toBe('2.0r');
    const plan = await client.getPlan({ task: 7 });
    expect(plan!.steps).toEqual([{ action: 'stop', seconds: 2, truncated: true }]);
    expect(formatReadPlan(plan!)).toBe('s2+');
    emu.reset();
    await rejection(() => client.setPlan({ task: 7 }, '25.9s'), InvalidArgumentError);
    await client.setPlan({ task: 7 }, 'r100');
    await client.setPlan({ task: 7 }, 's2.5');
    expect(emu.requests).toEqual(['GET /task/plan/7?plan=100r', 'GET /task/plan/7?plan=2.5s']);
    const fraction = await client.getPlan({ task: 7 });
    expect(fraction!.raw).toBe('2.0r');
  });

  it('A.5 durations are Java floats and the syntax allows a bare trailing dot: 10.s is 10 s, 0.1s prints as a fraction, 16777217r as 16777216', async () => {
    for (const [plan, back] of [
      ['10.s', 'r10'],
      ['0.1s', '0.0r'],
      ['16777217r', 's16777216'],
      ['3.00000001s', 'r3'],
    ]) {
      expect((await get(`/task/plan/7?plan=${plan}`)).body).toBe('ok');
      expect((await get('/task/plan/7')).body).toBe(back);
    }
    expect((await get('/task/plan/7?plan=.5s')).status).toBe(400);
    // The client decodes what the server prints; 3.00000001 s became a whole 3 s there.
    expect((await client.getPlan({ task: 7 }))!.steps).toEqual([{ action: 'stop', seconds: 3, truncated: false }]);
  });

  it('A-18 plan and stoppingPlan together are a 400', async () => {
    const r = await get('/task/plan/7?plan=10s&stoppingPlan=true');
    expect([r.status, r.body]).toEqual([400, 'Bad Request, only one of plan or stoppingPlan can be set']);
    emu.override = () => ({ status: 400, body: r.body });
    const err = await rejection(() => client.setPlan({ task: 7 }, 's10'), ServiceHttpError);
    expect(err.message).toContain('only one of plan or stoppingPlan');
  });

  it('A-19 stoppingPlan=true without a plan is ok; stoppingPlan=false is an empty 200', async () => {
    const t = await get('/task/plan/7?stoppingPlan=true');
    expect([t.status, t.body]).toEqual([200, 'ok']);
    const f = await get('/task/plan/7?stoppingPlan=false');
    expect([f.status, f.body]).toEqual([200, '']);
    emu.reset();
    await client.cancelPlan({ task: 7 });
    expect(emu.requests).toEqual(['GET /task/plan/7?stoppingPlan=true']);
    // An empty body where `ok` belongs is not success.
    emu.override = () => ({ status: 200, body: '' });
    await rejection(() => client.cancelPlan({ task: 7 }), ServiceProtocolError);
  });

  it('A-20 cancelling a running plan lets the current stop finish, then the task runs and the plan is gone', async () => {
    await client.setPlan({ task: 7 }, 's10,r5');
    expect((await get('/task/plan/7?stoppingPlan=true')).body).toBe('ok');
    await emu.advance(9_999);
    expect(await client.status({ task: 7 })).toBe('STOPPED');
    expect(await client.getPlan({ task: 7 })).not.toBeNull();
    await emu.advance(1);
    expect(await client.status({ task: 7 })).toBe('RUNNING');
    expect(await client.getPlan({ task: 7 })).toBeNull();
    // Same through the client.
    await client.setPlan({ group: 7 }, 's5,r5');
    await client.cancelPlan({ group: 7 });
    await emu.advance(5_000);
    expect(await client.status({ group: 7 })).toBe('RUNNING');
    expect((await client.plans()).taskGroup).toEqual([]);
  });

  it('A.5 a plan set while another runs: the old one, at the end of its step, lifts the stop and unlists the new one, which runs on', async () => {
    await client.setPlan({ task: 7 }, 's10,r5');
    await emu.advance(3_000);
    // The new plan: stop 2 s, run 6 s, stop 5 s (3–5, 5–11, 11–16 s).
    await client.setPlan({ task: 7 }, 's2,r6,s5');
    expect((await client.getPlan({ task: 7 }))!.raw).toBe('r2,s6,r5');
    await emu.advance(7_000);
    // 10 s: the old plan's stop has ended; it removed the id's entry, the new plan's.
    expect(await client.getPlan({ task: 7 })).toBeNull();
    expect((await client.plans()).task).toEqual([]);
    await emu.advance(2_000);
    // 12 s: the unlisted plan's last stop holds the task.
    expect(await client.status({ task: 7 })).toBe('STOPPED');
    await emu.advance(4_000);
    expect(await client.status({ task: 7 })).toBe('RUNNING');
  });

  it('A.5 a stop or resume during a plan lasts until its next step, which writes over it (weight back to 1 too)', async () => {
    await client.setPlan({ task: 7 }, 's5,s5,r1');
    await client.resume({ task: 7 }, { lotteryPriority: 7 });
    expect(await client.status({ task: 7 })).toBe('RUNNING');
    expect(emu.settings.task.get(7)).toEqual({ stop: false, priority: 7 });
    await emu.advance(5_000);
    // The second stop step: stopped again, weight 1.
    expect(await client.status({ task: 7 })).toBe('STOPPED');
    expect(emu.settings.task.get(7)).toEqual({ stop: true, priority: 1 });
  });

  it('A-21 a task-group plan is listed under taskGroup only', async () => {
    expect((await get('/taskGroup/plan/9?plan=1s')).body).toBe('ok');
    const listed = JSON.parse((await get('/plans')).body);
    expect(Object.keys(listed.taskGroup)).toEqual(['9']);
    expect(listed.task).toEqual({});
    const all = await client.plans();
    expect(all.task).toEqual([]);
    expect(all.taskGroup.map((e) => [e.id, e.plan.raw])).toEqual([[9, 'r1']]);
  });

  it('A-22 unknown paths and non-GET methods are 404 "Endpoint … not found"', async () => {
    const nope = await get('/nope');
    expect([nope.status, nope.body]).toEqual([404, 'Endpoint GET /nope not found']);
    const post = await raw(emu.url, '/task/1', { method: 'POST' });
    expect([post.status, post.body]).toEqual([404, 'Endpoint POST /task/1 not found']);
    const wrongBase = new SchedulerClient({ url: `${emu.url}/nope` });
    const err = await rejection(() => wrongBase.status({ task: 1 }), ServiceHttpError);
    expect(err.status).toBe(404);
    expect(err.message).toContain('Endpoint GET /nope/task/1 not found');
  });

  it('A-23 HEAD answers 200 empty and does not run the handler', async () => {
    const r = await raw(emu.url, '/task/1?stopping=true', { method: 'HEAD' });
    expect([r.status, r.body]).toEqual([200, '']);
    expect((await get('/task/1')).body).toBe('not found');
  });
});

describe('scheduler watchdog', () => {
  it('A-24 a runnable task stopped over 30 s kills the scheduler; the client reports it died', async () => {
    const dying = await SchedulerEmulator.start({ watchdog: true });
    try {
      const c = new SchedulerClient({ url: dying.url });
      dying.markRunnable(77);
      await c.stop({ task: 77 });
      await dying.advance(30_000);
      expect(dying.dead).toBe(false);
      expect(await c.status({ task: 77 })).toBe('STOPPED');
      await dying.advance(1);
      expect(dying.dead).toBe(true);
      const err = await rejection(() => c.status({ task: 77 }), ServiceUnavailableError);
      expect(err.reason).toBe('refused');
      expect(err.reachedBefore).toBe(true);
      expect(err.message).toMatch(/probably died.*every stop and plan is void.*; restart it \(taskcontrol \.\/scheduler\.sh, as root\) and stop again what must stay stopped/);
      // A client that never reached it says so differently.
      const fresh = new SchedulerClient({ url: dying.url });
      const never = await rejection(() => fresh.resume({ task: 77 }), ServiceUnavailableError);
      expect(never.reachedBefore).toBe(false);
      expect(never.message).toContain('is not running (connection refused)');
    } finally {
      await dying.close();
    }
  });

  it('A-24 consecutive stops adding up to 30 s kill the server, which is why the client refuses them', async () => {
    const dying = await SchedulerEmulator.start({ watchdog: true });
    try {
      const c = new SchedulerClient({ url: dying.url });
      const err = await rejection(() => c.setPlan({ task: 78 }, 's20,s10'), InvalidArgumentError);
      expect(err.message).toContain('add up to 30 s');
      expect(dying.requests).toEqual([]);
      // The server itself takes it, and dies once the task has waited over 30 s.
      dying.markRunnable(78);
      expect((await raw(dying.url, '/task/plan/78?plan=20s,20s')).body).toBe('ok');
      await dying.advance(30_001);
      expect(dying.dead).toBe(true);
      await rejection(() => c.status({ task: 78 }), ServiceUnavailableError);
    } finally {
      await dying.close();
    }
  });
});

describe('scheduler client failures', () => {
  it('times out with a typed error when the server never answers', async () => {
    emu.hold = true;
    const slow = new SchedulerClient({ url: emu.url, timeoutMs: 100 });
    const err = await rejection(() => slow.status({ task: 1 }), ServiceTimeoutError);
    expect(err.timeoutMs).toBe(100);
    expect(err.message).toContain('no reply to GET /task/1 within 100 ms');
  });

  it('an unexpected status text is a protocol error, not UNKNOWN', async () => {
    emu.override = () => ({ status: 200, body: 'stopped' });
    const err = await rejection(() => client.status({ task: 1 }), ServiceProtocolError);
    expect(err.bodyText).toBe('stopped');
    emu.override = () => ({ status: 200, body: 'r10,x' });
    await rejection(() => client.getPlan({ task: 1 }), ServiceProtocolError);
    emu.override = () => ({ status: 200, body: '{"task":{}}' });
    await rejection(() => client.plans(), ServiceProtocolError);
    emu.override = () => ({ status: 200, body: '{"task":{"5":{"id":6,"plan":"r1","startedAt":1}},"taskGroup":{}}' });
    await rejection(() => client.plans(), ServiceProtocolError);
  });

  it('a bad URL or timeout is refused at construction', () => {
    expect(() => new SchedulerClient({ url: 'not a url' })).toThrow(InvalidArgumentError);
    expect(() => new SchedulerClient({ url: 'ftp://x' })).toThrow(InvalidArgumentError);
    expect(() => new SchedulerClient({ timeoutMs: 0 })).toThrow(InvalidArgumentError);
  });

  it('a state-changing call is sent exactly once even when it fails', async () => {
    emu.override = () => ({ status: 500, body: 'Server Error' });
    await rejection(() => client.setPlan({ task: 3 }, 's1'), ServiceHttpError);
    await rejection(() => client.stop({ task: 3 }), ServiceHttpError);
    expect(emu.requests).toEqual(['GET /task/plan/3?plan=1s', 'GET /task/3?stopping=true']);
  });
});
