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

/**
 * A body sent compressed (`Content-Encoding: gzip`…) is refused before it is read: the server
 * decodes none, and read as it came its bytes were said to be bad UTF-8 (or, for an encoding
 * that leaves text as it is, run as if the header were not there).
 */
function checkEncoding(request: Request): void {
  const encoding = request.headers.get('content-encoding');
  if (encoding === null) return;
  const codings = encoding.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return;
  throw new ApiError(400, 'query', `the body is sent with Content-Encoding: ${JSON.stringify(encoding)}, which this server does not decode; send the body uncompressed (no Content-Encoding): the OQL as text, or JSON {"query": "..."}`);
}

export async function readBody(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  checkEncoding(request);
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
  return utf8Text(all);
}

/**
 * The body as text. A body that is not UTF-8 is refused, naming its first bad byte: decoding it
 * anyway would put U+FFFD in place of that byte, and a string literal of the query would then
 * match other text than the one sent.
 */
function utf8Text(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // The shortest prefix that cannot be UTF-8 ends at the first bad byte (a prefix cut inside a
    // sequence is fine to a streaming decoder); none: the body ends inside a sequence.
    let lo = 1;
    let hi = bytes.length + 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (decodes(bytes.subarray(0, mid))) lo = mid + 1;
      else hi = mid;
    }
    // The decoder stops at the byte it cannot take (none: the body ends inside a sequence); the
    // bad sequence may have begun before it, at a lead byte that byte should have continued.
    const at = Math.min(lo - 1, bytes.length);
    let start = at;
    let k = at - 1;
    while (k >= 0 && at - k <= 3 && (bytes[k]! & 0xc0) === 0x80) k--;
    if (k >= 0 && at - k <= 3 && bytes[k]! >= 0xc0 && k + sequenceLength(bytes[k]!) > at) start = k;
    const shown = [...bytes.subarray(start, at + 1)].map((b) => `0x${b.toString(16).padStart(2, '0')}`).join(' ');
    const what = at === bytes.length ? 'begin a character the body ends inside of' : 'are no UTF-8 character';
    throw new ApiError(400, 'query', `the body is not valid UTF-8: the bytes ${shown} at byte offset ${start} ${what}; send the query as UTF-8 text`);
  }
}

/** The bytes of the UTF-8 sequence a lead byte (0xC0 and above) starts. */
function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

/** Whether a streaming decoder takes `bytes` (a sequence cut short at the end is not an error). */
function decodes(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}
