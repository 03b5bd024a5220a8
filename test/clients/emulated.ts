/**
 * The client tests' fixtures: an emulator started once per file and reset before each test,
 * with a fresh client pointed at it. `use` receives both each time they change.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';

import { DeviceClient } from '../../ts/clients/device/index.js';
import { SchedulerClient } from '../../ts/clients/scheduler/index.js';
import { DeviceEmulator } from './device-emulator.js';
import { SchedulerEmulator } from './scheduler-emulator.js';

export function emulatedDevice(use: (emu: DeviceEmulator, client: DeviceClient) => void): void {
  emulated(() => DeviceEmulator.start(), (emu) => new DeviceClient({ url: emu.url }), use);
}

export function emulatedScheduler(use: (emu: SchedulerEmulator, client: SchedulerClient) => void): void {
  emulated(() => SchedulerEmulator.start(), (emu) => new SchedulerClient({ url: emu.url }), use);
}

function emulated<E extends { reset(): void; close(): Promise<void> }, C>(start: () => Promise<E>, connect: (emu: E) => C, use: (emu: E, client: C) => void): void {
  let emu: E;
  beforeAll(async () => {
    emu = await start();
  });
  afterAll(async () => {
    await emu.close();
  });
  beforeEach(() => {
    emu.reset();
    use(emu, connect(emu));
  });
}
