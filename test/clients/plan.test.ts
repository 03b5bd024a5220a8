/** Plan grammar, limits and the server's inverted read-back, without a server. */
import { describe, expect, it } from 'vitest';

import {
  decodeServerPlan,
  formatPlan,
  formatReadPlan,
  InvalidArgumentError,
  parsePlan,
  toServerPlan,
  validatePlan,
} from '../../ts/clients/scheduler/index.js';

const stop = (seconds: number) => ({ action: 'stop' as const, seconds });
const run = (seconds: number) => ({ action: 'run' as const, seconds });

describe('plans', () => {
  it('reads the specification form and the server form alike', () => {
    expect(parsePlan('s10,r5')).toEqual([stop(10), run(5)]);
    expect(parsePlan('10s,5r')).toEqual([stop(10), run(5)]);
    expect(parsePlan(' s2.5 , 100r ')).toEqual([stop(2.5), run(100)]);
  });

  it('writes the server form and the specification form in plain decimals', () => {
    const steps = [stop(2.5), run(1e21), stop(0.000000001)];
    expect(toServerPlan(steps)).toBe('2.5s,1000000000000000000000r,0.000000001s');
    expect(formatPlan(steps)).toBe('s2.5,r1000000000000000000000,s0.000000001');
  });

  it('refuses stops of 25 s or more, and stops in a row reaching 30 s', () => {
    expect(() => parsePlan('s24.999,r1')).not.toThrow();
    expect(() => parsePlan('s25')).toThrow(/each stop must be under 25 s/);
    expect(() => parsePlan('s15,s14.9')).not.toThrow();
    expect(() => parsePlan('s15,s15')).toThrow(/add up to 30 s/);
    expect(() => parsePlan('s20,r0.5,s20')).not.toThrow();
    expect(() => parsePlan('r1,s10,s10,s10,r1')).toThrow(/up to step 4 add up to 30 s/);
  });

  it('checks the limits on the durations the server will use: sent to 9 decimals, read as 32-bit floats', () => {
    // Sent as 25s: 25 s, not under 25.
    expect(() => parsePlan('s24.9999999999')).toThrow(/stop 24\.9999999999 s is too long.*the server takes it as 25 s/);
    // A Java float has no 24.9999999: the server reads 25.
    expect(() => parsePlan('s24.9999999')).toThrow(/stop 24\.9999999 s is too long.*the server takes it as 25 s/);
    expect(() => parsePlan('s24.99999')).not.toThrow();
    expect(() => parsePlan('s15,s14.9999999')).toThrow(/add up to 30 s/);
    expect(() => parsePlan('s15,s14.9999')).not.toThrow();
  });

  it('refuses malformed items, naming the item', () => {
    expect(() => parsePlan('s10,x5')).toThrow(/item 2 "x5"/);
    expect(() => parsePlan('')).toThrow(/empty/);
    expect(() => parsePlan('s10,,r5')).toThrow(/item 2 ""/);
    expect(() => parsePlan('s1e3')).toThrow(InvalidArgumentError);
    expect(() => parsePlan('s0.0000000001')).toThrow(/positive/);
  });

  it('validates steps built in code', () => {
    expect(() => validatePlan([])).toThrow(/no steps/);
    expect(() => validatePlan([run(Number.POSITIVE_INFINITY)])).toThrow(/positive/);
    expect(() => validatePlan([run(2e9)])).toThrow(/longest step/);
    expect(() => validatePlan([{ action: 'pause' as 'stop', seconds: 1 }])).toThrow(/use stop or run/);
  });

  it('decodes the read-back with letters inverted and fractions truncated', () => {
    expect(decodeServerPlan('r10,s5')).toEqual({
      raw: 'r10,s5',
      steps: [
        { action: 'stop', seconds: 10, truncated: false },
        { action: 'run', seconds: 5, truncated: false },
      ],
    });
    const fraction = decodeServerPlan('2.0r,0.0s')!;
    expect(fraction.steps).toEqual([
      { action: 'stop', seconds: 2, truncated: true },
      { action: 'run', seconds: 0, truncated: true },
    ]);
    expect(formatReadPlan(fraction)).toBe('s2+,r0+');
    for (const bad of ['', 'no plan', '10s', 'r10,', 'r1.5', 'x1']) expect(decodeServerPlan(bad)).toBeUndefined();
  });
});
