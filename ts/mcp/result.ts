/**
 * What a tool hands back: compact JSON text (one line, object references shortened), or an MCP
 * tool error (`isError`) with a message an assistant can act on. A tool never throws past here.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { HeapqlError } from '../errors.js';
import { formatOqlError, isOqlError, isOqlNameError, OqlNameError, OqlPlanError, type OqlError } from '../oql/errors.js';
import { stringifyJson } from '../query/json.js';
import { headOf } from '../report/format.js';
import { RESULT_MAX, TEXT_MAX } from './limits.js';

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

/** A list a tool result carries cut (see RESULT_MAX): where it is, and its items returned and in all. */
export interface TruncatedList {
  /** Where in the result: `rows`, `classes[0].fields`, `threads[2].frames`. */
  path: string;
  returned: number;
  total: number;
}

/** How one tool's result is cut to RESULT_MAX (see `jsonResult`). */
export interface ResultFit {
  /** How to get what a cut list left out with this tool: the end of `truncatedListsNote`. */
  rest: string;
  /**
   * Arrays that are no list of items and are never cut, nor any list in them (a query row's
   * cells, the columns), by path.
   */
  whole?: (path: string) => boolean;
  /** Brings the result's own fields in line with its cut lists (a row count, the next offset). */
  adjust?: (value: Record<string, unknown>, cut: TruncatedList[]) => void;
}

const ANY_TOOL: ResultFit = { rest: "For the rest: ask for fewer items (the tool's limit arguments)." };

/** What a result with cut lists says about them, for the assistant (then how to get the rest). */
export const TRUNCATED_LISTS_NOTE =
  `the whole result would be longer than ${RESULT_MAX} characters, so lists in it keep only their first items, as many ` +
  'as fit (the innermost lists first, each to the same number of items): truncatedLists lists each list cut (path in ' +
  'this result, items returned, items in all); a list not listed is whole.';

/**
 * Records the level of each list of `value` that may be cut (every array but `fit.whole` and
 * those in them): 0 for one whose items hold no such list (a query's rows, a thread's frames), 1
 * for one whose items hold lists of level 0 (the threads, the waste categories), and so on.
 * Returns the highest. A whole array is not walked (a query's cells may hold 500 references
 * each).
 */
function listLevels(value: unknown, path: string, fit: ResultFit, levels: Map<unknown[], number>): number {
  if (Array.isArray(value)) {
    if (fit.whole?.(path)) return -1;
    const inner = value.reduce((max: number, v, i) => Math.max(max, listLevels(v, `${path}[${i}]`, fit, levels)), -1);
    levels.set(value, inner + 1);
    return inner + 1;
  }
  if (value === null || typeof value !== 'object') return -1;
  let max = -1;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) max = Math.max(max, listLevels(v, path ? `${path}.${key}` : key, fit, levels));
  return max;
}

/** How lists are cut: those of `levels` up to `level` keep their first `k` items. */
interface Cap {
  k: number;
  level: number;
  levels: Map<unknown[], number>;
}

/** The value with its lists cut (`cap`), each cut recorded with its path. */
function capLists(value: unknown, path: string, cap: Cap, cut: TruncatedList[]): unknown {
  if (Array.isArray(value)) {
    const level = cap.levels.get(value);
    const kept = level !== undefined && level <= cap.level && value.length > cap.k ? value.slice(0, cap.k) : value;
    if (kept.length < value.length) cut.push({ path, returned: kept.length, total: value.length });
    return kept.map((v, i) => capLists(v, `${path}[${i}]`, cap, cut));
  }
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) out[key] = capLists(v, path ? `${path}.${key}` : key, cap, cut);
  return out;
}

/** The JSON text of a compacted value with its lists cut (`cap`; null: none) and its strings cut to TEXT_MAX. */
function render(value: unknown, cap: Cap | null, fit: ResultFit): string {
  const lists: TruncatedList[] = [];
  let capped = cap === null ? value : capLists(value, '', cap, lists);
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (lists.length > 0 && isObject(capped)) fit.adjust?.(capped, lists);
  const cuts: TruncatedString[] = [];
  capped = cutStrings(capped, '', cuts);
  const notes = {
    ...(cuts.length > 0 ? { truncatedStrings: cuts, truncatedStringsNote: TRUNCATED_STRINGS_NOTE } : {}),
    ...(lists.length > 0 ? { truncatedLists: lists, truncatedListsNote: `${TRUNCATED_LISTS_NOTE} ${fit.rest}` } : {}),
  };
  if (Object.keys(notes).length === 0) return stringifyJson(capped);
  return stringifyJson(isObject(capped) ? { ...capped, ...notes } : { value: capped, ...notes });
}

/**
 * A successful result: the value as compact one-line JSON (a long beyond 2^53 with all its
 * digits), every string longer than TEXT_MAX cut and listed in `truncatedStrings` with a note.
 *
 * A result that would still be longer than RESULT_MAX has its lists cut at the end, innermost
 * first: the lists of level 0 (`listLevels`: a query's rows, a thread's frames, a waste check's
 * rows) keep their first `k` items each, the largest `k` that fits; only when not even one item
 * each fits are the lists of level 1 (the threads, the waste checks) cut too, with the same `k`,
 * and so on. Each cut list is listed in `truncatedLists` with a note ending in `fit.rest`, and
 * `fit.adjust` corrects the tool's own counts. A result that cannot fit even with its lists
 * empty is a tool error saying so.
 */
