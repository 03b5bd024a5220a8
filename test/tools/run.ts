/** Runs a command to completion and collects its output (for tests that drive heapql end to end). */
import { spawn } from 'node:child_process';
import path from 'node:path';

export const root = path.resolve(__dirname, '../..');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? root, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `node bin/heapql.js …` from the checkout, without colour or debug output. */
export function heapql(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return run(process.execPath, [path.join(root, 'bin/heapql.js'), ...args], {
    cwd: options.cwd,
    env: { ...process.env, HEAPQL_DEBUG: '', NO_COLOR: '1', ...options.env },
  });
}

/** Whether a program is on PATH (for tests that need a shell or tool CI may lack). */
export async function hasProgram(name: string): Promise<boolean> {
  return run('sh', ['-c', `command -v ${name}`]).then((r) => r.code === 0, () => false);
}
