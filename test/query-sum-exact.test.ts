// N2 of the OQL tester's report: SUM over longs wrapped around silently (a sum past 2^63 came
// out negative, or wrong and positive). SUM now adds integers exactly and, when the total is
// beyond a Java long, gives it as a double with a note saying so; AVG agrees with it.
import { expect, test } from 'vitest';

import { useKnownHeap } from './tools/known-heap.js';

const heap = useKnownHeap();

// KnownHeap$AllPrims.l = k * 10^10 for k = 0..9; times 10^8 each fits a long (at most 9·10^18),
// their total (45·10^18) does not: wrapped around it was 8106511852580896768.
const TERM = 'p.l * 100000000';

test('a SUM beyond a long is a double, never wrapped, with a note', async () => {
  const r = await heap().query(`SELECT SUM(${TERM}) AS s, AVG(${TERM}) AS a, COUNT(*) AS n, MAX(${TERM}) AS m FROM KnownHeap$AllPrims p`);
  expect(r.rows).toEqual([[45e18, 4.5e18, 10, 9000000000000000000n]]);
  expect(r.note).toMatch(/^a SUM's exact total is beyond a Java long \(-9223372036854775808 to 9223372036854775807\): it is given as a double/);
});

test('a SUM within a long is exact and has no note, also after passing beyond one on the way', async () => {
  const r = await heap().query(`SELECT SUM(p.l * 100000000 - 4000000000000000000) AS s FROM KnownHeap$AllPrims p`);
  expect(r.rows).toEqual([[5000000000000000000n]]);
  expect(r.note).toBeUndefined();
  const ints = await heap().query('SELECT SUM(p.i) FROM KnownHeap$AllPrims p');
  expect(ints.rows).toEqual([[4500000]]);
});

test('grouped: each group its own sum, the note once', async () => {
  const r = await heap().query(`SELECT p.z, SUM(${TERM}) AS s FROM KnownHeap$AllPrims p GROUP BY p.z ORDER BY p.z`);
  // z is k % 2 == 0: odd k sum to 25·10^18, even k to 20·10^18, both beyond a long.
  expect(r.rows).toEqual([[false, 25e18], [true, 20e18]]);
  expect(r.note?.match(/SUM/g)).toHaveLength(1);
});
