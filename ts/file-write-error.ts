/**
 * What a failed write of a file the user named means, and what to do, in one wording for every
 * writer of such files (`heapql report|waste|diff … <path>`, the REPL's `!save`, `heapql device
 * … --out`): the same failure reads the same everywhere. Each caller keeps its own context in
 * front (`cannot write the report to <path>: `, `cannot write <path>: `).
 *
 * The reason is `<what is wrong> (<CODE>): <what to do>`; a code this table does not know keeps
 * the system's message (the temporary file's name, when one was being written, replaced by the
 * user's path). Node-only (a missing directory is told from one that takes no new files by
 * looking).
 */
import { lstatSync, statSync } from 'node:fs';
import path from 'node:path';

export interface FileWriteContext {
  /** The path as the user gave it (`~/out.csv`), shown in the reason; default: the file. */
  shown?: string;
  /** The name a file inside a directory given as the target could have (`result.csv`). */
  suggestedName?: string;
  /** A temporary file written in the target's stead, whose name never shows. */
  temporary?: string;
}

/** The error's code (`ENOENT`), '' for none. */
export function errorCode(err: unknown): string {
  const c = (err as NodeJS.ErrnoException | null)?.code;
  return typeof c === 'string' ? c : '';
}

/**
 * Why `file` (the path the file system sees: `~` expanded, links followed) could not be written,
 * with what to do. `err` is the error of the write (an object with a `code`, such as
 * `{ code: 'ENOENT' }` for a check made before writing).
 */
export function fileWriteProblem(err: unknown, file: string, context: FileWriteContext = {}): string {
  const shown = context.shown ?? file;
  const dir = path.dirname(shown);
  const c = errorCode(err);
  switch (c) {
    case 'ENOENT':
      return isDirectory(path.dirname(file))
        ? `${dir} takes no new files (ENOENT): choose a path in a directory you may write to`
        : `the directory ${dir} does not exist (ENOENT): create it, or choose another path`;
    case 'ENOTDIR': {
      const culprit = notADirectory(file, shown);
      return culprit === null
        ? `a part of ${dir} is not a directory (ENOTDIR): check the path`
        : `${culprit} is not a directory (ENOTDIR): check the path, or choose another`;
    }
    case 'EISDIR':
      return `${shown} is a directory (EISDIR): name a file, such as ${path.join(shown, context.suggestedName ?? `result${path.extname(shown)}`)}`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${c}): choose a path in a directory you may write to, or change the permissions`;
    case 'EROFS':
      return `${dir} is on a read-only file system (EROFS): choose a path on another file system`;
    case 'ENOSPC':
      return 'no space left on the device (ENOSPC): free some space, or choose a path on another device';
    case 'EDQUOT':
      return 'the disk quota is used up (EDQUOT): free some space, or choose a path on another device';
    case 'EFBIG':
      return "the file grew past the largest this file system or the process's file size limit (ulimit -f) allows (EFBIG): choose a path on another file system, or raise the limit";
    case 'ENAMETOOLONG':
      return 'the name is too long for the file system (ENAMETOOLONG): choose a shorter one';
    case 'ELOOP':
      return `the path goes through too many symbolic links, or a loop of them (ELOOP): check the links along ${shown}`;
    default: {
      const message = (err as Error | null)?.message ?? String(err);
      const said = context.temporary ? message.split(context.temporary).join(file) : message;
      return `${said}: check the path, or choose another`;
    }
  }
}

/** `cannot write <what> to <path>: <reason>`, or `cannot write <path>: <reason>` when nothing names it. */
export function cannotWrite(shown: string, reason: string, what?: string): string {
  return `cannot write ${what ? `${what} to ` : ''}${shown}: ${reason}`;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The deepest directory above `file` that exists and is not a directory, as shown (the shown
 * path walked up alongside the real one, as far as it goes); null when none is found.
 */
function notADirectory(file: string, shown: string): string | null {
  let at = path.dirname(file);
  let said: string | null = path.dirname(shown);
  for (let step = 0; step < 4096 && at !== path.dirname(at); step++) {
    let there = true;
    try {
      lstatSync(at);
    } catch {
      there = false;
    }
    if (there) return isDirectory(at) ? null : (said ?? at);
    at = path.dirname(at);
    // Past the start of a relative or `~` path: the real one is named.
    said = said === null || said === path.dirname(said) ? null : path.dirname(said);
  }
  return null;
}
