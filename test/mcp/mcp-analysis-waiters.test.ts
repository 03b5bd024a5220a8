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

type Call = (name: string, args?: Record<string, unknown>, options?: Record<string, unknown>) => Promise<Answer>;

async function startServer(): Promise<{ client: Client; call: Call }> {
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

/** Runs `test` with a server of its own, closed after. */
async function withServer(test: (call: Call) => Promise<void>): Promise<void> {
  const s = await startServer();
  try {
    await test(s.call);
  } finally {
    await s.client.close();
  }
}

/**
 * An analyze_heap call and a promise of its first progress notification (it is waiting on a
 * running analysis); `cancel` aborts the call and checks that the client saw it aborted.
 */
function analyzeWithProgress(call: Call) {
  const controller = new AbortController();
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const answer = call('analyze_heap', {}, { onprogress: (_p: Progress) => started(), signal: controller.signal });
  // A call that ends first (an error) must not leave the wait hanging.
  answer.then(started, started);
  const cancel = async () => {
    controller.abort();
    await expect(answer).rejects.toThrow(/abort/i);
  };
  return { answer, running, cancel };
}

describe('heapql mcp: one analysis, several analyze_heap calls', () => {
  it('cancelling one of two concurrent analyze_heap calls leaves the other to finish the analysis', async () => {
    await withServer(async (call) => {
      const first = analyzeWithProgress(call);
      await first.running;
      const second = analyzeWithProgress(call);
      await second.running;
      await first.cancel();
      // The cancellation reached the server while the analysis ran (messages are handled in order).
      expect((await call('analysis_status')).json.state).toBe('analyzing');
      const b = await second.answer;
      expect(b.text).not.toMatch(/cancel/);
      expect(b.isError).toBe(false);
      expect(b.json).toMatchObject({ state: 'full', error: null });
      // Retained sizes work now.
      const q = 'SELECT COUNT(*) AS n FROM Node n WHERE n.@retainedHeapSize >= n.@usedHeapSize';
      expect((await call('run_oql', { query: q })).json.rows).toEqual([[1_000_000]]);
    });
  });

  it('cancelling the only analyze_heap call cancels the analysis', async () => {
    await withServer(async (call) => {
      const only = analyzeWithProgress(call);
      await only.running;
      await only.cancel();
      let state = (await call('analysis_status')).json.state;
      for (let i = 0; state === 'analyzing' && i < 100; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        state = (await call('analysis_status')).json.state;
      }
      expect(state).toBe('query-only');
    });
  });

  it('cancel_analysis, then analyze_heap at once: the cancelled analysis winds down and a new one runs', async () => {
    await withServer(async (call) => {
      expect((await call('analyze_heap', { wait: false })).json).toMatchObject({ start: 'started', state: 'analyzing' });
      // Answered once the analysis stopped: the state says so.
      expect((await call('cancel_analysis')).json).toMatchObject({ cancelled: true, state: 'query-only' });
      const again = await call('analyze_heap');
      expect(again.text).not.toMatch(/cancel/);
      expect(again.json).toMatchObject({ state: 'full', error: null });
    });
  });

  it('an analyze_heap waiting when cancel_analysis stops the analysis says so and what to do', async () => {
    await withServer(async (call) => {
      const waiting = analyzeWithProgress(call);
      await waiting.running;
      expect((await call('cancel_analysis')).json).toMatchObject({ cancelled: true, state: 'query-only' });
      const answer = await waiting.answer;
      expect(answer.isError).toBe(true);
      // Where it stopped, from its last progress report (a progress notification came before the cancel).
      expect(answer.text).toMatch(
        /^the full analysis was cancelled by cancel_analysis during the (graph|dominators|retained) phase \(\d+% done\) while this call waited for it; .*Call analyze_heap again/,
      );
    });
  });

  it('an analysis started with wait=false runs on when an analyze_heap call waiting on it is cancelled', async () => {
    await withServer(async (call) => {
      expect((await call('analyze_heap', { wait: false })).json.start).toBe('started');
      const waiting = analyzeWithProgress(call);
      await waiting.running;
      await waiting.cancel();
      expect((await call('analysis_status')).json.state).toBe('analyzing');
      // Joins it and waits for its end.
      expect((await call('analyze_heap')).json).toMatchObject({ state: 'full', waitedMs: expect.any(Number) });
    });
  });
});
