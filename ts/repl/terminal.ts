/**
 * The terminal front of the REPL (`heapql query|analyze <dump> --repl`): Node's readline with
 * the `oql>` prompt and a continuation prompt, persistent history (one entry per statement,
 * however many lines it took) with Ctrl-R, tab completion, bracketed paste (a pasted block runs
 * at the Enter after it, as piped lines do), Ctrl-C that cancels a running statement (and the
 * rest of its pasted block) or clears the line (never exits), Ctrl-Z to suspend, Ctrl-D to leave
 * (cancelling what runs; nothing after it runs). `~/` in a path is the home directory. A long
 * table is written a block at a time, waiting for the output (`block-writer.ts`); Ctrl-C stops
 * it, and an output that went away (`| head`) ends the session.
 * With stdin not a terminal, statements are read line by line through the same dispatcher and
 * printed plainly (no prompts, no colours; the CLI's progress bar only on a terminal stderr); a statement that has become
 * complete runs once the next line shows it does not go on (see `continuesStatement`), and
 * `!quit` ends the input there. Errors name the input's line (`stdin:12:5:`); SIGINT stops
 * the input with exit code 130.
 */
import { readdirSync, statSync } from 'node:fs';
import readline from 'node:readline';
import type tty from 'node:tty';

import type { HeapSession, ProgressEvent } from '../session/index.js';
import { codePoints } from '../oql/lexer.js';
import { controlIndex, terminalText } from '../terminal-text.js';
import { VERSION } from '../version.js';
import type { ReplIO } from './backend.js';
import { outputClosed, writeBlock } from './block-writer.js';
import { complete, ESCAPED_COMPLETION_NOTE, insertablePrefix, moreCompletionsNote, type CompletionSource } from './complete.js';
import { Repl } from './dispatch.js';
import type { StoredQuery } from '../report/config.js';
import { errorLines } from './errors.js';
import { saveBlocks } from './file-save.js';
import { appendHistory, enableHistorySearch, HISTORY_CAP, historyByStatement, historyPath, loadHistory, statementEntry } from './history.js';
import { expandHome } from './home.js';
import { enableBracketedPaste, enableSuspend, PASTE_OFF, PASTE_ON, showContinuationLines } from './line-editor.js';
import { renderBanner } from './render.js';
import { continuesStatement, isCommand, isCommentLine, REST_DROPPED, statementComplete, statementEndInLine } from './statement.js';

export const PROMPT = 'oql> ';
export const CONTINUATION = '...> ';

export interface TerminalOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WriteStream;
  errors?: NodeJS.WriteStream;
  /** The history file; null keeps none. Default: historyPath(). */
  historyFile?: string | null;
  /**
   * The progress bar of `!analyze`, drawn on `errors`; the CLI passes its own (this module stays
   * below the CLI). Default: none.
   */
  progressBar?: (stream: NodeJS.WriteStream) => ProgressBar;
  /** The config file's named `[[query]]` entries: `!run <name>` runs them, Tab completes them. */
  storedQueries?: StoredQuery[];
  /**
   * `--quiet`: no `warning:` lines (the history file's, a `-- @viz` line's), as the CLI's warnings
   * are silenced; errors are said as ever.
   */
  quiet?: boolean;
  /**
   * Called when a statement of piped input fails (the session's exit code becomes 1): the CLI
   * sets the process's exit code at once, so that a reader gone (`| head`), which ends the
   * process at its next write, keeps it.
   */
  onFailure?: () => void;
}

/** What the REPL needs of a progress bar. */
export interface ProgressBar {
  onProgress: (event: ProgressEvent) => void;
  stop: () => void;
}

/** Shown with completions that had to be escaped (`readlineCompletion`); shared with the browser. */
export { ESCAPED_COMPLETION_NOTE };

