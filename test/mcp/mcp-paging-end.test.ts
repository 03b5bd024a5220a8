/**
 * A page asked past the end of a list says so: list_classes with an `offset` past the matching
 * classes, inspect_object with a `fieldOffset` past the last field. Before, both answered an
 * empty list and nothing more, which read like a pattern that matched no class or an object
 * without fields.
 */
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { embedded, type Embedded } from './embedded.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

describe('heapql mcp: paging past the end', () => {
  let s: Embedded;
  beforeAll(async () => {
    s = await embedded(demo);
  });
  afterAll(async () => {
    await s.close();
  });

  const json = async (name: string, args: Record<string, unknown>) => {
    const answer = await s.call(name, args);
    expect(answer.isError, answer.texts[0]).toBe(false);
    return JSON.parse(answer.texts[0]!);
  };

  it('list_classes: an offset past the matching classes is said, with the offsets there are', async () => {
    const all = await json('list_classes', { pattern: 'demo$', limit: 500 });
    expect(all.matching).toBeGreaterThan(0);
    expect(all).not.toHaveProperty('note');
    const last = await json('list_classes', { pattern: 'demo$', offset: all.matching - 1 });
    expect(last.classes).toHaveLength(1);
    expect(last).not.toHaveProperty('note');
    const past = await json('list_classes', { pattern: 'demo$', offset: all.matching });
    expect(past).toEqual({
      matching: all.matching,
      offset: all.matching,
      classes: [],
      note: `offset ${all.matching} is past the end: ${all.matching} classes match, at offsets 0 to ${all.matching - 1}`,
    });
    // No class matching is no paging matter.
    expect(await json('list_classes', { pattern: 'no such class at all' })).toEqual({ matching: 0, offset: 0, classes: [] });
  });

  it('inspect_object: a fieldOffset past the last field is said, with the offsets there are', async () => {
    // The demo's HashMap of 400 sessions: 8 fields.
    const whole = await json('inspect_object', { object: 16232, include: ['fields'] });
    expect(whole.fieldCount).toBe(8);
    expect(whole).not.toHaveProperty('fieldsNote');
    const past = await json('inspect_object', { object: 16232, include: ['fields'], fieldOffset: 100 });
    expect(past.fields).toEqual([]);
    expect(past.fieldsNote).toBe('fieldOffset 100 is past the last field: the object has 8, at offsets 0 to 7');
    const last = await json('inspect_object', { object: 16232, include: ['fields'], fieldOffset: 7 });
    expect(last.fields).toHaveLength(1);
    expect(last).not.toHaveProperty('fieldsNote');
  });
});
