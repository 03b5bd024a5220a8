// vitest globalSetup: the CLI caches by default; every test run gets its own empty cache
// directory (HEAPQL_CACHE_DIR, inherited by the test processes and the CLIs they start), so
// tests never read or fill the user's cache. Removed when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup() {
  const dir = mkdtempSync(path.join(tmpdir(), 'heapql-test-cache-'));
  process.env.HEAPQL_CACHE_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
