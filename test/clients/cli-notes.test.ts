/**
 * What `heapql sched` and `heapql device` add on stderr and in --json, run in this process
 * from the TypeScript sources (citty's runCommand with stdout/stderr captured) against the
 * emulators on loopback: the plan warning, the note after "no plan", the verbatim status reply,
 * the note for an orientation without a sensor reading. (cli.test.ts runs the built binary.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCommand, type CommandDef } from 'citty';

import { deviceCommand } from '../../ts/cli/device.js';
import { schedCommand } from '../../ts/cli/sched.js';
import { DeviceEmulator } from './device-emulator.js';
import { SchedulerEmulator } from './scheduler-emulator.js';

let sched: SchedulerEmulator;
let device: DeviceEmulator;

beforeAll(async () => {
  sched = await SchedulerEmulator.start();
  device = await DeviceEmulator.start();
});
afterAll(async () => {
  await Promise.all([sched.close(), device.close()]);
});
beforeEach(() => {
  sched.reset();
  device.reset();
});

async function run(cmd: CommandDef<any>, rawArgs: string[]): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    await runCommand(cmd, { rawArgs });
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { stdout, stderr };
}

describe('heapql sched notes', () => {
  it('D5 a plan whose stops in a row reach 25 s is sent with a warning on stderr', async () => {
    const r = await run(schedCommand, ['plan', '--task', '7', 's20,s6', '--url', sched.url]);
    expect(r.stdout).toBe('started plan s20,s6 for task 7 (sent as 20s,6s)\n');
    expect(r.stderr).toMatch(/^warning: plan s20,s6: the stops of steps 1–2 add up to 26 s in a row, close to the 30 s at which the kernel watchdog kills the scheduler/);
    expect(sched.requests).toEqual(['GET /task/plan/7?plan=20s%2C6s']);
    const quiet = await run(schedCommand, ['plan', '--task', '7', 's10,r5', '--url', sched.url]);
    expect(quiet.stderr).toBe('');
  });

  it('S6 "no plan" and "no plans" carry a note that a replacing plan may run unlisted', async () => {
    const one = await run(schedCommand, ['plan', '--task', '7', '--url', sched.url]);
    expect(one.stdout).toBe('no plan\n');
    expect(one.stderr).toContain('note: a plan that replaced a running plan may still be running unlisted');
    const all = await run(schedCommand, ['plans', '--url', sched.url]);
    expect(all.stdout).toBe('no plans\n');
    expect(all.stderr).toContain('may still be running unlisted');
    await run(schedCommand, ['plan', '--task', '7', 's1', '--url', sched.url]);
    expect((await run(schedCommand, ['plan', '--task', '7', '--url', sched.url])).stderr).toBe('');
  });

  it('D1 status --json carries the server\'s reply verbatim, "unknown" included', async () => {
    sched.override = () => ({ status: 200, body: 'unknown' });
    const r = await run(schedCommand, ['status', '--task', '4242', '--json', '--url', sched.url]);
    expect(JSON.parse(r.stdout)).toEqual({ task: 4242, status: 'unknown', reply: 'unknown' });
    sched.override = undefined;
    const fresh = await run(schedCommand, ['status', '--task', '4242', '--json', '--url', sched.url]);
    expect(JSON.parse(fresh.stdout)).toEqual({ task: 4242, status: 'unknown', reply: 'not found' });
  });
});

describe('heapql device notes', () => {
  it('D7 an orientation before the sensors report is printed with a note', async () => {
    device.sensorsReady = false;
    const r = await run(deviceCommand, ['orientation', '--url', device.url]);
    expect(r.stdout).toBe('azimuth 0°  pitch 0°  roll 0°  accuracy UNKNOWN\n');
    expect(r.stderr).toContain('note: no sensor reading yet');
    device.sensorsReady = true;
    expect((await run(deviceCommand, ['orientation', '--url', device.url])).stderr).toBe('');
  });
});
