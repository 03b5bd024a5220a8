import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { HeapqlError, type UnknownName } from '../ts/errors.js';
import { formatOqlError, OqlNameError, OqlSyntaxError } from '../ts/oql/errors.js';
import { configOption, findConfigPath, loadCollectionConfig, parseCollectionConfig } from '../ts/report/config.js';

let dir: string;
let cwd: string;
let home: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-config-'));
  cwd = path.join(dir, 'project');
  home = path.join(dir, 'home');
  fs.mkdirSync(cwd);
  fs.mkdirSync(path.join(home, '.config', 'heapql'), { recursive: true });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const userConfig = () => path.join(home, '.config', 'heapql', 'collections.toml');

function thrown(fn: () => unknown): HeapqlError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(HeapqlError);
    return e as HeapqlError;
  }
  throw new Error('expected an error');
}

describe('config discovery', () => {
  test('none found: null', () => {
    expect(findConfigPath({ cwd, home })).toBeNull();
    expect(loadCollectionConfig({ cwd, home })).toBeNull();
  });

  test('~/.config/heapql/collections.toml, found through $HOME', () => {
    fs.writeFileSync(userConfig(), '[[query]]\noql = "SELECT * FROM java.lang.Thread"\n');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      expect(findConfigPath({ cwd })).toBe(userConfig());
    } finally {
      process.env.HOME = saved;
    }
  });

  test('.heapql.toml in the working directory wins over the user file; an explicit path wins over both', () => {
    fs.writeFileSync(userConfig(), '');
    fs.writeFileSync(path.join(cwd, '.heapql.toml'), '');
    expect(findConfigPath({ cwd, home })).toBe(path.join(cwd, '.heapql.toml'));
    fs.writeFileSync(path.join(dir, 'team.toml'), '');
    expect(findConfigPath({ cwd, home, explicit: '../team.toml' })).toBe(path.join(dir, 'team.toml'));
  });

  test('an explicit path that does not exist or is a directory is an error', () => {
    expect(thrown(() => findConfigPath({ cwd, home, explicit: 'missing.toml' })).message).toBe('config file missing.toml does not exist');
    expect(thrown(() => findConfigPath({ cwd, home, explicit: '.' })).message).toContain('is a directory');
  });

  test('--collection-config and --config are one option', () => {
    expect(configOption('a.toml', undefined)).toBe('a.toml');
    expect(configOption(undefined, 'b.toml')).toBe('b.toml');
    expect(configOption('a.toml', './a.toml')).toBe('a.toml');
    expect(configOption(undefined, undefined)).toBeNull();
    expect(thrown(() => configOption('a.toml', 'b.toml')).code).toBe('ERR_USAGE');
  });
});

