// INSTANCEOF an interface finds nothing (a heap dump records no implemented interfaces, as in
// Eclipse MAT): the result says so in its note instead of a silent empty answer.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { heapql } from './tools/run.js';

const root = path.resolve(__dirname, '..');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');

describe('INSTANCEOF a class that looks like an interface (library)', () => {
  let heap: HeapSession;
  beforeAll(async () => {
    heap = await openHeap(known);
  });
  afterAll(() => heap?.close());

  it('a source: COUNT(*) 0 with a note naming the interface and an implementing class', async () => {
    const r = await heap.query('SELECT COUNT(*) FROM INSTANCEOF java.util.Map');
    expect(r.rows).toEqual([[0]]);
    expect(r.note).toBe(
      'java.util.Map has no instances or subclasses in this dump and looks like an interface: heap dumps do not record ' +
        'implemented interfaces, so INSTANCEOF an interface finds nothing; use INSTANCEOF an implementing class ' +
        '(e.g. java.util.AbstractMap) or FROM "<regex>" over class names (e.g. FROM ".*Map")',
    );
  });

  it('a predicate, a subquery, several interfaces; no skeleton class to suggest', async () => {
    const p = await heap.query('SELECT m FROM java.util.HashMap m WHERE m INSTANCEOF java.lang.Cloneable');
    expect(p.rowCount).toBe(0);
    expect(p.note).toMatch(/^java\.lang\.Cloneable has no instances or subclasses in this dump and looks like an interface: .*use INSTANCEOF an implementing class or FROM "<regex>" over class names \(e\.g\. FROM "\.\*Cloneable"\)$/);
    const sub = await heap.query('SELECT COUNT(*) FROM java.util.HashMap m WHERE m IN (SELECT x FROM INSTANCEOF java.lang.Runnable x)');
    expect(sub.note).toMatch(/^java\.lang\.Runnable has no instances/);
    const two = await heap.query('SELECT COUNT(*) FROM INSTANCEOF java.util.Collection c WHERE c INSTANCEOF java.util.List');
    expect(two.note).toMatch(/^java\.util\.Collection and java\.util\.List have no instances or subclasses in this dump and look like interfaces: .*\(e\.g\. java\.util\.AbstractCollection\)/);
  });

  it('no note for real classes: abstract with subclasses, with instances, java.lang.Object, exact-class FROM, arrays', async () => {
    for (const q of [
      'SELECT COUNT(*) FROM INSTANCEOF java.util.AbstractMap',
      'SELECT COUNT(*) FROM INSTANCEOF java.util.HashMap',
      'SELECT COUNT(*) FROM INSTANCEOF java.lang.Object',
      'SELECT COUNT(*) FROM java.util.HashMap m WHERE m INSTANCEOF java.lang.Object',
      'SELECT COUNT(*) FROM java.util.Map',
      'SELECT COUNT(*) FROM INSTANCEOF java.lang.Object[]',
    ]) {
      const r = await heap.query(q);
      expect(r.note, q).toBeUndefined();
    }
  });

  it('INSTANCEOF "<regex>" that matches only classes that look like interfaces: the same note, naming the pattern', async () => {
    const r = await heap.query('SELECT COUNT(*) FROM INSTANCEOF "java\\.util\\.Ma[p]"');
    expect(r.rows).toEqual([[0]]);
    expect(r.note).toBe(
      'INSTANCEOF "java\\.util\\.Ma[p]" matches only java.util.Map, which has no instances or subclasses in this dump and looks like an interface: ' +
        'heap dumps do not record implemented interfaces, so INSTANCEOF an interface finds nothing; use INSTANCEOF an implementing class ' +
        '(e.g. java.util.AbstractMap) or FROM "<regex>" over class names (e.g. FROM ".*Map")',
    );
    const p = await heap.query('SELECT m FROM java.util.HashMap m WHERE m INSTANCEOF "java\\.lang\\.(Cloneable|Runnable)"');
    expect(p.rowCount).toBe(0);
    expect(p.note).toMatch(/^INSTANCEOF "java\\\.lang\\\.\(Cloneable\|Runnable\)" matches only java\.lang\.Cloneable and java\.lang\.Runnable, which have no instances or subclasses in this dump and look like interfaces: .*use INSTANCEOF an implementing class or FROM "<regex>" over class names \(e\.g\. FROM "\.\*Cloneable"\)$/);
    const batches = heap.queryBatches('SELECT x FROM INSTANCEOF "java\\.util\\.Map" x');
    let next = await batches.next();
    while (!next.done) next = await batches.next();
    expect(next.value.note).toMatch(/^INSTANCEOF "java\\\.util\\\.Map" matches only java\.util\.Map, which has no instances/);
    // A pattern that matches one real class besides gives no note: what it finds is not nothing.
    for (const q of ['SELECT COUNT(*) FROM INSTANCEOF "java\\.util\\.(Abstract)?Map"', 'SELECT COUNT(*) FROM INSTANCEOF "java\\.util\\.HashMap"', 'SELECT COUNT(*) FROM "java\\.util\\.Map"']) {
      expect((await heap.query(q)).note, q).toBeUndefined();
    }
  });

  it('a streamed query ends with the same note', async () => {
    const batches = heap.queryBatches('SELECT x FROM INSTANCEOF java.util.Map x');
    let next = await batches.next();
    while (!next.done) next = await batches.next();
    expect(next.value.note).toMatch(/^java\.util\.Map has no instances or subclasses/);
  });
});

describe('INSTANCEOF an interface on the command line', () => {
  it('the JSON result and the table carry the note', async () => {
    const json = await heapql(['query', known, '--no-cache', '--format', 'json', '--query', 'SELECT COUNT(*) FROM INSTANCEOF java.util.Map']);
    expect(json.code).toBe(0);
    const [result] = JSON.parse(json.stdout) as { rows: unknown[][]; note?: string }[];
    expect(result!.rows).toEqual([[0]]);
    expect(result!.note).toMatch(/^java\.util\.Map has no instances or subclasses in this dump and looks like an interface/);
    const table = await heapql(['query', known, '--no-cache', '--query', 'SELECT o FROM INSTANCEOF java.lang.Runnable o']);
    expect(table.stdout).toContain('(0 rows)\nnote: java.lang.Runnable has no instances or subclasses in this dump and looks like an interface');
    const plain = await heapql(['query', known, '--no-cache', '--format', 'json', '--query', 'SELECT COUNT(*) FROM INSTANCEOF java.util.AbstractMap']);
    expect((JSON.parse(plain.stdout) as { note?: string }[])[0]!.note).toBeUndefined();
  });
});
