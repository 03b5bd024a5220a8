// vitest globalSetup: every test run gets one temporary directory of its own, removed when the
// run ends, so that tests (and the CLIs, servers and browsers they start, which inherit the
// environment) leave nothing behind in the system's temporary directory: TMPDIR points
// there, and the CLI's cache (HEAPQL_CACHE_DIR, on by default) is an empty directory inside
// it, so tests never read or fill the user's cache. Before, each run left some 30
// directories in /tmp, 85 MB of them from the cache tests alone.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup() {
  const dir = mkdtempSync(path.join(tmpdir(), 'heapql-test-run-'));
  const cache = path.join(dir, 'cache');
  mkdirSync(cache);
  process.env.TMPDIR = dir;
  process.env.HEAPQL_CACHE_DIR = cache;
  return () => rmSync(dir, { recursive: true, force: true });
}
