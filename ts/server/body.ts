/**
 * Reading a request body with a hard size limit, counted while reading: a body above the limit
 * is refused as soon as the limit is passed (a 1 GB upload costs 64 KiB, never a buffer of 1 GB).
 */
import { ApiError } from './errors.js';

/** The specification's limit for `POST /`, `/query` and `/stream`. */
export const MAX_BODY_BYTES = 65536;

function tooLarge(limit: number): ApiError {
  // `Connection: close`: the rest of the upload is not read; the connection ends after the answer.
  return new ApiError(413, 'body_too_large', `the request body exceeds ${limit} bytes; send a shorter query`, { connection: 'close' });
}

export async function readBody(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(all);
}
