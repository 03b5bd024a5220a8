import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { threadPoolSize } from '../ts/server/held-scans.js';

/** What libuv's pool size gives the server's limit of scans held for idle clients. */
describe('held scans follow the thread pool', () => {
  it('reads UV_THREADPOOL_SIZE as libuv does', () => {
    expect(threadPoolSize({})).toBe(4);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: '8' })).toBe(8);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: '1' })).toBe(1);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: '5000' })).toBe(1024);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: 'many' })).toBe(4);
    expect(threadPoolSize({ UV_THREADPOOL_SIZE: '0' })).toBe(4);
  });

  const module = fileURLToPath(new URL('../dist/server/held-scans.js', import.meta.url));
  const heldMax = (size: string | undefined): number => {
    const env = { ...process.env };
    delete env.UV_THREADPOOL_SIZE;
    if (size !== undefined) env.UV_THREADPOOL_SIZE = size;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', `import(${JSON.stringify(module)}).then((m) => console.log(m.HELD_MAX))`], { env, encoding: 'utf8' });
    return Number(out.trim());
  };

  it('keeps half the pool in held scans, at least one', () => {
    expect(heldMax(undefined)).toBe(2);
    expect(heldMax('8')).toBe(4);
    expect(heldMax('2')).toBe(1);
    expect(heldMax('1')).toBe(1);
  });
});
