/**
 * Scheduler plans: alternating stop and run steps. Users may write the specification's form
 * (`s10,r5`: stop 10 s, then run 5 s) or the server's own (`10s,5r`); the server accepts only
 * the latter. Plans are checked here before any request, with limits stricter than the
 * server's: each stop under 25 s and stops in a row under 30 s in total, because a runnable task
 * held longer than 30 s trips the kernel's sched_ext watchdog, which kills the scheduler and
 * voids every stop. The server prints plans back with the letters inverted and fractions
 * truncated (`10s,2.5r` reads back `r10,2.0s`); decodeServerPlan undoes the inversion.
 */
import { InvalidArgumentError } from '../errors.js';
import { describeValue } from '../http.js';

export type PlanAction = 'stop' | 'run';

export interface PlanStep {
  action: PlanAction;
  /** Duration in seconds; fractions allowed down to one nanosecond. */
  seconds: number;
}

/** A step read back from the server. */
export interface ReadPlanStep extends PlanStep {
  /** The server printed only the whole seconds: the real duration is in [seconds, seconds + 1). */
  truncated: boolean;
}

/** A plan as the server reports it: decoded steps plus the verbatim text. */
export interface ReadPlan {
  steps: ReadPlanStep[];
  raw: string;
}

/** A single stop must stay below this (the server itself allows up to 25.999… s). */
export const MAX_STOP_SECONDS = 25;
/** Stops in a row must add up to less than this: the kernel watchdog's limit. */
export const MAX_CONSECUTIVE_STOP_SECONDS = 30;
/** Stops in a row adding up to this or more are warned about (still accepted below 30 s). */
export const WARN_CONSECUTIVE_STOP_SECONDS = 25;
/** The server keeps nanoseconds in a signed 64-bit integer; stay far below its limit. */
export const MAX_STEP_SECONDS = 1_000_000_000;

const SPEC_ITEM = /^([sr])(\d+(?:\.\d+)?)$/;
const SERVER_ITEM = /^(\d+(?:\.\d+)?)([sr])$/;
const EXAMPLE = 'e.g. s10,r5 (stop 10 s, then run 5 s); the server form 10s,5r is accepted too';

/** Parses and validates a plan written in either form. Throws InvalidArgumentError. */
export function parsePlan(text: string): PlanStep[] {
  if (typeof text !== 'string') throw new InvalidArgumentError(`a plan text must be a string, got ${describeValue(text)}; ${EXAMPLE}`);
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidArgumentError(`the plan is empty; ${EXAMPLE}`);
  const steps = trimmed.split(',').map((raw, i) => {
    const item = raw.trim();
    const spec = SPEC_ITEM.exec(item);
    const server = spec ? null : SERVER_ITEM.exec(item);
    if (!spec && !server) {
      throw new InvalidArgumentError(
        `invalid plan ${JSON.stringify(text)}: item ${i + 1} ${JSON.stringify(item)} is not s<seconds> or r<seconds>; ${EXAMPLE}`,
      );
    }
    const letter = spec ? spec[1]! : server![2]!;
    const number = spec ? spec[2]! : server![1]!;
    return { action: letter === 's' ? 'stop' : 'run', seconds: Number(number) } satisfies PlanStep;
  });
  validatePlan(steps, text);
  return steps;
}

/**
 * Checks steps built in code (JavaScript callers included): each must be an object with
 * `action` 'stop' or 'run' and `seconds` a number; then the limits as validatePlan. Returns a
 * copy holding only those two fields.
 */
export function checkPlanSteps(steps: unknown): PlanStep[] {
  if (!Array.isArray(steps)) throw new InvalidArgumentError(`plan steps must be a list of {action, seconds}, got ${describeValue(steps)}; ${EXAMPLE}`);
  const copy = steps.map((step: unknown, i): PlanStep => {
    if (typeof step !== 'object' || step === null || Array.isArray(step)) {
      throw new InvalidArgumentError(`plan step ${i + 1} must be an object {action: 'stop' | 'run', seconds: <number>}, got ${describeValue(step)}`);
    }
    const { action, seconds } = step as Record<string, unknown>;
    if (action !== 'stop' && action !== 'run') {
      throw new InvalidArgumentError(`plan step ${i + 1} has action ${typeof action === 'string' ? JSON.stringify(action) : describeValue(action)}; use 'stop' or 'run'`);
    }
    if (typeof seconds !== 'number') {
      throw new InvalidArgumentError(`plan step ${i + 1}: seconds must be a number, got ${describeValue(seconds)}`);
    }
    return { action, seconds };
  });
  validatePlan(copy);
  return copy;
}

