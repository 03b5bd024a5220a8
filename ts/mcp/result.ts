/**
 * What a tool hands back: compact JSON text (one line, object references shortened), or an MCP
 * tool error (`isError`) with a message an assistant can act on. A tool never throws past here.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { HeapqlError } from '../errors.js';
import { formatOqlError, isOqlError } from '../oql/errors.js';
import { stringifyJson } from '../query/json.js';
import { headOf } from '../report/format.js';
import { TEXT_MAX } from './limits.js';

/**
 * An object reference as tools return it: `{objectId, address, className}`, plus `label` only
 * when it says more than the class and address (a String's text, a class loader's name, an
 * array's length). `objectId` is the dense object index, stable for the dump.
 */
export interface CompactRef {
  objectId: number;
  address: string;
  className: string;
  label?: string;
}

function isRef(v: Record<string, unknown>): boolean {
  return typeof v.objectId === 'number' && typeof v.address === 'string' && typeof v.className === 'string';
}

function compactRef(v: Record<string, unknown>): CompactRef {
  const ref: CompactRef = { objectId: v.objectId as number, address: v.address as string, className: v.className as string };
  const label = v.label;
  if (typeof label === 'string' && label !== `${ref.className} @ ${ref.address}`) ref.label = label;
  return ref;
}

/** Walks any JSON value and shortens every object reference in it (see CompactRef). */
export function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  if (isRef(obj) && Object.keys(obj).every((k) => k === 'objectId' || k === 'address' || k === 'className' || k === 'label')) {
    return compactRef(obj);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = compact(v);
  return out;
}

/** A string a tool result carries cut (see TEXT_MAX): where it is and how long it really is. */
export interface TruncatedString {
  /** Where in the result: `rows[0][1]`, `rows[2][0].label`, `classes[0].fields[3].name`. */
  path: string;
  /** The full length in UTF-16 units (Java's `String.length()`, OQL's `@length`). */
  length: number;
  /** In a query result's rows: the row and column of the cell (0-based). */
  row?: number;
  column?: number;
}

/**
 * `s` cut to `max` UTF-16 units followed by `…` when longer (never between the two halves of a
 * surrogate pair), else `s` itself.
 */
export function cutText(s: string, max = TEXT_MAX): string {
  return s.length <= max ? s : `${headOf(s, max)}…`;
}

/** Walks a JSON value and cuts every string longer than TEXT_MAX, recording each cut in `cuts`. */
function cutStrings(value: unknown, path: string, cuts: TruncatedString[]): unknown {
  if (typeof value === 'string') {
    if (value.length <= TEXT_MAX) return value;
    const cut: TruncatedString = { path, length: value.length };
    const cell = /^rows\[(\d+)\]\[(\d+)\]/.exec(path);
    if (cell) {
      cut.row = Number(cell[1]);
      cut.column = Number(cell[2]);
    }
    cuts.push(cut);
    return cutText(value);
  }
  if (Array.isArray(value)) return value.map((v, i) => cutStrings(v, `${path}[${i}]`, cuts));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = cutStrings(v, path ? `${path}.${k}` : k, cuts);
  return out;
}

/** What a result with cut strings says about them, for the assistant. */
export const TRUNCATED_STRINGS_NOTE =
  `strings longer than ${TEXT_MAX} characters (UTF-16 units) are cut to their first ${TEXT_MAX} followed by "…"; ` +
  'truncatedStrings lists each one (path in this result, full length): a string not listed is whole. Read the rest ' +
  `with OQL slices, e.g. SELECT toString(s)[${TEXT_MAX}:${2 * TEXT_MAX}] AS part FROM java.lang.String s WHERE s.@objectId = <objectId>, ` +
  `or classof(x).@name[${TEXT_MAX}:${2 * TEXT_MAX}] for a class name`;

/**
 * A successful result: the value as compact one-line JSON (a long beyond 2^53 with all its
 * digits), every string longer than TEXT_MAX cut, and listed in `truncatedStrings` with a note.
 */
export function jsonResult(value: unknown): CallToolResult {
  const cuts: TruncatedString[] = [];
  let out = cutStrings(compact(value), '', cuts);
  if (cuts.length > 0) {
    out = out !== null && typeof out === 'object' && !Array.isArray(out)
      ? { ...(out as Record<string, unknown>), truncatedStrings: cuts, truncatedStringsNote: TRUNCATED_STRINGS_NOTE }
      : { value: out, truncatedStrings: cuts, truncatedStringsNote: TRUNCATED_STRINGS_NOTE };
  }
  return { content: [{ type: 'text', text: stringifyJson(out) }] };
}

/** A tool error the assistant sees (the protocol call itself succeeds). */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Any failure as a tool error: OQL errors with the caret under the problem, heapql errors with
 * their stable code, and a pointer to the tool that helps when the full analysis is missing.
 */
export function failureResult(err: unknown, oql?: string): CallToolResult {
  if (isOqlError(err)) {
    const text = formatOqlError(err, oql ?? '', 'query');
    return errorResult(`OQL error: ${withAnalyzeHint(text)}`);
  }
  if (err instanceof HeapqlError) {
    if (err.code === 'ERR_CANCELLED') return errorResult('cancelled: the request was cancelled before it finished');
    return errorResult(`${err.code}: ${withAnalyzeHint(err.message)}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return errorResult(`internal error: ${message}`);
}

/** Messages written for the command line name `heapql analyze`; here the tool does it. */
function withAnalyzeHint(message: string): string {
  if (!/full analysis|full path|analyze\(\)|heapql analyze/.test(message)) return message;
  return `${message}\n(In this MCP server: call the analyze_heap tool first, then retry.)`;
}

/** Runs a tool body; whatever it throws becomes a tool error, never a crash of the server. */
export async function guarded(body: () => Promise<CallToolResult>, oql?: string): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    if (process.env.HEAPQL_DEBUG === '1' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    return failureResult(err, oql);
  }
}
