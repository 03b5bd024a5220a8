// Query files (`--query-file`): one query per line; blank lines, `#` lines and plain `--`
// comment lines are skipped; a `-- @viz` line attaches to the next query. Every query is parsed
// (and planned, when options are given) up front, so a typo on line 40 is reported before line 1
// runs, as `<file>:<line>:<col>: <message>`, the line, a caret, and a hint (design.md §4.8).
import { readFileSync } from 'node:fs';
import { formatOqlError, isOqlError, type TextPlace } from '../oql/errors.js';
import { stripBom } from '../oql/lexer.js';
import { parse } from '../oql/parser.js';
import { planAst, type PlanOptions, type PlannedQuery } from '../plan/index.js';
import type { VizSpec } from './schema.js';
import { isVizLine, parseVizDirective } from './viz.js';

export interface QueryFileEntry {
  /** The query text exactly as on its line. */
  oql: string;
  /** 1-based line number in the file. */
  line: number;
  viz: VizSpec | null;
  /** Why its `-- @viz` line was ignored (also in `warnings`, with file and line). */
  vizWarning?: string;
  /** The 1-based line of its `-- @viz` line, when it has one (a warning about the chart names it). */
  vizLine?: number;
  /** The plan, when the file was read with plan options (so the query is not planned again). */
  planned?: PlannedQuery;
}

export interface QueryFileResult {
  queries: QueryFileEntry[];
  /** Formatted errors (parse or plan), each several lines; any error means: do not run. */
  errors: string[];
  /** Malformed `-- @viz` directives and dangling ones; never fatal. */
  warnings: string[];
}

export interface QueryFileOptions {
  /** Also plan each query with these options (catches unknown attributes, refused features). */
  plan?: PlanOptions;
}

export function parseQueryFile(text: string, file: string, opts: QueryFileOptions = {}): QueryFileResult {
  const result: QueryFileResult = { queries: [], errors: [], warnings: [] };
  // A file saved with a byte-order mark (some Windows editors) starts with one: not a character of line 1.
  const lines = stripBom(text).split('\n');
  let pending: { viz: VizSpec; line: number; warning: string | null } | null = null;
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.replace(/\r$/, '');
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    if (isVizLine(line)) {
      if (pending) result.warnings.push(`${file}:${pending.line}: @viz directive is not followed by a query; ignored`);
      const { viz, warning } = parseVizDirective(line);
      if (warning) result.warnings.push(`${file}:${lineNo}: ${warning}`);
      pending = { viz, line: lineNo, warning };
      return;
    }
    if (trimmed.startsWith('--')) return;
    try {
      const ast = parse(line);
      const planned = opts.plan ? planAst(ast, opts.plan) : undefined;
      result.queries.push({
        oql: line,
        line: lineNo,
        viz: pending?.viz ?? null,
        ...(pending?.warning ? { vizWarning: pending.warning } : {}),
        ...(pending ? { vizLine: pending.line } : {}),
        ...(planned ? { planned } : {}),
      });
    } catch (e) {
      if (!isOqlError(e)) throw e;
      result.errors.push(formatOqlError(e, line, file, i));
    }
    pending = null;
  });
  if (pending) result.warnings.push(`${file}:${(pending as { line: number }).line}: @viz directive is not followed by a query; ignored`);
  return result;
}

/**
 * Where a query of the file was written: an error found once the dump is open (a class or field
 * the dump lacks) names `<file>:<line>:<col>` and shows the file's line, as one found while the
 * file is read does. The query is its line as it is, so its column is the file's.
 */
export function queryFilePlace(file: string, entry: Pick<QueryFileEntry, 'oql' | 'line'>): TextPlace {
  return { source: `${file}:${entry.line}`, file, lines: [{ line: entry.line, column: 0, text: entry.oql }] };
}

/** Reads and checks a query file; a file that cannot be read is an Error naming the path. */
export function loadQueryFile(path: string, opts: QueryFileOptions = {}): QueryFileResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT' ? `query file not found: ${path}`
        : code === 'EISDIR' ? `query file is a directory: ${path}`
          : `cannot read query file ${path}: ${(e as Error).message}`,
    );
  }
  return parseQueryFile(text, path, opts);
}
