/**
 * What the terminal REPL adds to Node's line editor (readline) besides its history: bracketed
 * paste (a paste is text to edit, its newlines included, not lines that run one by one), the
 * continuation prompt in front of every later line of a line that holds newlines (a paste, a
 * multi-line history entry), and Ctrl-Z that suspends the session and resumes it at `fg`.
 */
import type { Interface } from 'node:readline';

/** Bracketed paste on / off (xterm): the terminal then wraps a paste in ESC[200~ … ESC[201~. */
export const PASTE_ON = '\x1b[?2004h';
export const PASTE_OFF = '\x1b[?2004l';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

interface Key {
  name?: string;
  code?: string;
  ctrl?: boolean;
  meta?: boolean;
  sequence?: string;
}

/** Readline's internals used here (stable across Node 18–22, not in its typings). */
interface ReadlineInternals {
  line: string;
  cursor: number;
  _ttyWrite(s: string | undefined, key: Key | undefined): void;
  _refreshLine(): void;
  _getDisplayPos(text: string): { cols: number; rows: number };
  _writeToOutput(text: string): void;
}

/**
 * Shows `continuation` at the start of every later line of the line being edited, where
 * readline would start it at column 0; the cursor arithmetic counts it too.
 */
export function showContinuationLines(rl: Interface, continuation: string): void {
  const r = rl as unknown as ReadlineInternals;
  const shown = (text: string) => text.replaceAll('\n', `\n${continuation}`);
  const displayPos = r._getDisplayPos.bind(rl);
  r._getDisplayPos = (text) => displayPos(shown(text));
  // Readline writes the prompt and the whole line in one piece when it redraws; any other
  // write (a line break after Enter, a completion list) is left as it is.
  const write = r._writeToOutput.bind(rl);
  const refresh = r._refreshLine.bind(rl);
  let redrawing = false;
  r._writeToOutput = (text) => write(redrawing ? shown(text) : text);
  r._refreshLine = () => {
    redrawing = true;
    try {
      refresh();
    } finally {
      redrawing = false;
    }
  };
}

/**
 * Takes a bracketed paste (Node's keypress parser names its markers `paste-start` and
 * `paste-end`, codes `[200~` and `[201~`) as text inserted at the cursor, line breaks included
 * (CR, LF or CRLF become one newline), tabs kept and other control characters dropped: nothing
 * runs until Enter. The paste shows once it has all arrived, unless `quiet()` (a statement is
 * running: the next prompt shows it). A terminal that sends no markers sends the keys as typed,
 * as before. A paste whose end marker never comes would take every key after it as pasted text:
 * Ctrl-C or Ctrl-D (keys a terminal does not send inside a paste: it filters their bytes out of
 * what is pasted) end it instead, drop what it held, and then do what they do at the prompt
 * (Ctrl-C clears the line or cancels, Ctrl-D on an empty line leaves).
 */
export function enableBracketedPaste(rl: Interface, quiet: () => boolean): void {
  const r = rl as unknown as ReadlineInternals;
  const original = r._ttyWrite.bind(rl);
  let pasted: string | null = null;
  let afterCr = false;
  r._ttyWrite = (s, key) => {
    if (key?.name === 'paste-start' || key?.code === '[200~') {
      pasted = '';
      afterCr = false;
      return;
    }
    if (pasted === null) return original(s, key);
    if (key?.ctrl && !key.meta && (key.name === 'c' || key.name === 'd')) {
      pasted = null;
      return original(s, key);
    }
    if (key?.name === 'paste-end' || key?.code === '[201~') {
      r.line = r.line.slice(0, r.cursor) + pasted + r.line.slice(r.cursor);
      r.cursor += pasted.length;
      pasted = null;
      if (!quiet()) r._refreshLine();
      return;
    }
    if (key?.name === 'return' || key?.name === 'enter') {
      if (!(key.name === 'enter' && afterCr)) pasted += '\n';
    } else if (s && (s === '\t' || !CONTROL.test(s))) {
      pasted += s;
    }
    afterCr = key?.name === 'return';
  };
}

/**
 * Ctrl-Z: `setModes(false)` gives the terminal back as the shell wants it, the process stops
 * (SIGTSTP), and at `fg` (SIGCONT) `setModes(true)` takes it again and the line is drawn again
 * (unless `quiet()`: a statement is running). Readline's own handling pauses its input on
 * resume, and with nothing else to wait for the process then ends.
 */
export function enableSuspend(rl: Interface, setModes: (on: boolean) => void, quiet: () => boolean): void {
  const r = rl as unknown as ReadlineInternals;
  let suspended = false;
  rl.on('SIGTSTP', () => {
    setModes(false);
    // The terminal is taken again when the process goes on (SIGCONT), however late the stop
    // takes effect. As with readline's own Ctrl-Z, a process group with no shell to resume it
    // (an orphaned one) is not stopped at all and gets no SIGCONT: its line editing stays the
    // terminal's until the session ends.
    if (!suspended) {
      suspended = true;
      process.once('SIGCONT', () => {
        suspended = false;
        setModes(true);
        if (!quiet()) r._refreshLine();
      });
    }
    process.kill(process.pid, 'SIGTSTP');
  });
}
