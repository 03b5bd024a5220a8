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
