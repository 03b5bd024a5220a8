// Query files and `-- @viz` directives.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { extractViz, loadQueryFile, parseQueryFile, parseVizDirective, resolveVizColumns } from '../ts/query/index.js';
import { formatOqlError, OqlSyntaxError, parse } from '../ts/oql/index.js';

describe('query files', () => {
  test('one query per line; blank, # and -- lines skipped; @viz attaches to the next query', () => {
    const text = [
      '# strings',
      '',
      'SELECT COUNT(*) FROM java.lang.String',
      '-- @viz histogram label=class value=count cap=5 title="Top classes" name=top',
      '-- a plain comment between',
      'SELECT classof(x) AS class, COUNT(*) AS count FROM INSTANCEOF java.lang.Object x GROUP BY classof(x)',
      'SELECT * FROM java.lang.Thread',
    ].join('\n');
    const r = parseQueryFile(text, 'q.oql');
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.queries.map((q) => [q.line, q.viz])).toEqual([
      [3, null],
      [6, { kind: 'histogram', label: 'class', value: 'count', cap: 5, title: 'Top classes', name: 'top' }],
      [7, null],
    ]);
  });

  test('a parse error: file:line:col, the line, a caret under the token, a hint', () => {
    const text = 'SELECT * FROM java.lang.String\n\n  SELECT * FROM X x WHERE x.a == 1\n';
    const r = parseQueryFile(text, 'queries.oql');
    expect(r.queries).toHaveLength(1);
    expect(r.errors).toEqual([
      [
        'queries.oql:3:31: unexpected "=="; expected an operator, AND, OR, GROUP BY, HAVING, ORDER BY, LIMIT or UNION/INTERSECT/EXCEPT',
        '    SELECT * FROM X x WHERE x.a == 1',
        '                                ^^',
        '  hint: equality is a single "=" (and inequality "!=")',
      ].join('\n'),
    ]);
  });

  test('plan errors are reported the same way when planning is asked for', () => {
    const r = parseQueryFile('SELECT s.@retainedHeapSize FROM java.lang.String s', 'f.oql', { plan: { fullPath: false } });
    expect(r.errors).toEqual([
      [
        'f.oql:1:8: @retainedHeapSize requires the full analysis pipeline — run `heapql analyze`',
        '  SELECT s.@retainedHeapSize FROM java.lang.String s',
        '         ^^^^^^^^^^^^^^^^^^^',
        '  hint: run `heapql analyze` or the report command; in the REPL, !analyze; on the server, POST /analyze; in the library, await heap.analyze()',
      ].join('\n'),
    ]);
    expect(parseQueryFile('SELECT s.@retainedHeapSize FROM java.lang.String s', 'f.oql', { plan: { fullPath: true } }).errors).toEqual([]);
  });

  test('a malformed or dangling @viz is a warning, never an error', () => {
    const r = parseQueryFile('-- @viz pie name=x\nSELECT * FROM X\n-- @viz table', 'v.oql');
    expect(r.errors).toEqual([]);
    expect(r.queries[0].viz).toEqual({ kind: 'table', name: 'x' });
    expect(r.warnings).toEqual([
      'v.oql:1: @viz directive ignored: unknown chart kind "pie" (kinds: table, histogram, piechart, treemap); showing a table',
      'v.oql:3: @viz directive is not followed by a query; ignored',
    ]);
  });

  test('loadQueryFile reads a file and names a missing one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-qf-'));
    const file = path.join(dir, 'a.oql');
    writeFileSync(file, 'SELECT * FROM X\r\nSELECT * FROM Y\r\n');
    expect(loadQueryFile(file).queries.map((q) => q.oql)).toEqual(['SELECT * FROM X', 'SELECT * FROM Y']);
    expect(() => loadQueryFile(path.join(dir, 'nope.oql'))).toThrow(`query file not found: ${path.join(dir, 'nope.oql')}`);
    expect(() => loadQueryFile(dir)).toThrow(`query file is a directory: ${dir}`);
  });

  test('formatOqlError on a multi-line query points into the right line', () => {
    const q = 'SELECT *\nFROM X x\nWHERE x.a = "open';
    let err: OqlSyntaxError | null = null;
    try {
      parse(q);
    } catch (e) {
      err = e as OqlSyntaxError;
    }
    expect(formatOqlError(err!, q, 'query')).toBe(
      [
        'query:3:13: unterminated string literal',
        '  WHERE x.a = "open',
        '              ^',
        '  hint: close the string with "; string literals take double or single quotes and do not span lines',
      ].join('\n'),
    );
  });
});

