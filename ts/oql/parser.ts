// parse(text): OQL text → AST, or an OqlSyntaxError that names the token, what would have been
// accepted there (summarized), and a hint.
import nearley from 'nearley';
import grammar from './grammar.generated.js';
import { KEYWORDS, codePoints, tokenize, type Token } from './lexer.js';
import { finishLists, span, tokPos } from './build.js';
import type { Pos, Query } from './ast.js';
import { OqlSecondStatementError, OqlSyntaxError } from './errors.js';

const compiled = nearley.Grammar.fromCompiled(grammar as unknown as nearley.CompiledRules);

/** Parses one OQL statement (an optional trailing `;` is allowed). */
export function parse(text: string): Query {
  const results = parseAll(text);
  return results[0];
}

/**
 * The longest OQL text heapql takes, in characters (UTF-16 units, JavaScript's `length`). Every
 * front (CLI, query files, the REPLs, the HTTP server, MCP, the library) parses through here.
 * Parsing takes time linear in the text, but the Earley parser needs a few microseconds a token:
 * 200,000 characters parse in about a second at worst, a megabyte would take five to ten.
 */
export const MAX_QUERY_LENGTH = 200_000;

/** The error for a text longer than MAX_QUERY_LENGTH: at the first character past the limit. */
function tooLong(text: string): OqlSyntaxError {
  const before = text.slice(0, MAX_QUERY_LENGTH);
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = before.indexOf('\n'); i >= 0; i = before.indexOf('\n', i + 1)) line++;
  const column = codePoints(before.slice(lineStart)) + 1;
  const ch = String.fromCodePoint(text.codePointAt(MAX_QUERY_LENGTH)!);
  const pos: Pos = { line, column, offset: MAX_QUERY_LENGTH, end: MAX_QUERY_LENGTH + ch.length };
  return new OqlSyntaxError(
    `the query is ${text.length.toLocaleString('en-US')} characters long; the longest query heapql takes is ${MAX_QUERY_LENGTH.toLocaleString('en-US')} characters`,
    pos, ch, [],
    'shorten it: split a long OR chain over several queries, or select the objects with a pattern (FROM "regex") or a subquery (x IN (SELECT ...))',
  );
}

/** A UTF-16 unit of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The error for a text holding half of a surrogate pair (a JSON string, a JavaScript string, may
 * hold `"\ud800"` alone): no character at all, which nothing after the parser can compare or
 * send on (the executor takes UTF-8), so it is refused here, at its line and column, for every
 * front; null when there is none.
 */
function loneSurrogate(text: string): OqlSyntaxError | null {
  const found = LONE_SURROGATE.exec(text);
  if (!found) return null;
  const offset = found.index;
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = before.indexOf('\n'); i >= 0; i = before.indexOf('\n', i + 1)) line++;
  const pos: Pos = { line, column: codePoints(before.slice(lineStart)) + 1, offset, end: offset + 1 };
  const unit = found[0].charCodeAt(0).toString(16).toUpperCase();
  return new OqlSyntaxError(
    `unpaired surrogate U+${unit}: half of a surrogate pair is not a character (a "\\u${unit.toLowerCase()}" escape with no other half?)`,
    pos, found[0], [],
    'write the character itself, or both halves of its pair (as "\\ud83d\\ude00" for 😀)',
  );
}

/**
 * Every parse of `text`. The grammar is unambiguous, so this is always one element; tests use
 * it to prove that.
 */
