/**
 * `heapql mcp` holds every tool result to RESULT_MAX characters, on the demo dump with long names
 * (Demo$Session and 60 `sun.*` and `jdk.*` classes renamed to names of 3,000 characters, each cut to
 * TEXT_MAX): 400 rows of two such cells are over a megabyte, so run_oql, list_classes and
 * compare_with_baseline return the first rows that fit, say how many of how many, and the rest
 * is read the way the note says (paging by objectId, offset = nextOffset). Driven by the MCP
 * SDK's client over stdio, as an assistant would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RESULT_MAX, TEXT_MAX } from '../../ts/mcp/limits.js';
import { openHeap } from '../../ts/session/index.js';
import { demo, startRenamedServer, type RenamedServer } from './renamed-server.js';

const SESSION = `Demo$Session${'S'.repeat(3000)}`;
const SUFFIX = 'W'.repeat(3000);
const RENAMED = 60;
/** The Demo$Session rows, in objectId order, after `WHERE … > <id>`. */
const sessions = (after: number) =>
  'SELECT x, classof(x).@name AS name, x.@objectId AS id FROM INSTANCEOF java.lang.Object x ' +
  `WHERE classof(x).@name LIKE "Demo\\$SessionSSS.*" AND x.@objectId > ${after} ORDER BY x.@objectId`;

describe('heapql mcp: a tool result holds at most RESULT_MAX characters', () => {
  let server: RenamedServer;
  const call = (name: string, args?: Record<string, unknown>) => server.call(name, args);

  beforeAll(async () => {
    const heap = await openHeap(demo, { noCache: true });
    // Classes with instances (compare_with_baseline compares those), of the JDK's internals.
    const internal = [...new Set(heap.classHistogram().filter((r) => r.count > 0).map((r) => r.className))]
      .filter((n) => /^(sun|jdk)\./.test(n) && !n.endsWith(']'))
      .sort()
      .slice(0, RENAMED);
    await heap.close();
    expect(internal).toHaveLength(RENAMED);
    const names: Record<string, string> = { Demo$Session: SESSION };
    for (const n of internal) names[n.replace(/\./g, '/')] = n.replace(/\./g, '/') + SUFFIX;
    server = await startRenamedServer(names);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('says the budget in the tool descriptions and the instructions', async () => {
    const { tools } = await server.client.listTools();
    for (const name of ['run_oql', 'run_named_query', 'list_classes', 'describe_class', 'inspect_object', 'get_report_section', 'describe_dump', 'compare_with_baseline']) {
      expect(tools.find((t) => t.name === name)!.description).toContain(`at most ${RESULT_MAX} characters`);
    }
    expect(server.client.getInstructions()).toContain(`longer than ${RESULT_MAX} characters`);
  });

  it('run_oql: 400 rows of long cells come back as the first rows that fit; paging by objectId reads the rest', async () => {
    const first = await call('run_oql', { query: sessions(-1), maxRows: 500 });
    const n = first.rows.length;
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThan(400);
    expect(first.truncatedLists).toEqual([{ path: 'rows', returned: n, total: 400 }]);
    // All 400 rows are within maxRows: the total is the rows the query gave.
    expect(first).toMatchObject({ rowCount: n, truncated: true, totalRows: 400 });
    expect(first.truncatedNote).toContain(`only the first ${n} of 400 rows are shown`);
    expect(first.truncatedListsNote).toContain(`longer than ${RESULT_MAX} characters`);
    expect(first.truncatedListsNote).toContain('WHERE x.@objectId > <its objectId>');
    // Whole rows: every cell of each, the cut strings of those rows only.
    for (const row of first.rows) {
      expect(row).toHaveLength(3);
      expect(row[1]).toBe(`${SESSION.slice(0, TEXT_MAX)}…`);
    }
    expect(first.truncatedStrings).toHaveLength(2 * n);
    expect(first.truncatedStrings.every((t: { row: number }) => t.row < n)).toBe(true);

    // The rest, as the note says: after the last objectId returned, until no row is left out.
    const ids: number[] = first.rows.map((r: unknown[]) => r[2]);
    for (let page = 0; page < 100 && ids.length < 400; page++) {
      const next = await call('run_oql', { query: sessions(ids[ids.length - 1]!), maxRows: 500 });
      expect(next.rows.length).toBeGreaterThan(0);
      ids.push(...next.rows.map((r: unknown[]) => r[2] as number));
      if (!next.truncatedLists) expect(ids).toHaveLength(400);
    }
    expect(new Set(ids).size).toBe(400);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('list_classes: the first classes that fit, nextOffset where the next page starts', async () => {
    const first = await call('list_classes', { pattern: 'WWWWWWWW', limit: 500, sortBy: 'name' });
    const n = first.classes.length;
    expect(first.matching).toBe(RENAMED);
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThan(RENAMED);
    expect(first.truncatedLists).toEqual([{ path: 'classes', returned: n, total: RENAMED }]);
    expect(first.nextOffset).toBe(n);
    expect(first.truncatedListsNote).toContain('offset = nextOffset');
    const names: string[] = first.classes.map((c: { className: string }) => c.className);
    for (let offset = first.nextOffset; offset !== undefined; ) {
      const page = await call('list_classes', { pattern: 'WWWWWWWW', limit: 500, sortBy: 'name', offset });
      names.push(...page.classes.map((c: { className: string }) => c.className));
      offset = page.nextOffset;
    }
    expect(names).toHaveLength(RENAMED);
    expect(new Set(names).size).toBe(RENAMED);
  });

  it('compare_with_baseline: the first rows that fit, truncated, with how many matched', async () => {
    const c = await call('compare_with_baseline', { pattern: 'WWWWWWWW', changedOnly: false, limit: 500 });
    const n = c.rows.length;
    expect(c.matchingRows).toBe(RENAMED);
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThan(RENAMED);
    expect(c.truncated).toBe(true);
    expect(c.truncatedLists).toEqual([{ path: 'rows', returned: n, total: RENAMED }]);
    expect(c.truncatedListsNote).toContain('pattern');
  });

  it('every other tool stays within the budget too', async () => {
    await call('describe_dump');
    await call('run_named_query', { name: 'top-classes-by-size', maxRows: 500 });
    await call('describe_class', { name: SESSION });
    const { rows } = await call('run_oql', { query: sessions(-1), maxRows: 1 });
    await call('inspect_object', { object: rows[0][2], fieldLimit: 500, referenceLimit: 200 });
    await call('analyze_heap');
    for (const section of ['overview', 'leak_suspects', 'top_consumers', 'threads', 'waste', 'duplicate_strings']) {
      await call('get_report_section', { section, limit: 100 });
    }
  });
});
