// Where a query names what the executor refused. The executor meets an unknown field or class
// only once it has the dump, by name, after the query text is gone; its error carries the name
// (`unknownName`), and the session then says where the query names it, as the parser's errors do.
import type { UnknownName } from '../errors.js';
import { IDENT_PART, tokenize, type Token } from './lexer.js';

/** A 1-based line and column of the query text (the column in code points, as `Pos`). */
export interface LineColumn {
  line: number;
  column: number;
}

/**
 * The first `.name` of `text` (a field read); else the first bare `name` that reads a field of
 * the row (`SELECT x, nosuch FROM OBJECTS 0x…`: not a call, not an alias after AS); or null.
 */
export function fieldPosition(text: string, name: string): LineColumn | null {
  const tokens = tokenize(text);
  for (let i = 1; i < tokens.length; i++) {
    if (tokens[i - 1]!.type === 'dot' && tokens[i]!.text === name) return at(tokens[i]!);
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.text !== name || tokens[i - 1]?.type === 'AS' || tokens[i + 1]?.type === 'lparen') continue;
    return at(t);
  }
  return null;
}

/**
 * Where `text` names what the executor refused (its error's `unknownName`): a class as FROM or
 * INSTANCEOF writes it, a field as it is read; null when `text` does not name it. Used by the
 * session to place the error (ts/session/query.ts) and by its display to find the name again in
 * the text shown (ts/oql/errors.ts).
 */
export function namePosition(refused: Pick<UnknownName, 'kind' | 'name'>, text: string): LineColumn | null {
  return refused.kind === 'class' || refused.kind === 'pattern' ? classPosition(text, refused.name) : fieldPosition(text, refused.name);
}

/** A character that would continue a class name (`java.lang.String[]`, `a.B$C`). */
const NAME_GOES_ON = new RegExp(`[${IDENT_PART}.[]`, 'u');

/**
 * The first place `text` names class `name` whole (as FROM or INSTANCEOF writes it), or null.
 * A pattern after INSTANCEOF (`FROM INSTANCEOF "<regex>"`, refused when no class matches it, the
 * pattern as the name) is found there, at its first character inside the quotes.
 */
export function classPosition(text: string, name: string): LineColumn | null {
  const tokens = tokenize(text);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === 'string') {
      if (tokens[i - 1]?.type === 'INSTANCEOF' && t.text.slice(1, -1) === name) return { line: t.line, column: t.col + 1 };
      continue;
    }
    if (tokens[i - 1]?.type === 'dot' || !text.startsWith(name, t.offset)) continue;
    if (!NAME_GOES_ON.test(text[t.offset + name.length] ?? '')) return at(t);
  }
  return null;
}

function at(t: Token): LineColumn {
  return { line: t.line, column: t.col };
}
