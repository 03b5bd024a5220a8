/** The service clients never load the heap addon: they work where no dump is analyzed. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(__dirname, '../..');

test('heapql/scheduler and heapql/device load no native module, and the thread id still comes', () => {
  const script = `
    const { createRequire } = await import('node:module');
    const s = await import(${JSON.stringify(path.join(root, 'dist/clients/scheduler/index.js'))});
    await import(${JSON.stringify(path.join(root, 'dist/clients/device/index.js'))});
    const tid = s.currentOsThreadId();
    const cache = createRequire(import.meta.url).cache;
    const natives = Object.keys(cache).filter((k) => k.endsWith('.node'));
    console.log(JSON.stringify({ tid, natives }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { tid: number; natives: string[] };
  expect(out.natives).toEqual([]);
  expect(Number.isInteger(out.tid) && out.tid > 0).toBe(true);
});
