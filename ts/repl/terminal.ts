/**
 * The terminal front of the REPL (`heapql query|analyze <dump> --repl`): Node's readline with
 * the `oql>` prompt and a continuation prompt, persistent history (one entry per statement,
 * however many lines it took) with Ctrl-R, tab completion, Ctrl-C that cancels a running
 * statement or clears the line (never exits), Ctrl-D to leave. `~/` in a path is the home
 * directory.
 * With stdin not a terminal, statements are read line by line through the same dispatcher and
 * printed plainly (no prompts, no colours, no progress bar); a statement that has become
 * complete runs once the next line shows it does not go on (see `continuesStatement`), and
 * `!quit` ends the input there.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import readline from 'node:readline';

import type { HeapSession, ProgressEvent } from '../session/index.js';
import { controlIndex, terminalText } from '../terminal-text.js';
import { VERSION } from '../version.js';
import type { ReplIO } from './backend.js';
import { complete, ESCAPED_COMPLETION_NOTE, insertablePrefix, type CompletionSource } from './complete.js';
import { Repl } from './dispatch.js';
import { errorLines } from './errors.js';
import { enableHistorySearch, HISTORY_CAP, historyByStatement, historyPath, loadHistory, saveHistory, statementEntry } from './history.js';
import { expandHome } from './home.js';
import { renderBanner } from './render.js';
import { continuesStatement, isCommand, isCommentLine, statementComplete } from './statement.js';

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
 * any of them.
 */
export function readlineCompletion(items: string[], word: string): [string[], string] {
  if (!items.some((item) => controlIndex(item) >= 0)) return [items, word];
  const prefix = insertablePrefix(items);
  if (prefix.length > word.length) return [[prefix], word];
  // The note shares no first character with a name: the common prefix is empty, nothing is inserted.
  return [[...items.map((item) => terminalText(item)), '', ESCAPED_COMPLETION_NOTE], word];
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
  // The views escape what comes from the dump (`terminalText`); this keeps any control
  // character that is still left from reaching the terminal.
  const safe = (text: string) => terminalText(text, { keepLineBreaks: true, keepBackslashes: true });
  const io: ReplIO = {
    print: (text) => output.write(text.endsWith('\n') ? safe(text) : `${safe(text)}\n`),
    // An error keeps only its own (indented) lines, as the CLI's `error:` line does: a line
    // break in a name the message quotes is shown escaped and cannot start a line.
    error: (text) => errors.write(`${errorLines(text.endsWith('\n') ? text.slice(0, -1) : text)}\n`),
    // `~/out.csv` is in the home directory; an error still names the path as typed (!save's).
    saveFile: (file, content) => writeFileSync(expandHome(file), content),
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
  const repl = new Repl(session, io);

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
              (c) => callback(null, readlineCompletion(c.items, c.word)),
              () => callback(null, [[], line]),
            );
          },
        }
      : {}),
  });
  const prompt = () => (buffer.length > 0 ? CONTINUATION : PROMPT);
  let closed = false;
  rl.on('close', () => (closed = true));
  // One history entry per statement run, saved as it is added.
  let warned = false;
  const remember = tty
    ? historyByStatement(
        rl,
        historyFile
          ? (entries) => {
              const problem = saveHistory(historyFile, entries);
              if (problem && !warned) {
                warned = true;
                errors.write(`warning: history is not saved (${historyFile}: ${problem})\n`);
              }
            }
          : undefined,
      )
    : () => {};
  if (tty) enableHistorySearch(rl, prompt);

  // Ctrl-C: cancel what runs, else drop the line and the statement typed so far (it never ran:
  // the history does not keep it).
  let running: AbortController | null = null;
  rl.on('SIGINT', () => {
    if (running) {
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

  if (tty) {
    output.write(`${renderBanner(session.status, VERSION)}\n`);
    rl.prompt();
  }
  let failures = 0;
  const run = async (statement: string) => {
    running = new AbortController();
    try {
      if (!(await repl.execute(statement, running.signal))) failures++;
    } finally {
      running = null;
    }
  };
  // The input's lines, with a look ahead for piped input.
  const lines = rl[Symbol.asyncIterator]();
  const ahead: string[] = [];
  let ended = false;
  const pull = async (): Promise<string | undefined> => {
    if (ended) return undefined;
    const r = await lines.next();
    if (r.done) ended = true;
    return r.done ? undefined : r.value;
  };
  const nextLine = async () => (ahead.length > 0 ? ahead.shift() : pull());
  const peek = async (k: number): Promise<string | undefined> => {
    while (ahead.length <= k) {
      const l = await pull();
      if (l === undefined) return undefined;
      ahead.push(l);
    }
    return ahead[k];
  };
  // Piped input: whether the lines after the complete statement `text` continue it. An empty
  // line, a `!` command or the end of the input ends it; comment lines go with what follows
  // (`-- @viz` before the next statement is that statement's).
  const goesOn = async (text: string): Promise<boolean> => {
    const next: string[] = [];
    for (let k = 0; ; k++) {
      const l = await peek(k);
      if (l === undefined || l.trim() === '' || (isCommand(l) && !l.trimStart().startsWith('!='))) return false;
      next.push(l);
      if (!isCommentLine(l)) return continuesStatement(text, next.join('\n'));
    }
  };
  for (let line = await nextLine(); line !== undefined; line = await nextLine()) {
    const typed = buffer.length === 0 && isCommand(line) ? [line] : [...buffer, line];
    const text = typed.join('\n');
    // An empty line ends a statement that spans lines (it runs as typed, errors included).
    let ready = statementComplete(text) || (buffer.length > 0 && line.trim() === '');
    // (Not when someone types the lines, whatever the output is.)
    if (ready && !input.isTTY && line.trim() !== '' && !isCommand(text) && !/;\s*$/.test(text)) ready = !(await goesOn(text));
    if (ready) {
      buffer = [];
      remember(statementEntry(typed));
      await run(text);
      if (quitting) break;
    } else buffer = typed;
    if (tty && !closed) {
      rl.setPrompt(prompt());
      rl.prompt();
    }
  }
  await lines.return?.();
  if (buffer.length > 0) {
    remember(statementEntry(buffer));
    await run(buffer.join('\n'));
  }
  if (tty) output.write('\n');
  return !tty && failures > 0 ? 1 : 0;
}