export function parseAll(text: string): Query[] {
  if (text.length > MAX_QUERY_LENGTH) throw tooLong(text);
  const lone = loneSurrogate(text);
  if (lone) throw lone;
  const tokens = tokenize(text);
  for (const t of tokens) checkLexical(t);
  let i = 0;
  const parser = new nearley.Parser(compiled);
  // Feed the tokens already lexed (bad characters were reported above with better messages).
  (parser as unknown as { lexer: unknown }).lexer = {
    reset: () => { i = 0; },
    next: () => tokens[i++],
    save: () => ({}),
    formatError: () => '',
    has: () => true,
  };
  try {
    parser.feed('');
  } catch (e) {
    const err = e as Error & { token?: Token; oqlPos?: Pos; hint?: string };
    if (err.oqlPos) throw new OqlSyntaxError(err.message, err.oqlPos, '', [], err.hint ?? null);
    if (!err.token) throw e;
    const at = tokens.indexOf(err.token);
    // Nothing may follow the `;` that ends a query: a second statement, most often.
    const semicolon = tokens[at - 1];
    if (semicolon?.type === 'semicolon' && at >= 2) {
      throw new OqlSecondStatementError(
        'more follows the ";" that ends the query: a query is one statement',
        tokPos(semicolon),
        semicolon.text,
        [],
        'run the statement after the ";" on its own (the REPL runs statements separated by ";" in turn)',
      );
    }
    const distinct = distinctAggregate(tokens, at, text);
    if (distinct) throw distinct;
    const expected = expectedAt(parser);
    const refusal = unexpected(err.token, tokens[at - 1] ?? null, tokens[at + 1] ?? null, expected, tokens[at - 2] ?? null);
    const branch = branchTail(tokens, at);
    if (branch) throw new OqlSyntaxError(refusal.reason, refusal.pos, refusal.token, refusal.expected, branch);
    throw refusal;
  }
  if (parser.results.length === 0) {
    const last = tokens[tokens.length - 1];
    const pos: Pos = last
      ? { ...tokPos(last), column: last.col + codePoints(last.text), offset: last.offset + last.text.length }
      : { line: 1, column: 1, offset: 0, end: 0 };
    pos.end = pos.offset;
    const expected = expectedAt(parser);
    throw new OqlSyntaxError(
      tokens.length === 0 ? 'empty query' : 'unexpected end of query',
      pos,
      '',
      summarize(expected),
      endHint(expected, last ?? null),
    );
  }
  return (parser.results as Query[]).map(finishLists);
}

/** Token types the parser could have consumed next (from the Earley column it stopped in). */
function expectedAt(parser: nearley.Parser): Set<string> {
  const p = parser as unknown as { table: { scannable: { rule: { symbols: unknown[] }; dot: number }[] }[]; current: number };
  const column = p.table[p.current];
  const out = new Set<string>();
  for (const state of column?.scannable ?? []) {
    const sym = state.rule.symbols[state.dot] as { type?: string; literal?: string } | undefined;
    if (sym?.type) out.add(sym.type);
    else if (sym?.literal) out.add(sym.literal);
  }
  return out;
}

const PUNCT: Record<string, string> = {
  eq: '=', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=', plus: '+', minus: '-', star: '*',
  slash: '/', percent: '%', lparen: '(', rparen: ')', lbracket: '[', rbracket: ']', comma: ',',
  dot: '.', colon: ':', semicolon: ';',
};

const OPERATORS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'plus', 'minus', 'star', 'slash', 'percent'];
const EXPR_START = ['int', 'float', 'string', 'attr', 'ident'];
const keywordSet: ReadonlySet<string> = new Set(KEYWORDS);

/**
 * A short, readable list of what was expected. Token kinds collapse into words ("an
 * expression", "an operator") so the user sees five choices, not forty.
 */
export function summarize(expected: Set<string>): string[] {
  const out: string[] = [];
  const has = (t: string) => expected.has(t);
  const exprStart = has('attr') && EXPR_START.filter(has).length >= 3;
  if (exprStart) out.push('an expression');
  else {
    if (has('ident')) out.push('a name');
    if (has('string')) out.push('a string');
    if (has('int') || has('float')) out.push(has('float') ? 'a number' : 'an integer');
    if (has('hex')) out.push('a hex address');
    if (has('attr')) out.push('an @attribute');
  }
  // Signs, `*` (SELECT *, COUNT(*)) and NOT may also start an expression: alone they are no sign
  // that an operator may come next.
  const binaryOnly = BINARY_ONLY.some(has) || PREDICATE_WORDS.some((w) => w !== 'NOT' && has(w));
  const operators = binaryOnly && OPERATORS.filter(has).length + PREDICATE_WORDS.filter(has).length >= 4;
  if (operators) out.push('an operator');
  const keywords = [...expected].filter((t) => keywordSet.has(t));
  // After a `.` every keyword is a valid field name: "a name" already says it.
  if (keywords.length < 20) {
    const setOps = SET_OPS.filter(has);
    for (const k of keywords) {
      if (exprStart && EXPR_WORDS.includes(k)) continue;
      if (operators && PREDICATE_WORDS.includes(k)) continue;
      if (setOps.length >= 2 && SET_OPS.includes(k)) continue;
      out.push(k === 'GROUP' || k === 'ORDER' ? `${k} BY` : k);
    }
    if (setOps.length >= 2) out.push(setOps.join('/'));
  }
  for (const t of expected) {
    if (!PUNCT[t] || t === 'semicolon') continue;
    if (operators && (OPERATORS.includes(t) || ['dot', 'lbracket', 'lparen'].includes(t))) continue;
    if (exprStart && ['lparen', 'minus', 'plus'].includes(t)) continue;
    out.push(`"${PUNCT[t]}"`);
  }
  return [...new Set(out)];
}

