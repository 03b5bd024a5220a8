/**
 * A class or field the dump lacks comes from the executor with the name and what its message
 * lists as data (`unknownName`), across the addon: the session places the error by that name
 * (an `OqlNameError`), and no front reads the name back out of the message. A dump's name with
 * a NUL in it (the addon's separator of the data) stays in the message whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { HeapqlError } from '../ts/errors.js';
import { OqlNameError } from '../ts/oql/errors.js';
import { writeRenamedDump } from './tools/renamed-dump.js';
import { rejection } from './tools/thrown.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

describe('name errors as data', () => {
  let session: HeapSession;
  let dir: string;
  let renamed: HeapSession;
  /** `Demo$SessionStore` renamed with a NUL in it. */
  const WITH_NUL = 'Demo$Session\u0000Store';

  beforeAll(async () => {
    session = await openHeap(demo);
    dir = mkdtempSync(path.join(tmpdir(), 'heapql-name-errors-'));
    const dump = path.join(dir, 'nul.hprof');
    expect(writeRenamedDump(demo, dump, { Demo$SessionStore: WITH_NUL })).toBe(1);
    renamed = await openHeap(dump, { noCache: true });
  });
  afterAll(() => {
    session?.close();
    renamed?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('an unknown field: the name, the class and its fields, the place; the message as before', async () => {
    const text = 'SELECT s.id,\n       s.nosuch\nFROM Demo$Session s';
    for (const run of [
      () => session.query(text),
      async () => {
        for await (const _row of session.queryStream(text)) void _row;
      },
    ]) {
      const err = await rejection(run(), OqlNameError);
      expect(err.code).toBe('ERR_UNKNOWN_FIELD');
      expect(err.unknownName).toEqual({ kind: 'field', name: 'nosuch', className: 'Demo$Session', classCount: 1, fields: expect.any(Array), quotedMessage: expect.any(String) });
      const fields = err.unknownName.fields!;
      expect(fields).toEqual(expect.arrayContaining(['id', 'user', 'createdAt']));
      expect(err.reason).toBe(`Demo$Session has no field 'nosuch' (its fields: ${fields.join(', ')})`);
      // The same words with every name JSON-quoted (what the MCP server says).
      expect(err.unknownName.quotedMessage).toBe(`"Demo$Session" has no field "nosuch" (its fields: ${fields.map((f) => JSON.stringify(f)).join(', ')})`);
      expect(err.pos).toEqual({ line: 2, column: 10 });
      expect(err.message).toBe(`${err.reason} (line 2, column 10)`);
      expect(err.exitCode).toBe(1);
    }
  });

  test('an unknown class: the name and the suggestions', async () => {
    const err = await rejection(session.query('SELECT COUNT(*) FROM Demo$Sessio s'), OqlNameError);
    expect(err.code).toBe('ERR_UNKNOWN_CLASS');
    expect(err.unknownName).toEqual({
      kind: 'class',
      name: 'Demo$Sessio',
      suggestions: ['Demo$Session'],
      quotedMessage: 'class "Demo$Sessio" is not in this dump; did you mean "Demo$Session"?',
    });
    expect(err.message).toBe('class Demo$Sessio is not in this dump; did you mean Demo$Session? (line 1, column 22)');
  });

  test('a static of class objects: the class and its statics', async () => {
    const err = await rejection(session.query('SELECT classof(s).NOPE FROM Demo$Session s'), OqlNameError);
    expect(err.unknownName).toMatchObject({ kind: 'static', name: 'NOPE', className: 'Demo$Session', classCount: 1 });
    expect(err.reason).toMatch(/^Demo\$Session has no static field 'NOPE' \(its statics, with its superclasses': /);
    expect(err.pos).toEqual({ line: 1, column: 19 });
  });

  test("a dump's class named with a NUL: in the message and the data whole", async () => {
    const err = await rejection(renamed.query('SELECT COUNT(*) FROM Demo$SessionStor s'), OqlNameError);
    expect(err.unknownName.suggestions).toContain(WITH_NUL);
    expect(err.reason).toMatch(/^class Demo\$SessionStor is not in this dump; did you mean .*\?$/s);
    expect(err.reason).toContain(WITH_NUL);
    expect(err.cause).toBeInstanceOf(HeapqlError);
    expect((err.cause as HeapqlError).message).toBe(err.reason);
    // Quoted, the NUL is an escape inside its JSON string.
    expect(err.unknownName.quotedMessage).toContain(JSON.stringify(WITH_NUL));
    expect(err.unknownName.quotedMessage).not.toContain('\0');
  });
});
