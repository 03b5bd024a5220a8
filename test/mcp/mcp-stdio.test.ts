/**
 * `heapql mcp` over its stdin: lines that are no JSON-RPC message get the JSON-RPC error the
 * specification asks for and the server reads on; a message longer than the server reads is
 * answered with an error for its id (the SDK's own client waits for it) and skipped. Driven
 * with raw lines on the compiled CLI's stdin, and with the MCP SDK's client.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

import { writeSlowDump } from './slow-dump.js';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const NO_TIMEOUT = { timeout: 2_147_483_647 };

/** The server as a child process: write lines to it, read its answers one line at a time. */
function rawServer(dump = demo): {
  child: ChildProcessWithoutNullStreams;
  send: (line: string) => void;
  next: () => Promise<any>;
  exited: Promise<number | null>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [bin, 'mcp', dump, '--no-cache'], { cwd: root });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    send: (line) => child.stdin.write(`${line}\n`),
    next: async () => {
      const { value, done } = await lines.next();
      if (done) throw new Error('the server closed stdout');
      return JSON.parse(value as string);
    },
    exited,
    stderr: () => stderr,
  };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('heapql mcp stdin', () => {
  it('answers a line that is no JSON-RPC message with a JSON-RPC error, and goes on serving', async () => {
    const s = rawServer();
    try {
      s.send(INITIALIZE);
      expect((await s.next()).id).toBe(0);
      s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

      s.send('garbage, not JSON');
      expect(await s.next()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: expect.stringMatching(/^Parse error: line 3 of the input is not JSON \(.*\); each line must hold one JSON-RPC 2\.0 message$/) },
      });
      // A blank line is no message and no error.
      s.send('');
      s.send('{"foo": 1}');
      expect(await s.next()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: line 5 of the input is JSON but no JSON-RPC 2.0 message: "jsonrpc" must be "2.0"' },
      });
      s.send('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]');
      expect((await s.next()).error).toEqual({
        code: -32600,
        message: 'Invalid Request: line 6 of the input is JSON but no JSON-RPC 2.0 message: a batch (an array) is not supported: send each message on its own line',
      });
      // An id is answered with its id.
      s.send('{"jsonrpc":"2.0","id":"r7","method":7}');
      expect(await s.next()).toMatchObject({ id: 'r7', error: { code: -32600, message: expect.stringMatching(/"method" must be a string$/) } });

      s.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'run_oql', arguments: { query: 'SELECT COUNT(*) FROM java.lang.String s' } } }));
      const answer = await s.next();
      expect(answer.id).toBe(8);
      expect(JSON.parse(answer.result.content[0].text).rows).toEqual([[3703]]);
    } finally {
      s.child.stdin.end();
    }
    expect(await s.exited).toBe(0);
  });

  it('stdin closed while the analysis runs: the server answers the call, then exits 0', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-mcp-stdin-'));
    try {
      const s = rawServer(writeSlowDump(dir, 1_000_000));
      s.send(INITIALIZE);
      expect((await s.next()).id).toBe(0);
      s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'analyze_heap', arguments: {}, _meta: { progressToken: 'p' } } }));
      // The first progress notification: the analysis runs.
      const progress = await s.next();
      expect(progress).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'p' } });
      expect(progress.params.progress).toBeLessThan(3);
      s.child.stdin.end();
      // A client that closes its end has said all it had to say, not that it wants no answer.
      let answer = await s.next();
      while (answer.method === 'notifications/progress') answer = await s.next();
      expect(answer.id).toBe(1);
      expect(JSON.parse(answer.result.content[0].text).state).toBe('full');
      expect(await s.exited).toBe(0);
      expect(s.stderr()).not.toMatch(/error/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a message longer than the server reads is an error for its request; the next call is answered', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', demo, '--no-cache'], cwd: root, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'heapql-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      // 11 MiB of OQL: past the 10 MiB a line may hold.
      const huge = `SELECT s FROM java.lang.String s WHERE toString(s) = "${'a'.repeat(11 * 1024 * 1024)}"`;
      await expect(client.callTool({ name: 'run_oql', arguments: { query: huge } }, undefined, NO_TIMEOUT)).rejects.toThrow(
        /Invalid Request: line \d+ of the input is \d+ bytes long; the server reads messages of at most 10485760 bytes/,
      );
      const next = await client.callTool({ name: 'run_oql', arguments: { query: 'SELECT COUNT(*) FROM byte[] b' } }, undefined, NO_TIMEOUT);
      expect(JSON.parse((next.content as { text: string }[])[0]!.text).rows).toEqual([[4493]]);
      expect(stderr).toMatch(/heapql mcp: error: protocol error: Invalid Request: line \d+ of the input is \d+ bytes long/);
    } finally {
      await client.close();
    }
  });
});
