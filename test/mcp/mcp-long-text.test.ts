/**
 * `heapql mcp` on a dump with a class name of a megabyte and a field name of 100,000 characters
 * (the demo dump with those names rewritten): no tool result carries a string longer than the
 * cap (TEXT_MAX), each cut string is listed in `truncatedStrings` with where it is and its full
 * length, and the rest of a cut value can be read through OQL. Driven by the MCP SDK's client
 * over stdio, as an assistant would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { TEXT_MAX } from '../../ts/mcp/limits.js';
import { startRenamedServer, type RenamedServer } from './renamed-server.js';

const LONG_CLASS = `Demo$Session${'L'.repeat(1_000_000)}$End`;
const LONG_FIELD = `user${'f'.repeat(100_000)}`;

/** Every string in a JSON value with its path, as the server's `truncatedStrings` spells paths. */
function strings(value: unknown, p = '', out: [string, string][] = []): [string, string][] {
  if (typeof value === 'string') out.push([p, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, `${p}[${i}]`, out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, p ? `${p}.${k}` : k, out);
  return out;
}

describe('heapql mcp with huge names in the dump', () => {
  let server: RenamedServer;

  beforeAll(async () => {
    server = await startRenamedServer({ Demo$Session: LONG_CLASS, user: LONG_FIELD });
  });
  afterAll(async () => {
    await server?.close();
  });

  /**
   * Calls a tool and checks the cap: the answer is within the result budget, no string in it is
   * longer than the cap and its `…`, and exactly the cut strings (those ending in `…` at the
   * cap's length) are listed, each with its full length.
   */
  async function call(name: string, args: Record<string, unknown> = {}): Promise<any> {
    const json = await server.call(name, args);
    const all = strings(json);
    for (const [, s] of all) expect(s.length).toBeLessThanOrEqual(TEXT_MAX + 1);
    const cut = all.filter(([p, s]) => !p.startsWith('truncatedStrings') && s.length === TEXT_MAX + 1 && s.endsWith('…')).map(([p]) => p);
    expect((json.truncatedStrings ?? []).map((t: { path: string }) => t.path).sort()).toEqual(cut.sort());
    if (cut.length) {
      expect(json.truncatedStringsNote).toContain(`longer than ${TEXT_MAX} characters`);
      expect(json.truncatedStringsNote).toContain(`toString(s)[${TEXT_MAX}:`);
    }
    return json;
  }

  it('says the cap in the tool descriptions', async () => {
    const { tools } = await server.client.listTools();
    for (const name of ['run_oql', 'run_named_query', 'list_classes', 'describe_class', 'inspect_object', 'get_report_section', 'describe_dump', 'compare_with_baseline']) {
      expect(tools.find((t) => t.name === name)!.description).toContain(`longer than ${TEXT_MAX} characters`);
    }
  });

  it('run_oql with maxRows 1: the 1 MB cells are cut and listed; the rest is read with an OQL slice', async () => {
    const query =
      'SELECT x, classof(x).@name AS name, classof(x).@name.@length AS length, x.@objectId AS id FROM INSTANCEOF java.lang.Object x ' +
      'WHERE classof(x).@name LIKE "Demo\\$SessionLLL.*"';
    const r = await call('run_oql', { query, maxRows: 1 });
    expect(r.rows).toHaveLength(1);
    expect(r.truncated).toBe(true);
    const [ref, name, length] = r.rows[0];
    expect(length).toBe(LONG_CLASS.length);
    expect(name).toBe(`${LONG_CLASS.slice(0, TEXT_MAX)}…`);
    expect(ref.className).toBe(`${LONG_CLASS.slice(0, TEXT_MAX)}…`);
    expect(r.truncatedStrings).toEqual(
      expect.arrayContaining([
        { path: 'rows[0][0].className', row: 0, column: 0, length: LONG_CLASS.length },
        { path: 'rows[0][1]', row: 0, column: 1, length: LONG_CLASS.length },
      ]),
    );
    // The end of the name, through OQL, as the note says.
    const tail = await call('run_oql', {
      query: `SELECT classof(x).@name[${LONG_CLASS.length - 10}:${LONG_CLASS.length}] AS tail FROM INSTANCEOF java.lang.Object x WHERE x.@objectId = ${r.rows[0][3]}`,
    });
    expect(tail.rows).toEqual([[LONG_CLASS.slice(-10)]]);
    expect(tail.truncatedStrings).toBeUndefined();
  });

  it('run_named_query: class cells cut and listed', async () => {
    const r = await call('run_named_query', { name: 'top-classes-by-size', maxRows: 500 });
    const label = r.truncatedStrings.find((t: { path: string }) => /^rows\[\d+\]\[0\]\.label$/.test(t.path));
    // `class <name> @ 0x…`
    expect(label).toMatchObject({ column: 0, length: expect.any(Number) });
    expect(label.length).toBeGreaterThan(LONG_CLASS.length);
    expect(r.rows[label.row][0].label).toBe(`class ${LONG_CLASS}`.slice(0, TEXT_MAX) + '…');
  });

  it('list_classes, describe_class, inspect_object: names and field names cut and listed', async () => {
    const listed = await call('list_classes', { pattern: 'LLLLLLLL' });
    expect(listed.classes).toHaveLength(1);
    expect(listed.truncatedStrings).toEqual([{ path: 'classes[0].className', length: LONG_CLASS.length }]);

    const described = await call('describe_class', { name: LONG_CLASS });
    const paths = described.truncatedStrings.map((t: { path: string }) => t.path);
    expect(paths).toContain('classes[0].name');
    const field = described.classes[0].fields.findIndex((f: { name: string }) => f.name.startsWith('userfff'));
    expect(described.truncatedStrings).toContainEqual({ path: `classes[0].fields[${field}].name`, length: LONG_FIELD.length });

    const { rows } = await call('run_oql', { query: 'SELECT x.@objectId AS id FROM INSTANCEOF java.lang.Object x WHERE classof(x).@name LIKE "Demo\\$SessionLLL.*"', maxRows: 1 });
    const view = await call('inspect_object', { object: rows[0][0], include: ['fields', 'referents'] });
    expect(view.truncatedStrings).toContainEqual({ path: 'object.className', length: LONG_CLASS.length });
    expect(view.truncatedStrings.some((t: { path: string; length: number }) => /^fields\[\d+\]\.name$/.test(t.path) && t.length === LONG_FIELD.length)).toBe(true);
  });

  it('compare_with_baseline and the report sections after the analysis', async () => {
    const compared = await call('compare_with_baseline', { pattern: 'Demo$Session' });
    expect(compared.truncatedStrings.length).toBeGreaterThanOrEqual(1);
    expect(compared.truncatedStrings.every((t: { length: number }) => t.length === LONG_CLASS.length)).toBe(true);
    await call('analyze_heap');
    const overview = await call('get_report_section', { section: 'overview', limit: 100 });
    expect(overview.truncatedStrings.some((t: { path: string }) => /^classHistogram\.rows\[\d+\]\.className$/.test(t.path))).toBe(true);
    const suspects = await call('get_report_section', { section: 'leak_suspects', limit: 100 });
    expect(suspects.truncatedStrings.length).toBeGreaterThanOrEqual(1);
    await call('get_report_section', { section: 'top_consumers', limit: 100 });
    await call('get_report_section', { section: 'waste', limit: 100 });
  });
});
