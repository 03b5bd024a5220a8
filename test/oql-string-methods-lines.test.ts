// startsWith / contains / endsWith are Java's: they look at every character. They are planned as
// LIKE, whose `.*` stopped at a line break, so a String holding one ("\n", a multi-line text)
// never started with, contained or ended with anything, not even "". Checked against the texts
// the dump holds, read back as they are.
import { expect, test } from 'vitest';

import { plan } from '../ts/plan/index.js';
import { useKnownHeap } from './tools/known-heap.js';

const heap = useKnownHeap();

test('a String with a line break starts with, contains and ends with what Java says it does', async () => {
  const texts = (await heap().query('SELECT toString(s) FROM java.lang.String s')).rows.map((r) => r[0] as string | null);
  const all = texts.filter((t): t is string => t !== null);
  const multiLine = all.filter((t) => t.includes('\n'));
  expect(multiLine.length).toBeGreaterThan(0);
  // A literal holds no line break: what the method adds around it must run over the break.
  const count = async (where: string) => (await heap().query(`SELECT COUNT(*) FROM java.lang.String s WHERE ${where}`)).rows[0]![0];
  expect(await count('s.startsWith("")')).toBe(all.length);
  expect(await count('s.contains("")')).toBe(all.length);
  expect(await count('s.endsWith("")')).toBe(all.length);
});

test('the pattern a method stands for runs over line breaks', () => {
  const q = plan('SELECT * FROM java.lang.String s WHERE s.startsWith("a") OR s.contains("b") OR s.endsWith("c")');
  expect(q.patterns.map((p) => p.pattern)).toEqual(['(?s)a.*', '(?s).*b.*', '(?s).*c']);
});
