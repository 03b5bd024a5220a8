/**
 * The MCP server's stdio transport (ts/mcp/stdio.ts) on real streams: messages split across
 * chunks anywhere (inside a UTF-8 character too) and CRLF line ends read whole; a line past the
 * limit is answered for the id at its start or its end, or for null, and the next line is read.
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
});
