// Errors of the OQL front end. Both carry a source position, so callers (CLI, query files,
// the server) can print `file:line:col`, the line, and a caret under the bad token.
import { HeapqlError } from '../errors.js';
import type { Pos } from './ast.js';

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

export type OqlError = OqlSyntaxError | OqlPlanError;

export function isOqlError(e: unknown): e is OqlError {
  return e instanceof OqlSyntaxError || e instanceof OqlPlanError;
}

/**
 * A compiler-style rendering: `<where>:<line>:<col>: <message>`, the source line, a caret under
 * the bad token, and the hint. `where` is a file name (query files) or a label such as `query`.
 * `lineOffset` shifts line numbers when the query is one line of a larger file.
 */
export function formatOqlError(err: OqlError, source: string, where = 'query', lineOffset = 0): string {
  const message = err instanceof OqlSyntaxError ? err.reason : err.reason;
  if (!err.pos) return `${where}: ${message}${err.hint ? `\n  hint: ${err.hint}` : ''}`;
  const lines = source.split('\n');
  const lineText = (lines[err.pos.line - 1] ?? '').replace(/\r$/, '').replace(/\t/g, ' ');
  const col = err.pos.column;
  const width = Math.max(1, Math.min(err.pos.end - err.pos.offset, lineText.length - (col - 1)));
  const out = [
    `${where}:${err.pos.line + lineOffset}:${col}: ${message}`,
    `  ${lineText}`,
    `  ${' '.repeat(Math.max(0, col - 1))}${'^'.repeat(width)}`,
  ];
  if (err.hint) out.push(`  hint: ${err.hint}`);
  return out.join('\n');
}
