/**
 * Piped input to `heapql query <dump> --repl` whose reader goes away (`| head`): the session ends
 * quietly, with exit code 0 when every statement ran, and 1 when one failed before — the code
 * already set, as for the one-shot commands. The failed statement's exit code was lost (0).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

/** Runs the piped session; stops reading its stdout at the first bytes. */
function readerGoesAway(statements: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'query', demo, '--repl', '--no-cache'], { env: { ...process.env, HEAPQL_DEBUG: '' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // The listing is far longer than a pipe holds: the session writes again after this.
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.end(statements);
  });
}

const LISTING = '!set limit 0\nSELECT s, toString(s) AS text FROM java.lang.String s\n';

describe('piped input, the reader gone', () => {
  it('every statement ran: exit 0, quietly', async () => {
    expect(existsSync(demo)).toBe(true);
    const r = await readerGoesAway(LISTING);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('a statement failed before: exit 1, its error said once, no more', async () => {
    const r = await readerGoesAway(`SELECT x FROM Nope x\n${LISTING}`);
    expect(r.stderr).toMatch(/^error: stdin:1:15: class Nope is not in this dump/);
    expect(r.stderr).not.toMatch(/EPIPE|at .*\.js/);
    expect(r.code).toBe(1);
  });
});
