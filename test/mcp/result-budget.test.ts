/**
 * The total size budget of one MCP tool result (RESULT_MAX, ts/mcp/result.ts `jsonResult`), on
 * hand-made values: a result that would be longer keeps the first items of its lists (whole
 * rows, as many as fit), says which lists were cut and how many items each returned of how
 * many, lists only the cut strings it still holds, and lets the tool correct its own counts.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

import { RESULT_MAX, TEXT_MAX } from '../../ts/mcp/limits.js';
import { errorResult, jsonResult, TRUNCATED_LISTS_NOTE, type ResultFit } from '../../ts/mcp/result.js';

const text = (r: CallToolResult) => (r.content as { text: string }[])[0]!.text;
const cell = (i: number, j: number) => `${i}:${j}:${'x'.repeat(3 * TEXT_MAX)}`;

/** 500 rows of three cells of 3 × TEXT_MAX characters (cut to TEXT_MAX each): about 3 MB before the budget. */
function bigQuery() {
  const rows = Array.from({ length: 500 }, (_, i) => [cell(i, 0), cell(i, 1), cell(i, 2)]);
  return { columns: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], rows, rowCount: 500, truncated: false };
}

const queryFit: ResultFit = {
  rest: 'For the rest: page.',
  whole: (path) => path === 'columns' || /^rows\[\d+\]$/.test(path),
  adjust: (value, cut) => {
    const rows = cut.find((c) => c.path === 'rows');
    if (rows) {
      value.rowCount = rows.returned;
      value.truncated = true;
    }
  },
};

describe('jsonResult within RESULT_MAX', () => {
  it('RESULT_MAX is well above TEXT_MAX (a row of several cut cells fits)', () => {
    expect(RESULT_MAX).toBeGreaterThanOrEqual(20 * TEXT_MAX);
  });

  it('a result within the budget is as before: no truncatedLists', () => {
    const r = jsonResult({ rows: [[1, 'a'], [2, 'b']], rowCount: 2 }, queryFit);
    expect(JSON.parse(text(r))).toEqual({ rows: [[1, 'a'], [2, 'b']], rowCount: 2 });
  });

  it('500 rows of long cells: whole rows dropped from the end, as many as fit, and the result says so', () => {
    const r = jsonResult(bigQuery(), queryFit);
    expect(r.isError).toBeFalsy();
    const out = text(r);
    expect(out.length).toBeLessThanOrEqual(RESULT_MAX);
    const json = JSON.parse(out);
    const n = json.rows.length;
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(500);
    // As many as fit: one row more would not (a row is three cut cells and their three cut entries).
    expect(out.length + 3 * (TEXT_MAX + 60)).toBeGreaterThan(RESULT_MAX);
    // Whole rows, the first ones, each with its three cells.
    json.rows.forEach((row: string[], i: number) => expect(row.map((c) => c.slice(0, c.indexOf(':', c.indexOf(':') + 1)))).toEqual([`${i}:0`, `${i}:1`, `${i}:2`]));
    expect(json.columns).toHaveLength(3);
    expect(json.truncatedLists).toEqual([{ path: 'rows', returned: n, total: 500 }]);
    expect(json.truncatedListsNote).toBe(`${TRUNCATED_LISTS_NOTE} For the rest: page.`);
    expect(json.truncatedListsNote).toContain(`longer than ${RESULT_MAX} characters`);
    // The tool's own counts follow.
    expect(json.rowCount).toBe(n);
    expect(json.truncated).toBe(true);
    // Cut strings: exactly those of the rows returned.
    expect(json.truncatedStrings).toHaveLength(3 * n);
    expect(json.truncatedStrings.every((t: { row: number }) => t.row < n)).toBe(true);
    expect(json.truncatedStrings[0]).toEqual({ path: 'rows[0][0]', row: 0, column: 0, length: cell(0, 0).length });
  });

  it('several lists of one level keep the same number of items; short lists and those marked whole are never cut', () => {
    const fields = Array.from({ length: 300 }, (_, i) => ({ name: `f${i}`, value: 'v'.repeat(1000) }));
    const referents = { total: 3, items: [1, 2, 3] };
    const value = { fields, referents, gcRoots: ['a', 'b'], path: Array.from({ length: 200 }, () => 'p'.repeat(1000)) };
    const json = JSON.parse(text(jsonResult(value, { rest: 'More: ask.' })));
    const k = json.fields.length;
    expect(k).toBeGreaterThan(3);
    expect(json.path).toHaveLength(k);
    expect(json.referents.items).toEqual([1, 2, 3]);
    expect(json.gcRoots).toEqual(['a', 'b']);
    expect(json.truncatedLists).toEqual([
      { path: 'fields', returned: k, total: 300 },
      { path: 'path', returned: k, total: 200 },
    ]);
    expect(json.truncatedListsNote.endsWith(' More: ask.')).toBe(true);
  });

  it('lists inside lists: the innermost are cut first, the same number of items each, and listed', () => {
    const threads = Array.from({ length: 50 }, (_, i) => ({ name: `t${i}`, frames: Array.from({ length: 100 }, () => 'f'.repeat(500)) }));
    const json = JSON.parse(text(jsonResult({ threads })));
    // Every thread, each with the first k frames.
    expect(json.threads).toHaveLength(50);
    const k = json.threads[0].frames.length;
    expect(k).toBeGreaterThanOrEqual(1);
    expect(json.threads.every((t: { frames: string[] }) => t.frames.length === k)).toBe(true);
    expect(json.truncatedLists).toEqual(json.threads.map((_: unknown, i: number) => ({ path: `threads[${i}].frames`, returned: k, total: 100 })));
    // Without a fit of its own, the tool's limits are named.
    expect(json.truncatedListsNote).toContain("the tool's limit arguments");
  });

  it('when not one item of each inner list fits, the outer list is cut too (rather than every inner list emptied)', () => {
    const threads = Array.from({ length: 200 }, (_, i) => ({ name: `t${i}`, frames: Array.from({ length: 100 }, () => 'f'.repeat(1000)) }));
    const out = text(jsonResult({ threads }));
    expect(out.length).toBeLessThanOrEqual(RESULT_MAX);
    const json = JSON.parse(out);
    const k = json.threads.length;
    expect(k).toBeGreaterThan(1);
    expect(k).toBeLessThan(200);
    expect(json.threads.every((t: { frames: string[] }) => t.frames.length === k)).toBe(true);
    expect(json.truncatedLists[0]).toEqual({ path: 'threads', returned: k, total: 200 });
    expect(json.truncatedLists.slice(1)).toEqual(json.threads.map((_: unknown, i: number) => ({ path: `threads[${i}].frames`, returned: k, total: 100 })));
  });

  it('a result that cannot fit even with its lists empty is a tool error saying how to ask for less', () => {
    const wide = { columns: Array.from({ length: 100 }, (_, i) => ({ name: `c${i}`.padEnd(1500, '_') })), rows: [[1]] };
    const r = jsonResult(wide, queryFit);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(new RegExp(`^the result would be longer than ${RESULT_MAX} characters even with every list empty .*For the rest: page\\.$`));
  });

  it('a tool error quoting the dump is held to the budget too', () => {
    const message = `Demo has no field 'x' (its fields: ${'f'.repeat(3 * RESULT_MAX)})`;
    const out = text(errorResult(message));
    expect(out.length).toBeLessThanOrEqual(RESULT_MAX);
    expect(out.length).toBeGreaterThan(RESULT_MAX - 100);
    expect(out.endsWith(`… (the message is cut: ${message.length} characters in all)`)).toBe(true);
    expect(text(errorResult('short'))).toBe('short');
  });
});