/**
 * What readline gets for `complete()`'s candidates. Readline lists the candidates as they are
 * and inserts their common prefix, so a name from the dump with control characters (an ESC
 * sequence, a line break, a bidi override) must reach it neither raw nor as something to
 * insert: the OQL lexer reads no escapes, so an escaped name could not be typed back. Then Tab
 * inserts the common prefix only up to the first such character, and the list shows every
 * candidate escaped (`terminalText`), with a note that also keeps readline from inserting
 * any of them. A list cut short (`more` left out) ends with a note saying how many more match:
 * what they share with the ones listed is no prefix of them all (complete() gives that alone).
 */
export function readlineCompletion(items: string[], word: string, more = 0): [string[], string] {
  const escaped = items.some((item) => controlIndex(item) >= 0);
  if (!escaped && more === 0) return [items, word];
  if (escaped) {
    const prefix = insertablePrefix(items);
    if (prefix.length > word.length) return [[prefix], word];
  }
  // A note shares no first character with a name: the common prefix is empty, nothing is inserted.
  const notes = [...(escaped ? [ESCAPED_COMPLETION_NOTE] : []), ...(more > 0 ? [moreCompletionsNote(more)] : [])];
  return [[...(escaped ? items.map((item) => terminalText(item)) : items), ...notes.flatMap((note) => ['', note])], word];
}

/** File names for `!save` completion: entries of the directory named so far (`~/` as typed). */
function fileCandidates(prefix: string): string[] {
  if (prefix === '~') return ['~/'];
  const dir = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/') + 1) : '';
  try {
    return readdirSync(dir === '' ? '.' : expandHome(dir))
      .filter((n) => !n.startsWith('.') || prefix.slice(dir.length).startsWith('.'))
      .map((n) => {
        const full = dir + n;
        let isDir = false;
        try {
          isDir = statSync(expandHome(full)).isDirectory();
        } catch {
          isDir = false;
        }
        return isDir ? `${full}/` : full;
      })
      .filter((n) => n.startsWith(prefix))
      .sort();
  } catch {
    return [];
  }
}

