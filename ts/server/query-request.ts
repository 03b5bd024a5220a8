/**
 * What `POST /`, `/query` and `/stream` accept: the OQL as a raw text body, or JSON
 * `{query, limit?, reachableOnly?, name?, viz?}` (with a JSON content type, or any body that
 * starts with `{`, which no OQL statement does).
 */
import { Value } from '@sinclair/typebox/value';

import { VizSchema, type VizSpec } from '../query/schema.js';
import { ApiError } from './errors.js';

export interface QueryRequest {
  query: string;
  /** Overrides the query's LIMIT. */
  limit?: number;
  /** Restrict the sources to objects reachable from GC roots (default: the server's mode). */
  reachableOnly?: boolean;
  /** Display name of the result. */
  name?: string;
  /** A parsed `-- @viz` directive (a leading directive line in `query` works too). */
  viz?: VizSpec;
  /** `POST /pages` only: rows of a page. */
  pageRows?: number;
}

/** What `POST /pages` takes beyond what `POST /query` takes: the rows of a page, from 1 to `max`. */
export interface PagedRequestOptions {
  pageRowsMax: number;
}

const bad = (message: string) => new ApiError(400, 'query', message);

/**
 * The `limit` a client sent, as it wrote it: a number beyond what a double holds (`1e400`)
 * reaches us as Infinity, which JSON.stringify would call `null`; its text is taken from the
 * body then.
 */
function limitText(value: unknown, body: string, key = 'limit'): string {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    const written = new RegExp(`"${key}"\\s*:\\s*(-?[0-9][0-9.eE+-]*)`).exec(body)?.[1];
    return `${written ?? String(value)} (beyond the largest number a double holds: it reads as ${value > 0 ? '' : '-'}Infinity)`;
  }
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  // An array or an object is named, never written out: one nested 30 000 deep (a 64 KiB body
  // holds that) is past what JSON.stringify can walk.
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return JSON.stringify(value);
}

export function parseQueryRequest(body: string, contentType: string | null, paged: PagedRequestOptions | null = null): QueryRequest {
  const json = /\bjson\b/i.test(contentType ?? '') || body.trimStart().startsWith('{');
  if (!json) {
    if (body.trim() === '') throw bad('the body is empty: send the OQL as the body, or JSON {"query": "..."}');
    return { query: body };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    throw bad(`the body is not valid JSON (${(err as Error).message}); send {"query": "...", "limit": N} or the OQL as plain text`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad('the JSON body must be an object: {"query": "...", "limit": N}');
  const o = parsed as Record<string, unknown>;
  if (typeof o.query !== 'string' || o.query.trim() === '') throw bad('the JSON body needs a "query" string: {"query": "SELECT ..."}');
  const known = new Set(['query', 'limit', 'reachableOnly', 'name', 'viz', ...(paged ? ['pageRows'] : [])]);
  const unknown = Object.keys(o).filter((k) => !known.has(k));
  if (unknown.length) {
    const pageRows = !paged && unknown.includes('pageRows') ? '; "pageRows" is for POST /pages' : '';
    throw bad(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} in the JSON body (fields: ${[...known].join(', ')})${pageRows}`);
  }
  const out: QueryRequest = { query: o.query };
  if (o.limit !== undefined && o.limit !== null) {
    if (typeof o.limit !== 'number' || !Number.isSafeInteger(o.limit) || o.limit < 0) {
      throw bad(`"limit" must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER} (2^53 − 1), not ${limitText(o.limit, body)}`);
    }
    out.limit = o.limit;
  }
  if (paged && o.pageRows !== undefined && o.pageRows !== null) {
    if (typeof o.pageRows !== 'number' || !Number.isSafeInteger(o.pageRows) || o.pageRows < 1 || o.pageRows > paged.pageRowsMax) {
      throw bad(`"pageRows" must be a whole number from 1 to ${paged.pageRowsMax}, not ${limitText(o.pageRows, body, 'pageRows')}`);
    }
    out.pageRows = o.pageRows;
  }
  if (o.reachableOnly !== undefined) {
    if (typeof o.reachableOnly !== 'boolean') throw bad('"reachableOnly" must be true or false');
    out.reachableOnly = o.reachableOnly;
  }
  if (o.name !== undefined) {
    if (typeof o.name !== 'string') throw bad('"name" must be a string');
    out.name = o.name;
  }
  if (o.viz !== undefined && o.viz !== null) {
    if (!Value.Check(VizSchema, o.viz)) throw bad('"viz" is not a viz directive: {"kind": "histogram"|"piechart"|"treemap"|"table", "label"?, "value"?, "cap"?, "title"?, "name"?}');
    out.viz = o.viz;
  }
  return out;
}
