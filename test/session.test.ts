/**
 * The session core on the demo dump (fixtures/programs/Demo.java, facts in demo.facts.json):
 * states and events of the analysis, cancellation, planning once, and every point look-up
 * checked against what the program built.
 */
import path from 'node:path';
import { copyFileSync, mkdtempSync, readFileSync, truncateSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { HeapSession, openHeap, type ObjectRef, type SessionEvent } from '../ts/index.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const facts = JSON.parse(readFileSync(path.join(root, 'fixtures/demo/demo.facts.json'), 'utf8')) as {
  classes: { name: string; instances: number }[];
};

describe('HeapSession on demo.hprof', () => {
  let session: HeapSession;
  const events: SessionEvent[] = [];
  let sessionRef: ObjectRef;

  beforeAll(async () => {
    session = await openHeap(demo);
    session.subscribe((e) => events.push(e));
    const r = await session.query('SELECT s FROM Demo$Session s LIMIT 1');
    sessionRef = r.rows[0]![0] as ObjectRef;
  });
  afterAll(() => session.close());

  test('starts on the query-only path; full-path look-ups say what to do', async () => {
    expect(session.status).toMatchObject({ state: 'query-only', analysis: null, reachableOnly: false, error: null });
    expect(session.status.objects).toBe(session.info().objectCount);
    await expect(session.referrers(sessionRef.objectId)).rejects.toMatchObject({ code: 'ERR_NEEDS_ANALYSIS', message: expect.stringContaining('analyze') });
    await expect(session.pathToRoot(sessionRef.objectId)).rejects.toMatchObject({ code: 'ERR_NEEDS_ANALYSIS' });
    await expect(session.dominator(sessionRef.objectId)).rejects.toMatchObject({ code: 'ERR_NEEDS_ANALYSIS' });
    await expect(session.query('SELECT @retainedHeapSize FROM Demo$Session')).rejects.toMatchObject({ code: 'ERR_OQL_PLAN' });
  });

  test('a row limit: truncated only when more rows existed, at the limit too', async () => {
    const all = (await session.query('SELECT COUNT(*) FROM Demo$Session s')).rows[0]![0] as number;
    const sessions = 'SELECT s FROM Demo$Session s';
    const capped = async (q: string, limit: number) => {
      const r = await session.query(q, { limit });
      // The same through the batches, cut across batch boundaries.
      const it = session.queryBatches(q, { limit, batchRows: 7 });
      let rows = 0;
      let step = await it.next();
      for (; !step.done; step = await it.next()) rows += step.value.rows.length;
      expect([rows, step.value.truncated], `${q} with limit ${limit}, batches`).toEqual([r.rowCount, r.truncated]);
      return [r.rowCount, r.truncated];
    };
    expect(await capped(sessions, all)).toEqual([all, false]);
    expect(await capped(sessions, all - 1)).toEqual([all - 1, true]);
    expect(await capped(sessions, 0)).toEqual([0, true]);
    expect(await capped('SELECT COUNT(*) FROM Demo$Session s', 1)).toEqual([1, false]);
    expect(await capped(`${sessions} ORDER BY s.@objectAddress DESC`, all)).toEqual([all, false]);
    // `explain` shows the limit asked for, not the one row more the executor reads.
    expect(session.explain(sessions, { limit: 5 })).toMatch(/^\s*Limit 5$/m);
    // The limit overrides the query's own LIMIT, either way (the specification's rule).
    expect(await capped(`${sessions} LIMIT 10`, all)).toEqual([all, false]);
    expect(await capped(`${sessions} LIMIT ${all}`, all - 1)).toEqual([all - 1, true]);
  });

  test('a field or class the dump lacks: the error says where the query names it', async () => {
    const field = 'SELECT s.nosuch\nFROM Demo$Session s';
    await expect(session.query(field)).rejects.toMatchObject({ code: 'ERR_UNKNOWN_FIELD', message: expect.stringMatching(/ has no field 'nosuch' .*\(line 1, column 10\)$/) });
    const streamed = async () => {
      for await (const _row of session.queryStream(field)) void _row;
    };
    await expect(streamed()).rejects.toMatchObject({ code: 'ERR_UNKNOWN_FIELD', message: expect.stringMatching(/\(line 1, column 10\)$/) });
    // Named after a dot elsewhere first (`x.no`): the class, where FROM names it.
    await expect(session.query('SELECT x.no FROM  no.such.Klass x')).rejects.toMatchObject({ code: 'ERR_UNKNOWN_CLASS', message: expect.stringMatching(/^class no\.such\.Klass is not in this dump.*\(line 1, column 19\)$/) });
  });

  test('one object: class, address, sizes and its fields with names, types, values', async () => {
    const o = await session.object(sessionRef.objectId);
    expect(o.object).toEqual(sessionRef);
    expect(o.kind).toBe('instance');
    expect(o.retainedSize).toBeNull();
    const byName = Object.fromEntries(o.fields.map((f) => [f.name, f]));
    expect(Object.keys(byName).sort()).toEqual(['attributes', 'buffer', 'createdAt', 'data', 'id', 'user']);
    expect(byName.createdAt).toMatchObject({ type: 'long', declaredBy: 'Demo$Session' });
    expect(typeof byName.createdAt!.value).toBe('number');
    expect(byName.buffer!.type).toBe('object');
    expect((byName.buffer!.value as ObjectRef).label).toMatch(/^byte\[4096\] @ 0x/);
    expect((byName.id!.value as ObjectRef).label).toMatch(/"sess-/);
    expect(o.fieldCount).toBe(6);
    // The same shallow size as the query path.
    const q = await session.query(`SELECT @usedHeapSize FROM Demo$Session s WHERE @objectId = ${sessionRef.objectId}`);
    expect(o.shallowSize).toBe(q.rows[0]![0]);
    // An array's elements are its fields; a window of them can be asked for.
    const buffer = await session.object((byName.buffer!.value as ObjectRef).objectId, { fieldOffset: 10, fieldLimit: 3 });
    expect(buffer).toMatchObject({ kind: 'primitive-array', arrayLength: 4096, fieldCount: 4096 });
    expect(buffer.fields.map((f) => [f.name, f.type])).toEqual([['[10]', 'byte'], ['[11]', 'byte'], ['[12]', 'byte']]);
  });

  test('referents: the class object first, then each reference with its field', async () => {
    const refs = await session.referents(sessionRef.objectId);
    expect(refs.items[0]).toMatchObject({ field: '<class>', object: { label: expect.stringMatching(/^class Demo\$Session @/) } });
    expect(refs.items.map((r) => r.field).slice(1).sort()).toEqual(['attributes', 'buffer', 'data', 'id', 'user']);
    expect(refs.total).toBe(6);
    const two = await session.referents(sessionRef.objectId, 2);
    expect(two.items).toHaveLength(2);
    expect(two.total).toBe(6);
  });

  test('describeClass: fields with types, instance count, superclass chain', async () => {
    const [c] = await session.describeClass('Demo$Session');
    expect(c!.name).toBe('Demo$Session');
    expect(c!.superChain).toEqual(['java.lang.Object']);
    expect(c!.instances).toBe(facts.classes.find((x) => x.name === 'Demo$Session')!.instances);
    expect(c!.fields.find((f) => f.name === 'createdAt')).toMatchObject({ type: 'long', declaredBy: 'Demo$Session', value: null });
    const list = await session.describeClass('java.util.ArrayList');
    expect(list[0]!.superChain).toEqual(['java.util.AbstractList', 'java.util.AbstractCollection', 'java.lang.Object']);
    expect(list[0]!.fields.find((f) => f.name === 'modCount')).toMatchObject({ type: 'int', declaredBy: 'java.util.AbstractList' });
    const abstractList = (await session.describeClass('java.util.AbstractList'))[0]!;
    expect(abstractList.instancesWithSubclasses).toBeGreaterThanOrEqual(list[0]!.instances);
    expect(await session.describeClass('no.such.Class')).toEqual([]);
  });

  test('objects are named by index, #index, class#index or address; bad names say why', () => {
    const id = sessionRef.objectId;
    expect(session.resolveObject(String(id))).toBe(id);
    expect(session.resolveObject(`#${id}`)).toBe(id);
    expect(session.resolveObject(`Demo$Session#${id}`)).toBe(id);
    expect(session.resolveObject(sessionRef.address)).toBe(id);
    expect(() => session.resolveObject(`java.lang.String#${id}`)).toThrow(/is a Demo\$Session, not a java.lang.String/);
    expect(() => session.resolveObject('#999999999')).toThrow(/does not exist/);
    expect(() => session.resolveObject('0x1')).toThrow(/no object at address 0x1/);
    expect(() => session.resolveObject('hello')).toThrow(/names no object/);
  });

  test('a sign, a space or a hex prefix after # names no object (not a class "#-"); the class part is checked', () => {
    const id = sessionRef.objectId;
    const none = (spec: string) => ({ code: 'ERR_ARGUMENT', message: `'${spec}' names no object: write <class>#<index>, #<index> or an address 0x…` });
    for (const spec of ['#-1', '#+5', '# 5', '#0x5', '#5x', '-1', '+5', `Demo$Session#-${id}`, `Demo$Session#+${id}`, `Demo$Session #${id}`, `a#b#${id}`, '#', 'Demo$Session#']) {
      expect(() => session.resolveObject(spec), spec).toThrow(expect.objectContaining(none(spec)));
    }
    expect(() => session.resolveObject(5 as unknown as string)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT' }));
    // Names with '$', '.', '[]' and unicode letters are class names: checked against the object's class.
    expect(session.resolveObject(` Demo$Session#${id} `)).toBe(id);
    for (const cls of ['java.util.HashMap$Node', 'byte[]', 'Größe.Ü$1']) {
      expect(() => session.resolveObject(`${cls}#${id}`), cls).toThrow(expect.objectContaining({ code: 'ERR_NO_SUCH_OBJECT', message: `object ${id} is a Demo$Session, not a ${cls} (write Demo$Session#${id})` }));
    }
  });

  test('noClassMessage: the words every front gives for a class the dump does not have', () => {
    expect(session.noClassMessage('Zzqx')).toBe("no class named 'Zzqx' in this dump");
    // No class contains the simple name: the nearest names, as a typo would need.
    expect(session.noClassMessage('Demo$Sesion')).toBe("no class named 'Demo$Sesion' in this dump; did you mean Demo$Session?");
    expect(session.noClassMessage('com.acme.Session')).toMatch(/^no class named 'com\.acme\.Session' in this dump; classes containing 'Session': .*Demo\$Session/);
  });

  test('WHERE @objectId = n reads one object and answers like the scan', async () => {
    const id = sessionRef.objectId;
    const rows = async (oql: string) => (await session.query(oql)).rows;
    expect(await rows(`SELECT s FROM Demo$Session s WHERE @objectId = ${id}`)).toEqual([[sessionRef]]);
    expect(await rows(`SELECT x FROM INSTANCEOF java.lang.Object x WHERE ${id} = @objectId`)).toEqual([[sessionRef]]);
    // The same answers as a scan (a range is not narrowed).
    for (const where of [`@objectId = ${id}`, `@objectId = ${id} AND s.createdAt < 0`, `s.createdAt > 0 AND @objectId = ${id}`]) {
      const scanned = where.replace(`@objectId = ${id}`, `@objectId >= ${id} AND @objectId <= ${id}`);
      expect(await rows(`SELECT s FROM Demo$Session s WHERE ${where}`)).toEqual(await rows(`SELECT s FROM Demo$Session s WHERE ${scanned}`));
    }
    expect(await rows(`SELECT s FROM java.lang.String s WHERE @objectId = ${id}`)).toEqual([]);
    expect(await rows('SELECT s FROM Demo$Session s WHERE @objectId = 99999999')).toEqual([]);
    expect(await rows(`SELECT s FROM Demo$Session s WHERE @objectId = ${id}.5`)).toEqual([]);
    expect(await rows(`SELECT COUNT(*) FROM INSTANCEOF java.lang.Object x WHERE @objectId = ${id}`)).toEqual([[1]]);
  });

  test('a prepared query is planned once and re-planned only when the path changes', async () => {
    const prepared = session.prepare('SELECT COUNT(*) AS n FROM Demo$Session');
    expect(prepared.fullPath).toBe(false);
    const a = await session.query(prepared);
    expect(a.rows[0]![0]).toBe(400);
    expect(session.explain(prepared)).toMatch(/Aggregate|Count|Scan/i);
  });

  test('a stream runs only a few batches ahead of its reader, and stops when the reader does', async () => {
    const handle = session.handle as unknown as { executeStream: (...a: any[]) => Promise<unknown> };
    const real = handle.executeStream;
    let delivered = 0;
    let settled = false;
    handle.executeStream = (plan: string, rows: number, onBatch: (b: unknown) => void, ...rest: unknown[]) =>
      real.call(handle, plan, rows, (b: unknown) => (delivered++, onBatch(b)), ...rest).finally(() => (settled = true));
    try {
      const rows = session.queryStream('SELECT x FROM INSTANCEOF java.lang.Object x', { batchRows: 10 })[Symbol.asyncIterator]();
      expect((await rows.next()).done).toBe(false);
      // Time enough for a scan nothing holds back to reach its end (the demo has thousands of objects).
      await new Promise((r) => setTimeout(r, 500));
      expect(settled).toBe(false);
      expect(delivered).toBeLessThanOrEqual(10);
      await rows.return(undefined);
      expect(settled).toBe(true);
      expect(delivered * 10).toBeLessThan(session.status.objects);
    } finally {
      handle.executeStream = real;
    }
  });

  test('a stream whose signal aborts while it is read ends at once with ERR_CANCELLED (it hung)', async () => {
    for (const form of ['rows', 'batches'] as const) {
      const ac = new AbortController();
      let seen = 0;
      const read = (async () => {
        const q = 'SELECT s FROM java.lang.String s';
        const options = { signal: ac.signal, batchRows: 100 };
        if (form === 'rows') {
          for await (const _row of session.queryStream(q, options)) if (++seen === 250) ac.abort();
        } else {
          for await (const _batch of session.queryBatches(q, options)) if (++seen === 3) ac.abort();
        }
      })();
      // Before the fix this never settled (the test timed out).
      await expect(read).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
      // Nothing queued is handed out after the abort.
      expect(seen).toBe(form === 'rows' ? 250 : 3);
    }
    expect((await session.query('SELECT COUNT(*) FROM Demo$Session')).rows).toEqual([[400]]);
  });

  test('streamed rows keep every column when names repeat (a repeated name is numbered)', async () => {
    const text = 'SELECT x.createdAt AS a, x.@objectId AS a, x.@usedHeapSize AS "a#2" FROM Demo$Session x LIMIT 3';
    const whole = await session.query(text);
    const streamed: Record<string, unknown>[] = [];
    for await (const row of session.queryStream(text)) streamed.push(row);
    expect(streamed.map((r) => Object.keys(r))).toEqual([['a', 'a#3', 'a#2'], ['a', 'a#3', 'a#2'], ['a', 'a#3', 'a#2']]);
    expect(streamed.map((r) => [r['a'], r['a#3'], r['a#2']])).toEqual(whole.rows);
  });

  test('a cancelled analysis leaves the session usable on the query-only path', async () => {
    const controller = new AbortController();
    const run = session.analyze({ signal: controller.signal });
    expect(session.status.state).toBe('analyzing');
    controller.abort();
    await expect(run).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    expect(session.status.state).toBe('query-only');
    expect(session.analyzed).toBe(false);
    const r = await session.query('SELECT COUNT(*) FROM Demo$Session');
    expect(r.rows[0]![0]).toBe(400);
  });

  test('an abort sent after the native work finished, before JavaScript saw the result, still cancels', async () => {
    const controller = new AbortController();
    const run = session.analyze({ signal: controller.signal });
    // Block this thread long enough for the worker to finish the small demo analysis: the
    // result waits in the event loop's queue while the abort below is sent.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);
    controller.abort();
    await expect(run).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    expect(session.status.state).toBe('query-only');
    expect(session.analyzed).toBe(false);
  });

  test('analyze: analyzing → full with progress events; a second start is already_done', async () => {
    events.length = 0;
    expect(session.startAnalysis()).toBe('started');
    expect(session.startAnalysis()).toBe('already_running');
    expect(session.status.state).toBe('analyzing');
    await session.analyze();
    expect(session.status).toMatchObject({ state: 'full', analysis: { reachableOnly: false }, progress: null, error: null });
    expect(session.startAnalysis()).toBe('already_done');
    const states = events.filter((e) => e.type === 'state').map((e) => (e as { status: { state: string } }).status.state);
    expect(states).toEqual(['analyzing', 'full']);
    // Progress reports (a small dump may finish before any arrives) come only while analyzing.
    const fullAt = events.findIndex((e) => e.type === 'state' && e.status.state === 'full');
    events.forEach((e, i) => e.type === 'progress' && expect(i).toBeLessThan(fullAt));
    expect(events.filter((e) => e.type === 'progress').every((e) => e.type === 'progress' && e.task === 'analyze')).toBe(true);
  });

  test('after the analysis: referrers with fields, path to a GC root, dominator and dominated', async () => {
    const id = sessionRef.objectId;
    const referrers = await session.referrers(id);
    // A session is held by its HashMap node (the map's value) and nothing else.
    expect(referrers.total).toBe(1);
    expect(referrers.items[0]).toMatchObject({ field: 'value', object: { className: 'java.util.HashMap$Node' } });

    const path = (await session.pathToRoot(id))!;
    expect(path.at(-1)!.object.objectId).toBe(id);
    // From a root (the first step names its kinds) through the class holding the static map.
    expect(path[0]!.via).toMatch(/JNI Global|System Class|Thread|Java Local/);
    const store = path.findIndex((s) => /^class Demo\$SessionStore @/.test(s.object.label));
    expect(store).toBeGreaterThan(-1);
    expect(path[store + 1]!.via).toBe('SESSIONS');

    expect(path.every((s) => s.skipped === 0)).toBe(true);
    // A long path keeps its ends: the step after the gap says how many were left out.
    const short = (await session.pathToRoot(id, 4))!;
    expect(short).toHaveLength(4);
    expect(short.slice(0, 2)).toEqual(path.slice(0, 2));
    expect(short.slice(2).map((s) => s.object)).toEqual(path.slice(-2).map((s) => s.object));
    expect(short[2]!.skipped).toBe(path.length - 4);

    const dom = await session.dominator(id);
    expect(dom.dominator).not.toBeNull();
    expect(dom.inTree).toBe(true);
    expect(dom.top).toBeNull();
    expect(dom.children[0]!.object.label).toMatch(/^byte\[4096\]/);
    const retained = await session.query(`SELECT @retainedHeapSize FROM Demo$Session s WHERE @objectId = ${id}`);
    expect(dom.retainedSize).toBe(retained.rows[0]![0]);
    for (let i = 1; i < dom.children.length; i++) expect(dom.children[i - 1]!.retainedSize).toBeGreaterThanOrEqual(dom.children[i]!.retainedSize);
    expect(dom.childCount).toBeGreaterThanOrEqual(dom.children.length);
    const o = await session.object(id);
    expect(o.retainedSize).toBe(dom.retainedSize);
    expect(o.reachable).toBe(true);
  });

  test('the report data comes through the session', async () => {
    const sections = await session.reportData({ limit: 5 });
    expect(sections.leakSuspects.suspects.length).toBeGreaterThan(0);
    expect(sections.overview.reachableOnly).toBe(false);
  });

  test('close() stops a stream whose iterator was left neither finished nor returned', async () => {
    const s = await openHeap(demo);
    const handle = s.handle as unknown as { executeStream: (...a: any[]) => Promise<{ stopped: boolean }> };
    const real = handle.executeStream;
    let end: { stopped: boolean } | Error | null = null;
    handle.executeStream = (...a: unknown[]) =>
      real.call(handle, ...a).then(
        (r) => ((end = r), r),
        (e: Error) => {
          end = e;
          throw e;
        },
      );
    const rows = s.queryStream('SELECT x FROM INSTANCEOF java.lang.Object x', { batchRows: 10 })[Symbol.asyncIterator]();
    expect((await rows.next()).done).toBe(false);
    // The iterator is dropped here: the scan waits for a reader that never comes.
    s.close();
    for (let i = 0; i < 500 && end === null; i++) await new Promise((r) => setTimeout(r, 10));
    expect(end).not.toBeNull();
    const ended = end as { stopped: boolean } | Error | null;
    if (!(ended instanceof Error)) expect(ended!.stopped).toBe(true);
  });

  test('missing objects are one clear error', async () => {
    await expect(session.object(2 ** 31)).rejects.toMatchObject({ code: 'ERR_NO_SUCH_OBJECT', message: expect.stringContaining('does not exist') });
    await expect(session.referrers(2 ** 31)).rejects.toMatchObject({ code: 'ERR_NO_SUCH_OBJECT' });
    // Ids the addon's u32 conversion would wrap or cut to another object's are refused first.
    const n = session.info().objectCount;
    for (const id of [2 ** 32 + 5, 2 ** 40, -1, n]) {
      await expect(session.object(id), String(id)).rejects.toMatchObject({ code: 'ERR_NO_SUCH_OBJECT', message: expect.stringContaining(`0 to ${n - 1}`) });
      await expect(session.referents(id), String(id)).rejects.toMatchObject({ code: 'ERR_NO_SUCH_OBJECT' });
      await expect(session.pathToRoot(id), String(id)).rejects.toMatchObject({ code: 'ERR_NO_SUCH_OBJECT' });
      await expect(session.dominator(id), String(id)).rejects.toMatchObject({ code: 'ERR_NO_SUCH_OBJECT' });
    }
    for (const id of [1.5, Number.NaN, '5', undefined]) {
      await expect(session.object(id as number), String(id)).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: expect.stringContaining('whole number') });
    }
    await expect(session.referents(5, 2 ** 32)).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: expect.stringContaining('limit') });
    await expect(session.object(5, { fieldLimit: -1 })).rejects.toMatchObject({ code: 'ERR_ARGUMENT', message: expect.stringContaining('fieldLimit') });
    expect(() => session.resolveObject(`#${2 ** 32 + 5}`)).toThrow(/does not exist/);
    // In range, the same object as ever.
    expect((await session.object(5)).object.objectId).toBe(5);
  });

  test('a dump deleted after opening stays usable (queries, look-ups, the analysis)', async () => {
    const copy = path.join(mkdtempSync(path.join(tmpdir(), 'heapql-vanish-')), 'demo.hprof');
    copyFileSync(demo, copy);
    const s = await openHeap(copy);
    try {
      unlinkSync(copy);
      expect((await s.query('SELECT COUNT(*) FROM Demo$Session')).rows).toEqual([[400]]);
      expect((await s.object(sessionRef.objectId)).fieldCount).toBe(6);
      await s.analyze();
      expect(s.status.state).toBe('full');
    } finally {
      s.close();
    }
  });

  test('a dump cut short on disk while a query reads it ends that query with ERR_DUMP_CHANGED; the process and other dumps go on', async () => {
    // A sorted result's text is read a block of 65 536 rows at a time as the reader takes
    // them: the cut comes after the first block was read and before the second is.
    const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');
    const copy = path.join(mkdtempSync(path.join(tmpdir(), 'heapql-cut-')), 'known.hprof');
    copyFileSync(known, copy);
    const s = await openHeap(copy);
    const other = await openHeap(demo);
    try {
      let rows = 0;
      const read = async () => {
        for await (const b of s.queryBatches('SELECT toString(o) FROM INSTANCEOF java.lang.Object o ORDER BY o.@objectAddress', { batchRows: 500 })) {
          if (rows === 0) truncateSync(copy, 65_536);
          rows += b.rows.length;
        }
      };
      await expect(read()).rejects.toMatchObject({
        code: 'ERR_DUMP_CHANGED',
        message: expect.stringMatching(/^while streaming the query: .*known\.hprof: the dump file was cut short on disk since it was opened \(65536 bytes now, \d+ then\).*open it again/),
        dumpPath: copy,
      });
      // Rows read before the cut came; none read after it (they would be zeros).
      expect(rows).toBeGreaterThan(0);
      expect(rows).toBeLessThan(65_536);
      await expect(s.query('SELECT COUNT(*) FROM java.lang.String')).rejects.toMatchObject({ code: 'ERR_DUMP_CHANGED' });
      expect((await other.query('SELECT COUNT(*) FROM Demo$Session')).rows).toEqual([[400]]);
    } finally {
      s.close();
      other.close();
      unlinkSync(copy);
    }
  });

  test('a dump cut short on disk after opening is refused with ERR_DUMP_CHANGED, not read (SIGBUS)', async () => {
    const copy = path.join(mkdtempSync(path.join(tmpdir(), 'heapql-cut-')), 'demo.hprof');
    copyFileSync(demo, copy);
    const s = await openHeap(copy);
    try {
      expect((await s.query('SELECT COUNT(*) FROM Demo$Session')).rows).toEqual([[400]]);
      truncateSync(copy, 1_000_000);
      // Reading the user strings' bytes past the new end would have killed this process.
      await expect(s.query('SELECT toString(x.user) FROM Demo$Session x')).rejects.toMatchObject({
        code: 'ERR_DUMP_CHANGED',
        message: expect.stringMatching(/cut short on disk since it was opened \(1000000 bytes now, \d+ then\).*open it again/),
      });
      await expect(s.object(sessionRef.objectId)).rejects.toMatchObject({ code: 'ERR_DUMP_CHANGED' });
    } finally {
      s.close();
      unlinkSync(copy);
    }
  });
});
