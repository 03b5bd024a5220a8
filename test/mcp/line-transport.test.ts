/**
 * The MCP server's stdio transport (ts/mcp/stdio.ts) on real streams: messages split across
 * chunks anywhere (inside a UTF-8 character too) and CRLF line ends read whole; a line past the
 * limit is answered for the id at its start or its end, or for null, and the next line is read.
 * At the input's end the last line is read (newline or not), `oninputend` is called, and
 * `answered()` waits for the answer of each request passed on (or its cancellation).
 */
import { PassThrough } from 'node:stream';

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

import { LineTransport } from '../../ts/mcp/stdio.js';

async function run(chunks: Buffer[], lineMax?: number): Promise<{ messages: JSONRPCMessage[]; written: any[]; errors: string[] }> {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineTransport(input, output, lineMax);
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e.message);
  await transport.start();
  let out = '';
  output.on('data', (d) => (out += d));
  for (const c of chunks) input.write(c);
  // PassThrough hands each chunk on in a later tick.
  await new Promise((resolve) => setImmediate(resolve));
  await transport.close();
  return { messages, written: out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)), errors };
}

const ping = (id: number | string, extra = {}) => ({ jsonrpc: '2.0', id, method: 'ping', ...extra });

describe('LineTransport', () => {
  it('reads messages split anywhere, inside a UTF-8 character and between CR and LF', async () => {
    const text = `${JSON.stringify(ping(1, { params: { note: 'café ☕ 𝄞' } }))}\r\n${JSON.stringify(ping(2))}\n`;
    const bytes = Buffer.from(text, 'utf8');
    const oneByOne = [...bytes].map((b) => Buffer.from([b]));
    const { messages, written, errors } = await run(oneByOne);
    expect(messages).toEqual([ping(1, { params: { note: 'café ☕ 𝄞' } }), ping(2)]);
    expect(written).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('answers a line past the limit for the id at its start or end, else null, and reads on', async () => {
    const long = 'x'.repeat(300);
    const lines = [
      `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"${long}"}}`,
      `{"method":"ping","params":{"pad":"${long}"},"jsonrpc":"2.0","id":"late"}`,
      `{"method":"ping","params":{"pad":"${long}","id":9}}`,
      JSON.stringify(ping(3)),
    ];
    // Each a chunk of its own, all in one chunk, one byte a chunk: the same answers.
    const all = Buffer.from(lines.map((l) => `${l}\n`).join(''));
    for (const chunks of [lines.map((l) => Buffer.from(`${l}\n`)), [all], [...all].map((b) => Buffer.from([b]))]) {
      const { messages, written, errors } = await run(chunks, 200);
      expect(messages).toEqual([ping(3)]);
      expect(written.map((w) => [w.id, w.error.code])).toEqual([
        [7, -32600],
        ['late', -32600],
        // A nested "id" is not the message's.
        [null, -32600],
      ]);
      expect(written[0].error.message).toBe(
        `Invalid Request: line 1 of the input is ${lines[0]!.length} bytes long; the server reads messages of at most 200 bytes (one JSON-RPC message per line), so it was skipped`,
      );
      expect(errors).toHaveLength(3);
    }
  });

  it('names the field of a message that does not match its kind, and what it must be', async () => {
    const lines = [
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'run_oql', arguments: { query: 'x' }, _meta: { progressToken: {} } } },
      { jsonrpc: '2.0', id: 'p', method: 'tools/list', params: 5 },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: 'x' },
      { jsonrpc: '2.0', id: 4, error: { code: 'x', message: 'm' } },
    ];
    const { messages, written, errors } = await run([Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(''))]);
    expect(messages).toEqual([]);
    const prefix = (n: number) => `Invalid Request: line ${n} of the input is JSON but no JSON-RPC 2.0 message: `;
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 8, error: { code: -32600, message: `${prefix(1)}"params._meta.progressToken" must be a string or an integer (the token progress notifications name)` } },
      { jsonrpc: '2.0', id: 'p', error: { code: -32600, message: `${prefix(2)}"params" must be object, not number` } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: `${prefix(3)}"params" must be object, not string` } },
      { jsonrpc: '2.0', id: 4, error: { code: -32600, message: `${prefix(4)}"error.code" must be number, not string` } },
    ]);
    expect(errors).toHaveLength(4);
  });

  it('at the end of the input: reads the last line, tells oninputend, and waits for every request to be answered', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new LineTransport(input, output);
    const messages: JSONRPCMessage[] = [];
    transport.onmessage = (m) => messages.push(m);
    let ended = false;
    transport.oninputend = () => (ended = true);
    await transport.start();
    let out = '';
    output.on('data', (d) => (out += d));
    // Two requests with the same id, one cancelled, a notification, a last line without newline.
    input.end(
      [ping(1), ping(1), ping('c'), { jsonrpc: '2.0', method: 'notifications/initialized' }, ping(2)].map((m) => JSON.stringify(m)).join('\n') +
        `\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c' } })}\n${JSON.stringify(ping(3))}`,
    );
    await new Promise((resolve) => input.once('end', resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(true);
    expect(messages.filter((m) => 'id' in m).map((m) => (m as { id: unknown }).id)).toEqual([1, 1, 'c', 2, 3]);
    expect(transport.pending).toBe(4);

    let answered = false;
    void transport.answered().then(() => (answered = true));
    for (const id of [1, 3, 2]) await transport.send({ jsonrpc: '2.0', id, result: {} });
    // A notification answers nothing; one request with id 1 still waits.
    await transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(transport.pending).toBe(1);
    expect(answered).toBe(false);
    await transport.send({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'failed' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(true);
    expect(transport.pending).toBe(0);
    // Each answer was written before answered() resolved.
    expect(out.trim().split('\n')).toHaveLength(5);
    await transport.close();
  });
});
