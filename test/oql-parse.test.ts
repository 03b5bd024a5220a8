// Grammar: every construct parses, exactly once (the grammar is unambiguous), with positions.
import { describe, expect, test } from 'vitest';
import { parse, parseAll, OqlSyntaxError, printQuery } from '../ts/oql/index.js';
import type { Expr, SelectQuery } from '../ts/oql/index.js';
import { thrown } from './tools/thrown.js';

const CONSTRUCTS: string[] = [
  'SELECT * FROM java.lang.String',
  'select * from java.lang.String',
  'SeLeCt * FrOm java.lang.String s WhErE s.hash = 0',
  'SELECT DISTINCT * FROM java.lang.String',
  'SELECT OBJECTS s FROM OBJECTS java.lang.String s',
  'SELECT * AS RETAINED SET FROM java.util.HashMap',
  'SELECT AS RETAINED SET * FROM java.util.HashMap',
  'SELECT * FROM byte[]',
  'SELECT * FROM java.lang.String[][]',
  'SELECT * FROM java.util.HashMap$Node',
  'SELECT * FROM INSTANCEOF java.util.AbstractMap',
  'SELECT * FROM OBJECTS INSTANCEOF java.util.AbstractMap m',
  'SELECT * FROM "java\\.util\\..*Map"',
  "SELECT * FROM 'java\\.util\\..*Map'",
  'SELECT * FROM INSTANCEOF "java\\.util\\..*Map" m',
  "SELECT * FROM OBJECTS INSTANCEOF 'Demo\\$\\$Lambda.*'",
  'SELECT * FROM (SELECT * FROM java.lang.String) s',
  'SELECT * FROM OBJECTS 0x7f001234',
  'SELECT s FROM java.lang.String s',
  'SELECT @usedHeapSize, s.@objectAddress FROM java.lang.String s',
  'SELECT s.value.@length, s.a.b.c FROM java.lang.String s',
  'SELECT classof(s), toString(s), COALESCE(s.a, s.b, 1), NULLIF(s.a, 0) FROM java.lang.String s',
  'SELECT COUNT(*), SUM(s.hash), MIN(1), MAX(1), AVG(1), MEDIAN(1), PERCENTILE(s.hash, 95) FROM java.lang.String s',
  'SELECT s.@usedHeapSize * 2 + 1 - 3 / 4 % 5 FROM java.lang.String s',
  'SELECT -s.hash, +s.hash, -(1 + 2) FROM java.lang.String s',
  "SELECT CASE WHEN s.hash > 0 THEN 'pos' WHEN s.hash < 0 THEN \"neg\" ELSE 'zero' END AS sign FROM java.lang.String s",
  'SELECT CASE WHEN s.hash > 0 THEN 1 END FROM java.lang.String s',
  'SELECT s.hash AS h, s.coder AS "the coder" FROM java.lang.String s',
  'SELECT s.value[0], s.value[1:3], s.value[:2], s.value[2:] FROM java.lang.String s',
  'SELECT e.getKey(), e.getValue().toString(), toString(e).length() FROM java.util.HashMap$Node e',
  'SELECT getUsedHeapSize() FROM java.lang.String',
  'SELECT * FROM X x WHERE x.a = 1 AND x.b != 2 AND x.c <> 3 AND x.d < 4 AND x.e <= 5 AND x.f > 6 AND x.g >= 7',
  'SELECT * FROM X x WHERE toString(x) LIKE "a.*" OR toString(x) NOT LIKE \'b.*\'',
  'SELECT * FROM X x WHERE x INSTANCEOF java.util.HashMap OR x NOT INSTANCEOF java.util.TreeMap',
  'SELECT * FROM X x WHERE x IN (SELECT * FROM Y) AND x NOT IN (SELECT * FROM Z)',
  'SELECT * FROM X x WHERE x.a BETWEEN 1 AND 2 AND x.b NOT BETWEEN 3 AND 4',
  'SELECT * FROM X x WHERE EXISTS (SELECT * FROM Y) AND NOT (x.a = 1 OR x.b = 2)',
  'SELECT * FROM X x WHERE x.a IS NULL AND x.b IS NOT NULL',
  'SELECT * FROM X x WHERE x.a = true OR x.b = false OR x.c = null',
  'SELECT * FROM X x WHERE x.a = 1.5 OR x.b = 2L OR x.c = 1e3 OR x.d = 0x10',
  'SELECT classof(x), COUNT(*) FROM X x GROUP BY classof(x) HAVING COUNT(*) > 1',
  'SELECT classof(x), toString(x), COUNT(*) FROM X x GROUP BY classof(x), toString(x)',
  'SELECT * FROM X x ORDER BY x.a',
  'SELECT * FROM X x ORDER BY x.a DESC, x.b ASC, x.c LIMIT 10',
  'SELECT * FROM X UNION SELECT * FROM Y',
  'SELECT * FROM X UNION ALL SELECT * FROM Y',
  'SELECT * FROM X UNION (SELECT * FROM Y LIMIT 2) UNION SELECT * FROM Z ORDER BY 1 LIMIT 5',
  'SELECT * FROM X INTERSECT SELECT * FROM Y EXCEPT SELECT * FROM Z',
  '(SELECT * FROM X) UNION (SELECT * FROM Y)',
  '(SELECT * FROM X x) ORDER BY x.a LIMIT 3',
  'SELECT * FROM java.lang.String;',
  'SELECT b.limit, b.position, b.order FROM java.nio.ByteBuffer b',
  'SELECT s.@retainedHeapSize AS retained FROM X s ORDER BY retained DESC',
  '/* block */ SELECT * -- line comment\nFROM X',
  'SELECT *\n  FROM X x\n  WHERE x.a = 1',
];