const PREDICATE_WORDS = ['IS', 'NOT', 'BETWEEN', 'IN', 'INSTANCEOF', 'LIKE'];
// Words that may start an expression; RETAINED and SET are names there too (`ORDER BY retained`),
// so after "an expression" they are not worth a mention of their own.
const EXPR_WORDS = ['TRUE', 'FALSE', 'NULL', 'CASE', 'NOT', 'EXISTS', 'RETAINED', 'SET'];
const BINARY_ONLY = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'slash', 'percent'];
const SET_OPS = ['UNION', 'INTERSECT', 'EXCEPT'];

function describeToken(t: Token): string {
  if (t.type === 'string') return `string ${t.text}`;
  if (t.type === 'int' || t.type === 'float' || t.type === 'hex') return `number ${t.text}`;
  if (keywordSet.has(t.type ?? '')) return `keyword ${t.text.toUpperCase()}`;
  return `"${t.text}"`;
}

function joinExpected(list: string[]): string {
  if (list.length === 0) return '';
  if (list.length === 1) return list[0];
  return `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`;
}

function unexpected(t: Token, prev: Token | null, next: Token | null, expected: Set<string>, beforePrev: Token | null): OqlSyntaxError {
  const list = summarize(expected);
  const reason = `unexpected ${describeToken(t)}${list.length ? `; expected ${joinExpected(list)}` : ''}`;
  return new OqlSyntaxError(reason, tokPos(t), t.text, list, hintFor(t, prev, next, expected, beforePrev));
}

/**
 * `SELECT … ORDER BY … LIMIT n UNION SELECT …`: the branch before the set operation at `at` has its
 * own ORDER BY or LIMIT, which only a parenthesized branch may have; the hint for that, or null.
 */
function branchTail(tokens: readonly Token[], at: number): string | null {
  const op = tokens[at]?.type ?? '';
  if (!SET_OPS.includes(op)) return null;
  let depth = 0;
  let order = false;
  let limit = false;
  for (let j = at - 1; j >= 0; j--) {
    const type = tokens[j]!.type;
    if (type === 'rparen') depth++;
    else if (type === 'lparen') {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && SET_OPS.includes(type ?? '')) break;
    else if (depth === 0 && type === 'ORDER') order = true;
    else if (depth === 0 && type === 'LIMIT') limit = true;
  }
  if (!order && !limit) return null;
  const clauses = order && limit ? 'ORDER BY and LIMIT come' : order ? 'ORDER BY comes' : 'LIMIT comes';
  const apply = order && limit ? 'apply' : 'applies';
  const shape = [order ? 'ORDER BY …' : '', limit ? 'LIMIT …' : ''].filter(Boolean).join(' ');
  return `${clauses} after the last branch and ${apply} to the combined result; to give this branch its own, put it in parentheses: (SELECT … ${shape}) ${op} (SELECT …)`;
}

/** An identifier's text in upper case ('' for any other token): SQL words OQL lacks. */
const word = (t: Token): string => (t.type === 'ident' ? t.text.toUpperCase() : '');

const COMPARISONS: ReadonlySet<string> = new Set(['lt', 'gt', 'le', 'ge', 'eq', 'ne']);

