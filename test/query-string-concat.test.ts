// D5 of the OQL tester's report: `+` with a java.lang.String object concatenated only with a
// string literal; String object + String object and String object + number gave NULL. As in
// Java, `+` with a String on either side concatenates, the other side as its text.
import { expect, test } from 'vitest';

import { useKnownHeap } from './tools/known-heap.js';

const heap = useKnownHeap();

test('a String object concatenates with a String object, a number, a boolean and a literal', async () => {
  const r = await heap().query(
    'SELECT t.ascii + t.ascii AS a, t.ascii + 1 AS b, 2 + t.latin1 AS c, t.ascii + (1 = 1) AS d, t.empty + t.utf16 AS e, "<" + t.ascii + ">" AS f FROM KnownHeap$Texts t',
  );
  expect(r.rows).toEqual([['hello, heaphello, heap', 'hello, heap1', '2grüße', 'hello, heaptrue', '日本語', '<hello, heap>']]);
});

test('NULL and an object that is no String stay NULL (its text is unknown, as toString(x) is NULL)', async () => {
  const r = await heap().query('SELECT a.words[2] + a.words[0] AS n, a.objects[0] + a.words[0] AS o, a.words[0] + a.words[3] AS w FROM KnownHeap$ArrayHolder a');
  expect(r.rows).toEqual([[null, null, 'alphagamma']]);
});
