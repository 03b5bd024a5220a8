// A String's label quotes its text with `"` and `\` escaped by a backslash, so the text ends
// where the quotes do (as the report's thread labels); tables show those escapes once. On the
// KnownHeap fixture dump, whose JDK holds `Invalid escape sequence: \%c \\u%04X`.
import { expect, test } from 'vitest';

import { formatTable } from '../ts/query/format.js';
import type { ObjectRef } from '../ts/query/schema.js';
import { useKnownHeap } from './tools/known-heap.js';

const heap = useKnownHeap();

test("a String's label escapes the text's backslashes (and quotes); the table shows the label's escapes once", async () => {
  const r = await heap().query("SELECT s, toString(s) AS t FROM java.lang.String s WHERE s.startsWith('Invalid escape sequence: ')");
  expect(r.rowCount).toBe(1);
  const [o, t] = r.rows[0] as [ObjectRef, string];
  expect(t).toBe('Invalid escape sequence: \\%c \\\\u%04X');
  expect(o.label).toBe(`java.lang.String @ ${o.address}  "Invalid escape sequence: \\\\%c \\\\\\\\u%04X"`);
  // The table: the label as it is (no backslash doubled again); the text column escaped.
  const row = formatTable(r, { maxCellWidth: 200 }).split('\n')[2]!;
  expect(row).toBe(`java.lang.String @ ${o.address}  "Invalid escape sequence: \\\\%c \\\\\\\\u%04X" | Invalid escape sequence: \\\\%c \\\\\\\\u%04X`);
});

test("the browser REPL's result cell shows a label's escapes once too, as the terminal's table does", async () => {
  const { cellHtml } = await import('../ts/web/view.js');
  const r = await heap().query("SELECT s FROM java.lang.String s WHERE s.startsWith('Invalid escape sequence: ')");
  const o = r.rows[0]![0] as ObjectRef;
  // The cell's text (HTML-escaped, isolated): the label's `\\%c` once, not `\\\\%c`.
  const cell = cellHtml(o, false);
  expect(cell).toContain('&quot;Invalid escape sequence: \\\\%c \\\\\\\\u%04X&quot;');
  // A list of objects (a cell holding several) the same way.
  expect(cellHtml([o, o], false)).toContain('\\\\%c \\\\\\\\u%04X&quot;, java.lang.String');
});
