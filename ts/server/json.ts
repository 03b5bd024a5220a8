/**
 * JSON answers with exact integers: `c.json` is `JSON.stringify`, which refuses the `bigint` of
 * a Java long beyond 2^53 in a query result; this writes it with all its digits
 * (`ts/query/json.ts`). Same content type as `c.json`.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

import { stringifyJson } from '../query/json.js';

export function jsonAnswer(c: Context, value: unknown, status: ContentfulStatusCode = 200): Response {
  return c.body(stringifyJson(value), status, { 'content-type': 'application/json' });
}
