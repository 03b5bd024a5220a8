/**
 * `heapql mcp`: concurrent `analyze_heap` calls share one analysis, and cancelling one of them
 * only stops that call waiting; `cancel_analysis` answers once the analysis has stopped, and an
 * `analyze_heap` right after it starts a new one. The dump is written here (test/mcp/slow-dump.ts:
 * a million small objects) so that the analysis runs for most of a second, long enough for
 * requests to join it and cancel while it runs; each test checks that they did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeSlowDump } from './slow-dump.js';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const NO_TIMEOUT = { timeout: 2_147_483_647 };

let dir: string;
let dump: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-mcp-waiters-'));
  dump = writeSlowDump(dir, 1_000_000);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  isError: boolean;
  text: string;
  json: any;
}

async function startServer(): Promise<{ client: Client; call: (name: string, args?: Record<string, unknown>, options?: Record<string, unknown>) => Promise<Answer> }> {
  // No cache: every analysis here is a real one, never loaded from an earlier test's.
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', dump, '--no-cache'], cwd: root, stderr: 'pipe' });
  const client = new Client({ name: 'heapql-test', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}, options: Record<string, unknown> = {}): Promise<Answer> => {
    const result = await client.callTool({ name, arguments: args }, undefined, { ...NO_TIMEOUT, ...options });
    const text = (result.content as { text: string }[])[0]!.text;
    const isError = result.isError === true;
    return { isError, text, json: isError ? undefined : JSON.parse(text) };
  };
  // The first call waits for the index.
  expect((await call('analysis_status')).json.state).toBe('query-only');
  return { client, call };
}

/** An analyze_heap call and a promise of its first progress notification (it is waiting on a running analysis). */
function analyzeWithProgress(call: (name: string, args?: Record<string, unknown>, options?: Record<string, unknown>) => Promise<Answer>, signal?: AbortSignal) {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const answer = call('analyze_heap', {}, { onprogress: (_p: Progress) => started(), ...(signal ? { signal } : {}) });
  // A call that ends first (an error) must not leave the wait hanging.
  answer.then(started, started);
  return { answer, running };
}

describe('heapql mcp: one analysis, several analyze_heap calls', () => {
  it('cancelling one of two concurrent analyze_heap calls leaves the other to finish the analysis', async () => {
    const s = await startServer();
    try {
      const a = new AbortController();
      const first = analyzeWithProgress(s.call, a.signal);
      await first.running;
      const second = analyzeWithProgress(s.call);
      await second.running;
      a.abort();
      await expect(first.answer).rejects.toThrow(/abort/i);
      // The cancellation reached the server while the analysis ran (messages are handled in order).
      expect((await s.call('analysis_status')).json.state).toBe('analyzing');
      const b = await second.answer;
      expect(b.text).not.toMatch(/cancel/);
      expect(b.isError).toBe(false);
      expect(b.json).toMatchObject({ state: 'full', error: null });
      // Retained sizes work now.
      const q = 'SELECT COUNT(*) AS n FROM Node n WHERE n.@retainedHeapSize >= n.@usedHeapSize';
      expect((await s.call('run_oql', { query: q })).json.rows).toEqual([[1_000_000]]);
    } finally {
      await s.client.close();
    }
  });

  it('cancelling the only analyze_heap call cancels the analysis', async () => {
    const s = await startServer();
    try {
      const a = new AbortController();
      const only = analyzeWithProgress(s.call, a.signal);
      await only.running;
      a.abort();
      await expect(only.answer).rejects.toThrow(/abort/i);
      let state = (await s.call('analysis_status')).json.state;
      for (let i = 0; state === 'analyzing' && i < 100; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        state = (await s.call('analysis_status')).json.state;
      }
      expect(state).toBe('query-only');
    } finally {
      await s.client.close();
    }
  });

  it('cancel_analysis, then analyze_heap at once: the cancelled analysis winds down and a new one runs', async () => {
    const s = await startServer();
    try {
      expect((await s.call('analyze_heap', { wait: false })).json).toMatchObject({ start: 'started', state: 'analyzing' });
      // Answered once the analysis stopped: the state says so.
      expect((await s.call('cancel_analysis')).json).toMatchObject({ cancelled: true, state: 'query-only' });
      const again = await s.call('analyze_heap');
      expect(again.text).not.toMatch(/cancel/);
      expect(again.json).toMatchObject({ state: 'full', error: null });
    } finally {
      await s.client.close();
    }
  });

  it('an analyze_heap waiting when cancel_analysis stops the analysis says so and what to do', async () => {
    const s = await startServer();
    try {
      const waiting = analyzeWithProgress(s.call);
      await waiting.running;
      expect((await s.call('cancel_analysis')).json).toMatchObject({ cancelled: true, state: 'query-only' });
      const answer = await waiting.answer;
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/^the full analysis was cancelled by cancel_analysis .*Call analyze_heap again/);
    } finally {
      await s.client.close();
    }
  });

  it('an analysis started with wait=false runs on when an analyze_heap call waiting on it is cancelled', async () => {
    const s = await startServer();
    try {
      expect((await s.call('analyze_heap', { wait: false })).json.start).toBe('started');
      const a = new AbortController();
      const waiting = analyzeWithProgress(s.call, a.signal);
      await waiting.running;
      a.abort();
      await expect(waiting.answer).rejects.toThrow(/abort/i);
      expect((await s.call('analysis_status')).json.state).toBe('analyzing');
      // Joins it and waits for its end.
      expect((await s.call('analyze_heap')).json).toMatchObject({ state: 'full', waitedMs: expect.any(Number) });
    } finally {
      await s.client.close();
    }
  });
});
