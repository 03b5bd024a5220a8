/** The Node library: openHeap, query, queryStream, explain, analyze, close, cancellation. */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { openHeap, HeapqlError } from '../dist/index.js';

const known = path.resolve(__dirname, '../fixtures/dumps/KnownHeap-jdk25-coops.hprof');

describe('the heapql library', () => {
  it('opens a dump, queries it, explains a plan, and refuses use after close', async () => {
    const heap = await openHeap(known);
    const info = heap.info();
    expect(info.format).toMatch(/^JAVA PROFILE 1\.0\.[123]$/);
    expect(info.objectCount).toBeGreaterThan(1000);
    const result = await heap.query('SELECT COUNT(*) AS n FROM KnownHeap$Point');
    expect(result.columns).toEqual([{ name: 'n', type: 'number' }]);
    const direct = await heap.query('SELECT p FROM KnownHeap$Point p');
    expect(result.rows[0]![0]).toBe(direct.rowCount);
    const ref = direct.rows[0]![0] as { objectId: number; address: string; className: string; label: string };
    expect(ref.className).toBe('KnownHeap$Point');
    expect(ref.address).toMatch(/^0x[0-9a-f]+$/);
    expect(ref.label).toContain(ref.address);

    const limited = await heap.query('SELECT p FROM KnownHeap$Point p', { limit: 2 });
    expect(limited.rowCount).toBe(2);
    expect(limited.truncated).toBe(true);

    expect(heap.explain('SELECT p FROM KnownHeap$Point p WHERE p.x > 1 ORDER BY p.x LIMIT 3')).toMatch(/TopK|Sort/);
    heap.close();
    heap.close();
    await expect(heap.query('SELECT COUNT(*) FROM java.lang.String')).rejects.toMatchObject({ code: 'ERR_CLOSED' });
    expect(() => heap.status).toThrow(expect.objectContaining({ code: 'ERR_CLOSED', message: 'the heap was closed; open the dump again' }));
  });

  it('streams rows keyed by column name and stops when the loop breaks', async () => {
    const heap = await openHeap(known);
    const all = await heap.query('SELECT s, toString(s) FROM java.lang.String s');
    const seen: Record<string, unknown>[] = [];
    for await (const row of heap.queryStream('SELECT s, toString(s) FROM java.lang.String s', { batchRows: 16 })) {
      seen.push(row);
      if (seen.length === 40) break;
    }
    expect(seen).toHaveLength(40);
    expect(Object.keys(seen[0]!)).toEqual(['s', 'toString(s)']);
    expect(all.rowCount).toBeGreaterThan(40);
    // After an early break the heap is still usable.
    const again = await heap.query('SELECT COUNT(*) FROM java.lang.String');
    expect(again.rows[0]![0]).toBe(all.rowCount);
    heap.close();
  });

  it('a stream tells onProgress the objects scanned (phase query), as query() does, and nothing after it ended', async () => {
    const heap = await openHeap(known);
    const objects = heap.info().objectCount;
    const oql = 'SELECT x.@objectId AS id FROM INSTANCEOF java.lang.Object x WHERE x.@usedHeapSize > 64';
    const events: { phase: string; done: number; total: number }[] = [];
    let ended = false;
    const late: unknown[] = [];
    const onProgress = (e: { phase: string; done: number; total: number }) => (ended ? late.push(e) : events.push(e));
    let rows = 0;
    for await (const batch of heap.queryBatches(oql, { onProgress })) rows += batch.rows.length;
    ended = true;
    expect(rows).toBeGreaterThan(0);
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.phase))).toEqual(new Set(['query']));
    for (const e of events) expect(e.done).toBeLessThanOrEqual(e.total);
    expect(Math.max(...events.map((e) => e.total))).toBe(objects);
    // The row-keyed stream too.
    const streamed: unknown[] = [];
    for await (const _row of heap.queryStream(oql, { onProgress: (e) => streamed.push(e) })) void _row;
    expect(streamed.length).toBeGreaterThan(0);
    // Events the scan sent while it ended are not delivered afterwards.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(late).toEqual([]);
    // A callback that is not a function is refused, as query() refuses it.
    expect(() => heap.queryBatches(oql, { onProgress: 'log' as unknown as () => void })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT' }));
    expect(() => heap.queryStream(oql, { onProgress: 1 as unknown as () => void })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT' }));
    // The count alone (a second run, as the paged REPLs make it) tells its scan too.
    const counted: { phase: string; done: number; total: number }[] = [];
    expect((await heap.queryCount(oql, { onProgress: (e) => counted.push(e) })).rowCount).toBe(rows);
    expect(new Set(counted.map((e) => e.phase))).toEqual(new Set(['query']));
    expect(Math.max(...counted.map((e) => e.total))).toBe(objects);
    await expect(heap.queryCount(oql, { onProgress: 'log' as unknown as () => void })).rejects.toMatchObject({ code: 'ERR_ARGUMENT' });
    heap.close();
  });

  it('process.exit() ends a process whose stream waits for a reader', async () => {
    // The scan waits for the loop to take rows; without cancelling it on exit, libuv's wait for
    // its worker threads at exit would never end (the child would not exit).
    const script = `
      const { openHeap } = await import(${JSON.stringify(path.resolve(__dirname, '../dist/index.js'))});
      const heap = await openHeap(${JSON.stringify(known)});
      const rows = heap.queryStream('SELECT x FROM INSTANCEOF java.lang.Object x', { batchRows: 10 })[Symbol.asyncIterator]();
      await rows.next();
      console.log('waiting');
      process.exit(7);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(out).toContain('waiting');
    expect(code).toBe(7);
  });

  it('switches to the full path after analyze()', async () => {
    const heap = await openHeap(known);
    await expect(heap.query('SELECT l.@retainedHeapSize FROM KnownHeap$LeakyCache l')).rejects.toBeInstanceOf(HeapqlError);
    expect(heap.analyzed).toBe(false);
    const phases = new Set<string>();
    await heap.analyze({ onProgress: (p) => phases.add(p.phase) });
    expect(heap.analyzed).toBe(true);
    expect([...phases]).toEqual(expect.arrayContaining(['graph', 'dominators', 'retained']));
    const r = await heap.query('SELECT l.@retainedHeapSize AS retained FROM KnownHeap$LeakyCache l');
    // 16 buffers of 4 KiB at this fixture's lean scale (KnownHeap.java, LEAK).
    expect(r.rows[0]![0]).toBeGreaterThan(16 * 4096);
    heap.close();
  });

  it('gives the same answers with its big arrays in scratch files', async () => {
    const oql =
      'SELECT classof(x) AS class, COUNT(*) AS n, SUM(@retainedHeapSize) AS retained FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY retained DESC, class LIMIT 20';
    const answers = [];
    for (const options of [{}, { scratch: 'disk' as const }, { scratchDir: tmpdir() }]) {
      const heap = await openHeap(known, options);
      await heap.analyze();
      answers.push((await heap.query(oql)).rows);
      heap.close();
    }
    expect(answers[0]!.length).toBe(20);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('cancels through an AbortSignal with ERR_CANCELLED', async () => {
    const aborted = AbortSignal.abort();
    await expect(openHeap(known, { signal: aborted })).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    const heap = await openHeap(known);
    await expect(heap.analyze({ signal: aborted })).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
    expect(heap.analyzed).toBe(false);
    heap.close();
  });

  it('names the problem for a file that is not a dump', async () => {
    await expect(openHeap(path.resolve(__dirname, '../package.json'))).rejects.toMatchObject({
      code: 'ERR_NOT_HPROF',
      message: expect.stringContaining('is not an HPROF heap dump'),
    });
  });
});
