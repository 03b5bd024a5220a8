// Named queries: every one parses and plans, needs the full path exactly when it says so, and
// duplicate-strings is the spec's definition.
import { describe, expect, test } from 'vitest';
import { plan } from '../ts/plan/index.js';
import { findNamedQuery, NAMED_QUERIES, suggestNamedQueries } from '../ts/query/index.js';

describe('named queries', () => {
  test('at least the reference system\'s 20 names, unique', () => {
    const names = NAMED_QUERIES.map((q) => q.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of [
      'top-classes-by-count', 'top-classes-by-size', 'largest-objects', 'object-count-total', 'heap-summary',
      'duplicate-strings', 'largest-strings', 'string-count', 'all-threads', 'thread-count', 'large-arrays',
      'large-collections', 'empty-collections', 'class-loaders', 'classes-per-loader', 'top-retained-by-class',
      'largest-retained-objects', 'leak-suspects', 'retained-threads', 'retained-summary',
    ]) expect(names).toContain(n);
  });

  for (const q of NAMED_QUERIES) {
    test(`${q.name} plans, full path = ${q.fullPath}`, () => {
      const p = plan(q.oql, { fullPath: true });
      expect(p.plan.fullPath).toBe(q.fullPath);
      if (!q.fullPath) expect(() => plan(q.oql, { fullPath: false })).not.toThrow();
      else expect(() => plan(q.oql, { fullPath: false })).toThrow(/full analysis pipeline|need the full path/);
      expect(q.description.length).toBeGreaterThan(0);
    });
  }

  test('no hierarchy query uses an exact-class FROM on an abstract root', () => {
    for (const q of NAMED_QUERIES) {
      expect(q.oql).not.toMatch(/FROM (java\.lang\.Object|java\.util\.AbstractCollection|java\.lang\.ClassLoader|java\.lang\.Thread)\b/);
    }
  });

  test('duplicate-strings: group by text, count > 1, count desc, limit 30, columns value and count', () => {
    const q = findNamedQuery('duplicate-strings')!;
    const p = plan(q.oql);
    expect(p.columns).toEqual(['value', 'count']);
    expect(p.plan.query).toMatchObject({
      op: 'select',
      source: { kind: 'class', name: 'java.lang.String', subclasses: false },
      groupBy: [{ k: 'call', fn: 'toString', args: [{ k: 'row' }] }],
      aggregates: [{ fn: 'count', arg: null, p: null }],
      having: { k: 'bin', op: '>', l: { k: 'agg', i: 0 }, r: { k: 'lit', v: 1 } },
      orderBy: [{ expr: { k: 'out', i: 1 }, desc: true }],
      limit: 30,
    });
  });

  test('suggestions for a typo', () => {
    expect(suggestNamedQueries('duplicate')).toEqual(['duplicate-strings']);
    expect(findNamedQuery('nope')).toBeUndefined();
  });
});
