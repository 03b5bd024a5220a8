// INSTANCEOF an interface finds nothing (a heap dump records no implemented interfaces, as in
// Eclipse MAT): the result says so in its note instead of a silent empty answer. The executor
// gives the note (crates/exec/src/source.rs, `interface_note`), for a name as for a pattern, so
// every front has it once: the library, the command line, the HTTP server, the MCP server.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { createApp } from '../ts/server/app.js';
import { embedded } from './mcp/embedded.js';
import { heapql } from './tools/run.js';

const root = path.resolve(__dirname, '..');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk17-coops.hprof');

const MAP_NOTE =
  'INSTANCEOF java.util.Map finds nothing: java.util.Map has no instances or subclasses in this dump and looks like an interface, ' +
  'and heap dumps do not record implemented interfaces; use INSTANCEOF an implementing class ' +
  '(e.g. java.util.AbstractMap) or FROM "<regex>" over class names (e.g. FROM ".*Map")';

describe('INSTANCEOF a class that looks like an interface (library)', () => {
  let heap: HeapSession;
  beforeAll(async () => {
    heap = await openHeap(known);
  });
  afterAll(() => heap?.close());

  it('a source: COUNT(*) 0 with a note naming the interface and an implementing class', async () => {
    const r = await heap.query('SELECT COUNT(*) FROM INSTANCEOF java.util.Map');
    expect(r.rows).toEqual([[0]]);
    expect(r.note).toBe(MAP_NOTE);
  });

  it('a predicate, a subquery, several interfaces; no skeleton class to suggest', async () => {
    const p = await heap.query('SELECT m FROM java.util.HashMap m WHERE m INSTANCEOF java.lang.Cloneable');
    expect(p.rowCount).toBe(0);
    expect(p.note).toMatch(/^INSTANCEOF java\.lang\.Cloneable finds nothing: java\.lang\.Cloneable has no instances or subclasses in this dump and looks like an interface, .*use INSTANCEOF an implementing class or FROM "<regex>" over class names \(e\.g\. FROM "\.\*Cloneable"\)$/);
    const sub = await heap.query('SELECT COUNT(*) FROM java.util.HashMap m WHERE m IN (SELECT x FROM INSTANCEOF java.lang.Runnable x)');
    expect(sub.note).toMatch(/^INSTANCEOF java\.lang\.Runnable finds nothing: java\.lang\.Runnable has no instances/);
    // Two classes: a note each, each with its own skeleton class.
    const two = await heap.query('SELECT COUNT(*) FROM INSTANCEOF java.util.Collection c WHERE c INSTANCEOF java.util.List');
    expect(two.note).toContain('INSTANCEOF java.util.Collection finds nothing: java.util.Collection has no instances or subclasses in this dump and looks like an interface, ');
    expect(two.note).toContain('(e.g. java.util.AbstractCollection)');
    expect(two.note).toContain('INSTANCEOF java.util.List finds nothing: java.util.List has no instances or subclasses in this dump and looks like an interface, ');
    expect(two.note).toContain('(e.g. java.util.AbstractList)');
    expect(two.note?.match(/finds nothing/g)).toHaveLength(2);
    // The same class named in the source, a predicate and a subquery: the note once.
    const again = await heap.query('SELECT COUNT(*) FROM INSTANCEOF java.util.Map m WHERE m INSTANCEOF java.util.Map OR m IN (SELECT x FROM INSTANCEOF java.util.Map x)');
    expect(again.note).toBe(MAP_NOTE);
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
      'INSTANCEOF "java\\.util\\.Ma[p]" finds nothing: java.util.Map has no instances or subclasses in this dump and looks like an interface, ' +
        'and heap dumps do not record implemented interfaces; use INSTANCEOF an implementing class ' +
        '(e.g. java.util.AbstractMap) or FROM "<regex>" over class names (e.g. FROM ".*Map")',
    );
    const p = await heap.query('SELECT m FROM java.util.HashMap m WHERE m INSTANCEOF "java\\.lang\\.(Cloneable|Runnable)"');
    expect(p.rowCount).toBe(0);
    expect(p.note).toMatch(/^INSTANCEOF "java\\\.lang\\\.\(Cloneable\|Runnable\)" finds nothing: java\.lang\.Cloneable and java\.lang\.Runnable have no instances or subclasses in this dump and look like interfaces, .*use INSTANCEOF an implementing class or FROM "<regex>" over class names \(e\.g\. FROM "\.\*Cloneable"\)$/);
    const batches = heap.queryBatches('SELECT x FROM INSTANCEOF "java\\.util\\.Map" x');
    let next = await batches.next();
    while (!next.done) next = await batches.next();
    expect(next.value.note).toMatch(/^INSTANCEOF "java\\\.util\\\.Map" finds nothing: java\.util\.Map has no instances/);
    // A pattern that matches one real class besides gives no note: what it finds is not nothing.
    for (const q of ['SELECT COUNT(*) FROM INSTANCEOF "java\\.util\\.(Abstract)?Map"', 'SELECT COUNT(*) FROM INSTANCEOF "java\\.util\\.HashMap"', 'SELECT COUNT(*) FROM "java\\.util\\.Map"']) {
      expect((await heap.query(q)).note, q).toBeUndefined();
    }
  });

  it('a streamed query ends with the same note', async () => {
    const batches = heap.queryBatches('SELECT x FROM INSTANCEOF java.util.Map x');
    let next = await batches.next();
    while (!next.done) next = await batches.next();
    expect(next.value.note).toBe(MAP_NOTE);
  });
});

