/**
 * A dump with no objects (the demo dump cut before its heap data): every front says an object id
 * "does not exist (the heap has no objects)", not "objects 0 to -1" (the HTTP server) nor
 * "objects 0 to 0" (the addon's look-ups), the words the library gives; and a heap with objects
 * still names its range.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { call } from '../ts/native/index.js';
import { buildSummary, renderSummary } from '../ts/report/summary.js';
import { createApp } from '../ts/server/app.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const PORT = 7070;
const NO_OBJECTS = 'object 0 does not exist (the heap has no objects)';

let dir: string;
let empty: HeapSession;
let whole: HeapSession;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-empty-heap-'));
  const file = path.join(dir, 'no-heap.hprof');
  // The header and the first records: no HEAP DUMP record, so no object.
  writeFileSync(file, readFileSync(demo).subarray(0, 100));
  empty = await openHeap(file, { noCache: true });
  whole = await openHeap(demo, { noCache: true });
  expect(empty.info().objectCount).toBe(0);
  expect(whole.info().objectCount).toBeGreaterThan(1);
});
afterAll(() => {
  empty?.close();
  whole?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an object id on a heap with no objects', () => {
  test('HTTP: GET /objects/0 answers 404 "the heap has no objects"', async () => {
    const app = createApp(empty, { port: PORT });
    const res = await app.request(`http://127.0.0.1:${PORT}/objects/0`, { headers: { host: `127.0.0.1:${PORT}` } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(NO_OBJECTS);
    // With objects: their range.
    const count = whole.info().objectCount;
    const other = createApp(whole, { port: PORT });
    const past = await other.request(`http://127.0.0.1:${PORT}/objects/${count}`, { headers: { host: `127.0.0.1:${PORT}` } });
    expect(((await past.json()) as { error: { message: string } }).error.message).toBe(`object ${count} does not exist (the heap has objects 0 to ${count - 1})`);
  });

  test('the addon\'s look-ups (under the library\'s own check): ERR_NO_SUCH_OBJECT "the heap has no objects"', async () => {
    for (const lookup of [(): Promise<unknown> => empty.handle.object(0), (): Promise<unknown> => empty.handle.referents(0, 5)]) {
      // call(): the addon's error as the library throws it (its code out of the message).
      await expect(call(lookup)).rejects.toMatchObject({ code: 'ERR_NO_SUCH_OBJECT', message: NO_OBJECTS });
    }
    const count = whole.info().objectCount;
    await expect(call(() => whole.handle.object(count))).rejects.toMatchObject({
      code: 'ERR_NO_SUCH_OBJECT',
      message: `object ${count} does not exist (the heap has objects 0 to ${count - 1})`,
    });
  });

  test('the library: the same words', async () => {
    await expect(empty.object(0)).rejects.toMatchObject({ code: 'ERR_NO_SUCH_OBJECT', message: NO_OBJECTS });
  });
});

describe('the summary of a heap with no objects', () => {
  test('says there is no class to rank instead of an empty "Top 0 classes" table', () => {
    const text = renderSummary(buildSummary(empty));
    expect(text).toContain('No objects in the heap: no classes by shallow size');
    expect(text).not.toContain('Top 0 classes');
    expect(renderSummary(buildSummary(whole))).toMatch(/Top \d+ classes by shallow size/);
  });
});
