// Half of a surrogate pair in a query (a JavaScript or JSON string may hold "\ud800" alone) is
// no character: the parser refuses it at its line and column for every front, where the library
// and MCP used to pass it on to the planner and answer "ERR_PLAN the plan is not valid JSON".
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OqlSyntaxError, parse } from '../ts/oql/index.js';
import { openHeap, type Heap } from '../ts/index.js';
import { rejection, thrown } from './tools/thrown.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

describe('unpaired surrogates in a query', () => {
  test('the parser names the unit, its line and column (in characters), a lone high or low half alike', () => {
    const high = thrown(() => parse('SELECT s FROM java.lang.String s\nWHERE toString(s) = "😀x\ud800"'), OqlSyntaxError, 'parsed');
    expect(high.reason).toMatch(/^unpaired surrogate U\+D800: /);
    expect({ line: high.pos.line, column: high.pos.column }).toEqual({ line: 2, column: 24 });
    const low = thrown(() => parse('SELECT "\udc00"'), OqlSyntaxError, 'parsed');
    expect(low.reason).toMatch(/^unpaired surrogate U\+DC00: /);
    expect(low.pos.column).toBe(9);
    // A whole pair is a character like any other.
    expect(() => parse('SELECT s FROM java.lang.String s WHERE toString(s) = "\ud83d\ude00"')).not.toThrow();
  });

  describe('through the library', () => {
    let heap: Heap;
    beforeAll(async () => {
      heap = await openHeap(demo);
    });
    afterAll(async () => {
      await heap?.close();
    });
    test('a query holding one is an OQL error at its place, not a plan the executor cannot read', async () => {
      const e = await rejection(heap.query('SELECT s FROM java.lang.String s WHERE toString(s) = "\ud800"'), OqlSyntaxError);
      expect(e.reason).toMatch(/^unpaired surrogate U\+D800/);
      expect(e.pos.column).toBe(55);
    });
  });
});
