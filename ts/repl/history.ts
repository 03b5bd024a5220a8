/**
 * The terminal REPL's history: a capped file in the user's state directory, shared by every
 * session, and Ctrl-R reverse search on top of Node's readline (which has none of its own).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** Entries newest first (readline's order); [] when there is no file yet. */
export function loadHistory(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter((l) => l.trim() !== '').reverse().slice(0, HISTORY_CAP);
}

/** Writes newest-first `entries` (oldest line first in the file), capped. Returns an error text or null. */
export function saveHistory(file: string, entries: readonly string[]): string | null {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${[...entries.slice(0, HISTORY_CAP)].reverse().join('\n')}\n`, { mode: 0o600 });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
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
