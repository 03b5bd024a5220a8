/**
 * The nearest-name search behind "no class named …" (ts/session/no-class.ts) measures no
 * candidate that cannot be near: two names are at least their difference in length apart. A
 * 1 MB name from an MCP client (describe_class) was measured against every class of the dump
 * (edit distance, length × length each) and held the server for minutes; the suggestions are
 * the same as before.
 */
import { describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ n: 0 }));
vi.mock('../ts/plan/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../ts/plan/index.js')>();
  return {
    ...real,
    editDistance: (a: string, b: string) => {
      calls.n++;
      return real.editDistance(a, b);
    },
  };
});

const { noClassMessage, closest } = await import('../ts/session/no-class.js');

const NAMES = ['java.util.HashMap', 'java.util.HashSet', 'java.lang.String', 'java.util.ArrayList', 'com.acme.Cache$Entry'];

describe('no class named …: the nearest names', () => {
  it('a typo still finds its nearest names (the same as before)', () => {
    expect(noClassMessage('java.util.HashMpa', NAMES)).toBe("no class named 'java.util.HashMpa' in this dump; did you mean java.util.HashMap, java.util.HashSet, java.util.ArrayList?");
    expect(closest('jav.lang.Strin', NAMES, 3)).toEqual(['java.lang.String']);
  });

  it('a name far longer than every class is measured against none of them', () => {
    const long = `java.util.${'Hash'.repeat(25_000)}`;
    calls.n = 0;
    expect(noClassMessage(long, NAMES)).toBe(`no class named '${long}' in this dump`);
    expect(calls.n).toBe(0);
  });
});
