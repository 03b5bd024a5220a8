/**
 * How an OQL error shows its place: `<where>:<line>:<col>: <message>`, the query's line as a
 * terminal shows it (control and bidi characters escaped, as every error line is), and a caret
 * under the bad token placed by the terminal cells the echoed text before it takes (an escape
 * such as `\u202e` six, a CJK character or an emoji two, a combining mark none). Columns count
 * characters (code points): an emoji is one column, not two UTF-16 units.
 *
 * A field or class the dump lacks (found once the dump is open, reported by the session with
 * `(line L, column C)`) shows the same way, through the same formatter the CLI, the REPL, the
 * server and the MCP server use.
 */
import { describe, expect, it } from 'vitest';

import { HeapqlError } from '../ts/errors.js';
import { failureResult } from '../ts/mcp/result.js';
import { OqlNameError } from '../ts/oql/errors.js';
import { formatOqlError, isOqlError, OqlPlanError, OqlSyntaxError, parse } from '../ts/oql/index.js';
import { plan } from '../ts/plan/index.js';
import { errorLines } from '../ts/repl/errors.js';
import { toApiError } from '../ts/server/errors.js';

/**
 * Terminal cells of escaped text made of ASCII, CJK, emoji and combining marks: an oracle apart
 * from the code under test (which measures with string-width).
 */
const cells = (text: string) =>
  [...text].reduce((n, c) => n + (/\p{Mn}/u.test(c) ? 0 : /\p{Script=Han}|\p{Extended_Pictographic}/u.test(c) ? 2 : 1), 0);

function syntaxError(text: string): OqlSyntaxError {
  try {
    parse(text);
  } catch (e) {
    if (e instanceof OqlSyntaxError) return e;
    throw e;
  }
  throw new Error(`no syntax error in ${text}`);
}

/** The echoed line and the caret line of a formatted error; checks the caret sits under `token` on screen. */
function caretUnder(formatted: string, token: string): { header: string; echo: string; caret: string } {
  const [header, echo, caret] = formatted.split('\n') as [string, string, string];
  expect(echo.startsWith('  ')).toBe(true);
  const at = echo.lastIndexOf(token);
  expect(at, echo).toBeGreaterThan(0);
  expect(caret, formatted).toBe(`${' '.repeat(cells(echo.slice(0, at)))}${'^'.repeat(cells(token))}`);
  return { header, echo, caret };
}

describe('the caret under the bad token', () => {
  it('a bidi or control character before it: echoed escaped, the caret counts the escape\'s cells', () => {
    for (const [ch, escaped] of [['\u202e', '\\u202e'], ['\u0001', '\\u0001'], ['\u200f', '\\u200f'], ['\u009b', '\\u009b']]) {
      const text = `SELECT '${ch}' AS x FORM y`;
      const formatted = formatOqlError(syntaxError(text), text, 'query');
      const { header, echo } = caretUnder(formatted, 'FORM');
      expect(echo).toBe(`  SELECT '${escaped}' AS x FORM y`);
      expect(header).toMatch(/^query:1:17: unexpected "FORM"/);
      // As the terminal shows it: the error's lines go through errorLines unchanged.
      expect(errorLines(formatted)).toBe(formatted);
    }
  });

  it('CJK, emoji and combining marks before it: columns in characters, the caret in cells', () => {
    const cases: [string, number][] = [
      // 8 + 2 characters + 7: FORM is the 18th character.
      ["SELECT '日本' AS x FORM y", 18],
      // One emoji is one column (two UTF-16 units).
      ["SELECT '😀' AS x FORM y", 17],
      ["SELECT '😀😀' AS x FORM y", 18],
      // e + a combining acute: two characters, one cell.
      ["SELECT 'e\u0301' AS x FORM y", 18],
      ["SELECT '😀日本e\u0301' AS x FORM y", 21],
    ];
    for (const [text, column] of cases) {
      const err = syntaxError(text);
      expect(err.pos.column, text).toBe(column);
      expect(err.message).toContain(`at line 1, column ${column}`);
      const { header } = caretUnder(formatOqlError(err, text, 'query'), 'FORM');
      expect(header.startsWith(`query:1:${column}: `)).toBe(true);
    }
  });

  it('later lines and a query file line: the column is of its own line, the caret under it', () => {
    const text = "SELECT s\nFROM Demo$Session s WHERE toString(s) LIKE '😀' ANDD 1 = 1";
    const err = syntaxError(text);
    const { header } = caretUnder(formatOqlError(err, text, 'q.oql', 4), 'ANDD');
    expect(header).toBe(`q.oql:6:${[...text.split('\n')[1]!.slice(0, text.split('\n')[1]!.indexOf('ANDD'))].length + 1}: ${err.reason}`);
  });

  it('the end of the query, a tab (shown as a space), a plan error after an emoji', () => {
    const open = "SELECT '😀' FROM";
    const end = formatOqlError(syntaxError(open), open, 'query').split('\n');
    expect(end[0]).toMatch(/^query:1:16: unexpected end of query/);
    expect(end[2]).toBe(`${' '.repeat(2 + cells("SELECT '😀' FROM"))}^`);

    const tabbed = "SELECT\t'\u202e'\tAS x FORM y";
    const { echo } = caretUnder(formatOqlError(syntaxError(tabbed), tabbed, 'query'), 'FORM');
    expect(echo).toBe("  SELECT '\\u202e' AS x FORM y");

    const unknown = "SELECT '😀', nosuch(1) FROM X x";
    let err: unknown;
    try {
      plan(unknown, { fullPath: false });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OqlPlanError);
    expect((err as OqlPlanError).pos).toMatchObject({ line: 1, column: 13 });
    const { header } = caretUnder(formatOqlError(err as OqlPlanError, unknown, 'query'), 'nosuch(1)');
    expect(header).toBe('query:1:13: unknown function nosuch()');
  });
});

