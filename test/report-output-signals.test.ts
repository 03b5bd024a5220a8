/**
 * A signal (Ctrl-C, SIGTERM, SIGHUP) while a report file is written: the report is written
 * whole or not at all, and its temporary file (`<report>.<pid>.tmp`) is never left behind.
 * Before, with no listener for the signal, it ended the process in the middle of the write.
 *
 * A child process writes through the library's own writer (dist/report/output.js, built by tsc)
 * with `fs.writeFileSync` wrapped so that the signal comes half-way through the temporary file.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const outputModule = pathToFileURL(path.resolve(__dirname, '../dist/report/output.js')).href;
const SIZE = 200_000;

const PROGRAM = `
import fs from 'node:fs';
import { writeOutput } from ${JSON.stringify(outputModule)};
const [file, signal] = process.argv.slice(1);
const real = fs.writeFileSync;
fs.writeFileSync = (p, data, ...rest) => {
  if (!String(p).endsWith('.tmp')) return real(p, data, ...rest);
  real(p, data.slice(0, data.length / 2));
  process.kill(process.pid, signal);
  real(p, data.slice(data.length / 2), { flag: 'a' });
};
writeOutput('x'.repeat(${SIZE}), { path: file, format: 'md' });
process.stdout.write('written\\n');
`;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-output-signals-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('a signal while the report file is written', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal}: no temporary file left, the report whole`, () => {
      const file = path.join(dir, 'report.md');
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', PROGRAM, file, signal], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      // The signal waited for the write; it ends the process then, unless the process was
      // ending anyway (Node drops a signal still pending at a natural exit).
      if (run.signal === null) expect([run.status, run.stdout]).toEqual([0, 'written\n']);
      else expect(run.signal).toBe(signal);
      expect(fs.readdirSync(dir)).toEqual(['report.md']);
      expect(fs.statSync(file).size).toBe(SIZE);
    });
  }
});
