/**
 * A text of several lines entered at once (pasted, or typed with Shift+Enter) split into the
 * statements it holds, as the terminal REPL runs a pasted block and piped lines
 * (ts/repl/terminal.ts): line by line, a `!` command is one line, a complete statement runs once
 * the next line shows it does not go on (`continuesStatement`: a `WHERE` or `ORDER BY` on a line
 * of its own continues it; a name, a literal, a `SELECT`, a command or an empty line does not),
 * an empty line ends a statement that spans lines (it runs as typed, errors included), and
 * comment lines go with what follows (`-- @viz` before a query is that query's). What is left
 * open at the end (an unfinished statement) is not run: it stays at the prompt, as the terminal
 * keeps it at `...>`. Statements after a `;` on one line (`SELECT 1; SELECT 2`) run in turn.
 */
import { codePoints } from '../oql/lexer.js';
import { continuesStatement, isCommand, isCommentLine, statementComplete, statementEndInLine, stripTerminator } from '../repl/statement.js';

export interface Block {
  /** The statements to run, in order, each as typed (its lines joined by `\n`). */
  statements: string[];
  /** The lines of a statement still open at the end, joined ('' when none). */
  rest: string;
}

export function splitBlock(text: string): Block {
  const lines = text.split(/\r?\n/);
  const statements: string[] = [];
  let buffer: string[] = [];
  // Whether the lines after the complete statement `statement` (from line `from` on) continue it.
  const goesOn = (statement: string, from: number): boolean => {
    const next: string[] = [];
    for (let k = from; k < lines.length; k++) {
      const l = lines[k]!;
      if (l.trim() === '' || (isCommand(l) && !l.trimStart().startsWith('!='))) return false;
      next.push(l);
      if (!isCommentLine(l)) return continuesStatement(statement, next.join('\n'));
    }
    return false;
  };
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    // More statements after a `;` on this line (`SELECT 1; SELECT 2`): the rest is the next
    // line, its start padded with spaces (an error's column is that of the line as typed), as
    // the terminal runs it.
    if (!(buffer.length === 0 && isCommand(line))) {
      const end = statementEndInLine([...buffer, line].join('\n'));
      if (end >= 0) {
        lines.splice(i + 1, 0, ' '.repeat(codePoints(line.slice(0, end))) + line.slice(end));
        line = line.slice(0, end);
      }
    }
    const typed = buffer.length === 0 && isCommand(line) ? [line] : [...buffer, line];
    const joined = typed.join('\n');
    let ready = statementComplete(joined) || (buffer.length > 0 && line.trim() === '');
    if (ready && line.trim() !== '' && !isCommand(joined) && !/;\s*$/.test(joined)) ready = !goesOn(joined, i + 1);
    if (ready) {
      buffer = [];
      if (stripTerminator(joined) !== '') statements.push(joined);
    } else buffer = typed;
  }
  return { statements, rest: buffer.join('\n') };
}