describe('a field or class the dump lacks', () => {
  const fieldText = 'SELECT s.nope FROM Demo$Session s';
  // As the session reports them (ts/session/query.ts, `placed`).
  const field = new OqlNameError(
    "Demo$Session has no field 'nope' (its fields: data, id)",
    { kind: 'field', name: 'nope', className: 'Demo$Session', classCount: 1, fields: ['data', 'id'], quotedMessage: '"Demo$Session" has no field "nope" (its fields: "data", "id")' },
    { line: 1, column: 10 },
  );
  const classText = "SELECT '\u202e', s FROM Nope.Klass s";
  const fully = 'class names are fully qualified';
  const klass = new OqlNameError(`class Nope.Klass is not in this dump (${fully})`, { kind: 'class', name: 'Nope.Klass', suggestions: [], note: fully, quotedMessage: `class "Nope.Klass" is not in this dump (${fully})` }, { line: 1, column: 20 });

  it('is an OQL error with its place: the line and a caret under the name, the message without "(line, column)"', () => {
    expect([field.code, field.message]).toEqual(['ERR_UNKNOWN_FIELD', "Demo$Session has no field 'nope' (its fields: data, id) (line 1, column 10)"]);
    expect([klass.code, klass.message]).toEqual(['ERR_UNKNOWN_CLASS', `class Nope.Klass is not in this dump (${fully}) (line 1, column 20)`]);
    expect(isOqlError(field)).toBe(true);
    expect(formatOqlError(field, fieldText, 'q1')).toBe(
      ["q1:1:10: Demo$Session has no field 'nope' (its fields: data, id)", `  ${fieldText}`, `  ${' '.repeat(9)}^^^^`].join('\n'),
    );
    expect(isOqlError(klass)).toBe(true);
    const { header } = caretUnder(formatOqlError(klass, classText, 'query'), 'Nope.Klass');
    expect(header).toBe('query:1:20: class Nope.Klass is not in this dump (class names are fully qualified)');
    // Its exit code stays the one of a query that failed on this dump.
    expect(field.exitCode).toBe(1);
    expect(klass.exitCode).toBe(1);
  });

  it('without a place (not placed by the session, or a name the text shown lacks): its message as it is', () => {
    const bare = new HeapqlError('ERR_UNKNOWN_FIELD', "Demo$Session has no field 'nope'", { unknownName: field.unknownName });
    expect(isOqlError(bare)).toBe(false);
    expect(formatOqlError(field, 'SELECT 1 FROM Demo$Session s', 'query')).toBe(`query: ${field.message}`);
  });

  it('the server and the MCP server show it with its caret too, MCP with its code', () => {
    // The analysis state is read only for ERR_NEEDS_ANALYSIS.
    const noState = {
      get status(): never {
        throw new Error('the analysis state is not read for an OQL error');
      },
    };
    const api = toApiError(field, noState, fieldText);
    expect(api.status).toBe(400);
    expect(api.message).toBe(formatOqlError(field, fieldText, 'query'));
    // Its place, its words without the place, and the name, as data.
    expect(api.details).toEqual({ line: 1, column: 10, reason: field.reason, unknownName: field.unknownName });
    const tool = failureResult(klass, classText);
    expect(tool.isError).toBe(true);
    // The MCP server puts its code first, as for every other heapql error (syntax and plan errors:
    // `OQL error:`), and quotes the names as JSON (the executor's `quotedMessage`).
    const { header } = caretUnder((tool.content[0] as { text: string }).text, 'Nope.Klass');
    expect(header).toBe(`ERR_UNKNOWN_CLASS: query:1:20: class "Nope.Klass" is not in this dump (${fully})`);
  });
});
