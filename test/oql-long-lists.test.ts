// Long lists and dotted names parse in work linear in their length. nearley runs a rule's
// postprocessor each time the rule completes, and a list (`a, b, c`, `a.b.c`, `[][]`) completes
// at every item; its `(sep b):*` copied the array each time, so a class name or an IN list of
// 20,000 parts took 10 to 20 s and 1.7 GB. The work is counted, not timed: every postprocessor
// call counts one, plus the length of every array it is given or returns.
import { beforeAll, describe, expect, test } from 'vitest';
import grammar from '../ts/oql/grammar.generated.js';
import type { Expr, Query, SelectQuery } from '../ts/oql/ast.js';

type Rule = { postprocess?: (d: unknown[], ...rest: unknown[]) => unknown };

let work = 0;
let parseAll: (text: string) => Query[];
let tokenize: (text: string) => unknown[];

beforeAll(async () => {
  // The counting postprocessors go in before the parser module builds its grammar from them.
  for (const rule of grammar.ParserRules as unknown as Rule[]) {
    const pp = rule.postprocess;
    if (!pp) continue;
    rule.postprocess = (d, ...rest) => {
      work += 1;
      for (const x of d) if (Array.isArray(x)) work += x.length;
      const out = pp(d, ...rest);
      if (Array.isArray(out)) work += out.length;
      return out;
    };
  }
  ({ parseAll } = await import('../ts/oql/parser.js'));
  ({ tokenize } = await import('../ts/oql/lexer.js'));
});

const N = 5000;
const rep = (s: string, sep: string) => Array.from({ length: N }, () => s).join(sep);

/** Parses `text` (exactly one parse) and returns it with the work per token. */
function measure(text: string): { q: SelectQuery; perToken: number } {
  work = 0;
  const results = parseAll(text);
  expect(results).toHaveLength(1);
  return { q: results[0] as SelectQuery, perToken: work / tokenize(text).length };
}

// A few postprocessor calls a token (8 to 14: one per rule level an expression goes through); a
// copying list costs N / 2 a token on average.
const PER_TOKEN = 40;

/** Depth of a `.field` chain. */
function pathLength(e: Expr): number {
  let n = 0;
  for (let x: Expr = e; x.type === 'field'; x = x.base) n++;
  return n;
}

describe(`OQL shapes with ${N} parts`, () => {
  test('a class name of N parts in FROM and after INSTANCEOF', () => {
    const name = `${rep('a', '.')}.X`;
    const from = measure(`SELECT s FROM ${name} s`);
    expect(from.perToken).toBeLessThan(PER_TOKEN);
    expect(from.q.from.source).toMatchObject({ type: 'class', name, pos: { offset: 14, end: 14 + name.length } });
    const inst = measure(`SELECT s FROM X s WHERE s INSTANCEOF ${name}`);
    expect(inst.perToken).toBeLessThan(PER_TOKEN);
    expect(inst.q.where).toMatchObject({ type: 'instanceof', className: name });
  });

  test('an array class of N dimensions', () => {
    const { q, perToken } = measure(`SELECT s FROM X${rep('[]', '')} s`);
    expect(perToken).toBeLessThan(PER_TOKEN);
    expect(q.from.source).toMatchObject({ type: 'class', name: `X${'[]'.repeat(N)}` });
  });

  test('a field path of N parts in SELECT and in WHERE', () => {
    const sel = measure(`SELECT s.${rep('a', '.')} FROM X s`);
    expect(sel.perToken).toBeLessThan(PER_TOKEN);
    expect(pathLength(sel.q.items[0].expr)).toBe(N);
    const where = measure(`SELECT s FROM X s WHERE s.${rep('a', '.')} = 1`);
    expect(where.perToken).toBeLessThan(PER_TOKEN);
    expect(where.q.where).toMatchObject({ type: 'binary', op: '=' });
  });

  test('an IN list, a call, select items, GROUP BY and ORDER BY of N items, in order', () => {
    const inList = measure(`SELECT s FROM X s WHERE s.a IN (${Array.from({ length: N }, (_, i) => i).join(', ')})`);
    expect(inList.perToken).toBeLessThan(PER_TOKEN);
    const items = (inList.q.where as Extract<Expr, { type: 'inList' }>).items;
    expect(items).toHaveLength(N);
    expect(items.map((e) => (e as Extract<Expr, { type: 'literal' }>).value)).toEqual(Array.from({ length: N }, (_, i) => i));

    const call = measure(`SELECT f(${rep('1', ', ')}) FROM X s`);
    expect(call.perToken).toBeLessThan(PER_TOKEN);
    expect((call.q.items[0].expr as Extract<Expr, { type: 'call' }>).args).toHaveLength(N);

    const sel = measure(`SELECT ${rep('s.a', ', ')} FROM X s`);
    expect(sel.perToken).toBeLessThan(PER_TOKEN);
    expect(sel.q.items).toHaveLength(N);

    const group = measure(`SELECT s FROM X s GROUP BY ${rep('s.a', ', ')}`);
    expect(group.perToken).toBeLessThan(PER_TOKEN);
    expect(group.q.groupBy).toHaveLength(N);

    const order = measure(`SELECT s FROM X s ORDER BY ${rep('s.a', ', ')} LIMIT 3`);
    expect(order.perToken).toBeLessThan(PER_TOKEN);
    expect(order.q.orderBy).toHaveLength(N);
    expect(order.q.pos.end).toBe(order.q.limit!.pos.end);
  });

  test('a CASE of N / 2 WHENs', () => {
    const { q, perToken } = measure(`SELECT CASE ${Array.from({ length: N / 2 }, () => 'WHEN s.a = 1 THEN 2').join(' ')} END FROM X s`);
    expect(perToken).toBeLessThan(PER_TOKEN);
    expect((q.items[0].expr as Extract<Expr, { type: 'case' }>).whens).toHaveLength(N / 2);
  });

  test('AND and OR chains of N terms', () => {
    for (const op of ['AND', 'OR']) {
      const { perToken } = measure(`SELECT s FROM X s WHERE ${rep('s.a = 1', ` ${op} `)}`);
      expect(perToken).toBeLessThan(PER_TOKEN);
    }
  });
});

