// Integer literals beyond 2^53 are exact up to a Java long's 2^63 − 1: a `long` field can be
// compared with a big constant (they were refused, and a float literal compares as a double,
// which cannot tell 2^53 from 2^53 + 1).
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';

import { openHeap, type Heap } from '../ts/index.js';
import { plan } from '../ts/plan/index.js';

let heap: Heap;
beforeAll(async () => {
  heap = await openHeap(path.join(import.meta.dirname, '../fixtures/dumps/KnownHeap-jdk25-coops.hprof'));
});
afterAll(() => heap?.close());

test('big integer literals reach the executor with every digit', async () => {
  const r = await heap.query(
    'SELECT 9007199254740993 AS a, -9223372036854775807 AS b, 0x7fffffffffffffff AS c, 9007199254740993 > 9007199254740992 AS gt, 9007199254740993 - 1 AS d FROM KnownHeap$Point p LIMIT 1',
  );
  expect(r.rows).toEqual([[9007199254740993n, -9223372036854775807n, 9223372036854775807n, true, 9007199254740992n]]);
});

test('the plan carries them as integer literals, not rounded doubles', () => {
  const { json } = plan('SELECT * FROM KnownHeap$Point p WHERE p.x = 9007199254740993');
  expect(json).toContain('"v":9007199254740993');
});

test('beyond a long: a clear error at the literal', () => {
  expect(() => heap.prepare('SELECT * FROM KnownHeap$Point p WHERE p.x = 9223372036854775808')).toThrow(/the integer 9223372036854775808 is beyond a Java long/);
});
