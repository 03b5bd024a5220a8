/** A plain node:http request for contract tests: what the wire carries, independent of the clients. */
import http from 'node:http';

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function raw(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** A POST of `body` (JSON unless it is text already) as JSON, by default. */
export function rawPost(base: string, path: string, body: unknown, headers: Record<string, string> = JSON_TYPE): Promise<RawReply> {
  return raw(base, path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** The JSON body of the last request an emulator received. */
export function lastJsonBody(emu: { requests: readonly { body: string }[] }): Record<string, unknown> {
  return JSON.parse(emu.requests.at(-1)!.body);
}
