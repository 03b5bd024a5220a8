// Errors of the OQL front end, and the dump's refusal of a name the query uses. Each carries a
// source position, so callers (CLI, query files, the REPL, the server, MCP) can print
// `file:line:col`, the line, and a caret under the bad token.
//
// Positions: a line and a column, both 1-based; the column counts characters (Unicode code
// points) from the start of the line, so an emoji or a CJK character counts one, as a person
// counts them (an editor's column may differ for a tab or a combining mark). `Pos.offset` and
// `Pos.end` are indices into the JavaScript string (UTF-16 units).
import { HeapqlError, type UnknownName } from '../errors.js';
import { displayWidth, terminalText } from '../terminal-text.js';
import type { Pos } from './ast.js';
import { namePosition, type LineColumn } from './locate.js';

/** The query text does not follow the grammar. */
export class OqlSyntaxError extends HeapqlError {
  override name = 'OqlSyntaxError';
  constructor(
    /** What is wrong, without position (e.g. `unexpected "FORM"`). */
    readonly reason: string,
    /** Where the offending token starts (1-based line/column) and ends. */
    readonly pos: Pos,
    /** The offending token's text; empty at end of input. */
    readonly token: string,
    /** A summary of what the grammar would have accepted there. */
    readonly expected: string[],
    /** What to write instead. */
    readonly hint: string | null,
  ) {
    super('ERR_OQL_SYNTAX', `${reason} at line ${pos.line}, column ${pos.column}${hint ? ` (hint: ${hint})` : ''}`, { exitCode: 2 });
  }
}

/**
 * More text after the `;` that ends a query (`SELECT …; SELECT …`): a query is one statement.
 * It points at that `;`. The fronts that take one statement at a time say how to give several
 * (the CLI: a --query each); the REPL runs statements separated by `;` in turn.
 */
export class OqlSecondStatementError extends OqlSyntaxError {}

/** The query parses but cannot be planned (unknown name, unsupported construct, rule broken). */
export class OqlPlanError extends HeapqlError {
  override name = 'OqlPlanError';
  constructor(
    readonly reason: string,
    readonly pos: Pos | null,
    readonly hint: string | null = null,
  ) {
    super('ERR_OQL_PLAN', hint ? `${reason} (hint: ${hint})` : reason, { exitCode: 2 });
  }
}

/**
 * A field or class the dump lacks. The executor meets it only once the dump is open; its error
 * carries the name (`unknownName`), and the session then says where the query names it, ending
 * the message with `(line L, column C)` (ts/session/query.ts, `placed`). It is an error of the
 * query's text as a syntax error is, and shows the same way (the line, a caret under the name),
 * but keeps its code and its exit code (1: the query failed on this dump; the same text may run
 * on another one).
 */
export class OqlNameError extends HeapqlError {
  declare readonly code: 'ERR_UNKNOWN_FIELD' | 'ERR_UNKNOWN_CLASS';
  declare readonly unknownName: UnknownName;
  constructor(
    /** The executor's message, without the place. */
    readonly reason: string,
    /** The name refused and what the message lists beside it (the executor's data). */
    refused: UnknownName,
    /** Where the query that ran names it (1-based; the column in code points). */
    readonly pos: LineColumn,
    options: { cause?: unknown } = {},
  ) {
    super(refused.kind === 'class' || refused.kind === 'pattern' ? 'ERR_UNKNOWN_CLASS' : 'ERR_UNKNOWN_FIELD', `${reason} (line ${pos.line}, column ${pos.column})`, {
      exitCode: 1,
      cause: options.cause,
      unknownName: refused,
    });
  }
}

export type OqlError = OqlSyntaxError | OqlPlanError | OqlNameError;

/** A field or class the dump lacks, with where the query names it. */
export function isOqlNameError(e: unknown): e is OqlNameError {
  return e instanceof OqlNameError;
}

export function isOqlError(e: unknown): e is OqlError {
  return e instanceof OqlSyntaxError || e instanceof OqlPlanError || isOqlNameError(e);
}

/** What an error says and where in its source: a column in code points, a length in UTF-16 units. */
interface Place {
  reason: string;
  line: number;
  column: number;
  length: number;
  hint: string | null;
}

/** The message of `err` and where it points in `source`; null when it points nowhere there. */
function placeOf(err: OqlError, source: string): Place | null {
  if (err instanceof OqlSyntaxError || err instanceof OqlPlanError) {
    if (!err.pos) return null;
    return { reason: err.reason, line: err.pos.line, column: err.pos.column, length: err.pos.end - err.pos.offset, hint: err.hint };
  }
  // The name is found again in the text shown (which may differ from the one that ran by a
  // `-- @viz` line): the line and caret are those of `source`.
  const at = namePosition(err.unknownName, source);
  return at ? { reason: err.reason, line: at.line, column: at.column, length: err.unknownName.name.length, hint: null } : null;
}

