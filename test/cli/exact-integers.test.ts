/**
 * Java longs beyond 2^53 end to end on the demo dump: the CLI's table, CSV and JSON, the
 * terminal REPL (table and `!save` to JSON), the HTTP server's JSON and NDJSON, and the MCP
 * server's tool results all print every digit (a double would print -6849794470754668000 and
 * 17001712275677444).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { createApp } from '../../ts/server/app.js';
import { closeTerminals, Terminal } from '../repl/pty-terminal.js';
import { heapql } from '../tools/run.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

/** java.lang.String's serialVersionUID, a static long. */
const UID_QUERY = 'SELECT classof(x).serialVersionUID AS uid FROM java.lang.String x LIMIT 1';
const UID = '-6849794470754667710';
/** createdAt * 10001 of the first two sessions: beyond 2^53, computed as i64. */
const PRODUCT_QUERY = 'SELECT s.createdAt * 10001 AS p FROM Demo$Session s LIMIT 2';
const PRODUCTS = ['17001701742354218', '17001712275677445'];
/** Aggregates over longs: the sum of all 400 products, exact (as Python's integers say). */
const SUM_QUERY = 'SELECT SUM(s.createdAt * 10001) AS total, MAX(s.createdAt * 10001) AS mx, COUNT(*) AS n FROM Demo$Session s';
const SUM = '6800686319993936200';
const MAX = '17001731599969681';
/** A mixed (list) column: a long beside a string. */
const MIXED_QUERY = '(SELECT s.createdAt * 10001 AS v FROM Demo$Session s LIMIT 1) UNION (SELECT toString(x) AS v FROM java.lang.String x LIMIT 1)';

describe('heapql query', () => {
  it('table: every digit, right-aligned', async () => {
    const r = await heapql(['query', demo, '--query', UID_QUERY, '--query', PRODUCT_QUERY, '--query', SUM_QUERY, '--query', MIXED_QUERY]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`uid\n--------------------\n${UID}\n(1 row)`);
    expect(r.stdout).toContain(`p\n-----------------\n${PRODUCTS[0]}\n${PRODUCTS[1]}\n(2 rows)`);
    expect(r.stdout).toMatch(new RegExp(`${SUM} \\| ${MAX} \\| +400\\n`));
    expect(r.stdout).toContain(`\n${PRODUCTS[0]}\n`);
    expect(r.stdout).not.toMatch(/6849794470754668000|17001712275677444/);
  });

  it('CSV and JSON: every digit; JSON values are bare integer literals', async () => {
    const csv = await heapql(['query', demo, '--format', 'csv', '--query', PRODUCT_QUERY]);
    expect(csv.stdout).toBe(`p\r\n${PRODUCTS[0]}\r\n${PRODUCTS[1]}\r\n`);
    const json = await heapql(['query', demo, '--format', 'json', '--query', UID_QUERY, '--query', SUM_QUERY, '--query', MIXED_QUERY]);
    expect(json.code).toBe(0);
    expect(json.stdout).toContain(`[\n        ${UID}\n      ]`);
    expect(json.stdout).toContain(`[\n        ${SUM},\n        ${MAX},\n        400\n      ]`);
    expect(json.stdout).toContain(`[\n        ${PRODUCTS[0]}\n      ]`);
    const results = JSON.parse(json.stdout);
    expect(results.map((r: { columns: { type: string }[] }) => r.columns[0]!.type)).toEqual(['number', 'number', 'list']);
  });
});

describe('the report', () => {
  it('JSON, Markdown and HTML query blocks: every digit', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-exact-report-'));
    for (const ext of ['json', 'md', 'html']) {
      const out = path.join(dir, `r.${ext}`);
      const r = await heapql([demo, out, '--query', UID_QUERY]);
      expect(r.code, r.stderr).toBe(0);
      const text = readFileSync(out, 'utf8');
      expect(text, ext).toMatch(ext === 'json' ? new RegExp(`\\[\\s*${UID}\\s*\\]`) : /-6,849,794,470,754,667,710/);
      expect(text).not.toMatch(/-6,?849,?794,?470,?754,?668,?000/);
    }
  });
});

describe('the terminal REPL', () => {
  it('shows and saves exact longs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-exact-'));
    const saved = path.join(dir, 'products.json');
    // Read to the end its wrapper says after the REPL, with its exit code, not to node-pty's exit event.
    const t = new Terminal(['query', demo, '--repl'], dir);
    try {
      let at = await t.waitFor('oql> ');
      t.type(`${UID_QUERY};\r`);
      at = await t.waitFor(`${UID}\n(1 row)`, at);
      t.type(`${PRODUCT_QUERY};\r`);
      at = await t.waitFor(`${PRODUCTS[1]}\n(2 rows)`, at);
      t.type('!sort p desc\r');
      at = await t.waitFor(`${PRODUCTS[1]}\n${PRODUCTS[0]}\n`, at);
      t.type(`!save ${saved}\r`);
      // Its own answer, not the prompt the !sort left on the screen.
      at = await t.waitFor('saved 2 rows', at);
      at = await t.waitFor('oql> ', at);
      t.type('\x04');
      expect(await t.exited, t.screen.slice(at)).toBe(0);
      expect(t.signal).toBeUndefined();
    } finally {
      closeTerminals();
    }
    const text = readFileSync(saved, 'utf8');
    expect(text).toContain(`[\n      ${PRODUCTS[1]}\n    ],\n    [\n      ${PRODUCTS[0]}\n    ]`);
  });
});

describe('the HTTP server', () => {
  let session: HeapSession;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    session = await openHeap(demo);
    app = createApp(session, { port: 7070, replScript: () => '' });
  });
  afterAll(() => session.close());
  const post = (p: string, body: unknown) =>
    app.request(`http://127.0.0.1:7070${p}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { host: '127.0.0.1:7070', 'content-type': 'application/json' },
    });

  it('POST /query answers JSON with every digit', async () => {
    const res = await post('/query', { query: SUM_QUERY });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const text = await res.text();
    expect(text).toContain(`"rows":[[${SUM},${MAX},400]]`);
    expect(JSON.parse(text).columns).toHaveLength(3);
  });

  it('POST /stream answers NDJSON with every digit', async () => {
    const res = await post('/stream', { query: PRODUCT_QUERY });
    expect(res.status).toBe(200);
    expect((await res.text()).split('\n')).toEqual([`{"p":${PRODUCTS[0]}}`, `{"p":${PRODUCTS[1]}}`, '']);
  });
});

describe('heapql mcp', () => {
  let client: Client;
  beforeAll(async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(root, 'bin/heapql.js'), 'mcp', demo], cwd: root, stderr: 'pipe' });
    client = new Client({ name: 'heapql-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
  });

  it('run_oql returns every digit', async () => {
    const result = await client.callTool({ name: 'run_oql', arguments: { query: `${UID_QUERY}` } }, undefined, { timeout: 2_147_483_647 });
    const text = (result.content as { text: string }[])[0]!.text;
    expect(result.isError).not.toBe(true);
    expect(text).toContain(`"rows":[[${UID}]]`);
    const sum = await client.callTool({ name: 'run_oql', arguments: { query: SUM_QUERY } }, undefined, { timeout: 2_147_483_647 });
    expect((sum.content as { text: string }[])[0]!.text).toContain(`[[${SUM},${MAX},400]]`);
  });
});
