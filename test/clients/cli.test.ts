/**
 * `heapql sched` and `heapql device` end to end: the real binary (bin/heapql.js over dist/) in a
 * child process, talking HTTP to the emulators on loopback. Checks stdout, the one-line errors
 * on stderr, exit codes (0 / 1 failure / 2 usage) and that refused arguments send nothing.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { DeviceEmulator, frameBytes } from './device-emulator.js';
import { requireFreshDist } from './dist-check.js';
import { SchedulerEmulator } from './scheduler-emulator.js';
import { DEFAULT_DEVICE_URL } from '../../ts/clients/device/client.js';
import { DEFAULT_SCHEDULER_URL } from '../../ts/clients/scheduler/client.js';
import { heapql as runHeapql, type RunResult } from '../tools/run.js';

let sched: SchedulerEmulator;
let device: DeviceEmulator;
let dir: string;

beforeAll(async () => {
  requireFreshDist('clients', 'cli/sched.ts', 'cli/device.ts', 'cli/main.ts', 'cli/commands.ts');
  sched = await SchedulerEmulator.start();
  device = await DeviceEmulator.start();
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-cli-clients-'));
});
afterAll(async () => {
  await Promise.all([sched.close(), device.close()]);
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  sched.reset();
  device.reset();
});

type Run = RunResult;

/** Runs `node bin/heapql.js …` without blocking this process's event loop (the emulators live here). */
function heapql(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runHeapql(args, { cwd: dir, env: { HEAPQL_SCHED_URL: '', HEAPQL_DEVICE_URL: '', ...env } });
}

const s = (...args: string[]) => heapql(['sched', ...args, '--url', sched.url]);
const d = (...args: string[]) => heapql(['device', ...args, '--url', device.url]);

/** A failure: the exit code, and exactly one `error: …` line without a stack trace. */
function expectError(run: Run, code: number, text: string | RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^error: /);
  if (typeof text === 'string') expect(lines[0]).toContain(text);
  else expect(lines[0]).toMatch(text);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

