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

/** Token types the parser never sees (whitespace and comments). */
export const SKIPPED_TOKENS: ReadonlySet<string> = new Set(['ws', 'comment']);

/**
 * Token types that exist only to give a precise error: the grammar accepts none of them.
 * (`${snapshot}`, `==`, `&&`, `||`, an unterminated string or comment, a stray character.)
 */
export const lexer = moo.compile({
  ws: { match: /[ \t\r\n\f]+/, lineBreaks: true },
  comment: [
    { match: /--[^\n]*/ },
    { match: /\/\*[^]*?\*\//, lineBreaks: true },
  ],
  // A `/*` with no `*/` after it: reported as an unterminated comment at its start.
  badComment: { match: /\/\*[^]*/, lineBreaks: true },
  envref: /\$\{[^}\n]*\}?/,
  hex: /0[xX][0-9a-fA-F]+/,
  float: /(?:\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)[fFdD]?|\d+[fFdD]/,
  int: /\d+[lL]?/,
  string: /"[^"\n]*"|'[^'\n]*'/,
  badString: /["'][^\n]*/,
  attr: /@[A-Za-z_$][A-Za-z0-9_$]*/,
  ident: {
    match: /[A-Za-z_$][A-Za-z0-9_$]*/,
    type: (text: string) => {
      const upper = text.toUpperCase();
      return keywordSet.has(upper) ? upper : 'ident';
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
  bad: { match: /[^]/, lineBreaks: true },
});

export type Token = moo.Token;

/** Every token of `text`, skipped ones removed. Never throws: bad input becomes `bad*` tokens. */
export function tokenize(text: string): Token[] {
  lexer.reset(text);
  const out: Token[] = [];
  for (let t = lexer.next(); t !== undefined; t = lexer.next()) {
    if (!SKIPPED_TOKENS.has(t.type ?? '')) out.push(t);
  }
  return out;
}
