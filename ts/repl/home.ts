/**
 * `~` in a file path typed at the terminal REPL (`!save ~/out.csv`, its completion): the home
 * directory, as a shell expands it. `~user` is refused rather than written as a directory of
 * that name. Node-only (the home directory); the browser saves by download and never sees it.
 */
import os from 'node:os';
import path from 'node:path';

/** `~` and `~/…` with the home directory; any other path as it is. Throws on `~user`. */
export function expandHome(file: string, home: string = os.homedir()): string {
  if (file === '~') return home;
  if (file.startsWith('~/')) return path.join(home, file.slice(2));
  if (file.startsWith('~')) {
    throw new Error(`only ~ and ~/ are expanded (the home directory), not ~user: write the full path, or ./${file} for a name that starts with ~`);
  }
  return file;
}