export function jsonResult(value: unknown, fit: ResultFit = ANY_TOOL): CallToolResult {
  const compacted = compact(value);
  const whole = render(compacted, null, fit);
  if (whole.length <= RESULT_MAX) return textResult(whole);
  const levels = new Map<unknown[], number>();
  const top = listLevels(compacted, '', fit, levels);
  let emptied: string | null = null;
  for (let level = 0; level <= top; level++) {
    // The text grows with k: the largest k that fits (`lo`; `hi`, the longest list, cuts
    // nothing and does not fit). Found by doubling k from 1, then bisection: the texts made stay
    // near RESULT_MAX in size, however long the whole would be (500 rows of 500 references each).
    let lo = -1;
    let hi = 0;
    for (const [list, l] of levels) if (l <= level) hi = Math.max(hi, list.length);
    let best: string | null = null;
    const fits = (k: number): boolean => {
      const text = render(compacted, { k, level, levels }, fit);
      if (text.length > RESULT_MAX) {
        hi = k;
        return false;
      }
      lo = k;
      best = text;
      return true;
    };
    for (let k = 1; k < hi && fits(k); k *= 2);
    while (hi - lo > 1) fits((lo + hi) >> 1);
    if (lo >= 1) return textResult(best!);
    // Fits only with these lists empty: cutting the lists that hold them may keep more.
    if (lo === 0) emptied ??= best;
  }
  if (emptied !== null) return textResult(emptied);
  return errorResult(
    `the result would be longer than ${RESULT_MAX} characters even with every list empty (${whole.length} characters in all). ${fit.rest}`,
  );
}

function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A tool error the assistant sees (the protocol call itself succeeds). */
export function errorResult(message: string): CallToolResult {
  // A message can quote the dump (a class's field names): held to the result budget too.
  if (message.length <= RESULT_MAX) return { content: [{ type: 'text', text: message }], isError: true };
  const said = ` (the message is cut: ${message.length} characters in all)`;
  return { content: [{ type: 'text', text: `${cutText(message, RESULT_MAX - 1 - said.length)}${said}` }], isError: true };
}

/**
 * Any failure as a tool error: OQL errors with the caret under the problem (a name the dump
 * lacks with its code too), heapql errors with their stable code, and a pointer to the tool
 * that helps when the full analysis is missing.
 */
export function failureResult(err: unknown, oql?: string): CallToolResult {
  if (isOqlNameError(err)) {
    // A field or class the dump lacks keeps its stable code, shown as a syntax error is
    // (`ERR_UNKNOWN_FIELD: query:1:10: …`, the line, the caret), in the executor's words with
    // the names JSON-quoted (its `quotedMessage`).
    const quoted = new OqlNameError(err.unknownName.quotedMessage, err.unknownName, err.pos);
    return errorResult(`${err.code}: ${formatOqlError(quoted, oql ?? '', 'query')}`);
  }
  if (isOqlError(err)) return errorResult(`OQL error: ${withAnalyzeHint(formatOqlError(withoutOtherAdvice(err), oql ?? '', 'query'))}`);
  if (err instanceof HeapqlError && err.unknownName !== undefined) return errorResult(`${err.code}: ${err.unknownName.quotedMessage}`);
  if (err instanceof HeapqlError) {
    if (err.code === 'ERR_CANCELLED') return errorResult('cancelled: the request was cancelled before it finished');
    const dumps = err.code === 'ERR_NO_SUCH_DUMP' ? /the file has (\d+) heap dump\(s\); there is no heap dump number/.exec(err.message) : null;
    if (dumps) {
      // `--dump N` past the file's heap dumps: the server was started so; no tool picks another.
      const n = Number(dumps[1]);
      return errorResult(
        `${err.code}: ${err.message}\n(In this MCP server: no tool picks the heap dump; restart the server with ${n === 1 ? '--dump 1 (or without --dump)' : `--dump 1 to --dump ${n}`} in its arguments (the client's configuration).)`,
      );
    }
    if (err.code === 'ERR_DUMP_CHANGED') {
      // "Open it again" is nothing a tool can do: the server holds the one dump it was started with.
      return errorResult(`${err.code}: ${err.message}\n(In this MCP server: no tool opens a dump; restart the server (reconnect it in the client) to read the file as it is now.)`);
    }
    return errorResult(`${err.code}: ${withAnalyzeHint(inThisServer(err.message))}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return errorResult(`internal error: ${message}`);
}

/** The planner's advice for the other fronts, at the end of a full-path reason and as its hint. */
const CLI_ADVICE = /\s*—\s*run `heapql analyze`$/;

/**
 * A query refused on the query-only path without the planner's advice for the other fronts (the
 * reason's "— run `heapql analyze`" and the hint "run `heapql analyze` or the report command; in
 * the REPL, !analyze; on the server, POST /analyze"): none of them is anything an assistant can
 * do here, where withAnalyzeHint names the tool that is.
 */
function withoutOtherAdvice(err: OqlError): OqlError {
  if (!(err instanceof OqlPlanError) || !CLI_ADVICE.test(err.reason)) return err;
  const hint = err.hint !== null && /heapql analyze/.test(err.hint) ? null : err.hint;
  return new OqlPlanError(err.reason.replace(CLI_ADVICE, ''), err.pos, hint);
}

/** The command line's `heapql summary <dump>`, as the session's errors advise it. */
const SUMMARY_ADVICE = /`heapql summary` shows what the file holds/g;

/**
 * A session message with the command line's advice said as this server's tool: `heapql summary`
 * (what a dump with no objects holds) is describe_dump here, which lists the dump's warnings.
 */
export function inThisServer(message: string): string {
  return message.replace(SUMMARY_ADVICE, 'describe_dump shows what the file holds (its warnings say where its data ends)');
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