/** Hints for the mistakes people make when coming from SQL, MAT or the reference tool. */
function hintFor(t: Token, prev: Token | null, next: Token | null, expected: Set<string>, beforePrev: Token | null): string | null {
  const type = t.type ?? '';
  const prevType = prev?.type ?? '';
  if (type === 'eqeq') return 'equality is a single "=" (and inequality "!=")';
  // `/help` in the REPL: its commands start with "!" (`/run <name>` is accepted as `!run <name>`).
  if (type === 'slash' && prev === null && next?.type === 'ident') return `the REPL's commands start with "!": !${next.text}`;
  if (type === 'andand') return 'write AND instead of &&';
  if (type === 'oror') return 'write OR instead of ||';
  if (prevType === 'LIKE') return 'LIKE takes a regular expression in quotes, e.g. toString(s) LIKE "http.*"';
  if (prevType === 'IN' || (prevType === 'lparen' && beforePrev?.type === 'IN' && t.type !== 'SELECT')) {
    return 'IN takes a subquery: x IN (SELECT ...)';
  }
  if (prevType === 'AS' && keywordSet.has(type)) {
    return `${t.text.toUpperCase()} is a keyword: quote the column name, AS "${t.text}"`;
  }
  if (keywordSet.has(type) && expected.has('ident') && prevType === 'FROM') {
    return `${t.text.toUpperCase()} is a keyword: a FROM clause names a class, e.g. FROM java.lang.String s`;
  }
  if (type === 'int' && prevType === 'FROM') return 'FROM takes a class name, a quoted regex, OBJECTS 0x<hex address> or (subquery)';
  if (type === 'ident' && prevType === 'ident' && expected.has('FROM') && !expected.has('ident')) {
    const word = t.text.toUpperCase();
    if (/^F[OR]{2}M$|^FRM$|^FOM$/.test(word)) return 'did you mean FROM?';
    return 'separate select items with "," and name a column with AS';
  }
  if ((prevType === 'ORDER' || prevType === 'GROUP') && type !== 'BY') return `${prev!.text.toUpperCase()} is followed by BY`;
  if (type === 'LIMIT' && prevType === 'LIMIT') return 'LIMIT takes one number';
  if (COMPARISONS.has(type) && expected.has('AND') && !expected.has('lt')) {
    return 'comparisons do not chain: join two with AND (1 < x.a AND x.a < 3), or write x.a BETWEEN 1 AND 3';
  }
  const joins = ['JOIN', 'INNER', 'LEFT', 'RIGHT', 'CROSS'];
  if (expected.has('WHERE') && (type === 'comma' || joins.includes(word(t)) || (prev !== null && joins.includes(word(prev))))) {
    return 'FROM takes one source: OQL has no joins; relate two sources with IN, e.g. WHERE a.ref IN (SELECT p FROM java.lang.String p WHERE …)';
  }
  // SQL dialects' row windows and null placement, which OQL does not have.
  const upper = word(t);
  if (upper === 'OFFSET' || (type === 'comma' && prevType === 'int' && beforePrev?.type === 'LIMIT')) {
    return `OQL has no OFFSET: LIMIT n takes the first n rows; to read the rows after them, ORDER BY a key and add WHERE <key> > the last value read`;
  }
  if (type === 'int' && prevType === 'ident' && prev!.text.toUpperCase() === 'TOP' && beforePrev?.type === 'SELECT') return 'OQL has no TOP: end the query with LIMIT n (after ORDER BY to take the n largest or smallest)';
  if (upper === 'NULLS' && (prevType === 'ASC' || prevType === 'DESC' || expected.has('ASC'))) {
    return 'OQL has no NULLS FIRST / LAST: NULL sorts first ascending and last descending; to move the NULLs, order by "x IS NULL" (false before true) first';
  }
  if (type === 'AS' && expected.has('WHERE') && next?.type === 'RETAINED') {
    return 'AS RETAINED SET goes before FROM: SELECT … AS RETAINED SET FROM …';
  }
  if (type === 'rparen' && expected.has('SELECT')) return 'a subquery in parentheses starts with SELECT';
  if (type === 'lbracket' && prevType === 'dot') return 'index an array with value[i], without a dot';
  return `the query reads well up to ${prev ? `"${prev.text}"` : 'here'}; the OQL section of the README shows each clause`;
}

const CLAUSE_END: ReadonlySet<string> = new Set(['GROUP', 'HAVING', 'ORDER', 'LIMIT', 'UNION', 'INTERSECT', 'EXCEPT', 'rparen', 'semicolon']);

/**
 * `COUNT(DISTINCT x)` (SQL's distinct aggregate), which OQL does not have: named as such, with
 * the two queries that answer it, instead of a list of tokens that could follow `(`.
 */
