// The OQL tokenizer (moo). Keywords are case-insensitive; a keyword token's type is the
// upper-case keyword, so the grammar matches `%SELECT` whatever case the user typed.
import moo from 'moo';

/** Words the grammar reserves. After a `.` any of them is still a field name (`buf.limit`). */
export const KEYWORDS = [
  'SELECT', 'DISTINCT', 'OBJECTS', 'AS', 'RETAINED', 'SET', 'FROM', 'INSTANCEOF', 'WHERE',
  'GROUP', 'BY', 'HAVING', 'ORDER', 'ASC', 'DESC', 'LIMIT', 'UNION', 'INTERSECT', 'EXCEPT', 'ALL',
  'AND', 'OR', 'NOT', 'LIKE', 'IN', 'BETWEEN', 'EXISTS', 'IS', 'CASE', 'WHEN', 'THEN', 'ELSE',
  'END', 'TRUE', 'FALSE', 'NULL',
] as const;

const keywordSet: ReadonlySet<string> = new Set(KEYWORDS);

/**
 * A name (class, field, alias): Java's identifier letters (Character.isJavaIdentifierStart /
 * isJavaIdentifierPart: Unicode letters, letter numbers, currency symbols such as `$`, connecting
 * punctuation such as `_`; then also digits and combining marks), so `café.Ωmega$Ünï` is written
 * bare. Format characters (Java's "ignorable" ones, a byte-order mark) are not part of a name.
 */
const IDENT_START = String.raw`\p{L}\p{Nl}\p{Sc}\p{Pc}`;
/** The characters that go on a name (a regex character-class body, for /u regexes). */
export const IDENT_PART = String.raw`${IDENT_START}\p{Mn}\p{Mc}\p{Nd}`;
const IDENT = new RegExp(`[${IDENT_START}][${IDENT_PART}]*`, 'u');

/** A byte-order mark: skipped at the start of a query text, named where it is anywhere else. */
export const BOM = '\uFEFF';

/** `text` without a leading byte-order mark (files saved by some Windows editors start with one). */
export function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

/** Token types the parser never sees (whitespace and comments). */
export const SKIPPED_TOKENS: ReadonlySet<string> = new Set(['ws', 'comment']);

/**
 * Token types that exist only to give a precise error: the grammar accepts none of them.
 * (`${snapshot}`, `==`, `&&`, `||`, an unterminated string or comment, a stray character.)
 * Every rule is a /u regex (moo wants all or none): names take Unicode properties, and a stray
 * character is a whole code point.
 */
export const lexer = moo.compile({
  ws: { match: /[ \t\r\n\f]+/u, lineBreaks: true },
  comment: [
    { match: /--[^\n]*/u },
    { match: /\/\*[^]*?\*\//u, lineBreaks: true },
  ],
  // A `/*` with no `*/` after it: reported as an unterminated comment at its start.
  badComment: { match: /\/\*[^]*/u, lineBreaks: true },
  envref: /\$\{[^}\n]*\}?/u,
  hex: /0[xX][0-9a-fA-F]+/u,
  float: /(?:\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)[fFdD]?|\d+[fFdD]/u,
  int: /\d+[lL]?/u,
  string: /"[^"\n]*"|'[^'\n]*'/u,
  badString: /["'][^\n]*/u,
  attr: new RegExp(`@${IDENT.source}`, 'u'),
  ident: {
    match: IDENT,
    // Only ASCII words are keywords: 'ſelect' and 'ın' upper-case to SELECT and IN.
    type: (text: string) => {
      const upper = text.toUpperCase();
      return /^[A-Za-z]+$/.test(text) && keywordSet.has(upper) ? upper : 'ident';
    },
  },
  le: '<=',
  ge: '>=',
  ne: ['!=', '<>'],
  eqeq: '==',
  andand: '&&',
  oror: '||',
  eq: '=',
  lt: '<',
  gt: '>',
  plus: '+',
  minus: '-',
  star: '*',
  slash: '/',
  percent: '%',
  lparen: '(',
  rparen: ')',
  lbracket: '[',
  rbracket: ']',
  comma: ',',
  dot: '.',
  colon: ':',
  semicolon: ';',
  bad: { match: /[^]/u, lineBreaks: true },
});

export type Token = moo.Token;

/**
 * Every token of `text`, skipped ones removed. Never throws: bad input becomes `bad*` tokens.
 * A token's `col` counts characters (code points) from the start of its line, not UTF-16
 * units as moo does: an emoji before it counts one (`offset` stays a string index).
 */
export function tokenize(text: string): Token[] {
  lexer.reset(text);
  const astral = SURROGATE.test(text);
  const out: Token[] = [];
  // Characters counted so far on the current line: up to `countedTo` (a string index), `counted`
  // of them; each token counts on from the one before it (a long line costs its length, once).
  let lineStart = -1;
  let countedTo = 0;
  let counted = 0;
  for (let t = lexer.next(); t !== undefined; t = lexer.next()) {
    // A leading byte-order mark is no character of the query (positions stay those of `text`).
    if (t.offset === 0 && t.type === 'bad' && t.text === BOM) continue;
    if (SKIPPED_TOKENS.has(t.type ?? '')) continue;
    if (astral) {
      const start = t.offset - (t.col - 1);
      if (start !== lineStart) [lineStart, countedTo, counted] = [start, start, 0];
      counted += codePoints(text.slice(countedTo, t.offset));
      countedTo = t.offset;
      t.col = counted + 1;
    }
    out.push(t);
  }
  return out;
}

const SURROGATE = /[\ud800-\udfff]/;

/** Characters (code points; an unpaired surrogate counts one) in `text`. */
export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
