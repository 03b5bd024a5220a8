// D6 of the OQL tester's report: a misspelled field read NULL, silently, where the class is known
// when the query runs: a static on class objects (`FROM java.lang.Class c`), `classof(x).NAME`,
// `FROM OBJECTS 0x…`. It is refused as an unknown instance field is, naming what exists. Rows of
// a FROM subquery are known only as they are read: when no object read has the field, the
// result says so in a note.
import { describe, expect, test } from 'vitest';

import { useKnownHeap } from './tools/known-heap.js';

const heap = useKnownHeap();

describe('refused where the class is known', () => {
  test('a static no class declares, on class objects', async () => {
    const where = 'FROM java.lang.Class c WHERE c.@displayName = "KnownHeap"';
    expect((await heap().query(`SELECT c.POINTS_ARRAY.@length ${where}`)).rows).toEqual([[1000]]);
    await expect(heap().query(`SELECT c.POINTS_ARRAYY ${where}`)).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_FIELD',
      message: expect.stringMatching(/^no class of this dump has a static field 'POINTS_ARRAYY' .*did you mean POINTS_ARRAY.*\(line 1, column 10\)$/),
    });
  });

  test('classof(x).NAME and x.@clazz.NAME: a static of the class or a superclass', async () => {
    await expect(heap().query('SELECT classof(p).NOPE FROM KnownHeap$Point p')).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_FIELD',
      message: expect.stringMatching(/^KnownHeap\$Point has no static field 'NOPE' \(its statics, with its superclasses': none\) \(line 1, column 19\)$/),
    });
    await expect(heap().query('SELECT p.@clazz.NOPE FROM KnownHeap$Point p')).rejects.toMatchObject({ code: 'ERR_UNKNOWN_FIELD' });
  });

  test('FROM OBJECTS 0x…: the fields of that object\'s class, or the statics of the class it describes', async () => {
    const [[point]] = (await heap().query('SELECT p.@objectAddress FROM KnownHeap$Point p WHERE p.x = 5')).rows as [[number]];
    const at = `0x${point.toString(16)}`;
    expect((await heap().query(`SELECT x, y FROM OBJECTS ${at}`)).rows).toEqual([[5, -5]]);
    await expect(heap().query(`SELECT x, nosuch FROM OBJECTS ${at}`)).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_FIELD',
      message: expect.stringMatching(/^KnownHeap\$Point has no field 'nosuch' \(its fields: (x, y|y, x)\) \(line 1, column 11\)$/),
    });
    // Without an alias, `p.x` reads a field `p` of the row.
    await expect(heap().query(`SELECT p.x FROM OBJECTS ${at}`)).rejects.toMatchObject({ code: 'ERR_UNKNOWN_FIELD', message: expect.stringContaining("no field 'p'") });
    const [[cls]] = (await heap().query('SELECT c.@objectAddress FROM java.lang.Class c WHERE c.@displayName = "KnownHeap"')).rows as [[number]];
    const classAt = `0x${cls.toString(16)}`;
    expect((await heap().query(`SELECT c.POINTS_ARRAY.@length FROM OBJECTS ${classAt} c`)).rows).toEqual([[1000]]);
    await expect(heap().query(`SELECT c.NOPE FROM OBJECTS ${classAt} c`)).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_FIELD',
      message: expect.stringMatching(/^KnownHeap has no static field 'NOPE' \(its statics, with its superclasses': .*POINTS_ARRAY/),
    });
  });
});

describe('noted where the rows are known only as they are read', () => {
  const sub = 'FROM (SELECT p FROM KnownHeap$Point p WHERE p.x < 3) x';

  test('a field no object of a FROM subquery has', async () => {
    const r = await heap().query(`SELECT x.nosuch ${sub}`);
    expect(r.rows).toEqual([[null], [null], [null]]);
    expect(r.note).toMatch(/^no object read had a field 'nosuch', so it is NULL on every row/);
    // Streamed: the note comes with the end of the stream.
    const it = heap().queryBatches(`SELECT x.nosuch ${sub}`);
    let next = await it.next();
    while (!next.done) next = await it.next();
    expect(next.value.note).toMatch(/field 'nosuch'/);
  });

  test('no note when some object has it', async () => {
    const r = await heap().query(`SELECT x.y ${sub}`);
    expect(r.rows).toEqual([[0], [-1], [-2]]);
    expect(r.note).toBeUndefined();
  });
});