function distinctAggregate(tokens: Token[], at: number, text: string): OqlSyntaxError | null {
  const [fn, open, t] = [tokens[at - 2], tokens[at - 1], tokens[at]];
  if (t?.type !== 'DISTINCT' || open?.type !== 'lparen' || fn?.type !== 'ident') return null;
  // The argument: up to the parenthesis that closes the call.
  let end = at + 1;
  for (let depth = 1; end < tokens.length; end++) {
    if (tokens[end].type === 'lparen') depth++;
    if (tokens[end].type === 'rparen' && --depth === 0) break;
  }
  const arg = end < tokens.length && end > at + 1 ? text.slice(tokens[at + 1].offset, tokens[end].offset).trim() : 'x';
  // The query's FROM clause, for a hint that can be run as written.
  let from = '';
  const fromAt = tokens.findIndex((x, i) => i > end && x.type === 'FROM');
  if (fromAt >= 0) {
    let stop = fromAt + 1;
    while (stop < tokens.length && !CLAUSE_END.has(tokens[stop].type ?? '')) stop++;
    const last = tokens[stop - 1];
    from = ` ${text.slice(tokens[fromAt].offset, last.offset + last.text.length)}`;
  }
  const name = fn.text.toUpperCase();
  return new OqlSyntaxError(
    `${name}(DISTINCT ...) is not supported`,
    span(fn, t),
    t.text,
    [],
    name === 'COUNT'
      ? `list each value once with SELECT DISTINCT ${arg}${from} (its row count is the answer), or count each value with SELECT ${arg}, COUNT(*)${from} GROUP BY ${arg}`
      : `aggregates take every non-NULL value; list the distinct values with SELECT DISTINCT ${arg}${from}`,
  );
}

function endHint(expected: Set<string>, last: Token | null): string | null {
  if (!last) return 'a query looks like SELECT * FROM java.lang.String s WHERE ...';
  if (expected.has('FROM') && !expected.has('SELECT')) return 'every SELECT needs a FROM clause, e.g. ... FROM java.lang.String s';
  if (expected.has('rparen')) return 'a "(" is not closed';
  if (expected.has('END')) return 'CASE ... WHEN ... THEN ... ELSE ... END needs its END';
  const wanted = summarize(expected);
  return `the query stops after "${last.text}"${wanted.length ? `: add ${wanted.slice(0, 3).join(' or ')}` : ''}`;
}

/** Characters that are invisible or look like a space, by name. */
const INVISIBLE_NAMES: Readonly<Record<string, string>> = {
  '\uFEFF': 'a byte-order mark',
  '\u0000': 'a NUL character',
  '\u00A0': 'a no-break space',
  '\u00AD': 'a soft hyphen',
  '\u200B': 'a zero-width space',
  '\u200C': 'a zero-width non-joiner',
  '\u200D': 'a zero-width joiner',
  '\u2028': 'a line separator',
  '\u2029': 'a paragraph separator',
  '\u202F': 'a narrow no-break space',
  '\u3000': 'an ideographic space',
};

/**
 * A stray character as an error message shows it: quoted when it can be seen, else (a control
 * or format character, a space other than ' ', a private-use or unassigned code point, a lone
 * surrogate) as its code point, named when it has a common name: `U+FEFF (a byte-order mark)`.
 */
export function showCharacter(ch: string): string {
  if (!/^[\p{Cc}\p{Cf}\p{Z}\p{Co}\p{Cn}\p{Cs}]$/u.test(ch)) return JSON.stringify(ch);
  const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = INVISIBLE_NAMES[ch];
  return name ? `${code} (${name})` : code;
}

/** Tokens that only exist to be reported: a bad character, an open string, `${...}`. */
function checkLexical(t: Token): void {
  const pos = tokPos(t);
  switch (t.type) {
    case 'bad': {
      const ch = t.text;
      const hint =
        ch === '`' ? 'string literals take double or single quotes'
          : ch === '!' ? 'inequality is "!=", negation is NOT'
            : ch === '{' || ch === '}' ? 'braces are not part of OQL'
              : ch === '\uFEFF' ? 'a byte-order mark is skipped only at the very start of a query; delete this one'
                : showCharacter(ch).startsWith('U+') ? 'the character is invisible or looks like a space: delete it (or retype the text around it)' : null;
      throw new OqlSyntaxError(`unexpected character ${showCharacter(ch)}`, pos, ch, [], hint);
    }
    case 'badString': {
      const quote = t.text[0];
      const end: Pos = { ...pos, end: pos.offset + 1 };
      throw new OqlSyntaxError(
        'unterminated string literal', end, t.text, [],
        `close the string with ${quote}; string literals take double or single quotes and do not span lines`,
      );
    }
    case 'badComment':
      throw new OqlSyntaxError(
        'unterminated comment', { ...pos, end: pos.offset + 2 }, '/*', [],
        'close the comment with */ (or start a comment that runs to the end of the line with --)',
      );
    case 'envref':
      throw new OqlSyntaxError(
        `${t.text} is not supported`, pos, t.text, [],
        'there is no ${snapshot} reflection: select classes with FROM <class>, FROM INSTANCEOF <class> or FROM "<regex>"',
      );
    default:
      return;
  }
}
