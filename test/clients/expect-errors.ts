/** Assertions the client tests share: which error a call fails with, and waiting for an emulator's requests. */
import { expect } from 'vitest';

/** Awaits `fn`, expects it to fail with an error of `type`, and returns that error. */
export async function rejection<T extends Error>(fn: () => Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(type);
  return caught as T;
}

/** Waits (bounded by count, not time) until `emu` has received `n` requests. */
export async function requestsReceived(emu: { requests: readonly unknown[] }, n: number): Promise<void> {
  for (let i = 0; i < 2000 && emu.requests.length < n; i++) await new Promise((r) => setTimeout(r, 5));
  expect(emu.requests.length).toBeGreaterThanOrEqual(n);
}