/** Checks steps: durations, the per-stop and stops-in-a-row limits. */
export function validatePlan(steps: readonly PlanStep[], label?: string): void {
  if (!Array.isArray(steps)) throw new InvalidArgumentError(`plan steps must be a list of {action, seconds}, got ${describeValue(steps)}; ${EXAMPLE}`);
  steps.forEach((step, i) => {
    if (typeof step !== 'object' || step === null) throw new InvalidArgumentError(`plan step ${i + 1} must be an object {action, seconds}, got ${describeValue(step)}`);
    if (step.action !== 'stop' && step.action !== 'run') {
      throw new InvalidArgumentError(`plan step ${i + 1} has action ${JSON.stringify(step.action) ?? describeValue(step.action)}; use stop or run`);
    }
    if (typeof step.seconds !== 'number') throw new InvalidArgumentError(`plan step ${i + 1}: seconds must be a number, got ${describeValue(step.seconds)}`);
  });
  const where = `invalid plan ${JSON.stringify(label ?? formatPlan(steps))}`;
  if (steps.length === 0) throw new InvalidArgumentError(`${where}: it has no steps; ${EXAMPLE}`);
  let run = 0;
  steps.forEach((step, i) => {
    if (step.seconds > MAX_STEP_SECONDS && Number.isFinite(step.seconds)) {
      throw new InvalidArgumentError(`${where}: step ${i + 1} lasts ${step.seconds} s; the longest step allowed is ${MAX_STEP_SECONDS} s`);
    }
    // The limits hold for what the server will do, not for the number as written.
    const used = Number.isFinite(step.seconds) ? serverSeconds(step.seconds) : Number.NaN;
    if (!(used > 0)) {
      throw new InvalidArgumentError(`${where}: step ${i + 1} lasts ${step.seconds} s; durations must be positive (at least 1 ns)`);
    }
    if (step.action === 'run') {
      run = 0;
      return;
    }
    if (used >= MAX_STOP_SECONDS) {
      const taken = used !== step.seconds ? ` (the server takes it as ${used} s: it reads ${decimal(step.seconds)} as a 32-bit float)` : '';
      throw new InvalidArgumentError(
        `${where}: stop ${step.seconds} s is too long${taken}; each stop must be under ${MAX_STOP_SECONDS} s (a task held 30 s trips the kernel watchdog, which kills the scheduler)`,
      );
    }
    run += used;
    if (run >= MAX_CONSECUTIVE_STOP_SECONDS) {
      throw new InvalidArgumentError(
        `${where}: stops in a row up to step ${i + 1} add up to ${round(run)} s; consecutive stops must total under ${MAX_CONSECUTIVE_STOP_SECONDS} s (put a run step between them), or the kernel watchdog kills the scheduler`,
      );
    }
  });
}

/**
 * Warnings about a valid plan: each run of consecutive stop steps adding up to 25 s or more
 * (close to the 30 s at which the kernel watchdog kills the scheduler and voids every stop),
 * counted in the durations the server will use (serverSeconds), as validatePlan's limits are.
 */
export function planWarnings(steps: readonly PlanStep[]): string[] {
  const warnings: string[] = [];
  let sum = 0;
  let first = 0;
  const flush = (end: number): void => {
    if (sum >= WARN_CONSECUTIVE_STOP_SECONDS) {
      warnings.push(
        `plan ${formatPlan(steps)}: the stops of steps ${first + 1}–${end} add up to ${round(sum)} s in a row, close to the 30 s at which the kernel watchdog kills the scheduler (voiding every stop); consider a run step between them`,
      );
    }
    sum = 0;
  };
  steps.forEach((step, i) => {
    if (step.action === 'stop') {
      if (sum === 0) first = i;
      sum += serverSeconds(step.seconds);
    } else flush(i);
  });
  flush(steps.length);
  return warnings;
}

/** The specification's form, `s10,r5`. */
export function formatPlan(steps: readonly PlanStep[]): string {
  return steps.map((s) => `${s.action === 'stop' ? 's' : 'r'}${decimal(s.seconds)}`).join(',');
}

/** The form the server accepts, `10s,5r`. */
export function toServerPlan(steps: readonly PlanStep[]): string {
  return steps.map((s) => `${decimal(s.seconds)}${s.action === 'stop' ? 's' : 'r'}`).join(',');
}

/**
 * A plan read back from the server in the specification's form; a truncated step is shown as
 * `s2+` (2 s and a fraction the server did not print).
 */
export function formatReadPlan(plan: ReadPlan): string {
  return plan.steps.map((s) => `${s.action === 'stop' ? 's' : 'r'}${decimal(s.seconds)}${s.truncated ? '+' : ''}`).join(',');
}

const READ_WHOLE = /^([sr])(\d+)$/;
const READ_FRACTION = /^(\d+)\.0([sr])$/;

/**
 * Decodes the server's read-back text (`r10,s5` means stop 10 s, run 5 s). Returns undefined
 * when the text is not in that format.
 */
export function decodeServerPlan(raw: string): ReadPlan | undefined {
  if (raw === '') return undefined;
  const steps: ReadPlanStep[] = [];
  for (const item of raw.split(',')) {
    const whole = READ_WHOLE.exec(item);
    const fraction = whole ? null : READ_FRACTION.exec(item);
    if (!whole && !fraction) return undefined;
    // The server prints `r` for a stop step and `s` for a run step.
    const letter = whole ? whole[1]! : fraction![2]!;
    const seconds = Number(whole ? whole[2]! : fraction![1]!);
    steps.push({ action: letter === 'r' ? 'stop' : 'run', seconds, truncated: fraction !== null });
  }
  return { steps, raw };
}

/**
 * How long the server holds a step of `seconds`: the text sent (9 decimals at most) read as a
 * Java float, in whole nanoseconds. A float has about 7 significant digits, so `24.9999999` is 25.
 */
export function serverSeconds(seconds: number): number {
  return Math.round(Math.fround(Number(decimal(seconds))) * 1e9) / 1e9;
}

/** Seconds as plain decimal digits (never exponent notation), at most nanosecond precision. */
function decimal(seconds: number): string {
  if (Number.isInteger(seconds)) return BigInt(seconds).toString();
  return seconds.toFixed(9).replace(/0+$/, '').replace(/\.$/, '');
}

function round(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}
