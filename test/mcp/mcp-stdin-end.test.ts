/**
 * `heapql mcp` driven the way a script or a CI job drives it: the requests written to a pipe and
 * stdin closed at once, before any answer. The server must still answer every request it read
 * (a slow one too, with its progress notifications), then exit 0; a client that also closes the
 * server's stdout ends it quietly. A real process of the compiled CLI over real pipes, its stdout
 * read to the end.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeSlowDump } from './slow-dump.js';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

const line = (message: object) => `${JSON.stringify(message)}\n`;
const INITIALIZE = line({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'script', version: '1' } },
});
const INITIALIZED = line({ jsonrpc: '2.0', method: 'notifications/initialized' });
const call = (id: number, name: string, args: object, progressToken?: string) =>
  line({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) } });

/** Runs the server, writes `input` to its stdin in one write and ends it; reads stdout to its end. */
async function script(dump: string, input: string): Promise<{ messages: any[]; code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, 'mcp', dump, '--no-cache'], { cwd: root });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdin.end(input);
  const messages: any[] = [];
  for await (const text of createInterface({ input: child.stdout })) messages.push(JSON.parse(text));
  return { messages, code: await exited, stderr };
}

const resultOf = (message: any) => JSON.parse(message.result.content[0].text);

describe('heapql mcp: stdin closed right after the requests', () => {
  it('answers every request it read, then exits 0', async () => {
    const { messages, code, stderr } = await script(
      demo,
      INITIALIZE +
        INITIALIZED +
        call(1, 'run_oql', { query: 'SELECT COUNT(*) FROM java.lang.String' }) +
        call(2, 'describe_class', { name: 'java.lang.String' }) +
        // The last line without its newline is read all the same.
        line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'run_oql', arguments: { query: 'SELECT COUNT(*) FROM byte[] b' } } }).trimEnd(),
    );
    expect(messages.map((m) => m.id).sort()).toEqual([0, 1, 2, 3]);
    expect(messages.every((m) => m.error === undefined && m.result.isError === undefined)).toBe(true);
    expect(messages.find((m) => m.id === 0).result.serverInfo.name).toBe('heapql');
    expect(resultOf(messages.find((m) => m.id === 1)).rows).toEqual([[3703]]);
    expect(resultOf(messages.find((m) => m.id === 2)).classes[0].name).toBe('java.lang.String');
    expect(resultOf(messages.find((m) => m.id === 3)).rows).toEqual([[4493]]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/heapql mcp: stdin ended: answering the 3 requests received, then stopping/);
    expect(stderr).not.toMatch(/error/i);
  });

  it('the full analysis on the demo dump: its progress and its answer come after stdin ended', async () => {
    const { messages, code, stderr } = await script(demo, INITIALIZE + INITIALIZED + call(1, 'analyze_heap', {}, 'a'));
    expect(messages[0].id).toBe(0);
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    const last = progress.at(-1).params;
    expect(last.progress).toBe(last.total);
    const answer = messages.at(-1);
    expect(answer.id).toBe(1);
    expect(resultOf(answer).state).toBe('full');
    expect(messages).toHaveLength(progress.length + 2);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/error/i);
  });

  describe('on a dump whose analysis takes a while', () => {
    let dir = '';
    let slow = '';
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'heapql-mcp-stdin-end-'));
      slow = writeSlowDump(dir, 1_000_000);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('the analysis runs to its end and is answered, then a query after it', async () => {
      const { messages, code, stderr } = await script(
        slow,
        INITIALIZE + INITIALIZED + call(1, 'analyze_heap', {}, 'a') + call(2, 'run_oql', { query: 'SELECT COUNT(*) FROM Node n' }),
      );
      const answers = new Map(messages.filter((m) => m.id !== undefined).map((m) => [m.id, m]));
      expect([...answers.keys()].sort()).toEqual([0, 1, 2]);
      expect(resultOf(answers.get(1)).state).toBe('full');
      expect(resultOf(answers.get(2)).rows).toEqual([[1_000_000]]);
      const progress = messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
      expect(progress.at(-1)).toMatchObject({ progressToken: 'a', total: progress.at(-1).progress });
      // Every progress report of the analysis is written before its answer.
      const lastProgress = messages.map((m, i) => (m.params?.progressToken === 'a' ? i : -1)).reduce((a: number, b: number) => Math.max(a, b), -1);
      expect(lastProgress).toBeGreaterThan(-1);
      expect(lastProgress).toBeLessThan(messages.indexOf(answers.get(1)));
      expect(code).toBe(0);
      expect(stderr).not.toMatch(/error/i);
    });

    it('stdout closed by the client while the server works after stdin ended: exit 0, no stack trace', async () => {
      const child = spawn(process.execPath, [bin, 'mcp', slow, '--no-cache'], { cwd: root });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.stdin.end(INITIALIZE + INITIALIZED + call(1, 'analyze_heap', {}, 'a'));
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const next = async () => {
        const { value, done } = await lines.next();
        if (done) throw new Error('the server closed stdout');
        return JSON.parse(value as string);
      };
      expect((await next()).id).toBe(0);
      // The analysis goes on after stdin ended: its second phase reports. Then the client goes away.
      for (;;) {
        const progress = await next();
        expect(progress).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'a' } });
        if (/^dominators: /.test(progress.params.message)) break;
      }
      child.stdout.destroy();
      expect(await exited).toBe(0);
      expect(stderr).not.toMatch(/error|EPIPE|\n\s+at /i);
    });
  });
});
