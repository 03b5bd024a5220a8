/**
 * The terminal REPL's history: a capped file in the user's state directory, shared by every
 * session, one entry per statement (a statement typed over several lines is one entry, its
 * lines kept), and Ctrl-R reverse search on top of Node's readline (which has none of its own).
 * Each session appends its entries to the file, so sessions open at once keep each other's.
 */
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Interface } from 'node:readline';

/** Entries kept in the history file. */
export const HISTORY_CAP = 1000;

/** `$XDG_STATE_HOME/heapql/history`, else `~/.local/state/heapql/history`. */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'heapql', 'history');
}

/**
 * The file holds one entry a line; the newlines inside an entry (a statement typed over several
 * lines) are stored as CR, as Node's own REPL history does: a line typed never holds a CR (the
 * line editor takes it for Enter), so a file written before keeps its meaning.
 */
const STORED_NEWLINE = '\r';

/** Entries newest first (readline's order), each once; [] when there is no file yet. */
export function loadHistory(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return parseHistory(text);
}

function parseHistory(text: string): string[] {
  const entries = text
    .split('\n')
    // A CR at the end is a CRLF line ending (the file saved again by an editor), not an entry's.
    .map((l) => l.replace(/\r$/, '').replaceAll(STORED_NEWLINE, '\n'))
    .filter((l) => l.trim() !== '')
    .reverse();
  // Sessions append: an entry run again is in the file again; the newest one counts.
  return [...new Set(entries)].slice(0, HISTORY_CAP);
}

function storedLine(entry: string): string {
  return `${entry.replaceAll('\n', STORED_NEWLINE)}\n`;
}

/** What another session may do in the middle of `appendHistory` (the tests' way in). */
export interface HistoryHooks {
  /** After this session has opened the file to append its entry, before it writes. */
  beforeAppend?: () => void;
  /** After a trim has read the file, before it replaces it. */
  afterTrimRead?: () => void;
}

/** A trim's lock file older than this was left by a session that ended while trimming. */
const STALE_LOCK_MS = 60_000;

/**
 * Appends one entry to the file (created with mode 0600), unless it is the file's last one
 * already; returns an error text or null. Every session appends (one write a line), so entries
 * of sessions open at once all stay. Past twice the cap of lines, the file is rewritten with
 * the newest HISTORY_CAP entries (see `trim`). No line is lost to a trim of another session:
 * what that trim's reading missed it carries over after replacing the file, and an entry
 * written to the old file after that is written again to the new one (here: a file read back
 * keeps each entry once, so an entry written twice costs nothing).
 */