/**
 * Where `formatOqlError(err, source)` points (the `L:C` of its first line): 1-based, the column
 * in code points; null when it points nowhere in `source`.
 */
export function oqlErrorPlace(err: OqlError, source: string): LineColumn | null {
  const place = placeOf(err, source);
  return place ? { line: place.line, column: place.column } : null;
}

/** Text of the query as the terminal shows it (`errorLines` keeps it as it is): a tab one space. */
function shown(text: string): string {
  return terminalText(text.replace(/\t/g, ' '), { keepBackslashes: true });
}

/** Where one line of a query's text was written in a larger file (a config file's `[[query]]` entry). */
export interface LinePlace {
  /** The file's line (1-based). */
  line: number;
  /** The code points before the query's line on the file's line; absent when the file's line is not the text as it is (escapes). */
  column?: number;
  /** The file's line, shown under the message (with `column`). */
  text?: string;
}

/** Where a query's text was written in a file: errors name the file's line and column, not the query's. */
export interface TextPlace {
  /** `file:line` of the whole (the entry), for an error that points at no line of the file. */
  source: string;
  /** The file's name. */
  file: string;
  /** For each line of the text (0-based), where it was written; absent when not known. */
  lines?: readonly LinePlace[];
}

/** A query line longer than this many characters is shown as a window around the bad token… */
const LONG_LINE = 1000;
/** …of this many characters either side (and of the token). */
const WINDOW = 100;

/**
 * A compiler-style rendering: `<where>:<line>:<col>: <message>`, the source line, a caret under
 * the bad token, and the hint. `where` is a file name (query files) or a label such as `query`.
 * `lineOffset` shifts line numbers when the query is one line of a larger file. `where` may be a
 * `TextPlace` instead: the query was written in a file (a config entry), and the message names
 * the file's line and column, shows the file's line and puts the caret under the token there;
 * a line whose text in the file is not the query's as it is (escapes) is named by its line, the
 * query's line shown; an error that points nowhere is named by the entry's place.
 *
 * The line is shown as a terminal shows it (control and bidi characters as escapes such as
 * `\u202e`), and the caret stands under the token by the cells the text before it takes there
 * (an escape six, a CJK character two, a combining mark none). A line longer than LONG_LINE
 * characters shows WINDOW characters either side of the token, cut ends marked `…`.
 */
export function formatOqlError(err: OqlError, source: string, where: string | TextPlace = 'query', lineOffset = 0): string {
  const place = placeOf(err, source);
  const at = typeof where === 'string' ? null : where;
  if (!place) {
    const hint = err instanceof OqlSyntaxError || err instanceof OqlPlanError ? err.hint : null;
    const reason = err instanceof OqlSyntaxError || err instanceof OqlPlanError ? err.reason : err.message;
    return `${at ? at.source : where}: ${reason}${hint ? `\n  hint: ${hint}` : ''}`;
  }
  let lineText = (source.split('\n')[place.line - 1] ?? '').replace(/\r$/, '');
  let column = place.column;
  let named = `${where}:${place.line + lineOffset}:${place.column}`;
  if (at) {
    const written = at.lines?.[place.line - 1];
    if (written?.column !== undefined && written.text !== undefined) {
      lineText = written.text;
      column = written.column + place.column;
      named = `${at.file}:${written.line}:${column}`;
    } else named = written ? `${at.file}:${written.line}` : at.source;
  }
  const chars = Array.from(lineText);
  let before = chars.slice(0, Math.max(0, column - 1)).join('');
  let token = lineText.slice(before.length, before.length + Math.max(0, place.length));
  let after = lineText.slice(before.length + token.length);
  // A line of more than LONG_LINE characters (a generated query) shows a window around the token.
  if (chars.length > LONG_LINE) {
    const beforeChars = Array.from(before);
    if (beforeChars.length > WINDOW) before = `…${beforeChars.slice(-WINDOW).join('')}`;
    const tokenChars = Array.from(token);
    if (tokenChars.length > WINDOW) token = tokenChars.slice(0, WINDOW).join('');
    const afterChars = Array.from(after);
    after = afterChars.length > WINDOW ? `${afterChars.slice(0, WINDOW).join('')}…` : after;
    if (tokenChars.length > WINDOW) after = '…';
  }
  const out = [
    `${named}: ${place.reason}`,
    `  ${shown(before + token + after)}`,
    `  ${' '.repeat(displayWidth(shown(before)))}${'^'.repeat(Math.max(1, displayWidth(shown(token))))}`,
  ];
  if (place.hint) out.push(`  hint: ${place.hint}`);
  return out.join('\n');
}