describe('heapql sched', () => {
  it('status, stop, resume of a task and a group', async () => {
    expect(await s('status', '--task', '4242')).toEqual({ code: 0, stdout: 'unknown\n', stderr: '' });
    expect((await s('stop', '--task', '4242')).stdout).toBe('stopped task 4242\n');
    expect((await s('status', '--task', '4242')).stdout).toBe('stopped\n');
    expect((await s('resume', '--task', '4242')).stdout).toBe('resumed task 4242\n');
    expect((await s('status', '--task', '4242')).stdout).toBe('running\n');
    expect((await s('resume', '--task', '4242', '--priority', '5')).stdout).toBe('resumed task 4242 (lottery weight 5)\n');
    expect(sched.requests.at(-1)).toBe('GET /task/4242?stopping=false&lotteryPriority=5');
    expectError(await s('resume', '--task', '4242', '--priority', '0'), 2, '--priority "0" is invalid: use a whole number from 1 to 2147483647');
    expectError(await s('stop', '--task', '4242', '--priority', '5'), 2, 'unknown option --priority for sched stop');
    expect((await s('stop', '--group', '100')).code).toBe(0);
    expect((await s('status', '--group', '100')).stdout).toBe('stopped\n');
    expect(sched.requests).toContain('GET /taskGroup/100?stopping=true');
    const json = await s('status', '--task', '4242', '--json');
    expect(JSON.parse(json.stdout)).toEqual({ task: 4242, status: 'running', reply: 'running' });
  });

  it('plan: set in either form, print in the specification form, cancel, list', async () => {
    const set = await s('plan', '--task', '7', 's10,r5');
    expect(set).toEqual({ code: 0, stdout: 'started plan s10,r5 for task 7 (sent as 10s,5r)\n', stderr: '' });
    expect(sched.requests).toContain('GET /task/plan/7?plan=10s%2C5r');
    expect((await s('plan', '--task', '7')).stdout).toBe('s10,r5\n');
    expect((await s('status', '--task', '7')).stdout).toBe('stopped\n');
    const json = JSON.parse((await s('plan', '--task', '7', '--json')).stdout);
    expect(json).toMatchObject({ task: 7, plan: 's10,r5', reply: 'r10,s5' });
    expect((await s('plan', '--group', '9', '2.5s')).stdout).toBe('started plan s2.5 for group 9 (sent as 2.5s)\n');
    expect((await s('plan', '--group', '9')).stdout).toBe('s2+\n');
    const plans = await s('plans');
    expect(plans.code).toBe(0);
    expect(plans.stdout).toMatch(/^task 7: s10,r5 \(started \d{4}-.*\)\ngroup 9: s2\+ \(started .*\)\n$/);
    expect((await s('plan', '--task', '7', '--cancel')).stdout).toBe('asked the plan of task 7 to end after its current step (the scheduler answers ok whether a plan runs or not)\n');
    // The scheduler says ok to a target without a plan too: nothing was cancelled, and the output does not say so.
    const none = await s('plan', '--task', '8', '--cancel');
    expect(none).toEqual({ code: 0, stdout: 'asked the plan of task 8 to end after its current step (the scheduler answers ok whether a plan runs or not)\n', stderr: '' });
    expect(none.stdout).not.toContain('cancelled');
    await sched.advance(10_000);
    expect((await s('plan', '--task', '7')).stdout).toBe('no plan\n');
    sched.reset();
    expect((await s('plans')).stdout).toBe('no plans\n');
  });

  it('invalid ids, plans and options are usage errors (exit 2) and send nothing', async () => {
    expectError(await s('status', '--task', 'abc'), 2, 'task id "abc" is invalid');
    // An option given without its value.
    expectError(await heapql(['sched', 'status', '--url', sched.url, '--task']), 2, 'error: --task needs a thread id: --task <tid>');
    expectError(await heapql(['sched', 'stop', '--url', sched.url, '--group']), 2, 'error: --group needs a process id: --group <pid>');
    expectError(await heapql(['sched', 'status', '--task', '5', '--url']), 2, 'error: --url needs the URL of the service, such as http://127.0.0.1:8087');
    expectError(await heapql(['device', 'status', '--url']), 2, 'error: --url needs the URL of the service, such as http://192.168.1.20:8005');
    expectError(await s('stop', '--group', '99999999999'), 2, 'group id 99999999999 is invalid');
    expectError(await s('status', '--task', '1', '--group', '2'), 2, 'exactly one of --task <tid> or --group <pid>');
    expectError(await s('resume'), 2, 'exactly one of --task');
    expectError(await s('plan', '--task', '7', 's26'), 2, 'each stop must be under 25 s');
    expectError(await s('plan', '--task', '7', 's20,s10'), 2, 'add up to 30 s');
    expectError(await s('plan', '--task', '7', 'x5'), 2, 'item 1 "x5"');
    expectError(await s('plan', '--task', '7', 's5', '--cancel'), 2, 'not both');
    expectError(await s('status', '--tsak', '7'), 2, 'unknown option --tsak');
    expectError(await s('frob'), 2, "unknown command 'frob' for heapql sched");
    // A repeated target would otherwise silently act on the last one only.
    expectError(await s('stop', '--task', '5', '--task', '6'), 2, '--task given more than once (5, 6): give one');
    expectError(await s('plan', '--group=5', 's1', '--group', '6'), 2, '--group given more than once (5, 6): give one');
    expectError(await heapql(['sched', 'resume', '--task', '5', '--url', 'http://127.0.0.1:1', '--url', sched.url]), 2, '--url given more than once');
    expect(sched.requests).toEqual([]);
  });

  it('a scheduler that is down or failing exits 1 with one line', async () => {
    const gone = await SchedulerEmulator.start();
    const url = gone.url;
    await gone.close();
    expectError(await heapql(['sched', 'stop', '--task', '5', '--url', url]), 1, /is not running \(connection refused\)/);
    sched.override = () => ({ status: 500, body: 'Server Error' });
    expectError(await s('stop', '--task', '5'), 1, 'HTTP 500: Server Error');
    sched.override = () => ({ status: 200, body: 'weird' });
    expectError(await s('status', '--task', '5'), 1, 'unexpected reply');
    expectError(await heapql(['sched', 'plans', '--url', 'nope']), 2, 'is not a URL');
  });

  it('a scheduler that died after a stop: the refusal says every stop is void, since this run cannot know it ran before', async () => {
    const dying = await SchedulerEmulator.start({ watchdog: true });
    try {
      dying.markRunnable(77);
      expect((await heapql(['sched', 'stop', '--task', '77', '--url', dying.url])).code).toBe(0);
      await dying.advance(30_001);
      expect(dying.dead).toBe(true);
      const run = await heapql(['sched', 'status', '--task', '77', '--url', dying.url]);
      expectError(run, 1, /is not running \(connection refused\)/);
      expect(run.stderr).toContain('if it was running, it has exited (the kernel watchdog ends it when a stopped task waits 30 s) and every stop and plan it held is void');
    } finally {
      await dying.close();
    }
  });

  it('--timeout sets the time limit of each request: a scheduler that does not answer is a time-out naming its URL and the limit', async () => {
    sched.hold = true;
    expectError(await s('status', '--task', '3', '--timeout', '0.3'), 1, `scheduler at ${sched.url}: no reply to GET /task/3 within 300 ms of sending it; to wait longer, raise timeoutMs (heapql sched: --timeout <seconds>)`);
    expectError(await s('stop', '--task', '3', '--timeout=1'), 1, `scheduler at ${sched.url}: no reply to GET /task/3?stopping=true within 1 s of sending it; it may already have taken effect`);
    sched.hold = false;
    expect(await s('status', '--task', '3', '--timeout', '30')).toEqual({ code: 0, stdout: 'unknown\n', stderr: '' });
    // Anything but a positive number of seconds a timer can wait is refused, and nothing is sent.
    const sent = sched.requests.length;
    for (const bad of ['0', '-1', 'abc', '1e3', '', '0.0001', '2147484', 'Infinity']) {
      expectError(await s('status', '--task', '3', `--timeout=${bad}`), 2, `--timeout ${JSON.stringify(bad)} is invalid: give the time limit of each request in seconds, a number from 0.001 to 2147483`);
    }
    expect(sched.requests.length).toBe(sent);
  });

  it('takes the URL from HEAPQL_SCHED_URL', async () => {
    const r = await heapql(['sched', 'status', '--task', '3'], { HEAPQL_SCHED_URL: sched.url });
    expect(r).toEqual({ code: 0, stdout: 'unknown\n', stderr: '' });
    // A bad URL from the environment says so: the command line shows none.
    expectError(await heapql(['sched', 'status', '--task', '3'], { HEAPQL_SCHED_URL: 'nope' }), 2, 'error: HEAPQL_SCHED_URL: scheduler URL "nope" is not a URL');
    expectError(await heapql(['device', 'status'], { HEAPQL_DEVICE_URL: 'phone:8005' }), 2, 'error: HEAPQL_DEVICE_URL: device service URL "phone:8005" has no http:// in front');
  });

  it('an empty HEAPQL_SCHED_URL or HEAPQL_DEVICE_URL is as good as unset: the default URL is used', async () => {
    // (heapql() sets both empty.) The default URL is asked, not refused as a bad URL.
    for (const [args, url] of [
      [['sched', 'status', '--task', '3'], DEFAULT_SCHEDULER_URL],
      [['device', 'status'], DEFAULT_DEVICE_URL],
    ] as const) {
      const r = await heapql([...args]);
      expect(r.stderr).not.toContain('_URL:');
      expect(r.stderr).not.toContain('not a URL');
      // Nothing listens there in the tests' machine, or something that is no such service.
      if (r.code !== 0) expect(r.stderr).toContain(` at ${url} `);
      expect(r.code).not.toBe(2);
    }
  });

  it('help prints the server\'s own usage text, port substituted; a scheduler that is down exits 1', async () => {
    const r = await s('help');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(9);
    expect(lines[0]).toMatch(new RegExp(`^GET localhost:${new URL(sched.url).port}/`));
    expect(r.stdout).toContain('/task/plan/');
    expect(sched.requests.at(-1)).toBe('GET /help');
    expect(JSON.parse((await s('help', '--json')).stdout).reply).toBe(r.stdout);
    expect((await heapql(['sched', '--help'])).stdout).toContain('heapql sched help [--url <u>]');
    const gone = await SchedulerEmulator.start();
    const url = gone.url;
    await gone.close();
    expectError(await heapql(['sched', 'help', '--url', url]), 1, 'is not running (connection refused)');
  });

  it('help: a control character in the server\'s text is shown as an escape', async () => {
    sched.override = (_m, url) => (url.pathname === '/help' ? { status: 200, body: 'GET localhost:1/task/{id}\u001b[31m red\n\nsame for taskGroup\n' } : undefined);
    expect(await s('help')).toEqual({ code: 0, stdout: 'GET localhost:1/task/{id}\\u001b[31m red\n\nsame for taskGroup\n', stderr: '' });
  });

  it('--help works for sched and for its verbs', async () => {
    const expected: [string[], string[]][] = [
      [['sched', '--help'], ['sched status|stop|resume (--task <tid> | --group <pid>)', 'each stop < 25 s']],
      [['sched', 'stop', '--help'], ['sched stop (--task <tid> | --group <pid>)', 'USAGE heapql sched stop']],
      [['sched', 'plan', '--help'], ['each stop < 25 s', 'USAGE heapql sched plan']],
    ];
    for (const [args, texts] of expected) {
      const r = await heapql(args);
      expect(r.code).toBe(0);
      for (const text of texts) expect(r.stdout).toContain(text);
    }
  });
});