describe('INSTANCEOF an interface on the command line', () => {
  it('the JSON result and the table carry the note', async () => {
    const json = await heapql(['query', known, '--no-cache', '--format', 'json', '--query', 'SELECT COUNT(*) FROM INSTANCEOF java.util.Map']);
    expect(json.code).toBe(0);
    const [result] = JSON.parse(json.stdout) as { rows: unknown[][]; note?: string }[];
    expect(result!.rows).toEqual([[0]]);
    expect(result!.note).toBe(MAP_NOTE);
    const table = await heapql(['query', known, '--no-cache', '--query', 'SELECT o FROM INSTANCEOF java.lang.Runnable o']);
    expect(table.stdout).toContain('(0 rows)\nnote: INSTANCEOF java.lang.Runnable finds nothing: java.lang.Runnable has no instances or subclasses in this dump and looks like an interface');
    expect(table.stdout.match(/finds nothing/g)).toHaveLength(1);
    const plain = await heapql(['query', known, '--no-cache', '--format', 'json', '--query', 'SELECT COUNT(*) FROM INSTANCEOF java.util.AbstractMap']);
    expect((JSON.parse(plain.stdout) as { note?: string }[])[0]!.note).toBeUndefined();
  });
});

describe('INSTANCEOF an interface through the servers', () => {
  it('the HTTP server\'s /query answer carries the note once; a real class none', async () => {
    const heap = await openHeap(known);
    try {
      const app = createApp(heap, { port: 7070 });
      const note = async (query: string) => {
        const res = await app.request('http://127.0.0.1:7070/query', { method: 'POST', body: query, headers: { host: '127.0.0.1:7070' } });
        expect(res.status).toBe(200);
        return ((await res.json()) as { note?: string }).note;
      };
      expect(await note('SELECT COUNT(*) FROM INSTANCEOF java.util.Map m WHERE m INSTANCEOF java.util.Map')).toBe(MAP_NOTE);
      expect(await note('SELECT COUNT(*) FROM INSTANCEOF java.util.AbstractMap')).toBeUndefined();
    } finally {
      heap.close();
    }
  });

  it('the MCP server\'s run_oql answer carries the note once', async () => {
    const s = await embedded(known);
    try {
      const answer = await s.call('run_oql', { query: 'SELECT COUNT(*) FROM INSTANCEOF java.util.Map' });
      expect(answer.isError, answer.texts.join('\n')).toBe(false);
      expect((JSON.parse(answer.texts[0]!) as { note?: string }).note).toBe(MAP_NOTE);
      expect(answer.texts.join('\n').match(/finds nothing/g)).toHaveLength(1);
    } finally {
      await s.close();
    }
  });
});