export function appendHistory(file: string, entry: string, hooks: HistoryHooks = {}): string | null {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const line = storedLine(entry);
    let before = '';
    try {
      before = readFileSync(file, 'utf8');
    } catch {
      // No file yet.
    }
    if (before === line || before.endsWith(`\n${line}`)) return null;
    appendLine(file, line, hooks.beforeAppend);
    if (before.split('\n').length > 2 * HISTORY_CAP) trim(file, hooks.afterTrimRead);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Appends `line` to the file; when the file written to is no longer the one at `file` (a trim
 * renamed its new file over it meanwhile, perhaps after carrying over the old one's lines),
 * appends it again, to the new one.
 */
function appendLine(file: string, line: string, beforeWrite?: () => void): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    const fd = openSync(file, 'a', 0o600);
    try {
      if (attempt === 0) beforeWrite?.();
      writeSync(fd, line);
      const written = fstatSync(fd);
      let now: Stats | null = null;
      try {
        now = statSync(file);
      } catch {
        // Gone: written again, to a new file.
      }
      if (now && now.ino === written.ino && now.dev === written.dev) return;
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Rewrites the file with its newest HISTORY_CAP entries: written aside, then renamed over it;
 * the lines appended to the old file after it was read are then appended to the new one.
 * One session trims at a time: the one that creates the lock file `<file>.lock` (O_EXCL); any
 * other leaves the trim to it. A lock older than a minute was left by a session that ended
 * while trimming: it is removed, and the next append trims.
 */
function trim(file: string, afterRead?: () => void): void {
  const lock = `${file}.lock`;
  let lockFd: number;
  try {
    lockFd = openSync(lock, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
    } catch {
      // Removed meanwhile by the session that held it.
    }
    return;
  }
  const aside = `${file}.${process.pid}.tmp`;
  try {
    try {
      writeSync(lockFd, `${process.pid}\n`);
    } finally {
      closeSync(lockFd);
    }
    const fd = openSync(file, 'r');
    try {
      const text = readFileSync(fd, 'utf8');
      // Trimmed by another session since this one read it.
      if (text.split('\n').length <= 2 * HISTORY_CAP) return;
      afterRead?.();
      writeFileSync(aside, parseHistory(text).reverse().map(storedLine).join(''), { mode: 0o600 });
      renameSync(aside, file);
      // Lines appended to the old file since it was read (readFileSync goes on from there).
      const later = readFileSync(fd);
      if (later.length > 0) appendFileSync(file, later);
    } finally {
      closeSync(fd);
    }
  } finally {
    rmSync(aside, { force: true });
    rmSync(lock, { force: true });
  }
}

/**
 * The history entry of a statement typed as `lines`: one line as it was typed; several joined
 * with newlines, without the empty line that ended them. '' when there is nothing to keep.
 */
export function statementEntry(lines: readonly string[]): string {
  const kept = [...lines];
  while (kept.length > 1 && kept.at(-1)!.trim() === '') kept.pop();
  const entry = kept.join('\n');
  return entry.trim() === '' ? '' : entry;
}

/**
 * History by statement rather than by line. Readline adds every line typed as an entry, so a
 * statement typed over several lines would come back as fragments: this undoes those additions
 * and keeps only the entries given to the function it returns (see `statementEntry`), newest
 * first, without duplicates, capped. Readline shows an entry with newlines over several rows,
 * edits it, and Enter gives it back as one line, which runs as the same statements. `onAdd`
 * gets each entry added (to save it).
 */
export function historyByStatement(rl: Interface, onAdd?: (entry: string) => void): (entry: string) => void {
  const r = rl as unknown as ReadlineInternals;
  let kept = [...r.history];
  // Readline emits 'history' after adding a line and returns the line it read before, so
  // putting the entries back here changes nothing of the line being entered.
  rl.on('history', (entries: string[]) => {
    entries.splice(0, entries.length, ...kept);
  });
  return (entry) => {
    if (entry.trim() === '') return;
    kept = [entry, ...kept.filter((e) => e !== entry)].slice(0, HISTORY_CAP);
    r.history.splice(0, r.history.length, ...kept);
    onAdd?.(entry);
  };
}

/** Readline's internals used here (stable across Node 18–22, not in its typings). */
interface ReadlineInternals {
  history: string[];
  line: string;
  cursor: number;
  _ttyWrite(s: string | undefined, key: { name?: string; ctrl?: boolean; meta?: boolean; sequence?: string } | undefined): void;
  _refreshLine(): void;
}

/**
 * Ctrl-R searches the history backwards for the text typed after it (again: the next older
 * match); Enter or any editing key takes the match, Ctrl-G or Ctrl-C gives the line back.
 */
export function enableHistorySearch(rl: Interface, currentPrompt: () => string): void {
  const r = rl as unknown as ReadlineInternals;
  const original = r._ttyWrite.bind(rl);
  let search: { query: string; from: number; found: number; savedLine: string } | null = null;

  const show = (failed: boolean) => {
    const s = search!;
    rl.setPrompt(`(${failed ? 'failed ' : ''}reverse-i-search)'${s.query}': `);
    const text = s.found >= 0 ? r.history[s.found]! : s.savedLine;
    r.line = text;
    r.cursor = text.length;
    r._refreshLine();
  };
  const find = (start: number) => {
    const s = search!;
    for (let i = start; i < r.history.length; i++) {
      if (r.history[i]!.includes(s.query)) {
        s.found = i;
        return true;
      }
    }
    return false;
  };
  const leave = (restore: boolean) => {
    const s = search!;
    search = null;
    rl.setPrompt(currentPrompt());
    if (restore) {
      r.line = s.savedLine;
      r.cursor = s.savedLine.length;
    }
    r._refreshLine();
  };

  r._ttyWrite = (s, key) => {
    if (key?.ctrl && key.name === 'r') {
      if (!search) search = { query: '', from: 0, found: -1, savedLine: r.line };
      else if (search.found >= 0) search.from = search.found + 1;
      show(!find(search.from));
      return;
    }
    if (!search) return original(s, key);
    if (key?.ctrl && (key.name === 'g' || key.name === 'c')) return leave(true);
    if (key?.name === 'backspace') {
      search.query = search.query.slice(0, -1);
      search.from = 0;
      show(!find(0));
      return;
    }
    if (s && s.length === 1 && s >= ' ' && !key?.ctrl && !key?.meta) {
      search.query += s;
      show(!find(search.found >= 0 ? search.found : 0));
      return;
    }
    leave(false);
    original(s, key);
  };
}
