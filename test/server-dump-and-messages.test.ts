/**
 * The HTTP server (in process, `app.request`) on what its first tester found: which dump it
 * serves (`dumpId`, `--dump N`, the `x-heapql-dump` header) and the refusal of a look-up with an
 * object id of another dump; the words of the full-path look-ups while the analysis runs, and
 * the same words for the executor's ERR_NEEDS_ANALYSIS; a dump cut short on disk (GET /status
 * still answers, the advice said once); a `limit` beyond a double; two statements in one body;
 * a `-- @viz` line left out of the answer's `oql`, and one the result cannot draw said in its
 * `note`; the banner with a hostile file name.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { HeapqlError } from '../ts/errors.js';
import { openHeap, type HeapSession } from '../ts/index.js';
import { banner, createApp } from '../ts/server/app.js';
import { writeRenamedDump } from './tools/renamed-dump.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const PORT = 7070;
const BASE = `http://127.0.0.1:${PORT}`;
type App = ReturnType<typeof createApp>;

function get(app: App, p: string) {
  return app.request(`${BASE}${p}`, { headers: { host: `127.0.0.1:${PORT}` } });
}
function post(app: App, p: string, body?: string, headers: Record<string, string> = {}) {
  return app.request(`${BASE}${p}`, { method: 'POST', body, headers: { host: `127.0.0.1:${PORT}`, ...headers } });
}
async function errorOf(res: Response, status: number, kind: string): Promise<string> {
  const body = (await res.json()) as { ok: boolean; error: { kind: string; message: string } };
  expect({ status: res.status, kind: body.error?.kind }, body.error?.message).toEqual({ status, kind });
  return body.error.message;
}
const count = (text: string, part: string) => text.split(part).length - 1;

/** demo.hprof with its heap dump records twice: a file of two heap dumps. */
function writeTwoDumps(out: string): void {
  const data = readFileSync(demo);
  let pos = data.indexOf(0) + 1 + 12;
  const heap: Buffer[] = [];
  while (pos < data.length) {
    const end = pos + 9 + data.readUInt32BE(pos + 5);
    if ([0x0c, 0x1c, 0x2c].includes(data[pos]!)) heap.push(data.subarray(pos, end));
    pos = end;
  }
  writeFileSync(out, Buffer.concat([data, ...heap]));
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-server-dump-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('which dump the server serves', () => {
  const sessions: HeapSession[] = [];
  const open = async (file: string, dump?: number) => {
    const s = await openHeap(file, { noCache: true, ...(dump !== undefined ? { dump } : {}) });
    sessions.push(s);
    return createApp(s, { port: PORT });
  };
  afterAll(() => sessions.forEach((s) => s.close()));

  test('GET /status names the dump (dumpId, dumpNumber, dumpCount); every answer carries it in x-heapql-dump', async () => {
    const app = await open(demo);
    const status = (await (await get(app, '/status')).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ dump: demo, dumpId: expect.stringMatching(/^[0-9a-f]{16}$/), dumpNumber: 1, dumpCount: 1 });
    for (const res of [await get(app, '/status'), await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session'), await get(app, '/objects/999999999'), await get(app, '/nope')]) {
      expect(res.headers.get('x-heapql-dump')).toBe(status.dumpId);
    }
    // The same file opened again (a restarted server) is the same dump; another file is not.
    const again = (await (await get(await open(demo), '/status')).json()) as Record<string, unknown>;
    expect(again.dumpId).toBe(status.dumpId);
    const other = path.join(dir, 'renamed.hprof');
    expect(writeRenamedDump(demo, other, { Demo$Session: 'Demo$Sessions' })).toBe(1);
    const renamed = (await (await get(await open(other), '/status')).json()) as Record<string, unknown>;
    expect(renamed.dumpId).not.toBe(status.dumpId);
  });

  test('a file of two heap dumps: /status says which one is served (--dump N), and the two are different dumps', async () => {
    const two = path.join(dir, 'two.hprof');
    writeTwoDumps(two);
    const first = (await (await get(await open(two), '/status')).json()) as Record<string, unknown>;
    const second = (await (await get(await open(two, 1), '/status')).json()) as Record<string, unknown>;
    expect(first).toMatchObject({ dumpNumber: 1, dumpCount: 2 });
    expect(second).toMatchObject({ dumpNumber: 2, dumpCount: 2 });
    expect(second.dumpId).not.toBe(first.dumpId);
  });

  test('a look-up with ?dump= of another dump answers 409 dump_changed, never that object; its own dump answers', async () => {
    const app = await open(demo);
    const { dumpId } = (await (await get(app, '/status')).json()) as { dumpId: string };
    expect((await get(app, `/objects/1?dump=${dumpId}`)).status).toBe(200);
    for (const p of ['/objects/1', '/objects/1/referents', '/objects/1/referrers', '/objects/1/path', '/objects/1/dominator', '/objects/resolve?spec=%231']) {
      const message = await errorOf(await get(app, `${p}${p.includes('?') ? '&' : '?'}dump=0123456789abcdef`), 409, 'dump_changed');
      expect(message).toMatch(/^the server now serves another dump \(.*demo\.hprof, dumpId [0-9a-f]{16}\) than the one this object id came from \(dumpId 0123456789abcdef\).*run the query again$/);
    }
  });
});

describe('look-ups that need the full analysis', () => {
  let session: HeapSession;
  let app: App;
  let release: () => void = () => {};
  beforeAll(async () => {
    session = await openHeap(demo);
    // The analysis starts for real only when the test lets it: until then it is "running".
    const handle = session.handle as unknown as { analyze: (...a: unknown[]) => Promise<unknown> };
    const real = handle.analyze.bind(handle);
    const gate = new Promise<void>((r) => (release = r));
    handle.analyze = async (...a: unknown[]) => {
      await gate;
      return real(...a);
    };
    app = createApp(session, { port: PORT });
  });
  afterAll(() => {
    release();
    session.close();
  });

  test('before the analysis: POST /analyze; while it runs: the words of POST /query (running, retry once ready), not "run analyze()"', async () => {
    for (const tail of ['/path', '/referrers', '/dominator']) {
      const message = await errorOf(await get(app, `/objects/1${tail}`), 400, 'query');
      expect(message).toMatch(/need the full analysis: POST \/analyze to run the full analysis, then retry once GET \/status says ready$/);
      expect(message).not.toMatch(/analyze\(\)|!analyze/);
    }
    expect(await (await post(app, '/analyze')).json()).toEqual({ ok: true, status: 'started' });
    const query = await errorOf(await post(app, '/query', 'SELECT s.@retainedHeapSize FROM Demo$Session s'), 400, 'query');
    // The first line (the place and the reason); the query's line and the caret follow.
    expect(query).toMatch(/^query:1:8: @retainedHeapSize requires the full analysis pipeline: the full analysis is running/);
    const advice = /: (the full analysis is running .*)$/.exec(query.split('\n')[0]!)![1]!;
    expect(advice).toBe('the full analysis is running (starting); retry once GET /status says ready');
    for (const tail of ['/path', '/referrers', '/dominator']) {
      const message = await errorOf(await get(app, `/objects/1${tail}`), 400, 'query');
      expect(message).toMatch(/^(paths to GC roots|referrers|dominators) need the full analysis: /);
      expect(message.endsWith(`: ${advice}`), message).toBe(true);
      expect(message).not.toMatch(/POST \/analyze|analyze\(\)/);
    }
    release();
    for (let i = 0; i < 100_000 && session.status.state === 'analyzing'; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await get(app, '/objects/1/path')).status).toBe(200);
  });
});