describe('@viz directives', () => {
  test('all keys; columns by name, attribute or position; quoted title', () => {
    expect(parseVizDirective('-- @viz piechart label=@displayName value=2 cap=10 title="Heap by class" name=byclass')).toEqual({
      viz: { kind: 'piechart', label: '@displayName', value: 2, cap: 10, title: 'Heap by class', name: 'byclass' },
      warning: null,
    });
    expect(parseVizDirective('--@VIZ TREEMAP')).toEqual({ viz: { kind: 'treemap' }, warning: null });
    expect(parseVizDirective('-- @viz table')).toEqual({ viz: { kind: 'table' }, warning: null });
  });

  const bad: [string, string][] = [
    ['-- @viz', 'the chart kind is missing (one of table, histogram, piechart, treemap)'],
    ['-- @viz bars', 'unknown chart kind "bars" (kinds: table, histogram, piechart, treemap)'],
    ['-- @viz histogram colour=red', 'unknown key "colour" (keys: label, value, cap, title, name)'],
    ['-- @viz histogram cap=0', 'cap=0 is not a positive integer'],
    ['-- @viz histogram cap=ten', 'cap=ten is not a positive integer'],
    ['-- @viz histogram title="open', 'a double-quoted value is not closed'],
    ['-- @viz histogram label=0', 'label=0: column positions start at 1'],
    ['-- @viz histogram value="x y"', 'value= names a column (an attribute, an alias or a position), not a quoted text'],
    ['-- @viz histogram extra', '"extra" is not key=value'],
    ['-- @viz histogram label=', 'label= has no value'],
  ];
  for (const [line, problem] of bad) {
    test(line, () => {
      const r = parseVizDirective(line);
      expect(r.warning).toBe(`@viz directive ignored: ${problem}; showing a table`);
      expect(r.viz.kind).toBe('table');
    });
  }

  test('extractViz takes the directive out of a query text and keeps line numbers', () => {
    expect(extractViz('-- @viz histogram\nSELECT * FROM X')).toEqual({ oql: '\nSELECT * FROM X', viz: { kind: 'histogram' }, warning: null });
    expect(extractViz('SELECT * FROM X')).toEqual({ oql: 'SELECT * FROM X', viz: null, warning: null });
  });

  test('resolveVizColumns: named, positional, attribute suffix, defaults, failures', () => {
    const cols = [
      { name: 'class', type: 'object' as const },
      { name: 'count', type: 'number' as const },
      { name: 'x.@usedHeapSize', type: 'number' as const },
    ];
    expect(resolveVizColumns({ kind: 'histogram' }, cols)).toEqual({ columns: { label: 0, value: 1 }, warning: null });
    expect(resolveVizColumns({ kind: 'histogram', value: '@usedHeapSize' }, cols)).toEqual({ columns: { label: 0, value: 2 }, warning: null });
    expect(resolveVizColumns({ kind: 'piechart', label: 1, value: 3 }, cols)).toEqual({ columns: { label: 0, value: 2 }, warning: null });
    expect(resolveVizColumns({ kind: 'piechart', value: 'COUNT' }, cols)).toEqual({ columns: { label: 0, value: 1 }, warning: null });
    expect(resolveVizColumns({ kind: 'histogram', value: 'class' }, cols).warning).toBe('@viz value=class: column "class" is not numeric');
    expect(resolveVizColumns({ kind: 'histogram', label: 'nope' }, cols).warning).toBe(
      '@viz label=nope: no such column (columns: class, count, x.@usedHeapSize)',
    );
    expect(resolveVizColumns({ kind: 'histogram' }, [{ name: 'a', type: 'string' }]).warning).toBe('@viz: the result has no numeric column to chart');
    expect(resolveVizColumns({ kind: 'table' }, cols)).toEqual({ columns: null, warning: null });
  });

  test('resolveVizColumns: a result of numeric columns only is labelled by its first column, charted by the next', () => {
    // SELECT p.x % 3 AS m, COUNT(*) AS n ... GROUP BY p.x % 3: the bars are the counts, labelled by the key.
    const cols = [
      { name: 'm', type: 'number' as const },
      { name: 'n', type: 'number' as const },
    ];
    expect(resolveVizColumns({ kind: 'histogram' }, cols)).toEqual({ columns: { label: 0, value: 1 }, warning: null });
    // A numeric label named, the value by default: another column than the label.
    expect(resolveVizColumns({ kind: 'histogram', label: 'm' }, cols)).toEqual({ columns: { label: 0, value: 1 }, warning: null });
    expect(resolveVizColumns({ kind: 'histogram', label: 'n' }, cols)).toEqual({ columns: { label: 1, value: 0 }, warning: null });
    expect(resolveVizColumns({ kind: 'histogram', value: 'm' }, cols)).toEqual({ columns: { label: 1, value: 0 }, warning: null });
    expect(resolveVizColumns({ kind: 'histogram', label: 'm' }, [cols[0]]).warning).toBe(
      '@viz: the result has no numeric column to chart besides its label "m"',
    );
    expect(resolveVizColumns({ kind: 'histogram' }, [cols[0]]).warning).toBe('@viz: the result has no column to label the chart with');
  });
});
