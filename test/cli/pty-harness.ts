/** What the CLI's pseudo-terminal tests share: their terminals' clean-up and the 1 GB dump. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { IPty } from '@lydell/node-pty';
import { afterEach } from 'vitest';

/** A list to put each opened terminal in: killed after every test (a failed test may leave its child running). */
export function ptysKilledAfterEach(): IPty[] {
  const open: IPty[] = [];
  afterEach(() => {
    for (const p of open.splice(0)) {
      try {
        p.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  return open;
}

/**
 * The 1 GB benchmark dump (`npm run bench` makes it; HEAPQL_BENCH_1G names another), whose work
 * lasts long enough for a Ctrl-C to land in it; where it is absent, the test named `what` is
 * skipped with the reason printed.
 */
export function benchDump1g(what: string): { big: string; haveBig: boolean } {
  const big = process.env.HEAPQL_BENCH_1G ?? path.resolve(__dirname, '../../bench-out/bench-1g.hprof');
  const haveBig = existsSync(big);
  if (!haveBig) console.warn(`skipping ${what}: ${big} is absent (npm run bench creates it, or set HEAPQL_BENCH_1G)`);
  return { big, haveBig };
}