describe('ERR_NEEDS_ANALYSIS from the executor', () => {
  let session: HeapSession;
  let app: App;
  let release: () => void = () => {};
  beforeAll(async () => {
    session = await openHeap(demo, { noCache: true });
    const handle = session.handle as unknown as { analyze: (...a: unknown[]) => Promise<unknown> };
    const real = handle.analyze.bind(handle);
    const gate = new Promise<void>((r) => (release = r));
    handle.analyze = async (...a: unknown[]) => {
      await gate;
      return real(...a);
    };
    // The planner lets no full-path query through before the analysis; the executor's own
    // refusal (crates/exec/src/error.rs, its words) is what reaches the server if one gets by.
    session.queryBatches = () => {
      throw new HeapqlError(
        'ERR_NEEDS_ANALYSIS',
        'this query needs the full analysis (object graph and dominator tree); run the analysis first (`heapql analyze`, `!analyze` in the REPL, POST /analyze)',
      );
    };
    app = createApp(session, { port: PORT });
  });
  afterAll(() => {
    release();
    session.close();
  });

  test('a query says what the look-ups say, in the state now, and gives the advice once', async () => {
    const query = async () => errorOf(await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session'), 400, 'query');
    const lookup = async () => (await errorOf(await get(app, '/objects/1/referrers'), 400, 'query')).replace(/^referrers need /, '');
    expect(await query()).toBe('this query needs the full analysis (object graph and dominator tree): POST /analyze to run the full analysis, then retry once GET /status says ready');
    expect(await lookup()).toBe('the full analysis: POST /analyze to run the full analysis, then retry once GET /status says ready');
    expect(await (await post(app, '/analyze')).json()).toEqual({ ok: true, status: 'started' });
    expect(await query()).toBe('this query needs the full analysis (object graph and dominator tree): the full analysis is running (starting); retry once GET /status says ready');
    expect(await lookup()).toBe('the full analysis: the full analysis is running (starting); retry once GET /status says ready');
  });
});

describe('a dump cut short on disk after it was opened', () => {
  let session: HeapSession;
  let app: App;
  let copy: string;
  beforeAll(async () => {
    copy = path.join(dir, 'cut.hprof');
    copyFileSync(demo, copy);
    session = await openHeap(copy, { noCache: true });
    app = createApp(session, { port: PORT });
  });
  afterAll(() => session.close());

  test('GET /status still answers 200: dump_unreadable with the reason and what to do; errors say the advice once', async () => {
    const before = (await (await get(app, '/status')).json()) as Record<string, unknown>;
    truncateSync(copy, 1_000_000);
    const res = await get(app, '/status');
    expect(res.status).toBe(200);
    const status = (await res.json()) as Record<string, unknown>;
    expect(status).toMatchObject({ status: 'dump_unreadable', dump: copy, dumpId: before.dumpId, dumpNumber: 1, objects: before.objects, classes: before.classes });
    const reason = String(status.reason);
    expect(reason).toMatch(/cut short on disk since it was opened .*; start the server again on a complete copy of the dump \(to keep a dump while writing a new one/);
    const query = await errorOf(await post(app, '/query', 'SELECT toString(x.user) FROM Demo$Session x'), 500, 'dump_unreadable');
    for (const message of [reason, query]) {
      expect(count(message, 'start the server again'), message).toBe(1);
      expect(message).not.toMatch(/open it again/);
    }
  });
});

describe('request bodies', () => {
  let session: HeapSession;
  let app: App;
  beforeAll(async () => {
    session = await openHeap(demo);
    app = createApp(session, { port: PORT });
  });
  afterAll(() => session.close());

  test('"limit": 1e400 (Infinity to JSON.parse) is named as written, not as null', async () => {
    const message = await errorOf(await post(app, '/query', '{"query": "SELECT COUNT(*) FROM Demo$Session", "limit": 1e400}'), 400, 'query');
    expect(message).toBe('"limit" must be a whole number from 0 to 9007199254740991 (2^53 − 1), not 1e400 (beyond the largest number a double holds: it reads as Infinity)');
    expect(await errorOf(await post(app, '/query', '{"query": "SELECT COUNT(*) FROM Demo$Session", "limit": 1.5}'), 400, 'query')).toMatch(/, not 1\.5$/);
    expect(await errorOf(await post(app, '/query', '{"query": "SELECT COUNT(*) FROM Demo$Session", "limit": "5"}'), 400, 'query')).toMatch(/, not the string "5"$/);
  });

  test('two statements in one body: one query per request, the caret under the second', async () => {
    const message = await errorOf(await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session; SELECT COUNT(*) FROM java.lang.String'), 400, 'query');
    expect(message).toBe(
      [
        'query:1:36: one query per request: a second statement starts after the ";" at line 1, column 34',
        '  SELECT COUNT(*) FROM Demo$Session; SELECT COUNT(*) FROM java.lang.String',
        `  ${' '.repeat(35)}^^^^^^`,
        '  hint: send each query in a request of its own (a single trailing ";" is fine)',
      ].join('\n'),
    );
    // On a later line, after a directive, and through /stream too.
    expect(await errorOf(await post(app, '/stream', '-- @viz table\nSELECT COUNT(*) FROM Demo$Session;\nSELECT 1 FROM Demo$Session s'), 400, 'query')).toMatch(/^query:3:1: one query per request: a second statement starts after the ";" at line 2, column 34\n/);
    // One trailing ";" is a query; another error is the parser's.
    expect((await post(app, '/query', 'SELECT COUNT(*) FROM Demo$Session;')).status).toBe(200);
    expect(await errorOf(await post(app, '/query', 'SELECT COUNT(*) FORM Demo$Session'), 400, 'query')).not.toMatch(/one query per request/);
  });

  test('a -- @viz line is not left in the answer\'s oql (as a blank line)', async () => {
    const res = (await (await post(app, '/query', '-- @viz piechart\nSELECT COUNT(*) AS n FROM Demo$Session')).json()) as { oql: string; viz: unknown };
    expect(res).toMatchObject({ oql: 'SELECT COUNT(*) AS n FROM Demo$Session', viz: { kind: 'piechart' } });
    const inside = (await (await post(app, '/query', JSON.stringify({ query: '-- sessions\n-- @viz histogram\nSELECT COUNT(*) AS n FROM Demo$Session' }))).json()) as { oql: string };
    expect(inside.oql).toBe('-- sessions\nSELECT COUNT(*) AS n FROM Demo$Session');
    // An error still points into the text as written.
    expect(await errorOf(await post(app, '/query', '-- @viz piechart\nSELECT s FORM Demo$Session s'), 400, 'query')).toMatch(/^query:2:10: /);
  });
  test('a -- @viz directive the result cannot draw: the answer\'s note says why, as the REPL and the CLI warn', async () => {
    const grouped = 'SELECT toString(s.user) AS user, COUNT(*) AS n FROM Demo$Session s GROUP BY toString(s.user)';
    const note = async (body: string, headers: Record<string, string> = {}) => ((await (await post(app, '/query', body, headers)).json()) as { note?: string }).note;
    const missing = '@viz value=nosuch: no such column (columns: user, n)';
    expect(await note(`-- @viz histogram value=nosuch\n${grouped}`)).toBe(missing);
    expect(await note(JSON.stringify({ query: grouped, viz: { kind: 'histogram', value: 'nosuch' } }), { 'content-type': 'application/json' })).toBe(missing);
    expect(await note(`-- @viz histogram value=user\n${grouped}`)).toBe('@viz value=user: column "user" is not numeric');
    expect(await note(`-- @viz bogus\n${grouped}`)).toMatch(/^@viz directive ignored: .*bogus.*; showing a table$/);
    // A chart that can be drawn, or none asked for: no note.
    expect(await note(`-- @viz histogram label=user value=n\n${grouped}`)).toBeUndefined();
    expect(await note(grouped)).toBeUndefined();
    // A streamed answer (more than 64 KiB of rows) says it after its rows.
    const res = await post(app, '/query', '-- @viz piechart value=nosuch\nSELECT x, x.@usedHeapSize AS size FROM INSTANCEOF java.lang.Object x');
    const text = await res.text();
    expect(text.length).toBeGreaterThan(65536);
    expect((JSON.parse(text) as { note?: string }).note).toBe('@viz value=nosuch: no such column (columns: x, size)');
  });
});

describe('the banner', () => {
  test('a file name with a line break and a right-to-left override is shown escaped', async () => {
    const sub = path.join(dir, 'w<b>');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(sub, { recursive: true });
    const file = path.join(sub, 'fake\nline \u202egpj.hprof');
    copyFileSync(demo, file);
    const session = await openHeap(file, { noCache: true });
    try {
      const text = banner(session, 7070);
      expect(text).toContain(`heap dump ${sub}/fake\\nline \\u202egpj.hprof\n`);
      expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      expect(text.split('\n')[0]).toMatch(/^heapql \S+: heap dump .*gpj\.hprof$/);
    } finally {
      session.close();
    }
  });
});