describe('config parsing', () => {
  test('[[query]] entries: multi-line oql, a leading -- @viz line, optional name', () => {
    const file = path.join(cwd, '.heapql.toml');
    fs.writeFileSync(
      file,
      [
        '# stored queries',
        '[[query]]',
        'name = "Big strings"',
        'oql = """',
        '-- @viz histogram label=value value=count cap=10',
        'SELECT toString(s) AS value, COUNT(*) AS count',
        'FROM java.lang.String s GROUP BY toString(s)"""',
        '',
        '[[query]]',
        "oql = 'SELECT * FROM java.lang.Thread'",
        '',
      ].join('\n'),
    );
    const cfg = loadCollectionConfig({ cwd, home })!;
    expect(cfg.path).toBe(file);
    expect(cfg.queries).toEqual([
      {
        name: 'Big strings',
        oql: '-- @viz histogram label=value value=count cap=10\nSELECT toString(s) AS value, COUNT(*) AS count\nFROM java.lang.String s GROUP BY toString(s)',
        source: `${file}:2`,
        file,
        lines: [
          { line: 5, column: 0, text: '-- @viz histogram label=value value=count cap=10' },
          { line: 6, column: 0, text: 'SELECT toString(s) AS value, COUNT(*) AS count' },
          { line: 7, column: 0, text: 'FROM java.lang.String s GROUP BY toString(s)"""' },
        ],
        vizSource: `${file}:5`,
      },
      { oql: 'SELECT * FROM java.lang.Thread', source: `${file}:9`, file, lines: [{ line: 10, column: 7, text: "oql = 'SELECT * FROM java.lang.Thread'" }] },
    ]);
  });

  test("where each line of an entry's oql was written, for errors: its line and column, or its line alone where escapes make the file's text differ", () => {
    const text = [
      '[[query]]', // 1
      'oql = """SELECT COUNT(*) AS n', // 2
      '  FROM Demo$Sessio s"""', // 3
      '[[query]]', // 4
      'oql = "SELECT \\"n\\" AS x\\nFROM Demo$Sessio s"', // 5
      '[[query]]', // 6
      'oql = """', // 7
      'SELECT COUNT(*) AS n \\', // 8
      '  FROM Demo$Sessio s"""', // 9
      '',
    ].join('\n');
    const [multi, escaped, continued] = parseCollectionConfig(text, 'c.toml').queries;
    expect(multi!.lines).toEqual([
      { line: 2, column: 9, text: 'oql = """SELECT COUNT(*) AS n' },
      { line: 3, column: 0, text: '  FROM Demo$Sessio s"""' },
    ]);
    // Its first line has escaped quotes (not the file's text); its second follows a `\n` escape.
    expect(escaped!.lines).toEqual([{ line: 5 }, { line: 5, column: 26, text: text.split('\n')[4] }]);
    // A `\` at a line's end joins two lines of the file into one of the text.
    expect(continued!.lines).toEqual([{ line: 7 }]);
    // An error names the file's line and column where the text is the file's; else the line, the query's line shown.
    const refused: UnknownName = { kind: 'class', name: 'Demo$Sessio', suggestions: [], quotedMessage: 'class "Demo$Sessio" is not in this dump' };
    const err = new OqlNameError('class Demo$Sessio is not in this dump', refused, { line: 2, column: 8 });
    expect(formatOqlError(err, multi!.oql, multi!)).toBe('c.toml:3:8: class Demo$Sessio is not in this dump\n    FROM Demo$Sessio s"""\n         ^^^^^^^^^^^');
    const err2 = new OqlNameError('class Demo$Sessio is not in this dump', refused, { line: 2, column: 6 });
    expect(formatOqlError(err2, escaped!.oql, escaped!)).toBe(`c.toml:5:32: class Demo$Sessio is not in this dump\n  ${text.split('\n')[4]}\n  ${' '.repeat(31)}^^^^^^^^^^^`);
    const syntax = new OqlSyntaxError('unexpected "x"', { line: 1, column: 8, offset: 7, end: 10 }, '"n"', [], null);
    expect(formatOqlError(syntax, escaped!.oql, escaped!)).toBe(`c.toml:5: unexpected "x"\n  SELECT "n" AS x\n         ^^^`);
  });

  test("vizSource: the line of the file where the entry's -- @viz line is, in every form of string", () => {
    const text = [
      '[[query]]', // 1
      'name = "directive after the first line"',
      "oql = '''",
      'SELECT COUNT(*) AS n',
      '  -- @viz pie', // 5
      "FROM java.lang.String s'''",
      '[[query]]', // 7
      'oql = """-- @viz histogram', // 8: the string starts on the key's line
      'SELECT 1"""',
      '[[query]]', // 10
      'oql = "-- @viz pie\\nSELECT 1"', // 11: one line, its \n an escape
      '[[query]]', // 12
      "'oql' = '''",
      '',
      '-- @viz treemap', // 15
      "SELECT 1'''",
      '[[query]]', // 17
      'oql = """', // 18
      'SELECT \\',
      '  1',
      '-- @viz pie', // 21, but a line-ending backslash joined two lines: the key's line
      '"""',
      '[[query]]', // 23
      'oql = "SELECT 1"',
    ].join('\n');
    expect(parseCollectionConfig(text, 'c.toml').queries.map((q) => q.vizSource)).toEqual(['c.toml:5', 'c.toml:8', 'c.toml:11', 'c.toml:15', 'c.toml:18', undefined]);
    // Headers that cannot be matched to the entries (one inside a string): the entry's own words.
    const odd = parseCollectionConfig('[[query]]\noql = """\n[[query]]\n-- @viz pie\nSELECT 1"""\n', 'c.toml');
    expect(odd.queries[0]!.vizSource).toBe('c.toml: [[query]] entry 1');
  });

  test('bad TOML names file:line:column', () => {
    const e = thrown(() => parseCollectionConfig('[[query]]\noql = "SELECT 1"\nname = \n', 'c.toml'));
    expect(e.message).toMatch(/^c\.toml:3:\d+: invalid TOML: /);
    expect(e.code).toBe('ERR_CONFIG');
    expect(e.exitCode).toBe(2);
  });

  test('a [[query]] without oql names the line of its header', () => {
    const e = thrown(() => parseCollectionConfig('[[query]]\noql = "SELECT 1"\n\n[[query]]\nname = "orphan"\n', 'c.toml'));
    expect(e.message).toBe('c.toml:4: [[query]] has no oql; add oql = "SELECT ..."');
  });

  test('unknown keys, wrong types and empty queries are errors', () => {
    expect(thrown(() => parseCollectionConfig('[[queries]]\noql = "x"\n', 'c.toml')).message).toContain('unknown key "queries"');
    expect(thrown(() => parseCollectionConfig('[[query]]\noql = "x"\nviz = "pie"\n', 'c.toml')).message).toBe('c.toml:1: unknown key "viz" in [[query]] (keys: oql, name)');
    expect(thrown(() => parseCollectionConfig('[[query]]\noql = 3\n', 'c.toml')).message).toBe('c.toml:1: oql must be a string');
    expect(thrown(() => parseCollectionConfig('[[query]]\noql = "  "\n', 'c.toml')).message).toBe('c.toml:1: oql is empty');
    expect(thrown(() => parseCollectionConfig('query = 1\n', 'c.toml')).message).toContain('must be an array of tables');
    expect(parseCollectionConfig('', 'c.toml')).toEqual({ path: 'c.toml', queries: [] });
  });
});