describe('a long line after a character outside the BMP', () => {
  // Columns count characters, not UTF-16 units, once the text holds a surrogate pair; each
  // token's column used to be counted from the start of its line: n² work on one long line.
  test(`${N} numbers after an emoji: columns right, the line read once`, () => {
    const text = `SELECT "😀" FROM X s WHERE s.a IN (${Array.from({ length: N }, (_, i) => i).join(', ')})`;
    const slice = String.prototype.slice;
    let sliced = 0;
    String.prototype.slice = function (this: string, ...args: [number?, number?]) {
      const out = slice.apply(this, args);
      sliced += out.length;
      return out;
    };
    let tokens: { text: string; col: number; offset: number }[];
    try {
      tokens = tokenize(text) as typeof tokens;
    } finally {
      String.prototype.slice = slice;
    }
    expect(sliced).toBeLessThan(4 * text.length);
    const last = tokens[tokens.length - 1];
    // One character (two UTF-16 units) before it counts one.
    expect(last).toMatchObject({ text: ')', offset: text.length - 1, col: text.length - 1 });
    expect(tokens[1]).toMatchObject({ text: '"😀"', col: 8 });
    expect(tokens[2]).toMatchObject({ text: 'FROM', col: 12 });
  });
});

describe('the longest query', () => {
  /** A query of exactly `length` characters (an IN list padded with spaces), on `lines` lines. */
  const sized = (length: number, head = 'SELECT s FROM X s WHERE s.a IN (') => {
    const list = Array.from({ length: Math.floor((length - head.length) / 8) }, (_, i) => i).join(', ');
    const text = `${head}${list})`;
    return text + ' '.repeat(length - text.length);
  };

  test('MAX_QUERY_LENGTH characters parse; one more is refused, naming the length and the limit, at the first character past it', async () => {
    const { MAX_QUERY_LENGTH } = await import('../ts/oql/index.js');
    const { OqlSyntaxError, formatOqlError } = await import('../ts/oql/errors.js');
    expect(MAX_QUERY_LENGTH).toBe(200_000);
    expect(parseAll(sized(MAX_QUERY_LENGTH))).toHaveLength(1);
    const head = 'SELECT s\nFROM X s\n-- 😀\nWHERE s.a IN (';
    const text = `${sized(MAX_QUERY_LENGTH, head)}x`;
    expect(text).toHaveLength(MAX_QUERY_LENGTH + 1);
    let err: unknown;
    try {
      parseAll(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OqlSyntaxError);
    const e = err as InstanceType<typeof OqlSyntaxError>;
    expect(e.reason).toBe('the query is 200,001 characters long; the longest query heapql takes is 200,000 characters');
    expect(e.pos).toEqual({ line: 4, column: MAX_QUERY_LENGTH - head.lastIndexOf('\n'), offset: MAX_QUERY_LENGTH, end: MAX_QUERY_LENGTH + 1 });
    expect(e.token).toBe('x');
    expect(e.hint).toBe('shorten it: split a long OR chain over several queries, or select the objects with a pattern (FROM "regex") or a subquery (x IN (SELECT ...))');
    // Shown with a window of the long line around the caret, not the whole line.
    const shown = formatOqlError(e, text, 'q.oql');
    const lines = shown.split('\n');
    expect(lines[0]).toBe(`q.oql:4:${e.pos.column}: ${e.reason}`);
    expect(lines[1]!.length).toBeLessThan(250);
    expect(lines[1]).toMatch(/^ {2}….* x$/);
    expect(lines[2]).toBe(`${' '.repeat(lines[1]!.length - 1)}^`);
  });

  test('a megabyte of text is refused before it is read', () => {
    const text = sized(1_000_000);
    work = 0;
    expect(() => parseAll(text)).toThrow(/^the query is 1,000,000 characters long; the longest query heapql takes is 200,000 characters at line 1, column 200001 \(hint: shorten it/);
    expect(work).toBe(0);
  });

  test('the REPL takes an over-long statement as complete (it runs and is refused), not as one still being typed', async () => {
    const { statementComplete } = await import('../ts/repl/statement.js');
    expect(statementComplete(sized(300_000))).toBe(true);
  });
});
