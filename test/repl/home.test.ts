/** `~` in a path typed at the terminal REPL (ts/repl/home.ts): the home directory, like a shell. */
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { expandHome } from '../../ts/repl/home.js';

describe('expandHome', () => {
  const home = '/home/tester';
  it('expands ~ and ~/ and leaves other paths alone', () => {
    expect(expandHome('~', home)).toBe(home);
    expect(expandHome('~/', home)).toBe(home);
    expect(expandHome('~/out.json', home)).toBe(path.join(home, 'out.json'));
    expect(expandHome('~/exports/q1.csv', home)).toBe(path.join(home, 'exports/q1.csv'));
    expect(expandHome('out.csv', home)).toBe('out.csv');
    expect(expandHome('/tmp/~/x.csv', home)).toBe('/tmp/~/x.csv');
    expect(expandHome('a~/x.csv', home)).toBe('a~/x.csv');
    expect(expandHome('./~/x.csv', home)).toBe('./~/x.csv');
  });

  it('refuses ~user with what to write instead', () => {
    expect(() => expandHome('~bob/x.csv', home)).toThrow('only ~ and ~/ are expanded (the home directory), not ~user: write the full path, or ./~bob/x.csv for a name that starts with ~');
    expect(() => expandHome('~bob', home)).toThrow('not ~user');
  });

  it('takes the home directory from the environment by default', () => {
    expect(expandHome('~/x.csv')).toBe(path.join(os.homedir(), 'x.csv'));
  });
});