describe('every construct parses exactly once', () => {
  for (const q of CONSTRUCTS) {
    test(q, () => {
      expect(parseAll(q)).toHaveLength(1);
    });
  }
});

function select(q: string): SelectQuery {
  const ast = parse(q);
  if (ast.type !== 'select') throw new Error('not a select');
  return ast;
}

describe('syntax tree', () => {
  test('positions: line, column, offset and end on every node', () => {
    const q = select('SELECT s.hash\nFROM java.lang.String s\nWHERE s.hash > 10');
    expect(q.pos).toMatchObject({ line: 1, column: 1, offset: 0 });
    const where = q.where as Extract<Expr, { type: 'binary' }>;
    expect(where.pos).toEqual({ line: 3, column: 7, offset: 44, end: 55 });
    expect(where.right.pos).toEqual({ line: 3, column: 16, offset: 53, end: 55 });
    expect(q.from.source.pos).toEqual({ line: 2, column: 6, offset: 19, end: 35 });
  });

  test('FROM forms', () => {
    expect(select('SELECT * FROM byte[][]').from.source).toMatchObject({ type: 'class', name: 'byte[][]' });
    expect(select('SELECT * FROM INSTANCEOF a.B$C x').from).toMatchObject({ instanceOf: true, alias: 'x', source: { name: 'a.B$C' } });
    expect(select("SELECT * FROM 'a.*'").from.source).toMatchObject({ type: 'regex', pattern: 'a.*' });
    expect(select('SELECT * FROM OBJECTS 0xABC').from).toMatchObject({ objects: true, source: { type: 'address', hex: '0xABC' } });
    expect(select('SELECT * FROM OBJECTS 12').from.source).toMatchObject({ type: 'objectId', text: '12' });
  });

  test('precedence: AND binds tighter than OR, * tighter than +, NOT over a comparison', () => {
    const q = select('SELECT a + b * c FROM X WHERE NOT a = 1 OR b = 2 AND c = 3');
    expect(printQuery(q)).toBe('SELECT a + b * c FROM X WHERE NOT a = 1 OR b = 2 AND c = 3');
    const where = q.where as Extract<Expr, { type: 'binary' }>;
    expect(where.op).toBe('or');
    expect(where.left.type).toBe('not');
    expect((where.right as Extract<Expr, { type: 'binary' }>).op).toBe('and');
  });

  test('parentheses are kept where precedence needs them when printed back', () => {
    expect(printQuery(parse('SELECT (a + b) * c, a - (b - c), (a - b) - c FROM X'))).toBe(
      'SELECT (a + b) * c, a - (b - c), a - b - c FROM X',
    );
  });

  test('literals keep their written text and value', () => {
    const item = (q: string) => select(q).items[0].expr as Extract<Expr, { type: 'literal' }>;
    expect(item('SELECT 2L FROM X')).toMatchObject({ kind: 'int', value: 2, text: '2L' });
    expect(item('SELECT 1.50 FROM X')).toMatchObject({ kind: 'float', value: 1.5, text: '1.50' });
    expect(item('SELECT 0x1F FROM X')).toMatchObject({ kind: 'hex', value: 31 });
    expect(item("SELECT 'it' FROM X")).toMatchObject({ kind: 'string', value: 'it' });
    expect(item('SELECT "say \'hi\'" FROM X')).toMatchObject({ kind: 'string', value: "say 'hi'" });
    expect(item('SELECT NULL FROM X')).toMatchObject({ kind: 'null', value: null });
  });

  test('trailing ORDER BY / LIMIT of a UNION belong to the whole union', () => {
    const q = parse('SELECT * FROM X UNION SELECT * FROM Y ORDER BY 1 LIMIT 5');
    expect(q.type).toBe('setop');
    expect(q.limit?.value).toBe(5);
    if (q.type === 'setop') expect((q.right as SelectQuery).limit).toBeNull();
  });

  test('INTERSECT binds tighter than UNION and EXCEPT', () => {
    const q = parse('SELECT * FROM A UNION SELECT * FROM B INTERSECT SELECT * FROM C');
    expect(q).toMatchObject({ type: 'setop', op: 'union', right: { type: 'setop', op: 'intersect' } });
  });

  test('keywords are field names after a dot', () => {
    const q = select('SELECT b.limit FROM X b');
    expect(q.items[0].expr).toMatchObject({ type: 'field', name: 'limit' });
  });
});

