/**
 * `heapql sched`: the taskcontrol scheduler from the command line (status, stop, resume, plans of
 * a thread or a process). Ids and plans are checked before anything is sent (exit 2); a scheduler
 * that is down or refuses exits 1 with one line. `--json` prints a JSON object that carries the
 * server's reply verbatim in `reply`.
 */
import { checkOptions } from './args.js';
import { print, serviceClient, timeoutOption } from './service-client.js';
import { defineCommand } from 'citty';

import {
  formatPlan,
  formatReadPlan,
  parseId,
  parsePlan,
  SchedulerClient,
  toServerPlan,
  DEFAULT_SCHEDULER_TIMEOUT_MS,
  DEFAULT_SCHEDULER_URL,
  type ReadPlan,
  type Target,
  type TaskStatus,
} from '../clients/scheduler/index.js';
import { usageError } from '../errors.js';
import { notice, warn } from './stderr.js';

const common = {
  url: { type: 'string', valueHint: 'url', description: `scheduler URL (default: $HEAPQL_SCHED_URL, else ${DEFAULT_SCHEDULER_URL})` },
  json: { type: 'boolean', description: 'print JSON (the server reply verbatim in "reply")' },
  timeout: { type: 'string', valueHint: 'seconds', description: `time limit of each request in seconds (default ${DEFAULT_SCHEDULER_TIMEOUT_MS / 1000})` },
} as const;

const targetArgs = {
  task: { type: 'string', valueHint: 'tid', description: 'a thread, by Linux thread id' },
  group: { type: 'string', valueHint: 'pid', description: 'a process (all its threads), by process id' },
} as const;

type CommonArgs = { url?: string; timeout?: string; json?: boolean; task?: string; group?: string; _: string[] };

const STATUS_WORD: Record<TaskStatus, string> = { RUNNING: 'running', STOPPED: 'stopped', UNKNOWN: 'unknown' };

/**
 * After "no plan": the server's race (clients-spec A.5). A plan set while another ran keeps
 * running, but the old plan's end removes the id's entry, so the new one is no longer listed.
 */
const UNLISTED_PLAN_NOTE =
  'note: a plan that replaced a running plan may still be running unlisted (the scheduler drops it from its plan lists when the replaced plan ends); sched status shows whether the target is stopped';

const statusCommand = defineCommand({
  meta: { name: 'status', description: 'print running, stopped or unknown: sched status (--task <tid> | --group <pid>) [--url <u>]' },
  args: { ...targetArgs, ...common },
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'sched status', { ...targetArgs, ...common }, 0);
    const target = targetOf(args);
    const { status, reply } = await client(args).readStatus(target);
    if (args.json) printJson({ ...target, status: STATUS_WORD[status], reply });
    else print(STATUS_WORD[status]);
  },
});

const stopCommand = defineCommand({
  meta: { name: 'stop', description: 'stop a thread or every thread of a process: sched stop (--task <tid> | --group <pid>) [--url <u>]' },
  args: { ...targetArgs, ...common },
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'sched stop', { ...targetArgs, ...common }, 0);
    const target = targetOf(args);
    await client(args).stop(target);
    if (args.json) printJson({ ...target, action: 'stop', reply: 'ok' });
    else print(`stopped ${describe(target)}`);
  },
});

const resumeArgs = {
  ...targetArgs,
  priority: { type: 'string', valueHint: 'n', description: 'lottery weight to set (1…2147483647; without it the weight becomes 1; the FIFO scheduler ignores it)' },
  ...common,
} as const;

const resumeCommand = defineCommand({
  meta: { name: 'resume', description: 'resume a thread or every thread of a process: sched resume (--task <tid> | --group <pid>) [--priority <n>] [--url <u>]' },
  args: resumeArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'sched resume', resumeArgs, 0);
    const target = targetOf(args);
    const lotteryPriority = args.priority === undefined ? undefined : weight(String(args.priority));
    await client(args).resume(target, { lotteryPriority });
    if (args.json) printJson({ ...target, action: 'resume', ...(lotteryPriority === undefined ? {} : { lotteryPriority }), reply: 'ok' });
    else print(`resumed ${describe(target)}${lotteryPriority === undefined ? '' : ` (lottery weight ${lotteryPriority})`}`);
  },
});

/** A lottery weight typed by a user. */
function weight(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 2_147_483_647) {
    throw usageError(`--priority ${JSON.stringify(text)} is invalid: use a whole number from 1 to 2147483647 (the lottery weight)`);
  }
  return Number(text);
}

const planArgs = {
  plan: { type: 'positional', required: false, valueHint: 'plan', description: 's10,r5 = stop 10 s, then run 5 s (10s,5r also accepted); omit to print the current plan' },
  ...targetArgs,
  cancel: { type: 'boolean', description: 'end the running plan after its current step' },
  ...common,
} as const;

