/**
 * When a typed statement is complete. `!` commands are one line; a trailing `;` always ends a
 * statement. OQL asks for more while the parser runs out of input before the statement ends
 * (an open parenthesis, `SELECT COUNT(*)` without its FROM, a trailing keyword or operator),
 * inside an unterminated string, and after a `-- @viz` line alone. A statement with an error
 * before its end is complete: it runs and shows the error with a caret.
 *
 * Piped input also looks ahead (`continuesStatement`): a complete statement goes on when the
 * next line continues it (a `WHERE`, `ORDER BY` or `UNION` on a line of its own); a line that
 * begins with a name or a literal (a mistyped `SELEKT` reads as a name) is a statement of its
 * own, as at the prompt.
 */
import { OqlSyntaxError } from '../oql/errors.js';
import { tokenize } from '../oql/lexer.js';
import { parse } from '../oql/parser.js';
import { extractViz } from '../query/viz.js';

export function isCommand(text: string): boolean {
  const t = text.trimStart();
  // `/run <name>` is `!run <name>` (the specification's spelling); no OQL starts with "/".
  return t.startsWith('!') || /^\/run(\s|;|$)/i.test(t);
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

/**
 * Where the last line of `text` ends a statement that more statements follow on that line
 * (`SELECT …; SELECT …`, as psql and sqlite3 run them one after the other): the index in that
 * line just after the first `;` (outside strings and comments) that a token other than `;` comes
 * after; -1 when there is none.
 */
export function statementEndInLine(text: string): number {
  const lineStart = text.lastIndexOf('\n') + 1;
  const tokens = tokenize(text);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type !== 'semicolon' || t.offset < lineStart) continue;
    if (tokens.slice(i + 1).some((n) => n.type !== 'semicolon')) return t.offset - lineStart + 1;
    return -1;
  }
  return -1;
}

/** A line with nothing but comments (`-- ...`, `-- @viz ...`, a closed `/* ... *\/`). */
export function isCommentLine(line: string): boolean {
  return line.trim() !== '' && tokenize(line).length === 0;
}

/**
 * Token types of a line's first token that start a statement of its own after a complete one:
 * a name (a mistyped keyword such as `SELEKT` lexes as one) or a literal. Only a line that
 * begins with a keyword (other than `SELECT`, which never continues a statement), an operator
 * or punctuation can continue one: none of these can begin a statement.
 */
const BEGINS_STATEMENT: ReadonlySet<string> = new Set(['ident', 'attr', 'int', 'float', 'hex', 'string', 'badString', 'envref']);

/**
 * Whether `next` (one line, or comment lines and then one line) continues the complete
 * statement `statement` rather than starting another. It does when it begins with what cannot
 * begin a statement (a clause keyword, an operator) and the two read as one statement, run out
 * of input together (`ORDER BY` alone), or stop at an error past that first token (`WHERE
 * s.count >> 3` is the statement's own error). An error at the first token (a `SELECT`) means
 * `next` is something else, and so does a line that begins with a name or a literal, as it
 * would be at the prompt, where the complete statement runs at Enter: `FROM Foo` then `SELEKT 1`
 * must not read `SELEKT` as Foo's alias and swallow the statement into the typo's error.
 */
export function continuesStatement(statement: string, next: string): boolean {
  const before = statement.split('\n').length;
  // As it would run: the viz line blanked (line numbers kept), without the final `;`.
  const { oql } = extractViz(`${statement}\n${next}`.replace(/;\s*$/, ''));
  const first = tokenize(oql).find((t) => t.line > before);
  if (!first || BEGINS_STATEMENT.has(first.type ?? '')) return false;
  try {
    parse(oql);
    return true;
  } catch (err) {
    if (!(err instanceof OqlSyntaxError)) return false;
    if (err.token === '') return true;
    const { line, column } = err.pos;
    return line > first.line || (line === first.line && column > first.col);
  }
}

/** The statement as it runs: without the final `;`. */
export function stripTerminator(text: string): string {
  return text.trim().replace(/;\s*$/, '').trim();
}

/**
 * The query as it runs: without the final `;` and what follows it, its leading white space
 * kept, so that positions in it (an error's column) are those of the text as written.
 */
export function withoutTerminator(text: string): string {
  return text.trimEnd().replace(/;$/, '').trimEnd();
}

/** After `cancelled`, when the cancel also dropped the rest of a pasted block (terminal and browser). */
export const REST_DROPPED = '(the rest of the paste did not run)';