function syntaxError(q: string): OqlSyntaxError {
  return thrown(() => parse(q), OqlSyntaxError, `parsed: ${q}`);
}

describe('syntax errors', () => {
  test('unexpected token: position, token, summarized expectations', () => {
    const e = syntaxError('SELECT * FROM java.lang.String s FORM');
    expect(e.reason).toBe('unexpected "FORM"; expected WHERE, GROUP BY, HAVING, ORDER BY, LIMIT or UNION/INTERSECT/EXCEPT');
    expect(e.pos).toMatchObject({ line: 1, column: 34 });
    expect(e.token).toBe('FORM');
    expect(e.message).toBe(
      'unexpected "FORM"; expected WHERE, GROUP BY, HAVING, ORDER BY, LIMIT or UNION/INTERSECT/EXCEPT at line 1, column 34' +
        ' (hint: the query reads well up to "s"; the OQL section of the README shows each clause)',
    );
  });

  test('the IN hint only after IN', () => {
    expect(syntaxError('SELECT * FROM X x WHERE x IN (FROM X y)').hint).toBe('IN takes a subquery: x IN (SELECT ...)');
    expect(syntaxError('SELECT * FROM X x WHERE x IN 1').hint).toBe('IN takes a subquery: x IN (SELECT ...)');
    // A parenthesis anywhere else: no talk of IN.
    expect(syntaxError('SELECT ( FROM X x').hint).not.toMatch(/IN/);
    expect(syntaxError('SELECT * FROM X x WHERE (FROM').hint).not.toMatch(/IN/);
  });

  test('a branch ORDER BY / LIMIT before UNION, INTERSECT or EXCEPT: the hint says to parenthesize the branch', () => {
    const e = syntaxError('SELECT p.x FROM P p ORDER BY p.x DESC LIMIT 2 UNION SELECT q.x FROM P q');
    expect(e.reason).toBe('unexpected keyword UNION');
    expect(e.pos).toMatchObject({ line: 1, column: 47 });
    expect(e.hint).toBe('ORDER BY and LIMIT come after the last branch and apply to the combined result; to give this branch its own, put it in parentheses: (SELECT … ORDER BY … LIMIT …) UNION (SELECT …)');
    expect(syntaxError('SELECT p.x FROM P p ORDER BY p.x except SELECT q.x FROM P q').hint)
      .toBe('ORDER BY comes after the last branch and applies to the combined result; to give this branch its own, put it in parentheses: (SELECT … ORDER BY …) EXCEPT (SELECT …)');
    // An ORDER BY inside a subquery of the branch is no reason.
    expect(syntaxError('SELECT p.x FROM (SELECT q.x FROM P q ORDER BY q.x) p WHERE UNION SELECT 1 FROM P').hint).not.toMatch(/parentheses/);
  });

  test('== gets a hint', () => {
    const e = syntaxError('SELECT * FROM X x WHERE x.a == 3');
    expect(e.reason).toBe('unexpected "=="; expected an operator, AND, OR, GROUP BY, HAVING, ORDER BY, LIMIT or UNION/INTERSECT/EXCEPT');
    expect(e.hint).toBe('equality is a single "=" (and inequality "!=")');
  });

  test('where an expression is due, the message says so and names no RETAINED, SET or operator', () => {
    // RETAINED and SET may be names inside an expression (ORDER BY retained), which made every
    // "expected an expression" end in "RETAINED or SET"; a sign or * that may start one is no operator.
    expect(syntaxError('SELECT p.x FROM P p WHERE p.x <').hint).toBe('the query stops after "<": add an expression');
    expect(syntaxError('SELECT p.x FROM P p ORDER BY').hint).toBe('the query stops after "BY": add an expression');
    expect(syntaxError('SELECT p.x + FROM P p').reason).toBe('unexpected keyword FROM; expected an expression');
    expect(syntaxError('SELECT COUNT( FROM P').reason).toBe('unexpected keyword FROM; expected an expression, "*" or ")"');
    expect(syntaxError('SELECT').hint).not.toMatch(/operator/);
    // An alias after AS may still be RETAINED (AS RETAINED SET).
    expect(syntaxError('SELECT x AS').hint).toMatch(/RETAINED/);
  });

  test('&& and || get hints', () => {
    expect(syntaxError('SELECT * FROM X x WHERE x.a = 1 && x.b = 2').hint).toBe('write AND instead of &&');
    expect(syntaxError('SELECT * FROM X x WHERE x.a = 1 || x.b = 2').hint).toBe('write OR instead of ||');
  });

  test('an unterminated string', () => {
    const e = syntaxError('SELECT * FROM X x WHERE toString(x) LIKE "abc');
    expect(e.reason).toBe('unterminated string literal');
    expect(e.pos).toMatchObject({ line: 1, column: 42 });
    expect(e.hint).toBe('close the string with "; string literals take double or single quotes and do not span lines');
  });

  test('a backtick', () => {
    const e = syntaxError('SELECT * FROM X x WHERE toString(x) LIKE `a`');
    expect(e.reason).toBe('unexpected character "`"');
    expect(e.hint).toBe('string literals take double or single quotes');
  });

  test('LIKE needs a string literal', () => {
    const e = syntaxError('SELECT * FROM X x WHERE toString(x) LIKE x.a');
    expect(e.reason).toBe('unexpected "x"; expected a string');
    expect(e.hint).toBe('LIKE takes a regular expression in quotes, e.g. toString(s) LIKE "http.*"');
  });

  test('${snapshot} reflection', () => {
    const e = syntaxError('SELECT * FROM ${snapshot}.getClasses()');
    expect(e.reason).toBe('${snapshot} is not supported');
    expect(e.hint).toBe('there is no ${snapshot} reflection: select classes with FROM <class>, FROM INSTANCEOF <class> or FROM "<regex>"');
  });

  test('missing FROM', () => {
    const e = syntaxError('SELECT s.a');
    expect(e.reason).toBe('unexpected end of query');
    expect(e.hint).toBe('every SELECT needs a FROM clause, e.g. ... FROM java.lang.String s');
    expect(e.pos).toMatchObject({ line: 1, column: 11 });
  });

  test('empty query', () => {
    expect(syntaxError('  ').reason).toBe('empty query');
    expect(syntaxError('-- only a comment').reason).toBe('empty query');
  });

  test('unclosed parenthesis', () => {
    expect(syntaxError('SELECT * FROM X x WHERE (x.a = 1').hint).toBe('a "(" is not closed');
  });

  test('a keyword as an alias', () => {
    const e = syntaxError('SELECT x.a AS order FROM X x');
    expect(e.hint).toBe('ORDER is a keyword: quote the column name, AS "order"');
  });

  test('ORDER without BY', () => {
    expect(syntaxError('SELECT * FROM X x ORDER x.a').hint).toBe('ORDER is followed by BY');
  });

  test('SQL joins, row windows and null placement OQL lacks are named, with what to write instead', () => {
    const offset = 'OQL has no OFFSET: LIMIT n takes the first n rows; to read the rows after them, ORDER BY a key and add WHERE <key> > the last value read';
    expect(syntaxError('SELECT * FROM X x LIMIT 2 OFFSET 3')).toMatchObject({ hint: offset, pos: { line: 1, column: 27 } });
    expect(syntaxError('SELECT * FROM X x OFFSET 3').hint).toBe(offset);
    expect(syntaxError('SELECT * FROM X x LIMIT 2, 3')).toMatchObject({ hint: offset, pos: { line: 1, column: 26 } });
    expect(syntaxError('SELECT TOP 3 x FROM X x').hint).toBe('OQL has no TOP: end the query with LIMIT n (after ORDER BY to take the n largest or smallest)');
    const nulls = 'OQL has no NULLS FIRST / LAST: NULL sorts first ascending and last descending; to move the NULLs, order by "x IS NULL" (false before true) first';
    expect(syntaxError('SELECT * FROM X x ORDER BY x.a DESC NULLS LAST').hint).toBe(nulls);
    expect(syntaxError('SELECT * FROM X x ORDER BY x.a NULLS FIRST').hint).toBe(nulls);
    const joins = 'FROM takes one source: OQL has no joins; relate two sources with IN, e.g. WHERE a.ref IN (SELECT p FROM java.lang.String p WHERE …)';
    expect(syntaxError('SELECT a FROM X a, Y b').hint).toBe(joins);
    expect(syntaxError('SELECT a FROM X a JOIN Y b ON a.r = b').hint).toBe(joins);
    expect(syntaxError('SELECT a FROM X a LEFT JOIN Y b ON a.r = b').hint).toBe(joins);
    expect(syntaxError('SELECT a FROM X JOIN Y b').hint).toBe(joins);
    const retained = 'AS RETAINED SET goes before FROM: SELECT … AS RETAINED SET FROM …';
    expect(syntaxError('SELECT x FROM X x AS RETAINED SET').hint).toBe(retained);
    expect(syntaxError('SELECT * FROM X AS RETAINED SET').hint).toBe(retained);
  });

  test('ORDER BY inside and after a parenthesized query', () => {
    const e = syntaxError('(SELECT * FROM X x ORDER BY x.a) ORDER BY x.b');
    expect(e.reason).toBe('ORDER BY appears both inside and after the parenthesized query');
  });

  test('an unterminated block comment is reported at its start', () => {
    const e = syntaxError('SELECT COUNT(*) /* open FROM java.lang.String');
    expect(e.reason).toBe('unterminated comment');
    expect(e.pos).toMatchObject({ line: 1, column: 17 });
    expect(e.hint).toBe('close the comment with */ (or start a comment that runs to the end of the line with --)');
    expect(syntaxError('SELECT *\n  FROM X /* a */ x /* b\n c').pos).toMatchObject({ line: 2, column: 20 });
    expect(parse('SELECT * /* one */ FROM X /* two\n */ x').type).toBe('select');
  });

  test('COUNT(DISTINCT ...) is named, with the queries that answer it', () => {
    const e = syntaxError('SELECT COUNT(DISTINCT s.user) FROM Demo$Session s');
    expect(e.reason).toBe('COUNT(DISTINCT ...) is not supported');
    expect(e.pos).toMatchObject({ line: 1, column: 8, end: 21 });
    expect(e.hint).toBe(
      'list each value once with SELECT DISTINCT s.user FROM Demo$Session s (its row count is the answer), ' +
        'or count each value with SELECT s.user, COUNT(*) FROM Demo$Session s GROUP BY s.user',
    );
    expect(syntaxError('SELECT sum(distinct classof(x)) FROM X x WHERE x.a > 1 ORDER BY 1').hint).toBe(
      'aggregates take every non-NULL value; list the distinct values with SELECT DISTINCT classof(x) FROM X x WHERE x.a > 1',
    );
  });

  test('relational operators do not chain', () => {
    const e = syntaxError('SELECT * FROM X x WHERE 1 < x.a < 3');
    expect(e.token).toBe('<');
    const hint = 'comparisons do not chain: join two with AND (1 < x.a AND x.a < 3), or write x.a BETWEEN 1 AND 3';
    expect(e.hint).toBe(hint);
    expect(syntaxError('SELECT x.a = 1 = 2 FROM X x').hint).toBe(hint);
    // A comparison where an operand belongs is another mistake.
    expect(syntaxError('SELECT * FROM X x WHERE x.a = < 2').hint).not.toBe(hint);
  });
});