/** Runs the REPL on `session` until Ctrl-D, `!quit` or the end of the input; returns the exit code. */
export async function runTerminalRepl(session: HeapSession, options: TerminalOptions = {}): Promise<number> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const errors = options.errors ?? process.stderr;
  const tty = Boolean(input.isTTY) && Boolean(output.isTTY);
  const historyFile = tty ? (options.historyFile === undefined ? historyPath() : options.historyFile) : null;

  let progress: ProgressBar | null = null;
  let rl: readline.Interface | null = null;
  // Set by `!quit`: lines already read (piped input reads ahead) do not run.
  let quitting = false;
  // Set by SIGINT with piped input: nothing more runs, the exit code is 130.
  let interrupted = false;
  // Set by Ctrl-C at a terminal that dropped the rest of a block: the `cancelled` says so.
  let restDropped = false;
  // The views escape what comes from the dump (`terminalText`); this keeps any control
  // character that is still left from reaching the terminal.
  const safe = (text: string) => terminalText(text, { keepLineBreaks: true, keepBackslashes: true });
  const io: ReplIO = {
    print: (text) => output.write(text.endsWith('\n') ? safe(text) : `${safe(text)}\n`),
    // A long listing, a block at a time (block-writer.ts). A reader gone (`| head`) ends the
    // session: nothing more could be shown.
    write: async (text, signal) => {
      const ok = await writeBlock(output, safe(text), signal);
      if (!ok && outputClosed(output)) io.quit();
      return ok;
    },
    // An error keeps only its own (indented) lines, as the CLI's `error:` line does: a line
    // break in a name the message quotes is shown escaped and cannot start a line.
    error: (text) => {
      // SIGINT with piped input says it once for the whole input.
      if (interrupted && text === 'cancelled') return;
      if (options.quiet && text.startsWith('warning:')) return;
      if (text === 'cancelled' && restDropped) {
        restDropped = false;
        text = `cancelled ${REST_DROPPED}`;
      }
      errors.write(`${errorLines(text.endsWith('\n') ? text.slice(0, -1) : text)}\n`);
    },
    // A block at a time, to a temporary file renamed over the file at the end (file-save.ts).
    // `~/out.csv` is in the home directory; an error still names the path as typed (!save's).
    saveFile: (file, content, signal) => saveBlocks(file, content, signal),
    progress: (e) => {
      progress ??= options.progressBar?.(errors) ?? { onProgress: () => {}, stop: () => {} };
      progress.onProgress(e);
    },
    progressDone: () => {
      progress?.stop();
      progress = null;
    },
    quit: () => {
      quitting = true;
      rl?.close();
    },
  };
  const repl = new Repl(session, io, options.storedQueries ?? []);

  let buffer: string[] = [];
  const fieldCache = new Map<string, Promise<string[]>>();
  const source: CompletionSource = {
    classNames: () => session.classNames(),
    fieldsOf: (name) => {
      let fields = fieldCache.get(name);
      if (!fields) {
        fields = session.describeClass(name).then((views) => [...new Set(views.flatMap((v) => v.fields.map((f) => f.name)))], () => []);
        fieldCache.set(name, fields);
      }
      return fields;
    },
    columns: () => repl.state.result?.columns.map((c) => c.name) ?? [],
    files: fileCandidates,
    storedQueries: () => repl.state.stored.map((q) => q.name),
  };

  rl = readline.createInterface({
    input,
    output,
    terminal: tty,
    prompt: PROMPT,
    history: historyFile ? loadHistory(historyFile) : [],
    historySize: HISTORY_CAP,
    removeHistoryDuplicates: true,
    tabSize: 4,
    ...(tty
      ? {
          completer: (line: string, callback: (err: Error | null, result: [string[], string]) => void) => {
            complete(line, source, [...buffer, line].join('\n')).then(
              (c) => callback(null, readlineCompletion(c.items, c.word, c.more)),
              () => callback(null, [[], line]),
            );
          },
        }
      : {}),
  });
  const prompt = () => (buffer.length > 0 ? CONTINUATION : PROMPT);
  let running: AbortController | null = null;
  // The first line of the statement running, the first line of a statement read but neither
  // run nor complete yet (0: none), and the input's line last taken (`stdin:N`).
  let runningAt = 0;
  let pendingAt = 0;
  let lineNo = 0;
  // Set when the rest of a line after a statement's `;` goes back to the front of `ahead`: taken
  // again, it is the same line of the input, not the next one.
  let sameLine = false;
  // Bracketed paste while the session is at a terminal (see line-editor.ts), not a dumb one;
  // off again on Ctrl-Z, on leaving, and if the process ends otherwise.
  const pasting = tty && process.env.TERM !== 'dumb';
  const pasteMode = (on: boolean) => pasting && output.write(on ? PASTE_ON : PASTE_OFF);
  const pasteOff = () => pasteMode(false);
  const terminalModes = (on: boolean) => {
    (input as unknown as Partial<tty.ReadStream>).setRawMode?.(on);
    pasteMode(on);
  };
  // The rest of a block (a paste, a multi-line history entry) still to run, line by line
  // (see nextLine below).
  const ahead: string[] = [];
  let closed = false;
  rl.on('close', () => {
    closed = true;
    if (!tty) return;
    pasteOff();
    // Ctrl-D (or the terminal gone) leaves at once: a statement still running is cancelled,
    // and nothing after it runs (the loop stops; the rest of a block is dropped).
    ahead.length = 0;
    running?.abort();
  });
  // One history entry per statement run, appended to the file as it is added.
  let warned = false;
  const remember = tty
    ? historyByStatement(
        rl,
        historyFile
          ? (entry) => {
              const problem = appendHistory(historyFile, entry);
              if (problem && !warned) {
                warned = true;
                if (!options.quiet) errors.write(`warning: history is not saved (${historyFile}: ${problem})\n`);
              }
            }
          : undefined,
      )
    : () => {};
  if (tty) {
    showContinuationLines(rl, CONTINUATION);
    enableBracketedPaste(rl, () => running !== null);
    enableHistorySearch(rl, prompt);
    enableSuspend(rl, terminalModes, () => running !== null);
  }

  // Ctrl-C: cancel what runs, and the rest of its block (a paste) with it, else drop the line
  // and the statement typed so far (it never ran: the history does not keep it).
  rl.on('SIGINT', () => {
    if (running) {
      // (Empty and comment lines left of the block would run nothing.)
      restDropped ||= ahead.some((l) => l.trim() !== '' && !isCommentLine(l));
      ahead.length = 0;
      sameLine = false;
      running.abort();
      return;
    }
    buffer = [];
    output.write('^C\n');
    const r = rl as unknown as { line: string; cursor: number };
    r.line = '';
    r.cursor = 0;
    rl!.setPrompt(PROMPT);
    rl!.prompt();
  });

  // SIGINT as a signal: at a terminal only with the line editor gone (Ctrl-C after Ctrl-D) or
  // from `kill`: it cancels what runs and never ends the session unannounced. Piped input stops
  // (exit code 130); a second one ends the process at once. The handler stays while the
  // process ends after the session (closing a big dump takes a moment): a terminal's Ctrl-C
  // then changes nothing, piped input's ends the process at once.
  let leaving = false;
  const onSignal = () => {
    if (leaving) {
      if (!tty) process.exit(130);
      return;
    }
    if (tty) {
      if (!closed) rl!.emit('SIGINT');
      else running?.abort();
      return;
    }
    if (interrupted) process.exit(130);
    interrupted = true;
    // The first line that did not run: the running statement's, else that of one read and not
    // run yet (waiting for more lines, or for the next one to show it does not go on).
    errors.write(`error: interrupted; the input from stdin:${running ? runningAt : pendingAt || lineNo + 1} on did not run\n`);
    running?.abort();
    rl!.close();
  };
  process.on('SIGINT', onSignal);
  if (tty) {
    const info = session.info();
    output.write(`${renderBanner(session.status, VERSION, { index: info.dump, count: info.dumpCount })}\n`);
    pasteMode(true);
    process.once('exit', pasteOff);
    rl.prompt();
  }
  let failures = 0;
  const run = async (statement: string, line: number) => {
    if (interrupted) return;
    running = new AbortController();
    runningAt = line;
    try {
      // Piped input: errors name the input's line, not the statement's.
      const at = input.isTTY ? undefined : { name: 'stdin', line };
      if (!(await repl.execute(statement, running.signal, at)) && !interrupted) {
        failures++;
        if (!tty) options.onFailure?.();
      }
    } finally {
      running = null;
    }
  };
  // The input's lines, with a look ahead for piped input. At a terminal, a line with newlines in
  // it (a paste, a multi-line history entry) is a block: its lines go through here one by one,
  // as piped lines do, looking ahead within the block only.
  const lines = rl[Symbol.asyncIterator]();
  let ended = false;
  const pull = async (): Promise<string | undefined> => {
    if (ended) return undefined;
    const r = await lines.next();
    if (r.done) ended = true;
    return r.done ? undefined : r.value;
  };
  const nextLine = async () => {
    let line = ahead.length > 0 ? ahead.shift() : await pull();
    if (line?.includes('\n')) {
      const [first, ...rest] = line.split('\n');
      ahead.push(...rest);
      line = first;
    }
    if (line !== undefined && !sameLine) lineNo++;
    sameLine = false;
    return line;
  };
  const peek = async (k: number): Promise<string | undefined> => {
    while (ahead.length <= k) {
      // At a terminal the next line is not typed yet.
      if (input.isTTY) return undefined;
      const l = await pull();
      if (l === undefined) return undefined;
      ahead.push(l);
    }
    return ahead[k];
  };
  // Whether the lines after the complete statement `text` continue it. An empty line, a `!`
  // command or the end of the input (of a block at a terminal) ends it; comment lines go with
  // what follows (`-- @viz` before the next statement is that statement's).
  const goesOn = async (text: string): Promise<boolean> => {
    const next: string[] = [];
    for (let k = 0; ; k++) {
      const l = await peek(k);
      if (l === undefined || l.trim() === '' || (isCommand(l) && !l.trimStart().startsWith('!='))) return false;
      next.push(l);
      if (!isCommentLine(l)) return continuesStatement(text, next.join('\n'));
    }
  };
  // At a terminal, nothing runs after Ctrl-D: not even a line entered just before it, nor the
  // rest of a block.
  const stopped = () => interrupted || quitting || (tty && closed);
  // The rest of a line after a statement's `;` (`SELECT 1; SELECT 2`): the next statement, its
  // start padded with spaces so that an error's column is that of the line as typed.
  let remainder: string | null = null;
  // The statement in `buffer` began so (it is kept in the history without the padding).
  let restInBuffer = false;
  for (let line = await nextLine(); line !== undefined && !stopped(); line = await nextLine()) {
    const rest: boolean = buffer.length === 0 ? line === remainder : restInBuffer;
    remainder = null;
    if (!(buffer.length === 0 && isCommand(line))) {
      const end = statementEndInLine([...buffer, line].join('\n'));
      if (end >= 0) {
        remainder = ' '.repeat(codePoints(line.slice(0, end))) + line.slice(end);
        ahead.unshift(remainder);
        // The statement before the `;` is on this line (`lineNo`); so is the rest, taken next.
        sameLine = true;
        line = line.slice(0, end);
      }
    }
    const typed = buffer.length === 0 && isCommand(line) ? [line] : [...buffer, line];
    const text = typed.join('\n');
    pendingAt = lineNo - typed.length + 1;
    // An empty line ends a statement that spans lines (it runs as typed, errors included).
    let ready = statementComplete(text) || (buffer.length > 0 && line.trim() === '');
    // (A line typed at the prompt has nothing after it yet: it runs.)
    if (ready && line.trim() !== '' && !isCommand(text) && !/;\s*$/.test(text)) ready = !(await goesOn(text));
    if (ready) {
      buffer = [];
      pendingAt = 0;
      // (A statement after another on its line is kept without the padding.)
      remember(statementEntry(rest ? [typed[0]!.trimStart(), ...typed.slice(1)] : typed));
      await run(text, lineNo - typed.length + 1);
      // Ctrl-C came as the statement ended, too late to cancel it: the rest is dropped all the same.
      if (restDropped) {
        restDropped = false;
        errors.write(`${REST_DROPPED}\n`);
      }
      if (stopped()) break;
    } else {
      buffer = typed;
      restInBuffer = rest;
    }
    // The rest of a block is on the screen already. (The cursor stays after what was typed
    // or pasted while a statement ran.)
    if (tty && !closed && ahead.length === 0) {
      rl.setPrompt(prompt());
      rl.prompt(true);
    }
  }
  await lines.return?.();
  // The end of piped input ends the statement still open; at a terminal, Ctrl-D drops one typed
  // in part (at `...>`), as Ctrl-C does.
  if (!tty && buffer.length > 0 && !interrupted) {
    remember(statementEntry(buffer));
    await run(buffer.join('\n'), lineNo - buffer.length + 1);
  }
  // A paged result's paused scan stops (it holds a worker thread).
  repl.close();
  leaving = true;
  if (tty) {
    pasteOff();
    process.off('exit', pasteOff);
    output.write('\n');
  }
  if (interrupted) return 130;
  return !tty && failures > 0 ? 1 : 0;
}
