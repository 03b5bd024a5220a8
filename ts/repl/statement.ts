/**
 * When a typed statement is complete. `!` commands are one line; a trailing `;` always ends a
 * statement. OQL asks for more while the parser runs out of input before the statement ends
 * (an open parenthesis, `SELECT COUNT(*)` without its FROM, a trailing keyword or operator),
 * inside an unterminated string, and after a `-- @viz` line alone. A statement with an error
 * before its end is complete: it runs and shows the error with a caret.
 */
import { OqlSyntaxError } from '../oql/errors.js';
import { tokenize } from '../oql/lexer.js';
import { parse } from '../oql/parser.js';
import { extractViz } from '../query/viz.js';

export function isCommand(text: string): boolean {
  return text.trimStart().startsWith('!');
}

export function statementComplete(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === '' || isCommand(trimmed) || trimmed.endsWith(';')) return true;
  const { oql } = extractViz(trimmed);
  // A directive (or comment) alone waits for its query.
  if (oql.split('\n').every((l) => l.trim() === '' || l.trim().startsWith('--'))) return false;
  if (tokenize(oql).some((t) => t.type === 'badString')) return false;
  try {
    parse(oql);
    return true;
  } catch (err) {
    // An error at the end of the input: the statement goes on.
    return !(err instanceof OqlSyntaxError && err.token === '');
  }
}

/** The statement as it runs: without the final `;`. */
export function stripTerminator(text: string): string {
  return text.trim().replace(/;\s*$/, '').trim();
}
