/** Assertions the client tests share: which error a call fails with, and waiting for an emulator's requests. */
import { expect } from 'vitest';

import { rejection as rejected } from '../tools/thrown.js';

/** Awaits `fn`, expects it to fail with an error of `type`, and returns that error (`test/tools/thrown.ts`). */
export function rejection<T extends Error>(fn: () => Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
  return rejected(fn(), type);
}

/** Waits (bounded by count, not time) until `emu` has received `n` requests. */
export async function requestsReceived(emu: { requests: readonly unknown[] }, n: number): Promise<void> {
  for (let i = 0; i < 2000 && emu.requests.length < n; i++) await new Promise((r) => setTimeout(r, 5));
  expect(emu.requests.length).toBeGreaterThanOrEqual(n);
}