const planCommand = defineCommand({
  meta: {
    name: 'plan',
    description:
      'set, print or cancel a plan: sched plan (--task <tid> | --group <pid>) [<plan>] [--cancel] [--url <u>]; each stop < 25 s, stops in a row < 30 s in total',
  },
  args: planArgs,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'sched plan', planArgs, 1);
    const target = targetOf(args);
    const text = args.plan as string | undefined;
    if (text !== undefined && args.cancel) throw usageError('give a plan or --cancel, not both');
    const c = client(args);
    if (args.cancel) {
      await c.cancelPlan(target);
      if (args.json) printJson({ ...target, action: 'cancel', reply: 'ok' });
      // The server answers ok whether or not a plan runs (and a replacing plan may run unlisted), so this cannot say one was cancelled.
      else print(`asked the plan of ${describe(target)} to end after its current step (the scheduler answers ok whether a plan runs or not)`);
      return;
    }
    if (text !== undefined) {
      const steps = parsePlan(text);
      await c.setPlan(target, steps, { onWarning: warn });
      if (args.json) printJson({ ...target, plan: formatPlan(steps), sent: toServerPlan(steps), reply: 'ok' });
      else print(`started plan ${formatPlan(steps)} for ${describe(target)} (sent as ${toServerPlan(steps)})`);
      return;
    }
    const plan = await c.getPlan(target);
    if (args.json) printJson({ ...target, ...planJson(plan) });
    else print(plan ? formatReadPlan(plan) : 'no plan');
    if (!plan && !args.json) notice(UNLISTED_PLAN_NOTE);
  },
});

const plansCommand = defineCommand({
  meta: { name: 'plans', description: 'list every running plan: sched plans [--url <u>]' },
  args: common,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'sched plans', common, 0);
    const listing = await client(args).plans();
    if (args.json) {
      const entries = (list: typeof listing.task) => list.map((e) => ({ id: e.id, ...planJson(e.plan), startedAt: e.startedAt?.toISOString() ?? null }));
      printJson({ task: entries(listing.task), taskGroup: entries(listing.taskGroup) });
      return;
    }
    const lines = [
      ...listing.task.map((e) => ({ kind: 'task', e })),
      ...listing.taskGroup.map((e) => ({ kind: 'group', e })),
    ].map(({ kind, e }) => `${kind} ${e.id}: ${formatReadPlan(e.plan)}${e.startedAt ? ` (started ${e.startedAt.toISOString()})` : ''}`);
    print(lines.length > 0 ? lines.join('\n') : 'no plans');
    if (lines.length === 0) notice(UNLISTED_PLAN_NOTE);
  },
});

const helpCommand = defineCommand({
  meta: { name: 'help', description: "the scheduler's own usage text (also a liveness check): sched help [--url <u>]" },
  args: common,
  async run({ args, rawArgs }) {
    checkOptions(rawArgs, 'sched help', common, 0);
    const text = await client(args).help();
    if (args.json) printJson({ reply: text });
    else print(text.endsWith('\n') ? text.slice(0, -1) : text);
  },
});

export const schedCommand = defineCommand({
  meta: {
    name: 'sched',
    description: [
      'Control threads and processes through the taskcontrol scheduler (sched_ext, Linux >= 6.13):',
      '  heapql sched status|stop|resume (--task <tid> | --group <pid>) [--url <u>] [--json]',
      '  heapql sched resume … --priority <n>   (the lottery scheduler\'s weight; a stop or resume without it makes it 1)',
      '  heapql sched plan (--task <tid> | --group <pid>) [<plan>] [--cancel] [--url <u>] [--json]',
      '  heapql sched plans [--url <u>] [--json]',
      '  heapql sched help [--url <u>]   (the server\'s own usage text; its plan example s10,r10 is in the form the server refuses)',
      'A plan such as s10,r5 stops for 10 s, then runs 5 s, once. Each stop must be under 25 s and',
      'stops in a row under 30 s in total: the kernel watchdog kills the scheduler otherwise',
      '(stops in a row from 25 s on are warned about).',
    ].join('\n'),
  },
  subCommands: {
    status: statusCommand,
    stop: stopCommand,
    resume: resumeCommand,
    plan: planCommand,
    plans: plansCommand,
    help: helpCommand,
  },
});

function client(args: { url?: string; timeout?: string }): SchedulerClient {
  const timeoutMs = timeoutOption(args.timeout);
  return serviceClient(args.url, 'HEAPQL_SCHED_URL', DEFAULT_SCHEDULER_URL, (url) => new SchedulerClient({ url, timeoutMs }));
}

function targetOf(args: CommonArgs): Target {
  // An option typed without its value arrives as "".
  if (args.task === '') throw usageError('--task needs a thread id: --task <tid>');
  if (args.group === '') throw usageError('--group needs a process id: --group <pid>');
  if ((args.task === undefined) === (args.group === undefined)) throw usageError('give exactly one of --task <tid> or --group <pid>');
  return args.task !== undefined ? { task: parseId(String(args.task), 'task') } : { group: parseId(String(args.group), 'group') };
}

function describe(target: Target): string {
  return 'task' in target ? `task ${target.task}` : `group ${target.group}`;
}

function planJson(plan: ReadPlan | null): Record<string, unknown> {
  if (!plan) return { plan: null, steps: [], reply: 'no plan' };
  return { plan: formatReadPlan(plan), steps: plan.steps, reply: plan.raw };
}


function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