describe('heapql device', () => {
  it('--json prints the reply as the phone sent it: a number beyond 2^53 keeps its digits', async () => {
    device.override = (req) =>
      req.path === '/orientation'
        ? { status: 200, text: '{\n  "azimuth": 12.5,\n  "pitch": 0,\n  "roll": 0,\n  "timestamp": 9007199254740993123,\n  "accuracy": "HIGH"\n}', headers: { 'content-type': 'application/json; charset=UTF-8' } }
        : undefined;
    const r = await d('orientation', '--json');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"timestamp": 9007199254740993123');
    device.override = undefined;
    device.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const models = await d('models', '--json');
    expect(JSON.parse(models.stdout).models).toHaveLength(5);
    // Gson's escapes stay as sent: the output is the phone's JSON, not a re-encoding.
    const text = await d('text', '<b> & =', '--model', 'TINYLLAMA_1_1B_CHAT', '--json');
    expect(text.stdout).toContain('"response": "You said: \\u003cb\\u003e \\u0026 \\u003d"');
    expect(JSON.parse(text.stdout).response).toBe('You said: <b> & =');
  });

  it('status, help, models, orientation', async () => {
    device.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const status = await d('status');
    expect(status.code).toBe(0);
    expect(status.stdout).toBe('AI Phone Server 1.0.0-ai-enabled: running\nAI: enabled, 1 of 5 models downloaded\npermissions: location no, camera yes\n');
    expect(JSON.parse((await d('status', '--json')).stdout).ai.totalModels).toBe(5);
    expect((await d('help')).stdout).toMatch(/POST \/ai\/text\s+On-device text generation/);
    const models = (await d('models')).stdout.split('\n');
    expect(models).toHaveLength(6);
    expect(models[4]).toMatch(/^TINYLLAMA_1_1B_CHAT\s+TinyLlama 1\.1B Chat\s+downloaded\s+text$/);
    expect(models[0]).toMatch(/^GEMMA_3_1B_IT\s+Gemma 3n E2B IT\s+not downloaded\s+text\+images$/);
    expect((await d('orientation')).stdout).toBe('azimuth 123.5°  pitch -2.25°  roll 1.5°  accuracy HIGH\n');
  });

  it('text by model name, with an image file or a camera capture', async () => {
    device.downloaded.add('TINYLLAMA_1_1B_CHAT');
    device.downloaded.add('GEMMA_3_1B_IT');
    expect(await d('text', 'hello there', '--model', 'TinyLlama 1.1B Chat', '--max-tokens', '32')).toEqual({ code: 0, stdout: 'You said: hello there\n', stderr: '' });
    expect(JSON.parse(device.requests.at(-1)!.body)).toEqual({ text: 'hello there', model: 'TINYLLAMA_1_1B_CHAT', maxTokens: 32 });
    const image = path.join(dir, 'in.jpg');
    writeFileSync(image, frameBytes('test'));
    expect((await d('text', 'what is it', '--model', 'GEMMA_3_1B_IT', '--image', image)).stdout).toBe(`You said: what is it [looked at ${frameBytes('test').length} image bytes]\n`);
    expect(JSON.parse(device.requests.at(-1)!.body).image).toBe(frameBytes('test').toString('base64'));
    expect((await d('text', 'look', '--model', 'GEMMA_3_1B_IT', '--capture', 'front')).code).toBe(0);
    expect(JSON.parse(device.requests.at(-1)!.body).captureConfig).toEqual({ camera: 'front' });
    const json = JSON.parse((await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT', '--json')).stdout);
    expect(json).toMatchObject({ response: 'You said: hi', model: 'TINYLLAMA_1_1B_CHAT', metadata: { model: 'TinyLlama 1.1B Chat' } });
  });

  it('text --image-out saves the photo the app takes after generating; none sent is exit 1 after the answer', async () => {
    device.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const out = path.join(dir, 'after.jpg');
    const r = await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT', '--image-out', out, '--scaling', 'small');
    expect(r).toEqual({ code: 0, stdout: 'You said: hi\n', stderr: `wrote ${frameBytes('rear').length} bytes (image/jpeg) to ${out}\n` });
    expect(JSON.parse(device.requests.at(-1)!.body)).toEqual({ text: 'hi', model: 'TINYLLAMA_1_1B_CHAT', returnImage: true, imageScaling: 'SMALL' });
    expect(readFileSync(out).equals(frameBytes('rear'))).toBe(true);
    device.cameraPermission = false;
    const none = await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT', '--image-out', path.join(dir, 'none.jpg'));
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('You said: hi\n');
    expect(none.stderr).toMatch(/^error: device service at .*: POST \/ai\/text answered without the photo returnImage asked for: the app takes it with the rear camera after generating and leaves it out when it cannot \(camera permission, app not in the foreground\)\n$/);
    const sent = device.requests.length;
    expectError(await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT', '--scaling', 'small'), 2, '--scaling needs --image-out');
    expect(device.requests.length).toBe(sent);
  });

  it('text refusals: usage errors send nothing; service errors exit 1', async () => {
    expectError(await d('text', 'hi', '--model', 'gemma-2b-it-cpu'), 2, 'unknown model "gemma-2b-it-cpu"');
    expectError(await d('text', 'hi'), 2, '--model is required');
    expectError(await d('text', '--model', 'TINYLLAMA_1_1B_CHAT'), 2, /PROMPT/);
    expectError(await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT', '--image', path.join(dir, 'in.jpg')), 2, 'does not take images');
    expectError(await d('text', 'hi', '--model', 'GEMMA_3_1B_IT', '--image', path.join(dir, 'missing.jpg')), 2, `cannot read image ${path.join(dir, 'missing.jpg')}: there is no such file (ENOENT)`);
    expectError(await d('text', 'hi', '--model', 'GEMMA_3_1B_IT', '--image', dir), 2, `cannot read image ${dir}: it is a directory (EISDIR); name an image file`);
    expectError(await d('text', 'hi', '--model', 'GEMMA_3_1B_IT', '--capture', 'left'), 2, '--capture "left" is invalid');
    const huge = path.join(dir, 'huge.jpg');
    writeFileSync(huge, '');
    truncateSync(huge, 64 * 1024 * 1024 + 1);
    expectError(await d('text', 'hi', '--model', 'GEMMA_3_1B_IT', '--image', huge), 2, `image ${huge} is 67108865 bytes; at most 67108864 (64 MiB) are sent`);
    expectError(await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT', '--max-token', '5'), 2, 'unknown option --max-token');
    expect(device.requests).toEqual([]);
    expectError(await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT'), 1, 'HTTP 404 MODEL_NOT_AVAILABLE: AI model not available');
    device.storagePermission = false;
    expectError(await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT'), 1, 'grant it in the AI Phone Server app');
  });

  it('download: done, already there, refused, failed under HTTP 200', async () => {
    expect((await d('download', 'TINYLLAMA_1_1B_CHAT')).stdout).toBe('downloaded TinyLlama 1.1B Chat (Download completed successfully)\n');
    expect((await d('download', 'TinyLlama 1.1B Chat')).stdout).toBe('TinyLlama 1.1B Chat is already on the phone\n');
    expectError(await d('download', 'LLAMA_3_2_3B_INSTRUCT'), 1, 'AUTH_REQUIRED');
    expectError(await d('download', 'nope'), 2, 'unknown model "nope"');
    device.downloadOutcome = 'network-failure';
    expectError(
      await d('download', 'DEEPSEEK_R1_DISTILL_QWEN_1_5B'),
      1,
      'failed: Download failed: connection reset by peer (the file is at https://example.invalid/DeepSeek-R1-Distill-Qwen-1.5B_multi-prefill-seq_q8_ekv1280.task; try again later)',
    );
  });

  it('detect: objects, the frame saved, bad options refused, success:false is exit 1', async () => {
    const out = path.join(dir, 'frame.jpg');
    const r = await d('detect', '--threshold', '0.6', '--image-out', out);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('person  0.91  box 0.100,0.050,0.450,0.950\ncup     0.72  box 0.600,0.550,0.700,0.700\n');
    expect(r.stderr).toBe(`wrote ${frameBytes('rear').length} bytes (image/jpeg) to ${out}\n`);
    expect(readFileSync(out).equals(frameBytes('rear'))).toBe(true);
    expect(JSON.parse(device.requests.at(-1)!.body)).toEqual({ side: 'rear', threshold: 0.6, maxResults: 10, returnImage: true });
    expect((await d('detect', '--threshold', '0.99')).stdout).toBe('no objects\n');
    device.reset();
    expectError(await d('detect', '--side', 'left'), 2, '--side "left" is invalid');
    expectError(await d('detect', '--threshold', '2'), 2, '--threshold "2" is invalid');
    // Decimal numbers only: JavaScript's Number() would take 0x1 as 1 and 1e-1 as 0.1.
    expectError(await d('detect', '--threshold', '0x0'), 2, '--threshold "0x0" is invalid: use a number from 0 to 1');
    expectError(await d('detect', '--threshold', '1e-1'), 2, '--threshold "1e-1" is invalid');
    expectError(await d('detect', '--zoom', '0x2'), 2, '--zoom "0x2" is invalid: use a positive number');
    expectError(await d('detect', '--zoom', '0b11'), 2, '--zoom "0b11" is invalid');
    expectError(await d('detect', '--max-results', '0'), 2, '--max-results "0" is invalid');
    expectError(await d('detect', '--max-results', '2147483648'), 2, '--max-results "2147483648" is invalid: use a whole number from 1 to 2147483647');
    expectError(await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT', '--max-tokens', '2147483648'), 2, '--max-tokens "2147483648" is invalid: use a whole number from 1 to 2147483647');
    expect(device.requests).toEqual([]);
    device.override = () => ({ status: 200, json: { success: false, objects: [], error: "Invalid camera side: left. Use 'front' or 'rear'" } });
    expectError(await d('detect'), 1, 'failed: Invalid camera side');
  });

  it('capture writes the JPEG; --out is required; no camera permission is exit 1', async () => {
    const out = path.join(dir, 'shot.jpg');
    const r = await d('capture', '--side', 'front', '--zoom', '2', '--out', out);
    expect(r).toEqual({ code: 0, stdout: `wrote ${frameBytes('front', 2).length} bytes (image/jpeg, 1024x768) to ${out}\n`, stderr: '' });
    expect(readFileSync(out).equals(frameBytes('front', 2))).toBe(true);
    expect(device.requests.at(-1)!.path).toBe('/capture?side=front&zoom=2');
    expectError(await d('capture'), 2, '--out <file> is required');
    expectError(await d('capture', '--zoom', '0', '--out', out), 2, '--zoom "0" is invalid');
    const large = await d('capture', '--scaling', 'large', '--out', out);
    expect(large.stdout).toBe(`wrote ${frameBytes('rear').length} bytes (image/jpeg, 2048x1536) to ${out}\n`);
    expect(device.requests.at(-1)!.path).toBe('/capture?side=rear&imageScaling=LARGE');
    expect((await d('detect', '--image-out', out, '--scaling', 'small')).code).toBe(0);
    expect(JSON.parse(device.requests.at(-1)!.body).imageScaling).toBe('SMALL');
    expect((await d('detect', '--zoom', '3')).code).toBe(0);
    expect(JSON.parse(device.requests.at(-1)!.body).zoom).toBe(3);
    const sent = device.requests.length;
    expectError(await d('capture', '--scaling', 'huge', '--out', out), 2, '--scaling "huge" is invalid: use none, small, medium, large or ultra');
    expect(device.requests.length).toBe(sent);
    device.cameraPermission = false;
    expectError(await d('capture', '--out', out), 1, 'HTTP 403 PERMISSION_DENIED');
  });

  it('an --out that cannot be written: the reason and what to do, in the words every writer of a named file uses, exit 2 as theirs', async () => {
    const missing = path.join(dir, 'no-such-dir', 'shot.jpg');
    expectError(await d('capture', '--out', missing), 2, `error: cannot write ${missing}: the directory ${path.dirname(missing)} does not exist (ENOENT): create it, or choose another path`);
    expectError(await d('capture', '--out', dir), 2, `error: cannot write ${dir}: ${dir} is a directory (EISDIR): name a file, such as ${path.join(dir, 'image.jpg')}`);
    expectError(await d('detect', '--image-out', missing), 2, `error: cannot write ${missing}: the directory ${path.dirname(missing)} does not exist (ENOENT)`);
    // Found before the phone is asked: no photo is taken for nothing.
    expect(device.requests).toEqual([]);
    // A write that fails past the check (a full device) reads and exits the same.
    expectError(await d('capture', '--out', '/dev/full'), 2, 'error: cannot write /dev/full: no space left on the device (ENOSPC): free some space, or choose a path on another device');
    expect(device.requests.length).toBe(1);
  });

  it('a phone that is not reachable exits 1 with one line; HEAPQL_DEVICE_URL is used', async () => {
    const gone = await DeviceEmulator.start();
    const url = gone.url;
    await gone.close();
    expectError(await heapql(['device', 'status', '--url', url]), 1, 'is the AI Phone Server app running');
    const r = await heapql(['device', 'orientation'], { HEAPQL_DEVICE_URL: device.url });
    expect(r.code).toBe(0);
  });

  it('--timeout sets the time limit of each request: a phone that does not answer is a time-out naming its URL and the limit', async () => {
    device.hold = true;
    expectError(await d('status', '--timeout', '0.25'), 1, `device service at ${device.url}: no reply to GET /status within 250 ms of sending it; to wait longer, raise timeouts.status (heapql device: --timeout <seconds>)`);
    // A generation's own limit (600 s by default) too.
    expectError(await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT', '--timeout', '0.5'), 1, `device service at ${device.url}: no reply to POST /ai/text within 500 ms of sending it`);
    expectError(await d('text', 'hi', '--model', 'TINYLLAMA_1_1B_CHAT', '--timeout', '0.5'), 1, /; to wait longer, raise timeouts\.text \(heapql device: --timeout <seconds>\)$/);
    device.hold = false;
    expect((await d('orientation', '--timeout', '10')).code).toBe(0);
    const sent = device.requests.length;
    expectError(await d('status', '--timeout', '0'), 2, '--timeout "0" is invalid');
    expectError(await d('models', '--timeout', 'soon'), 2, '--timeout "soon" is invalid');
    expect(device.requests.length).toBe(sent);
  });

  it('display: the text shown, colors and seconds checked before sending, the app\'s refusal exit 1', async () => {
    const r = await d('display', 'Build is green', '--background', '#008800', '--color', 'White', '--duration', '2.5');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^showing on the phone for 2\.5 s \(display_\d+\)\n$/);
    expect(JSON.parse(device.requests.at(-1)!.body)).toEqual({ text: 'Build is green', backgroundColor: '#008800', textColor: 'White', duration: 2500 });
    expect(device.displays).toEqual([{ text: 'Build is green', backgroundColor: '#008800', textColor: 'White', duration: 2500 }]);
    expect((await d('display', 'plain')).stdout).toMatch(/^showing on the phone for 3 s /);
    expect(JSON.parse(device.requests.at(-1)!.body)).toEqual({ text: 'plain' });
    expect(JSON.parse((await d('display', 'x', '--json')).stdout)).toMatchObject({ success: true, parameters: { text: 'x' } });
    device.reset();
    expectError(await d('display', 'x', '--background', '#fff'), 2, '--background "#fff" is invalid: use #RRGGBB, #AARRGGBB or a color name such as black, darkgray, gray, lightgray, white, red (the app reads no #RGB: write #ffffff)');
    expectError(await d('display', 'x', '--color', 'orange'), 2, '--color "orange" is invalid');
    expectError(await d('display', 'x', '--duration', '31'), 2, '--duration "31" is invalid: use a number of seconds from 0.1 to 30, to the millisecond (the app would quietly clamp any other)');
    expectError(await d('display', 'x', '--duration', '0.05'), 2, '--duration "0.05" is invalid');
    expectError(await d('display', 'x', '--duration', '1e1'), 2, '--duration "1e1" is invalid');
    expectError(await d('display', '   '), 2, 'the text is only white space');
    expectError(await d('display', ''), 2, 'the text is empty: give the text to show');
    expectError(await d('display'), 2, /TEXT/);
    expect(device.requests).toEqual([]);
    device.override = () => ({ status: 400, json: { success: false, error: 'Failed to show display: no activity', code: 'DISPLAY_FAILED' } });
    expectError(await d('display', 'x'), 1, 'POST /display answered HTTP 400 DISPLAY_FAILED: Failed to show display: no activity');
  });

  it('delete: by id or name, the id sent; an unknown model is a usage error; the app\'s 404 exit 1', async () => {
    device.downloaded.add('TINYLLAMA_1_1B_CHAT');
    expect(await d('delete', 'TinyLlama 1.1B Chat')).toEqual({ code: 0, stdout: 'deleted TinyLlama 1.1B Chat (TINYLLAMA_1_1B_CHAT) from the phone, if it was there\n', stderr: '' });
    expect([device.requests.at(-1)!.method, device.requests.at(-1)!.path]).toEqual(['DELETE', '/ai/models/TINYLLAMA_1_1B_CHAT']);
    expect(device.downloaded.size).toBe(0);
    expect(JSON.parse((await d('delete', 'DEEPSEEK_R1_DISTILL_QWEN_1_5B', '--json')).stdout)).toMatchObject({ success: true, modelName: 'DEEPSEEK_R1_DISTILL_QWEN_1_5B' });
    device.reset();
    expectError(await d('delete', 'nope'), 2, 'unknown model "nope"');
    expect(device.requests).toEqual([]);
    device.override = () => ({ status: 404, json: { error: 'Model not found', code: 'MODEL_NOT_FOUND', details: 'not supported' } });
    expectError(await d('delete', 'TINYLLAMA_1_1B_CHAT'), 1, 'DELETE /ai/models/TINYLLAMA_1_1B_CHAT answered HTTP 404 MODEL_NOT_FOUND');
  });

  it('location: the current build\'s 403 says there is no permission to grant; a fix is printed', async () => {
    expectError(await d('location'), 1, 'GET /location answered HTTP 403 PERMISSION_DENIED: Location permission not granted (Location access requires user permission) — the app has no location permission. The current AI Phone Server build does not request one');
    device.locationPermission = true;
    expectError(await d('location'), 1, 'HTTP 503 LOCATION_UNAVAILABLE');
    device.locationFix = { latitude: 48.7758, longitude: 9.1829, altitude: 245.5, accuracy: 12.5, time: 1_700_000_000_000, provider: 'fused' };
    expect(await d('location')).toEqual({ code: 0, stdout: 'latitude 48.7758  longitude 9.1829  (altitude 245.5 m, accuracy 12.5 m, fused, 2023-11-14T22:13:20.000Z)\n', stderr: '' });
    expect(JSON.parse((await d('location', '--json')).stdout)).toMatchObject({ latitude: 48.7758, provider: 'fused' });
  });

  it('diagnostics: the app\'s report and a summary line', async () => {
    device.downloaded.add('TINYLLAMA_1_1B_CHAT');
    const r = await d('diagnostics');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('🔍 AI Model Permission & Storage Diagnostics');
    expect(lines[1]).toBe('='.repeat(52));
    expect(lines.at(-2)).toBe('summary: storage permission yes, enhanced storage yes, 1 of 5 models found, Android API 34');
    expect(JSON.parse((await d('diagnostics', '--json')).stdout).summary.totalModels).toBe(5);
    expectError(await d('diagnostics', 'extra'), 2, /device diagnostics/);
  });

  it('health, capabilities, model-status, loading, storage, cleanup', async () => {
    device.downloaded.add('TINYLLAMA_1_1B_CHAT');
    expect(await d('health')).toEqual({ code: 0, stdout: 'healthy: location available, orientation available, camera available\n', stderr: '' });
    device.cameraPermission = false;
    const caps = (await d('capabilities')).stdout.split('\n');
    expect(caps[0]).toMatch(/^location\s+unavailable\s+Location permission not granted$/);
    expect(caps).toContainEqual(expect.stringMatching(/^camera\s+unavailable\s+Camera permission not granted$/));
    expect(caps).toContainEqual(expect.stringMatching(/^display\s+available\s+\/display$/));
    expect((await d('model-status', 'TinyLlama 1.1B Chat')).stdout).toBe('TINYLLAMA_1_1B_CHAT: COMPLETED, 1.2 MB\n/storage/emulated/0/Download/local_ai_models/TinyLlama-1.1B-Chat-v1.0_multi-prefill-seq_q8_ekv1024.task\n');
    expectError(await d('model-status', 'DEEPSEEK_R1_DISTILL_QWEN_1_5B'), 1, 'HTTP 404 MODEL_NOT_DOWNLOADED');
    expectError(await d('model-status', 'nope'), 2, 'unknown model "nope"');
    expect((await d('loading')).stdout).toBe('no model is loading\n');
    expect((await d('storage')).stdout).toBe('1 of 5 models downloaded (1.2 MB), 0 loaded\ndirectory: /storage/emulated/0/Download/local_ai_models\n');
    device.staleRecords = 1;
    expect((await d('cleanup')).stdout).toBe('dropped the records of 1 deleted model file\n');
    expect(device.requests.at(-1)!.path).toBe('/ai/models/cleanup');
  });

  it('control characters a reply carries are shown as escapes, not sent to the terminal; line breaks and backslashes stay; --json is the reply as sent', async () => {
    const title = '\u001b]0;owned\u0007';
    device.override = (req) => (req.path === '/status' ? { status: 200, json: { status: 'running', server: `AI Phone Server${title}`, version: '1.0' } } : undefined);
    const status = await d('status');
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain('\u001b');
    expect(status.stdout.split('\n')[0]).toBe('AI Phone Server\\u001b]0;owned\\u0007 1.0: running');
    expect(JSON.parse((await d('status', '--json')).stdout).server).toBe(`AI Phone Server${title}`);
    device.downloaded.add('TINYLLAMA_1_1B_CHAT');
    device.override = undefined;
    const text = await d('text', 'line one\nC:\\dir \u001b[2J', '--model', 'TINYLLAMA_1_1B_CHAT');
    expect(text.stdout).toBe('You said: line one\nC:\\dir \\u001b[2J\n');
  });

  it('a reply a command cannot show (a model without its display name, endpoints that are no list) is a protocol error, exit 1, not a crash', async () => {
    device.override = (req) => (req.path === '/ai/models' ? { status: 200, json: { models: [{ name: 'TINYLLAMA_1_1B_CHAT', available: true }] } } : undefined);
    expectError(await d('models'), 1, /^error: device service at http:\/\/127\.0\.0\.1:\d+: unexpected reply to GET \/ai\/models \(expected a "models" list of \{name, displayName, available, …\}\)/);
    device.override = (req) => (req.path === '/capabilities' ? { status: 200, json: { capabilities: { camera: { available: true, endpoints: '/capture' } } } } : undefined);
    expectError(await d('capabilities'), 1, 'unexpected reply to GET /capabilities (expected a "capabilities" object of {available, endpoints, …} per feature)');
  });

  it('upload: the phone fetches the URL into the model\'s file; there already; a bad URL is a usage error; a failed fetch exit 1', async () => {
    const url = 'https://mirror.example/llama.task';
    expect(await d('upload', 'LLAMA_3_2_3B_INSTRUCT', url)).toEqual({ code: 0, stdout: 'fetched Llama 3.2 3B Instruct to the phone (1.2 MB)\n', stderr: '' });
    expect(JSON.parse(device.requests.at(-1)!.body)).toEqual({ url, name: 'Llama 3.2 3B Instruct', fileName: 'Llama-3.2-3B-Instruct_multi-prefill-seq_q8_ekv1280.task' });
    expect((await d('upload', 'LLAMA_3_2_3B_INSTRUCT', url)).stdout).toBe('Llama 3.2 3B Instruct: its file Llama-3.2-3B-Instruct_multi-prefill-seq_q8_ekv1280.task is already on the phone (not fetched again, nor checked)\n');
    device.reset();
    expectError(await d('upload', 'TINYLLAMA_1_1B_CHAT', 'ftp://mirror.example/t.task'), 2, 'must start with http:// or https://');
    expectError(await d('upload', 'TINYLLAMA_1_1B_CHAT'), 2, /SOURCE/);
    expect(device.requests).toEqual([]);
    device.downloadOutcome = 'network-failure';
    expectError(await d('upload', 'TINYLLAMA_1_1B_CHAT', url), 1, 'POST /ai/text/upload-model-api failed: Download failed: connection reset by peer');
  });

  it('--help works for device and for its verbs', async () => {
    const expected: [string[], string[]][] = [
      [['device', '--help'], ['device text <prompt> --model <id or name>', 'device capture [--side rear|front] [--zoom <z>] [--scaling <size>] --out <file>']],
      [['device', 'text', '--help'], ['device text <prompt> --model <id or name>', 'USAGE heapql device text']],
      [['device', 'capture', '--help'], ['device capture [--side rear|front] [--zoom <z>] [--scaling <size>] --out <file>', 'USAGE heapql device capture']],
      [['device', '--help'], ['device display <text> [--background <color>] [--color <color>] [--duration <seconds>]', 'heapql device delete <model>', 'heapql device location|diagnostics']],
      [['device', 'display', '--help'], ['USAGE heapql device display', '0.1 to 30 seconds']],
      [['device', '--help'], ['heapql device location|diagnostics|health|capabilities|storage|cleanup|loading', 'heapql device model-status <model>', 'heapql device upload <model> <url>']],
    ];
    for (const [args, texts] of expected) {
      const r = await heapql(args);
      expect(r.code).toBe(0);
      for (const text of texts) expect(r.stdout).toContain(text);
    }
  });
});
