/**
 * Ctrl-C that lands after a query's last row was written (`heapql query`, a long result
 * streamed to a slow reader): nothing was left to stop, so the result ends as it would have,
 * with its row-count footer, and no "not every result was written" (it was). Driven through
 * the CLI's own writer (ts/cli/query-output.ts) with a stdout that drains only when told, and
 * an AbortController standing for the Ctrl-C handler's.
 */
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeQueryResults, type OutputJob } from '../../ts/cli/query-output.js';
import { openHeap, type HeapSession } from '../../ts/session/index.js';

const demo = path.resolve(__dirname, '../../fixtures/demo/demo.hprof');
/** More rows than a result printed whole (WHOLE_ROWS): it is streamed, a batch at a time. */
const QUERY = 'SELECT s FROM java.lang.String s';

let heap: HeapSession;
let total: number;
beforeAll(async () => {
  heap = await openHeap(demo);
  total = (await heap.query('SELECT COUNT(*) FROM java.lang.String s')).rows[0]![0] as number;
  expect(total).toBeGreaterThan(2000);
});
afterAll(() => heap.close());

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The rows of the query's table in `text`. */
const rowsIn = (text: string) => text.split('\n').filter((l) => l.startsWith('java.lang.String @')).length;

/**
 * A reader that takes every write at once (next tick), but after the one that holds the last
 * row takes its time: the Ctrl-C (`interrupt`) comes while that write drains.
 */
function interruptedReader() {
  const interrupt = new AbortController();
  let text = '';
  let interrupted = false;
  const stdout = new Writable({
    highWaterMark: 1,
    write(chunk, _encoding, done) {
      text += String(chunk);
      if (rowsIn(text) === total && !interrupted) {
        interrupted = true;
        setTimeout(() => {
          interrupt.abort();
          setTimeout(done, 20);
        }, 200);
      } else setImmediate(done);
    },
  });
  return { stdout, interrupt, text: () => text, interrupted: () => interrupted };
}

describe('Ctrl-C after the last row', () => {
  it('heapql query: a Ctrl-C while the last rows drain to a slow reader leaves the result whole, footer included', async () => {
    const reader = interruptedReader();
    const errors: string[] = [];
    const job: OutputJob = { oql: QUERY, name: 'q1', prepared: heap.prepare(QUERY) };
    const code = await writeQueryResults(heap, [job], 'table', { stdout: reader.stdout, stderr: { write: (t: string) => errors.push(t) } }, reader.interrupt.signal);
    expect(reader.interrupted()).toBe(true);
    expect(errors).toEqual([]);
    expect(code).toBe(0);
    // What was handed to the stream goes out (as process.stdout's queued writes do before exit).
    await new Promise((resolve) => reader.stdout.end(resolve));
    expect(rowsIn(reader.text())).toBe(total);
    expect(reader.text().endsWith(`(${total} rows)\n`)).toBe(true);
  });

  it('a Ctrl-C while the next query waits to start still stops there, saying so', async () => {
    const reader = interruptedReader();
    const errors: string[] = [];
    const jobs: OutputJob[] = ['q1', 'q2'].map((name) => ({ oql: QUERY, name, prepared: heap.prepare(QUERY) }));
    const code = await writeQueryResults(heap, jobs, 'table', { stdout: reader.stdout, stderr: { write: (t: string) => errors.push(t) } }, reader.interrupt.signal);
    expect(reader.interrupted()).toBe(true);
    expect(code).toBe(130);
    expect(errors).toEqual(['error: interrupted; the output stops before q2 (not every result was written)\n']);
    // The first result is whole.
    expect(rowsIn(reader.text())).toBe(total);
  });

  it('a stream whose signal aborts after its last batch was taken and its scan ended ends as it would have', async () => {
    const controller = new AbortController();
    const batches = heap.queryBatches(QUERY, { signal: controller.signal, batchRows: 1000 });
    let rows = 0;
    while (rows < total) {
      const step = await batches.next();
      expect(step.done).toBe(false);
      if (!step.done) rows += step.value.rows.length;
    }
    // The scan's end reaches JavaScript meanwhile.
    await wait(200);
    controller.abort();
    const last = await batches.next();
    expect(last.done).toBe(true);
    expect(last.value).toMatchObject({ truncated: false, columns: [{ name: 's', type: 'object' }] });
  });

  it('one that aborts with rows still to come ends with ERR_CANCELLED, as before', async () => {
    const controller = new AbortController();
    const batches = heap.queryBatches(QUERY, { signal: controller.signal, batchRows: 1000 });
    await batches.next();
    await wait(200);
    controller.abort();
    await expect(batches.next()).rejects.toMatchObject({ code: 'ERR_CANCELLED' });
  });
});
